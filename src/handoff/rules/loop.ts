import type { Role, TddResult } from './block.js';
import { MODE_NAMES, type Verdict } from './classify.js';
import { emptyLoop, loopStateSchema, type AcLoop, type Cycle, type LoopState, type Mode } from './loopState.js';
import { formatIssues } from '../../state/schema/format.js';
import { GateError } from '../../state/rules/errors.js';

/** The acceptance-criterion key when neither the block nor the invocation names one. */
export const NO_AC = '-';

type Action = 'proceed' | 'retry' | 'halt';

export interface Next {
  action: Action;
  mode: Mode | null;
  /** The child to invoke next: the same role on retry, the test-writer after a validator's BLOCKER. */
  role: Role;
  ac: string;
  detail: string;
  /** Retry: the prompt for the retried child (raw runner output for A/B/C/E, the format instruction for D). */
  retryText?: string;
  retries?: { used: number; limit: number; kind: 'semantic' | 'format' };
  /** Halt: the report for the person. */
  report?: string;
  loop: LoopState;
}

/** The persisted `loop` key, or a fresh one; a malformed key is a named error, never silently reset. */
export function readLoop(state: Record<string, unknown>): LoopState {
  if (state.loop === undefined) return emptyLoop();
  const parsed = loopStateSchema.safeParse(state.loop);
  if (!parsed.success) {
    throw new GateError(`the state's "loop" key is invalid (${formatIssues(parsed.error)}); it was left untouched. Restore the state file, or end the cycle with \`tdd-gate abort --reason "<why>"\``, 'state-corrupt', { cause: parsed.error });
  }
  return parsed.data;
}

function clone(loop: LoopState): LoopState {
  return structuredClone(loop);
}

function acOf(loop: LoopState, ac: string): AcLoop {
  loop.acs[ac] ??= { status: 'pending', cycles: [], same_failure: null, test_files: [], source_files: [] };
  return loop.acs[ac];
}

function isComplete(c: Cycle): boolean {
  return c.refactor === 'ok' || c.refactor === 'skipped';
}

function budgetKey(role: Role, ac: string): string {
  return `${role} ${ac}`;
}

function union(a: string[], b: string[]): string[] {
  return [...new Set([...a, ...b])];
}

function currentCycle(entry: AcLoop): Cycle | undefined {
  return entry.cycles[entry.cycles.length - 1];
}

/** A test-writer hand-back on an AC with no open cycle starts a new inner cycle; true when it did. */
function openCycle(loop: LoopState, entry: AcLoop, now: string): boolean {
  const last = currentCycle(entry);
  if (last && !isComplete(last)) return false;
  entry.cycles.push({ n: entry.cycles.length + 1, started_at: now, red: 'pending', green: 'pending', refactor: 'pending' });
  loop.cycles_total += 1;
  return true;
}

function stepOf(role: Role): 'red' | 'green' | 'refactor' | null {
  if (role === 'test-writer' || role === 'test-validator') return 'red';
  if (role === 'implementer') return 'green';
  if (role === 'refactorer') return 'refactor';
  return null;
}

function recordPass(entry: AcLoop, r: TddResult, isTest: (f: string) => boolean): void {
  entry.same_failure = null;
  const cycle = currentCycle(entry);
  switch (r.role) {
    case 'planner':
    case 'test-validator':
      return;
    case 'test-writer':
      if (cycle) cycle.red = 'ok';
      entry.status = 'failing';
      entry.test_files = union(entry.test_files, r.files.filter(isTest));
      entry.source_files = union(entry.source_files, r.files.filter((f) => !isTest(f)));
      return;
    case 'implementer':
      if (cycle) {
        cycle.green = 'ok';
        if (r.refactor_needed === false) cycle.refactor = 'skipped';
      }
      entry.status = 'passing';
      entry.source_files = union(entry.source_files, r.files.filter((f) => !isTest(f)));
      return;
    case 'refactorer':
      if (cycle) cycle.refactor = 'ok';
      entry.source_files = union(entry.source_files, r.files.filter((f) => !isTest(f)));
      return;
  }
}

interface Facts {
  now: string;
  /** Which reported paths are test files (the stack's test glob). */
  isTest: (rel: string) => boolean;
}

/**
 * Apply one classified hand-back to the loop: budgets, escalation, the double-loop bookkeeping.
 * Pure: the CLI persists `next.loop` under the state lock.
 */
