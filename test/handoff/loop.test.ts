import { describe, expect, it } from 'vitest';
import { parseResult, type Role } from '../../src/handoff/rules/block.js';
import { classify, type RunOutcome } from '../../src/handoff/rules/classify.js';
import { checkCommand } from '../../src/handoff/rules/command.js';
import { describeLoop } from '../../src/handoff/rules/describe.js';
import { advanceLoop, resumeLoop, type Next } from '../../src/handoff/rules/loop.js';
import { failureSignature } from '../../src/handoff/rules/output.js';
import { emptyLoop, type LoopState } from '../../src/handoff/rules/loopState.js';

const F = '```';
const RED_CONFIRM = /AssertionError|expected .* to/;
const BUILD_ERROR = /SyntaxError|Cannot find module/;
const facts = { now: '2026-11-22T03:00:00.000Z', isTest: (f: string) => f.startsWith('tests/') };

function msg(role: Role, extra: string[] = [], status = 'ok'): string {
  const lines = [`role: ${role}`, `status: ${status}`];
  if (role === 'test-writer' || role === 'implementer' || role === 'refactorer') {
    lines.push('files:', role === 'test-writer' ? '  - tests/a.test.ts' : '  - src/a.ts', 'command: npx vitest run', 'output_excerpt: |', '  (excerpt)');
  }
  if (role === 'implementer' && !extra.some((l) => l.startsWith('refactor_needed'))) lines.push('refactor_needed: false');
  return `${F}tdd-result\n${[...lines, ...extra].join('\n')}\n${F}`;
}

const failing = (text = 'FAIL tests/a.test.ts > adds\nAssertionError: expected 0 to be 3\n  at tests/a.test.ts:4:5 (12ms)'): RunOutcome => ({ command: 'npx vitest run', exitCode: 1, output: text, timedOut: false, problem: null });
const passing: RunOutcome = { command: 'npx vitest run', exitCode: 0, output: '✓ tests/a.test.ts (1 test) 3ms\nTests 1 passed', timedOut: false, problem: null };

/**
 * The judge's word on a run, as the CLI hands it to classify (the real judge, shared with
 * `verify`, is specified in test/cli/evidence.test.ts and identity.test.ts): here a stand-in that
 * reads the output the way these cases need.
 */
function judged(role: Role, run: RunOutcome): RunOutcome {
  let problem: string | null = null;
  if (run.timedOut) problem = 'the command timed out';
  else if (role === 'test-writer' || role === 'test-validator') {
    if (run.exitCode === 0) problem = 'the command passes (exit code 0): no test fails';
    else if (BUILD_ERROR.test(run.output)) problem = 'the output shows a build or import error';
    else if (!RED_CONFIRM.test(run.output)) problem = 'the output shows no assertion failure';
  } else if (run.exitCode !== 0) problem = `the command fails (exit code ${String(run.exitCode)})`;
  return { ...run, problem };
}

/** One hand-back through classify + advanceLoop, as the `result` verb does it. */
function step(loop: LoopState, role: Role, message: string, run?: RunOutcome, opts: { ac?: string; incomplete?: boolean; commandError?: string } = {}): Next {
  const ac = opts.ac ?? 'AC-1';
  const verdict = classify({
    role,
    ac,
    parse: parseResult(message, { role }),
    incomplete: opts.incomplete ?? false,
    ...(opts.commandError !== undefined && { commandError: opts.commandError }),
    ...(run !== undefined && { run: judged(role, run) }),
  });
  return advanceLoop(loop, role, ac, verdict, facts);
}

