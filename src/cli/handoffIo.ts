import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { canonicalize, isCaseInsensitive } from '../io/canonicalPath.js';
import { RefusalError } from '../io/errors.js';
import { compileStack, readStack, type CompiledStack } from '../io/loadStack.js';
import { readState, type StoredState } from '../io/stateStore.js';
import type { RunOutcome } from '../handoff/classify.js';
import type { PathRules } from '../handoff/manifest.js';
import { judgeGreen } from './evidence/judge.js';
import { validateCliState, type Session } from './session.js';
import { frozenTests, judgeRedRun, runTests } from './testRun.js';
import { scanTree } from './tree.js';

/** I/O glue shared by the hand-off verbs: the active cycle, changed files, re-runs. */
export interface HandoffCycle {
  state: StoredState;
  stack: CompiledStack;
  rules: PathRules;
}

export function toRel(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join('/');
}

/** A user-given path as a canonical root-relative one (symlinks and `..` resolved). */
export function canonicalRel(root: string, cwd: string, p: string): string {
  return toRel(root, canonicalize(path.resolve(cwd, p)));
}

export function activeCycle(s: Session): HandoffCycle {
  const state = readState(s.statePath);
  if (state === null || state.phase === 'done') {
    throw new RefusalError('no TDD cycle is active on this branch; start one with `tdd-gate init --spec <path>`');
  }
  const stack = compileStack(readStack(s.root), isCaseInsensitive(s.root));
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
    out = execFileSync('git', ['status', '--porcelain=v1', '-z', '-uall'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
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
 * Re-run a child's command through the one runner `verify` uses (clean environment, the
 * runner's machine report) and judge it with the same code: `red` as `verify red` does, `green`
 * as `verify green` does (held to the frozen tests when the command is the whole test command).
 */
export async function rerun(s: Session, cycle: HandoffCycle, command: string, label: string, judge: 'red' | 'green'): Promise<RunOutcome> {
  const { stack } = cycle;
  const state = validateCliState(cycle.state, s.statePath);
  const tree = scanTree(s.root, stack);
  const { run, outcome } = await runTests(s, stack, label, tree, command);
  const whole = command.trim() === stack.config.test_command.trim();
  const verdict = judge === 'red' ? judgeRedRun(s, stack, state, tree, run, outcome) : judgeGreen(outcome, run.command, whole ? frozenTests(state) : null);
  return { command: run.command, exitCode: run.exitCode, output: run.output, timedOut: run.timedOut, problem: verdict.valid ? null : (verdict.reason ?? 'the run does not hold') };
}