export function advanceLoop(prev: LoopState, role: Role, ac: string, verdict: Verdict, facts: Facts): Next {
  const loop = clone(prev);
  const base = { role, ac, loop };
  if (loop.halted) {
    return { ...base, action: 'halt', mode: loop.halted.mode, detail: `already halted: ${loop.halted.reason}`, report: loop.halted.report };
  }
  // The planner works on the whole SPEC: it seeds the outer loop and has no criterion of its own.
  const entry = role === 'planner' ? null : acOf(loop, ac);
  if (entry) loop.current_ac = ac;

  // Every test-writer hand-back belongs to an inner cycle; a new one may break the total bound.
  if (entry && role === 'test-writer' && (verdict.kind !== 'fail' || verdict.mode !== 'D')) {
    if (openCycle(loop, entry, facts.now) && loop.cycles_total > loop.limits.max_cycles) {
      return halt(loop, role, ac, verdict.kind === 'fail' ? verdict.mode : null, `more than ${loop.limits.max_cycles} TDD cycles in total`, verdict, facts.now);
    }
  }

  if (verdict.kind === 'blocked') {
    return halt(loop, role, ac, null, `the ${role} reports status ${verdict.result.status}: ${verdict.result.notes ?? '(no notes)'}`, verdict, facts.now);
  }
  if (verdict.kind === 'pass') {
    if (entry) recordPass(entry, verdict.result, facts.isTest);
    for (const seeded of verdict.result.acs ?? []) acOf(loop, seeded);
    loop.last = { at: facts.now, role, ac, action: 'proceed', mode: null };
    return { ...base, action: 'proceed', mode: null, detail: describePass(verdict.result), loop };
  }

  const retryRole = verdict.retryRole;
  const step = stepOf(retryRole);
  const cycle = entry ? currentCycle(entry) : undefined;
  if (step && cycle && verdict.mode !== 'D') cycle[step] = 'failed';
  if (entry && verdict.mode !== 'D' && entry.status === 'passing' && retryRole === 'refactorer') entry.status = 'failing';

  if (entry && verdict.signature !== null) {
    const same = entry.same_failure?.signature === verdict.signature;
    entry.same_failure = { signature: verdict.signature, count: same ? (entry.same_failure?.count ?? 0) + 1 : 1 };
    if (entry.same_failure.count >= loop.limits.same_failure) {
      return halt(loop, retryRole, ac, verdict.mode, `the same failure ${entry.same_failure.count} times in a row`, verdict, facts.now);
    }
  }

  const key = budgetKey(retryRole, ac);
  const budget = (loop.budgets[key] ??= { semantic: 0, format: 0 });
  const kind = verdict.mode === 'D' ? 'format' : 'semantic';
  const limit = kind === 'format' ? loop.limits.format_retries : loop.limits.semantic_retries;
  if (budget[kind] >= limit) {
    return halt(loop, retryRole, ac, verdict.mode, `${kind} retry budget spent (${budget[kind]} of ${limit} retries used)`, verdict, facts.now);
  }
  budget[kind] += 1;
  loop.last = { at: facts.now, role: retryRole, ac, action: 'retry', mode: verdict.mode };
  return {
    action: 'retry',
    mode: verdict.mode,
    role: retryRole,
    ac,
    detail: verdict.detail,
    retryText: verdict.retryText,
    retries: { used: budget[kind], limit, kind },
    loop,
  };
}

function describePass(r: TddResult): string {
  switch (r.role) {
    case 'test-writer':
      return 'valid RED: the tests fail on an assertion';
    case 'implementer':
      return `GREEN: the command passes${r.refactor_needed ? ` (refactor needed: ${(r.refactor_reasons ?? []).join(', ')})` : ''}`;
    case 'refactorer':
      return 'still GREEN after the refactor';
    case 'test-validator':
      return 'the test validator returned PASS';
    case 'planner':
      return `plan reported${r.acs ? ` (${r.acs.join(', ')})` : ''}`;
  }
}

function halt(loop: LoopState, role: Role, ac: string, mode: Mode | null, reason: string, verdict: Verdict, now: string): Next {
  const key = budgetKey(role, ac);
  const used = loop.budgets[key] ?? { semantic: 0, format: 0 };
  const lastBlock = verdict.kind === 'fail' ? verdict.result?.raw : verdict.result.raw;
  const lines = [
    'tdd-gate halt: the TDD loop stops here and needs a person.',
    `reason: ${reason}`,
    `mode: ${mode === null ? '-' : `${mode} (${MODE_NAMES[mode]})`}`,
    `role: ${role}`,
    `ac: ${ac}`,
    `retries used: ${used.semantic} of ${loop.limits.semantic_retries} semantic, ${used.format} of ${loop.limits.format_retries} format`,
    `cycles: ${loop.cycles_total} of at most ${loop.limits.max_cycles}`,
  ];
  if (verdict.kind === 'fail') {
    lines.push(`detail: ${verdict.detail}`);
  }
  if (lastBlock !== undefined) lines.push('', 'last block:', lastBlock);
  if (verdict.kind === 'fail' && verdict.mode !== 'D') lines.push('', 'raw output:', verdict.retryText);
  lines.push('', 'Next: show this report to the user and stop. They decide: fix and resume (`tdd-gate result --resume`), or end the cycle (`tdd-gate abort --reason "<why>"`).');
  const report = lines.join('\n');
  loop.halted = { at: now, mode, role, ac, reason, report };
  loop.last = { at: now, role, ac, action: 'halt', mode };
  return { action: 'halt', mode, role, ac, detail: reason, report, loop };
}

/** Clear a halt (the person's decision): the halted role's budgets on that AC start over. */
export function resumeLoop(prev: LoopState): LoopState {
  const loop = clone(prev);
  if (loop.halted) {
    delete loop.budgets[budgetKey(loop.halted.role as Role, loop.halted.ac)];
    const entry = loop.acs[loop.halted.ac];
    if (entry) entry.same_failure = null;
    loop.halted = null;
  }
  return loop;
}