describe('mode A: false RED (test-writer)', () => {
  it('proceeds on a valid RED and opens the inner cycle', () => {
    const n = step(emptyLoop(), 'test-writer', msg('test-writer'), failing());
    expect(n).toMatchObject({ action: 'proceed', mode: null });
    expect(n.loop.acs['AC-1']).toMatchObject({ status: 'failing', test_files: ['tests/a.test.ts'], cycles: [{ n: 1, red: 'ok', green: 'pending' }] });
    expect(n.loop.cycles_total).toBe(1);
  });

  it.each([
    ['the tests pass', passing, 'no test fails'],
    ['a build error', failing('Error: Cannot find module ../src/a'), 'build or import error'],
    ['no assertion failure', failing('Error: boom'), 'no assertion failure'],
    ['a timeout', { ...failing(), timedOut: true }, 'timed out'],
  ])('retries when %s, with the raw runner output as the whole retry prompt', (_n, run, detail) => {
    const n = step(emptyLoop(), 'test-writer', msg('test-writer'), run);
    expect(n).toMatchObject({ action: 'retry', mode: 'A', role: 'test-writer', retries: { used: 1, limit: 2, kind: 'semantic' } });
    expect(n.detail).toContain(detail);
    expect(n.retryText).toBe(run.output);
    expect(n.loop.acs['AC-1']?.cycles[0]?.red).toBe('failed');
  });

  it('halts after two retries (three attempts) with a halt report', () => {
    let loop = emptyLoop();
    const outputs = ['Error: a', 'Error: b', 'Error: c'].map((o) => ({ ...passing, output: o }));
    const actions: string[] = [];
    let last: Next | undefined;
    for (const run of outputs) {
      last = step(loop, 'test-writer', msg('test-writer'), run);
      loop = last.loop;
      actions.push(last.action);
    }
    expect(actions).toEqual(['retry', 'retry', 'halt']);
    expect(last?.report).toContain('reason: semantic retry budget spent (2 of 2 retries used)');
    expect(last?.report).toContain('mode: A (false RED');
    expect(last?.report).toContain('role: test-writer');
    expect(last?.report).toContain('ac: AC-1');
    expect(last?.report).toContain('retries used: 2 of 2 semantic, 0 of 1 format');
    expect(last?.report).toContain('last block:\n```tdd-result\nrole: test-writer');
    expect(last?.report).toContain('raw output:\nError: c');
    expect(loop.halted).toMatchObject({ mode: 'A', role: 'test-writer', ac: 'AC-1' });
    expect(loop.cycles_total).toBe(1);
  });

  it('a validator BLOCKER sends the test-writer back (mode A) with raw runner output only', () => {
    const n = step(emptyLoop(), 'test-validator', msg('test-validator', ['verdict: BLOCKER', 'notes: the test asserts the implementation, not the behaviour']), failing());
    expect(n).toMatchObject({ action: 'retry', mode: 'A', role: 'test-writer' });
    expect(n.retryText).not.toContain('asserts the implementation');
    expect(n.loop.budgets['test-writer AC-1']).toEqual({ semantic: 1, format: 0 });
  });

  it('a validator PASS proceeds', () => {
    expect(step(emptyLoop(), 'test-validator', msg('test-validator', ['verdict: PASS'])).action).toBe('proceed');
  });
});

describe('mode B: the implementer cannot reach GREEN', () => {
  it('proceeds on GREEN and marks the criterion passing (refactor skipped when not needed)', () => {
    const red = step(emptyLoop(), 'test-writer', msg('test-writer'), failing());
    const n = step(red.loop, 'implementer', msg('implementer'), passing);
    expect(n.action).toBe('proceed');
    expect(n.loop.acs['AC-1']).toMatchObject({ status: 'passing', source_files: ['src/a.ts'], cycles: [{ red: 'ok', green: 'ok', refactor: 'skipped' }] });
  });

  it('retries on a failing run, then halts when the same failure repeats three times', () => {
    let loop = step(emptyLoop(), 'test-writer', msg('test-writer'), failing()).loop;
    const seen: Next[] = [];
    for (const ms of [12, 15, 9]) {
      const n = step(loop, 'implementer', msg('implementer'), failing(`FAIL tests/a.test.ts > adds\nAssertionError: expected 2 to be 3\n  at /tmp/x-${ms}/tests/a.test.ts:${ms}:5 (${ms}ms)`));
      seen.push(n);
      loop = n.loop;
    }
    expect(seen.map((n) => `${n.action}:${n.mode}`)).toEqual(['retry:B', 'retry:B', 'halt:B']);
    expect(seen[2]?.report).toContain('reason: the same failure 3 times in a row');
    expect(loop.acs['AC-1']?.cycles[0]?.green).toBe('failed');
  });

  it('counts an implementer reporting status failed as B too', () => {
    expect(step(emptyLoop(), 'implementer', msg('implementer', [], 'failed'), failing())).toMatchObject({ action: 'retry', mode: 'B' });
  });

  it('keeps budgets per role and per criterion', () => {
    let loop = emptyLoop();
    loop = step(loop, 'implementer', msg('implementer'), failing('AssertionError: one'), { ac: 'AC-1' }).loop;
    loop = step(loop, 'implementer', msg('implementer'), failing('AssertionError: two'), { ac: 'AC-1' }).loop;
    const other = step(loop, 'implementer', msg('implementer'), failing('AssertionError: three'), { ac: 'AC-2' });
    expect(other).toMatchObject({ action: 'retry', retries: { used: 1, limit: 2 } });
    expect(other.loop.budgets).toMatchObject({ 'implementer AC-1': { semantic: 2 }, 'implementer AC-2': { semantic: 1 } });
  });
});

