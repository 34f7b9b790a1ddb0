import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';

export const DEFAULT_STACK = {
  language: 'typescript',
  test_command: 'npx vitest run',
  test_file_glob: 'tests/**|**/*.test.ts',
  source_file_glob: 'src/**',
  red_confirm: 'AssertionError|expected .* to',
  build_error_pattern: 'SyntaxError|Cannot find module|error TS\\d+',
};

export const SPEC_TEXT = '# SPEC-001\n\n#### Scenario: adds\n- GIVEN 1 and 2\n- THEN 3\n';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The DESIGN §2 state file name, computed independently of the product code. */
export function stateFileFor(branch: string): string {
  const slug = branch.replace(/[^A-Za-z0-9]/gu, '-').slice(0, 80);
  return `state-${slug}-${createHash('sha256').update(branch, 'utf8').digest('hex').slice(0, 6)}.json`;
}

export function specHashOf(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').split('\n').map((l) => l.replace(/[ \t]+$/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

export interface TestRepo {
  root: string;
  write(rel: string, content: string): string;
  setState(state: Record<string, unknown> | null, branch?: string): string;
  setStack(stack: unknown): void;
  path(rel: string): string;
}

/**
 * An empty repository per branch name, made once per worker and copied for each test: `git init`
 * and its configuration cost three processes, which every test would otherwise start again.
 */
const emptyRepos = new Map<string, string>();
function emptyRepo(branch: string): string {
  let dir = emptyRepos.get(branch);
  if (dir === undefined) {
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-empty-')));
    git(dir, 'init', '-q', '-b', branch);
    git(dir, 'config', 'user.email', 't@example.com');
    git(dir, 'config', 'user.name', 'T');
    const made = dir;
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    emptyRepos.set(branch, dir);
  }
  return dir;
}

/** A temporary git repository with a SPEC and a stack.json, removed when the test finishes. */
export function testRepo(opts: { branch?: string; stack?: unknown; files?: Record<string, string> } = {}): TestRepo {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-')));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  cpSync(emptyRepo(opts.branch ?? 'main'), root, { recursive: true });
  const repo: TestRepo = {
    root,
    path: (rel) => path.join(root, rel),
    write(rel, content) {
      const file = path.join(root, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
      return file;
    },
    setState(state, branch = opts.branch ?? 'main') {
      const file = path.join(root, '.tdd', stateFileFor(branch));
      if (state === null) rmSync(file, { force: true });
      else repo.write(path.relative(root, file), JSON.stringify(state, null, 2));
      return file;
    },
    setStack(stack) {
      repo.write('.tdd/stack.json', typeof stack === 'string' ? stack : JSON.stringify(stack, null, 2));
    },
  };
  repo.write('specs/SPEC-001.md', SPEC_TEXT);
  if (opts.stack !== null) repo.setStack(opts.stack ?? DEFAULT_STACK);
  for (const [rel, content] of Object.entries(opts.files ?? {})) repo.write(rel, content);
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'init', '--allow-empty');
  return repo;
}

export function state(phase: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const frozen = phase === 'tdd-green' || phase === 'tdd-refactor';
  return {
    version: 1,
    phase,
    mode: 'standard',
    spec_id: 'SPEC-001',
    spec_path: 'specs/SPEC-001.md',
    spec_hash: frozen ? specHashOf(SPEC_TEXT) : '',
    plan_artifact: phase === 'tdd-plan' ? '' : '.tdd/plans/SPEC-001.md',
    started_at: '2026-11-22T00:00:00.000Z',
    phase_entered_at: '2026-11-22T00:00:00.000Z',
    ...extra,
  };
}
