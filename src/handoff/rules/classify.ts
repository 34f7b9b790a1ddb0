import { blockTemplate, type ParseOutcome, type Role, type TddResult } from './block.js';
import { failureSignature, retryText } from './output.js';
import type { Mode } from './loopState.js';

/**
 * One re-run of a child's command, judged by the same code as `tdd-gate verify`: `problem` is
 * why the run does not prove the child's claim (RED for the test-writer, GREEN for the
 * implementer and the refactorer), null when it does.
 */
export interface RunOutcome {
  command: string;
  exitCode: number | null;
  output: string;
  timedOut: boolean;
  problem: string | null;
}

/** Everything known about one child's hand-back, gathered by the CLI. */
interface Attempt {
  /** The role the child was invoked as. */
  role: Role;
  ac: string;
  parse: ParseOutcome;
  /** The child stopped without finishing (ran out of turns, was interrupted). */
  incomplete: boolean;
  /** The block's command was refused (not the project's test command); a format violation. */
  commandError?: string;
  run?: RunOutcome;
}

export const MODE_NAMES: Record<Mode, string> = {
  A: 'false RED: the tests do not fail validly',
  B: 'the implementer cannot reach GREEN',
  C: 'the refactorer broke GREEN',
  D: 'format violation: no valid tdd-result block',
  E: 'the child stopped without a result block',
};

export type Verdict =
  | { kind: 'pass'; result: TddResult }
  /** `retryRole` is the child to re-invoke (a validator's BLOCKER sends the test-writer back). */
  | { kind: 'fail'; mode: Mode; retryRole: Role; detail: string; retryText: string; signature: string | null; result?: TddResult }
  | { kind: 'blocked'; result: TddResult };

export function formatInstruction(message: string, role: Role, ac: string): string {
  return [
    `Your final message must end with exactly one valid tdd-result block. Problem: ${message}.`,
    'Do not redo or change the work; only report it. End your reply with a block like this (fill in the real values):',
    '',
    blockTemplate(role, ac === '-' ? undefined : ac),
  ].join('\n');
}

/** Classify one hand-back into proceed (pass), one of the failure modes A–E, or blocked. Pure. */
export function classify(a: Attempt): Verdict {
  if (!a.parse.ok) {
    if (a.incomplete && a.parse.code === 'no-block') {
      const raw = a.run?.output ?? '';
      return { kind: 'fail', mode: 'E', retryRole: a.role, detail: MODE_NAMES.E, retryText: retryText(raw), signature: null };
    }
    return { kind: 'fail', mode: 'D', retryRole: a.role, detail: a.parse.message, retryText: formatInstruction(a.parse.message, a.role, a.ac), signature: null };
  }
  const result = a.parse.result;
  if (a.commandError !== undefined) {
    return { kind: 'fail', mode: 'D', retryRole: a.role, detail: a.commandError, retryText: formatInstruction(a.commandError, a.role, a.ac), signature: null, result };
  }
  if (result.status === 'blocked') return { kind: 'blocked', result };
  const run = a.run;
  const semantic = (mode: Mode, retryRole: Role, detail: string): Verdict => ({
    kind: 'fail',
    mode,
    retryRole,
    detail,
    retryText: retryText(run?.output ?? ''),
    signature: run ? failureSignature(run.output) : null,
    result,
  });
  switch (result.role) {
    case 'planner':
      return result.status === 'ok' ? { kind: 'pass', result } : { kind: 'blocked', result };
    case 'test-validator':
      if (result.status === 'ok' && result.verdict === 'PASS') return { kind: 'pass', result };
      return semantic('A', 'test-writer', `the test validator returned ${result.verdict ?? 'no verdict'} (status ${result.status})`);
    case 'test-writer': {
      const problem = run ? run.problem : 'the command was not run';
      if (result.status === 'ok' && problem === null) return { kind: 'pass', result };
      return semantic('A', 'test-writer', result.status === 'ok' ? `${MODE_NAMES.A}: ${problem ?? ''}` : `the test-writer reports status ${result.status}`);
    }
    case 'implementer':
    case 'refactorer': {
      const mode: Mode = result.role === 'implementer' ? 'B' : 'C';
      const problem = run ? run.problem : 'the command was not run';
      if (result.status === 'ok' && problem === null) return { kind: 'pass', result };
      return semantic(mode, result.role, result.status === 'ok' ? `${MODE_NAMES[mode]}: ${problem ?? ''}` : `the ${result.role} reports status ${result.status}`);
    }
  }
}