describe('mode C: the refactorer broke GREEN', () => {
  it('retries with the raw output and marks the cycle', () => {
    let loop = step(emptyLoop(), 'test-writer', msg('test-writer'), failing()).loop;
    loop = step(loop, 'implementer', msg('implementer', ['refactor_needed: true', 'refactor_reasons: [duplication]']), passing).loop;
    const n = step(loop, 'refactorer', msg('refactorer'), failing('AssertionError: expected 4 to be 3'));
    expect(n).toMatchObject({ action: 'retry', mode: 'C', role: 'refactorer' });
    expect(n.retryText).toBe('AssertionError: expected 4 to be 3');
    expect(n.loop.acs['AC-1']).toMatchObject({ status: 'failing', cycles: [{ green: 'ok', refactor: 'failed' }] });
    const fixed = step(n.loop, 'refactorer', msg('refactorer'), passing);
    expect(fixed.action).toBe('proceed');
    expect(fixed.loop.acs['AC-1']?.cycles[0]?.refactor).toBe('ok');
  });
});

describe('mode D: format violation', () => {
  it('gives one targeted retry with the format instruction, then halts', () => {
    const first = step(emptyLoop(), 'implementer', 'All done, tests pass!');
    expect(first).toMatchObject({ action: 'retry', mode: 'D', retries: { used: 1, limit: 1, kind: 'format' } });
    expect(first.retryText).toContain('Problem: no ```tdd-result fenced block found');
    expect(first.retryText).toContain('```tdd-result\nrole: implementer');
    const second = step(first.loop, 'implementer', msg('test-writer'));
    expect(second).toMatchObject({ action: 'halt', mode: 'D' });
    expect(second.report).toContain('format retry budget spent (1 of 1 retries used)');
  });

  it('is independent of the semantic budget', () => {
    let loop = step(emptyLoop(), 'implementer', 'no block').loop;
    const b1 = step(loop, 'implementer', msg('implementer'), failing('AssertionError: x'));
    expect(b1).toMatchObject({ action: 'retry', mode: 'B', retries: { used: 1, limit: 2, kind: 'semantic' } });
    loop = b1.loop;
    expect(loop.budgets['implementer AC-1']).toEqual({ semantic: 1, format: 1 });
  });

  it('treats a command that is not the test command as a format violation', () => {
    const n = step(emptyLoop(), 'implementer', msg('implementer'), undefined, { commandError: 'command must be the project test command' });
    expect(n).toMatchObject({ action: 'retry', mode: 'D' });
  });
});

describe('mode E: stopped without a block', () => {
  it('retries with the raw output of the suite when the child ran out of turns', () => {
    const n = step(emptyLoop(), 'implementer', 'I was in the middle of', failing('AssertionError: y'), { incomplete: true });
    expect(n).toMatchObject({ action: 'retry', mode: 'E', retries: { kind: 'semantic', used: 1 } });
    expect(n.retryText).toBe('AssertionError: y');
  });

  it('shares the semantic budget: a third E halts', () => {
    let loop = emptyLoop();
    const actions = [];
    for (const o of ['a', 'b', 'c']) {
      const n = step(loop, 'implementer', '', failing(`AssertionError: ${o}`), { incomplete: true });
      actions.push(n.action);
      loop = n.loop;
    }
    expect(actions).toEqual(['retry', 'retry', 'halt']);
    expect(loop.halted?.mode).toBe('E');
  });
});

