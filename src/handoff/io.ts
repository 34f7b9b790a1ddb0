import { readFileSync } from 'node:fs';
import path from 'node:path';
import { canonicalize, isCaseInsensitive } from '../state/canonicalPath.js';
import { RefusalError } from '../state/rules/errors.js';
import { compileStack, readStack, type CompiledStack } from '../state/loadStack.js';
import { envProbe } from '../state/envProbe.js';
import { readState, type StoredState } from '../state/stateStore.js';
import type { RunOutcome } from './rules/classify.js';
import type { PathRules } from './rules/manifest.js';
import type { CliState } from '../state/schema/cliState.js';
import type { FrozenTests } from '../verify/rules/judge.js';
import { greenRun, redRun } from '../verify/judgeRun.js';
import type { Context } from '../state/context.js';
import { validateCliState } from '../state/schema/cliState.js';
import { frozenTests } from '../verify/testRun.js';
import { scanTree, type Tree } from '../verify/tree.js';
import { gitExec } from '../state/git.js';

/** I/O glue shared by the hand-off verbs: the active cycle, changed files, re-runs. */
interface HandoffCycle {
  state: StoredState;
  stack: CompiledStack;
  rules: PathRules;
}

function toRel(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join('/');
}

/** A user-given path as a canonical root-relative one (symlinks and `..` resolved). */
export function canonicalRel(root: string, cwd: string, p: string): string {
  return toRel(root, canonicalize(path.resolve(cwd, p)));
}

export function activeCycle(s: Context): HandoffCycle {
  const state = readState(s.statePath);
  if (state === null || state.phase === 'done') {
    throw new RefusalError('no TDD cycle is active on this branch; start one with `tdd-gate init --spec <path>`');
  }
  const stack = compileStack(readStack(s.root), isCaseInsensitive(s.root), envProbe(s.root));
  const rules: PathRules = {
    isTest: (rel) => stack.isTest(rel),
    isSource: (rel) => stack.isSource(rel),
    specRel: canonicalRel(s.root, s.root, state.spec_path),
    planRel: state.plan_artifact === '' ? '' : canonicalRel(s.root, s.root, state.plan_artifact),
  };
  return { state, stack, rules };
}

/** Files changed against HEAD, untracked included (what this cycle touched but did not commit). */
export function changedFiles(root: string): string[] {
  let out: string;
  try {
    out = gitExec(['status', '--porcelain=v1', '-z', '-uall'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return [];
  }
  const files: string[] = [];
  const parts = out.split('\0');
  for (let k = 0; k < parts.length; k++) {
    const entry = parts[k] ?? '';
    if (entry.length < 4) continue;
    const status = entry.slice(0, 2);
    if (status.includes('D')) continue;
    files.push(entry.slice(3));
    if (status.startsWith('R') || status.startsWith('C')) k++; // the rename's source follows
  }
  return files.filter((f) => !f.startsWith('.tdd/'));
}

export function readInput(arg: string, cwd: string): string {
  try {
    return arg === '-' ? readFileSync(0, 'utf8') : readFileSync(path.resolve(cwd, arg), 'utf8');
  } catch (err) {
    throw new RefusalError(`cannot read ${arg === '-' ? 'standard input' : arg} (${(err as Error).message})`, { cause: err });
  }
}

/**
 * What a hand-off run of `command` is held to. The whole test command: every test frozen at the
 * freeze, as `verify green` holds it. A command narrowed to test files (or pytest node ids, for one
 * criterion's tests): the frozen tests of those files (or ids). Any other narrowing (a name
 * filter, a flag, a package): what ran, since which frozen tests it selects cannot be read.
 */
function frozenFor(state: CliState, stack: CompiledStack, tree: Tree, command: string): FrozenTests | null {
  const all = frozenTests(state);
  const words = (c: string) => c.trim().split(/\s+/).filter((w) => w !== '');
  const extra = words(command).slice(words(stack.config.test_command).length);
  if (extra.length === 0) return all;
  if (!all?.tests) return null;
  const picks: { file: string; id: string | null }[] = [];
  for (const w of extra) {
    const [file = '', ...rest] = w.split('::');
    const rel = path.posix.normalize(file.replace(/\\/g, '/')).replace(/^\.\//, '');
    if (w.startsWith('-') || !Object.hasOwn(tree.tests, rel)) return null;
    picks.push({ file: rel, id: rest.length > 0 ? [rel, ...rest].join('::') : null });
  }
  const held = (id: string) => picks.some((p) => (p.id === null ? id.startsWith(`${p.file}::`) : id === p.id || id.startsWith(`${p.id}::`) || id.startsWith(`${p.id}[`)));
  return { tests: Object.fromEntries(Object.entries(all.tests).filter(([id]) => held(id))), redTests: all.redTests.filter(held), counts: null };
}

/**
 * Judge a child's command with the very code `verify` uses (src/verify/judgeRun.ts): `red` as
 * `verify red` does (the work tree), `green` as `verify green` does (the frozen bytes out of the
 * agent's reach, runner reach, per test against the freeze; lint and coverage for the whole test
 * command). What keeps the oracle from running at all (it moved, processes still running, no
 * freeze) is a refusal, as it is for `verify green`.
 */
export async function rerun(s: Context, cycle: HandoffCycle, command: string, label: string, judge: 'red' | 'green'): Promise<RunOutcome> {
  const { stack } = cycle;
  const state = validateCliState(cycle.state, s.statePath);
  const tree = scanTree(s.root, stack);
  const whole = command.trim() === stack.config.test_command.trim();
  // What `verify` just ran on the same inputs is not run again (the receipts it recorded).
  const r = state.receipts ?? {};
  const { run, verdict } =
    judge === 'red'
      ? await redRun(s, stack, state, tree, label, command, [r.red])
      : await greenRun(s, stack, state, tree, label, { checks: whole, command, frozen: frozenFor(state, stack, tree, command), reuse: whole ? [r.refactor, r.green] : [] });
  return { command: run.command, exitCode: run.exitCode, output: run.output, timedOut: run.timedOut, problem: verdict.valid ? null : (verdict.reason ?? 'the run does not hold') };
}
