import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { unignoreCycles } from '../../src/audit/writeRecord.js';
import { TDD_GITIGNORE } from '../../src/state/tddDir.js';
import { testRepo } from '../helpers/repo.js';

/** The paths git would leave out of `git add -A`. */
function ignored(root: string, rels: string[]): string[] {
  try {
    return execFileSync('git', ['check-ignore', '--no-index', ...rels], { cwd: root, encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  } catch {
    return []; // exit 1: none ignored
  }
}

const PATHS = ['.tdd/cycles/SPEC-1-20260101-abcd1234.json', '.tdd/cycles/blobs/' + 'a'.repeat(64), '.tdd/state-main-abc123.json', '.tdd/runs/x.log', '.tdd/evidence/SPEC-1.json', '.tdd/stack.json'];

describe('.tdd/.gitignore lets the cycle records through', () => {
  it('the one init writes: records and their copies are committed, the rest of .tdd/ stays local', () => {
    const repo = testRepo();
    repo.write('.tdd/.gitignore', TDD_GITIGNORE);
    expect(ignored(repo.root, PATHS)).toEqual(['.tdd/state-main-abc123.json', '.tdd/runs/x.log', '.tdd/evidence/SPEC-1.json']);
  });

  it('one an older release wrote gets the two lines, once, and keeps the rest', () => {
    const repo = testRepo();
    const old = '# written by tdd-gate: state, runs and snapshots stay local\n*\n!.gitignore\n!stack.json\n';
    repo.write('.tdd/.gitignore', old);
    expect(ignored(repo.root, PATHS)).toContain(PATHS[0]);
    unignoreCycles(repo.root);
    unignoreCycles(repo.root);
    expect(readFileSync(repo.path('.tdd/.gitignore'), 'utf8')).toBe(`${old}!cycles/\n!cycles/**\n`);
    expect(ignored(repo.root, PATHS)).toEqual(['.tdd/state-main-abc123.json', '.tdd/runs/x.log', '.tdd/evidence/SPEC-1.json']);
  });
});