describe('escalation and halting', () => {
  it('halts a child that reports status blocked', () => {
    const n = step(emptyLoop(), 'implementer', msg('implementer', ['notes: the SPEC contradicts the test'], 'blocked'));
    expect(n.action).toBe('halt');
    expect(n.report).toContain('the implementer reports status blocked: the SPEC contradicts the test');
  });

  it('halts when more than max_cycles inner cycles are started', () => {
    let loop = emptyLoop({ max_cycles: 2 });
    for (const ac of ['AC-1', 'AC-2']) {
      loop = step(loop, 'test-writer', msg('test-writer'), failing(), { ac }).loop;
      loop = step(loop, 'implementer', msg('implementer'), passing, { ac }).loop;
    }
    const n = step(loop, 'test-writer', msg('test-writer'), failing(), { ac: 'AC-3' });
    expect(n.action).toBe('halt');
    expect(n.report).toContain('more than 2 TDD cycles in total');
    // Resumed by the person: the open cycle goes on without tripping the bound again.
    const resumed = step(resumeLoop(n.loop), 'test-writer', msg('test-writer'), failing(), { ac: 'AC-3' });
    expect(resumed.action).toBe('proceed');
    expect(resumed.loop.cycles_total).toBe(3);
  });

  it('stays halted until resumed, then the halted budget starts over', () => {
    const halted = step(step(emptyLoop(), 'implementer', 'x').loop, 'implementer', 'y');
    expect(halted.action).toBe('halt');
    const again = step(halted.loop, 'implementer', msg('implementer'), passing);
    expect(again).toMatchObject({ action: 'halt', report: halted.report });
    const resumed = resumeLoop(halted.loop);
    expect(resumed.halted).toBeNull();
    expect(step(resumed, 'implementer', msg('implementer'), passing).action).toBe('proceed');
  });

  it('the planner seeds the outer loop', () => {
    const n = step(emptyLoop(), 'planner', `${F}tdd-result\nrole: planner\nstatus: ok\nfiles: [.tdd/plans/p.md]\nacs: [AC-1, AC-2]\n${F}`);
    expect(Object.keys(n.loop.acs)).toEqual(['AC-1', 'AC-2']);
    expect(n.loop.acs['AC-2']?.status).toBe('pending');
    expect(n.loop.current_ac).toBeNull();
  });

  it('a blocked planner halts without inventing a criterion', () => {
    const n = step(emptyLoop(), 'planner', `${F}tdd-result\nrole: planner\nstatus: blocked\nnotes: the SPEC has no scenarios\n${F}`, undefined, { ac: '-' });
    expect(n.action).toBe('halt');
    expect(n.loop.acs).toEqual({});
  });
});

describe('describeLoop (for tdd-gate status)', () => {
  it('shows the outer loop, the inner cycle, budgets and a halt', () => {
    let loop = step(emptyLoop(), 'test-writer', msg('test-writer'), failing()).loop;
    loop = step(loop, 'implementer', msg('implementer'), passing).loop;
    loop = step(loop, 'test-writer', msg('test-writer'), passing, { ac: 'AC-2' }).loop;
    expect(describeLoop({ loop })).toEqual([
      'loop: 2 of at most 10 cycles, current AC-2',
      '  AC-1 passing, 1 cycle completed; cycle 1: red ok, green ok, refactor skipped',
      '  AC-2 pending, 0 cycles completed; cycle 1: red failed, green pending, refactor pending',
      '  retries test-writer AC-2: 1/2 semantic, 0/1 format',
    ]);
    expect(describeLoop({})).toEqual([]);
  });
});

describe('which commands may be re-run', () => {
  it.each([
    ['npx vitest run', true],
    ['npx vitest run tests/a.test.ts', true],
    ['npx  vitest   run -t adds', true],
    ['true', false],
    ['echo ok', false],
    ['npx vitest', false],
    ['npx vitest run; exit 0', false],
    ['npx vitest run && true', false],
    ['npx vitest run || true', false],
    ['npx vitest run $(rm -rf x)', false],
    ['npx vitest run > /dev/null', false],
    ['npx vitest run "a b"', false],
  ])('%s → %s', (claimed, ok) => {
    expect(checkCommand(claimed, 'npx vitest run').ok).toBe(ok);
  });
});

describe('failure signature', () => {
  it('ignores durations, positions and temp paths, but not the error', () => {
    const a = failureSignature('not ok 1 - adds\n  AssertionError: 0 !== 3 (12.5ms)\n  at /tmp/tdd-gate-abc/t.test.mjs:4:29');
    const b = failureSignature('not ok 1 - adds\n  AssertionError: 0 !== 3 (3ms)\n  at /tmp/tdd-gate-xyz/t.test.mjs:7:2');
    const c = failureSignature('not ok 1 - adds\n  AssertionError: 1 !== 3 (3ms)');
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });
});
