import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { appendEvent } from '../state/eventLog.js';
import { GateError, RefusalError } from '../state/rules/errors.js';
import { compileStack, readStack, STACK_REL, type CompiledStack } from '../state/loadStack.js';
import { envProbe } from '../state/envProbe.js';
import { isCaseInsensitive } from '../state/canonicalPath.js';
import { findRepo, type Repo } from '../state/repo.js';
import { statePathFor } from '../state/statePath.js';
import { anchorMismatch } from '../state/anchor.js';
import { readStateText } from '../state/loadState.js';
import { readState, withState } from '../state/stateStore.js';
import { validateCliState, type CliState } from '../state/schema/cliState.js';
import type { Phase } from '../state/schema/state.js';
import type { CliIo } from './verb.js';
import type { Context } from '../state/context.js';

/** Where a verb runs: the repository, its branch's state file, the clock (a plain Context). */
export type Session = Context;

export function openSession(io: CliIo): Session {
  let repo: Repo | null;
  try {
    repo = findRepo(io.cwd);
  } catch (err) {
    throw new RefusalError(`cannot read the git repository around ${io.cwd} (${(err as Error).message}); run tdd-gate inside a working git checkout`, { cause: err });
  }
  if (repo === null) {
    throw new RefusalError(`${io.cwd} is not inside a git repository; tdd-gate keeps one TDD state per branch, so run \`git init\` first or cd into the project`);
  }
  const statePath = statePathFor(repo);
  return { io, repo, root: repo.root, statePath, stateRel: path.relative(repo.root, statePath), now: () => new Date() };
}


export function loadState(s: Session): CliState | null {
  const raw = readState(s.statePath);
  return raw === null ? null : validateCliState(raw, s.statePath);
}

/**
 * The state for a verb that acts on the evidence: refused first when it is not the state the CLI
 * last wrote (the anchor, ADR 006), since every hash and receipt in it would be suspect.
 */
export function loadCheckedState(s: Session): CliState | null {
  const mismatch = anchorMismatch(s.statePath, readStateText(s.statePath));
  if (mismatch !== null) throw new GateError(mismatch, 'state-tampered');
  return loadState(s);
}

const NEXT_FOR: Record<Phase, string> = {
  'tdd-plan': '`tdd-gate advance red --plan <file>`',
  'tdd-red': '`tdd-gate verify red`, then `tdd-gate freeze --verdict <file>`',
  'tdd-green': '`tdd-gate verify green`, then `tdd-gate advance refactor` or `tdd-gate done`',
  'tdd-refactor': '`tdd-gate verify refactor`, then `tdd-gate done`',
  done: '`tdd-gate init --spec <path>` to start a new cycle',
};

export function nextStepFor(phase: Phase): string {
  return NEXT_FOR[phase];
}

/** The state, which must be in one of `phases`; otherwise a refusal naming the next legitimate step. */
export function requirePhase(state: CliState | null, phases: readonly Phase[], verb: string): CliState {
  if (state === null) throw new RefusalError(`no TDD cycle on this branch; start one with \`tdd-gate init --spec <path>\``);
  if (!phases.includes(state.phase)) {
    throw new RefusalError(`\`${verb}\` needs phase ${phases.join(' or ')}, but the cycle is in ${state.phase}; next: ${nextStepFor(state.phase)}`);
  }
  return state;
}

export function loadStack(s: Session): CompiledStack {
  if (!existsSync(path.join(s.root, STACK_REL))) {
    // Nothing to do with a cycle: the project has not been set up yet.
    throw new RefusalError(`there is no ${STACK_REL} in this project (it names the test command and which files are tests and sources); create it with \`tdd-gate stack detect --write\` (in Claude Code: /tdd-gate:setup), then run this command again`);
  }
  try {
    return compileStack(readStack(s.root), isCaseInsensitive(s.root), envProbe(s.root));
  } catch (err) {
    if (err instanceof GateError) throw new RefusalError(err.fix === undefined ? err.message : `${err.problem}. Run \`tdd-gate stack check\` for details or \`tdd-gate stack detect --write\` to create one`, { cause: err });
    throw err;
  }
}

export function readSpec(s: Session, specPath: string): string {
  try {
    return readFileSync(path.resolve(s.root, specPath), 'utf8');
  } catch (err) {
    throw new RefusalError(`cannot read the SPEC ${specPath} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); restore it or give the right --spec path`, { cause: err });
  }
}

/**
 * Locked read-modify-write of the CLI state. `fn` sees the state as it is now (after any
 * concurrent change) and may throw a RefusalError to leave it untouched.
 */
export async function updateState(s: Session, fn: (current: CliState | null) => CliState | undefined): Promise<CliState | null> {
  const next = await withState(s.statePath, (current) => {
    const validated = current === null ? null : validateCliState(current, s.statePath);
    return fn(validated);
  });
  return next === null ? null : (next);
}

/**
 * Move the cycle from one of `from` to `to` under the lock, with `patch` applied; records the
 * history entry and the transition event.
 */
export async function transition(
  s: Session,
  verb: string,
  from: readonly Phase[],
  to: Phase,
  patch: (current: CliState, at: string) => Partial<CliState>,
  note?: string,
): Promise<CliState> {
  let previous: Phase = 'done';
  const next = await updateState(s, (current) => {
    const state = requirePhase(current, from, verb);
    previous = state.phase;
    const at = s.now().toISOString();
    const history = [...(state.history ?? []), { at, from: state.phase, to, verb, ...(note ? { note } : {}) }];
    return { ...state, ...patch(state, at), phase: to, phase_entered_at: to === state.phase ? state.phase_entered_at : at, history };
  });
  appendEvent(s.root, { type: 'transition', from: previous, to, verb, ...(note ? { note } : {}) });
  return next!;
}

export function out(s: Session, line: string): void {
  s.io.stdout.write(line.endsWith('\n') ? line : line + '\n');
}
