import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { cli, ok, readState, startRed, writeVerdict } from '../cli/fixtures.js';
import type { TestRepo } from '../helpers/repo.js';

/**
 * One runner's held-out cycle: the visible test pins add(1, 2) = 3; the held-out test pins other
 * inputs (negative numbers, zero). A special-cased implementation answers only the visible input.
 */
export interface RunnerCase {
  name: string;
  /** A project with the runner, stack.json included (heldout: required). */
  make: () => TestRepo;
  visible: [rel: string, text: string];
  heldout: [rel: string, text: string];
  source: string;
  stub: string;
  special: string;
  genuine: string;
  /** The held-out test's name as a refusal shows it. */
  heldoutName: RegExp;
  /** What its assertion message says (the expected value). */
  assertion: RegExp;
  /** Lines of the held-out test's source that must never be shown. */
  secret: string[];
}

/** Every file under `dir` (relative), recursively. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel))) {
      const r = rel === '' ? name : `${rel}/${name}`;
      if (statSync(path.join(dir, r)).isDirectory()) walk(r);
      else out.push(r);
    }
  };
  walk('');
  return out;
}

/** Text of every file in the work tree but node_modules and .git (what an agent could read there). */
export function treeText(repo: TestRepo): string {
  return filesUnder(repo.root)
    .filter((rel) => !rel.startsWith('node_modules/') && !rel.startsWith('.git/') && !rel.startsWith('target/'))
    .map((rel) => {
      try {
        return readFileSync(repo.path(rel), 'utf8');
      } catch {
        return '';
      }
    })
    .join('\n');
}

/** RED with both sets, the validator's PASS, the freeze: the held-out file leaves the tree. */
export function toGreen(repo: TestRepo, c: RunnerCase): void {
  startRed(repo);
  repo.write(c.source, c.stub);
  repo.write(c.visible[0], c.visible[1]);
  // Only the visible set: RED refuses, naming the rule it applied.
  const only = ok(cli(repo, 'verify', 'red'), 1);
  expect(only.stderr).toMatch(/no held-out test fails for this cycle \(the rule overall/);
  repo.write(c.heldout[0], c.heldout[1]);
  const red = ok(cli(repo, 'verify', 'red'));
  expect(red.stdout).toMatch(/held-out tests: [1-9]/);
  writeVerdict(repo);
  const frozen = ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
  expect(frozen.stdout).toMatch(/held-out tests: 1 files/);
  const st = readState(repo) as unknown as { frozen: { files: Record<string, string>; heldout: string[] } };
  expect(st.frozen.heldout).toEqual([c.heldout[0]]);
  expect(st.frozen.files[c.heldout[0]]).toMatch(/^[0-9a-f]{64}$/);
  expect(existsSync(repo.path(c.heldout[0]))).toBe(false);
  const text = treeText(repo);
  for (const line of c.secret) expect(text).not.toContain(line);
}

/** The whole run: refused special case, then the genuine implementation reaches done with the file back. */
export function heldoutCycle(c: RunnerCase): void {
  const repo = c.make();
  toGreen(repo, c);
  repo.write(c.source, c.special);
  const refused = ok(cli(repo, 'verify', 'green'), 1);
  const said = refused.stdout + refused.stderr;
  if (process.env.HELDOUT_DEBUG) console.log(said, treeText(repo).slice(-3000));
  expect(said).toMatch(c.heldoutName);
  expect(said).toMatch(c.assertion);
  expect(said).not.toContain(c.heldout[0]);
  expect(said).not.toContain(path.basename(c.heldout[0]));
  for (const line of c.secret) expect(said).not.toContain(line);
  // The log left in the work tree shows no more than the refusal.
  const text = treeText(repo);
  for (const line of c.secret) expect(text).not.toContain(line);
  expect(existsSync(repo.path(c.heldout[0]))).toBe(false);

  repo.write(c.source, c.genuine);
  ok(cli(repo, 'verify', 'green'));
  const done = ok(cli(repo, 'done'));
  expect(done.stdout).toMatch(/held-out: \d+ tests in 1 files passed unseen; back in the work tree/);
  expect(readFileSync(repo.path(c.heldout[0]), 'utf8')).toBe(c.heldout[1]);
  const cycles = readdirSync(repo.path('.tdd/cycles')).filter((n) => n.endsWith('.json'));
  const record = JSON.parse(readFileSync(repo.path(`.tdd/cycles/${cycles[0]!}`), 'utf8')) as { frozen: { heldout: string[]; files: Record<string, string> } };
  expect(record.frozen.heldout).toEqual([c.heldout[0]]);
  expect(Object.keys(record.frozen.files)).toEqual(expect.arrayContaining([c.visible[0], c.heldout[0]]));
}
