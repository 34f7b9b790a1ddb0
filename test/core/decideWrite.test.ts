import { describe, expect, it } from 'vitest';
import type { PathClass } from '../../src/state/rules/classify.js';
import { decideWrites, type CycleFacts } from '../../src/gate/rules/decideWrite.js';
import { ROLE } from '../../src/gate/rules/roles.js';
import type { ActivePhase, Mode } from '../../src/state/schema/state.js';

type Verdict = 'pass' | 'deny';
const PHASES: ActivePhase[] = ['tdd-plan', 'tdd-red', 'tdd-green', 'tdd-refactor'];
const CLASSES: PathClass[] = ['test', 'source', 'spec', 'control', 'plan', 'other'];

/** DESIGN §3, phase table alone (light modes), source in RED judged without a stub marker. */
const TABLE: Record<ActivePhase, Record<PathClass, Verdict>> = {
  'tdd-plan': { test: 'deny', source: 'deny', spec: 'deny', control: 'deny', plan: 'pass', other: 'pass' },
  'tdd-red': { test: 'pass', source: 'deny', spec: 'deny', control: 'deny', plan: 'deny', other: 'pass' },
  'tdd-green': { test: 'deny', source: 'pass', spec: 'deny', control: 'deny', plan: 'deny', other: 'pass' },
  'tdd-refactor': { test: 'deny', source: 'pass', spec: 'deny', control: 'deny', plan: 'deny', other: 'pass' },
};

const WRITER: Record<ActivePhase, string | null> = {
  'tdd-plan': null,
  'tdd-red': ROLE.testWriter,
  'tdd-green': ROLE.implementer,
  'tdd-refactor': ROLE.refactorer,
};

function facts(phase: ActivePhase, mode: Mode, role: string | null, drift = false): CycleFacts {
  return { phase, mode, role, specRel: 'specs/SPEC-001.md', specDrift: drift ? { frozen: 'a'.repeat(64), live: 'b'.repeat(64) } : null };
}

function verdict(f: CycleFacts, cls: PathClass, contentAfter?: string): { kind: string; ruleId?: string; reason?: string } {
  return decideWrites(f, [{ display: `the/${cls}`, classes: [cls], contentAfter }]);
}

describe('phase table (light modes: no role rules)', () => {
  const cases = PHASES.flatMap((phase) =>
    CLASSES.flatMap((cls) =>
      (['light-dispatch', 'light-inline', 'prototype-inline'] as Mode[]).map((mode) => ({ phase, cls, mode, expected: TABLE[phase][cls] })),
    ),
  );
  it.each(cases)('$mode: $phase, $cls file → $expected', ({ phase, cls, mode, expected }) => {
    expect(verdict(facts(phase, mode, null), cls).kind).toBe(expected);
  });
});

describe('standard mode: only the phase role writes tests and sources', () => {
  const roles = [null, ROLE.planner, ROLE.testWriter, ROLE.implementer, ROLE.refactorer, 'general-purpose', 'tdd-gate:unknown'];
  const cases = PHASES.flatMap((phase) =>
    (['test', 'source'] as PathClass[]).flatMap((cls) =>
      roles.map((role) => ({
        phase,
        cls,
        role: role ?? 'main',
        expected: (TABLE[phase][cls] === 'pass' && role === WRITER[phase] ? 'pass' : 'deny'),
        r: role,
      })),
    ),
  );
  it.each(cases)('$phase, $cls file written by $role → $expected', ({ phase, cls, r, expected }) => {
    expect(verdict(facts(phase, 'standard', r), cls).kind).toBe(expected);
  });

  it.each(PHASES)('the test-validator never writes, not even other files (%s)', (phase) => {
    const d = verdict(facts(phase, 'standard', ROLE.testValidator), 'other');
    expect(d).toMatchObject({ kind: 'deny', ruleId: 'validator-read-only' });
  });

  it.each([null, ROLE.planner])('the plan is written by %s in tdd-plan', (role) => {
    expect(verdict(facts('tdd-plan', 'standard', role), 'plan').kind).toBe('pass');
  });

  it.each([ROLE.testWriter, ROLE.implementer, 'general-purpose'])('the plan is not written by %s', (role) => {
    expect(verdict(facts('tdd-plan', 'standard', role), 'plan')).toMatchObject({ kind: 'deny', ruleId: 'role' });
  });

  it('other files stay writable by any role', () => {
    for (const phase of PHASES) expect(verdict(facts(phase, 'standard', 'general-purpose'), 'other').kind).toBe('pass');
  });
});

describe('STUB:TDD in tdd-red', () => {
  const red = facts('tdd-red', 'standard', ROLE.testWriter);
  it.each([
    ['a stub with the marker', '// STUB:TDD\nexport function add() { throw new Error("todo"); }\n', 'pass'],
    ['the marker in a Python comment', '# STUB:TDD\ndef add(a, b):\n    raise NotImplementedError\n', 'pass'],
    ['no marker', 'export function add(a, b) { return a + b; }\n', 'deny'],
    ['a near miss', '// STUB: TDD\n', 'deny'],
    ['lower case', '// stub:tdd\n', 'deny'],
  ])('%s → %s', (_name, content, expected) => {
    expect(verdict(red, 'source', content).kind).toBe(expected);
  });

  it('denies a source write whose after-content is unknown', () => {
    expect(verdict(red, 'source', undefined)).toMatchObject({ kind: 'deny', ruleId: 'red-source' });
  });

  it('the marker does not open a source write to another role', () => {
    expect(verdict(facts('tdd-red', 'standard', ROLE.implementer), 'source', '// STUB:TDD').kind).toBe('deny');
  });

  it('the marker is irrelevant outside RED: tests stay frozen in GREEN', () => {
    expect(verdict(facts('tdd-green', 'standard', ROLE.implementer), 'test', '// STUB:TDD').kind).toBe('deny');
  });
});

describe('SPEC drift in GREEN and REFACTOR', () => {
  it.each([
    ['tdd-green', ROLE.implementer, 'source'],
    ['tdd-green', ROLE.implementer, 'test'],
    ['tdd-refactor', ROLE.refactorer, 'source'],
  ] as const)('%s: %s writing a %s file is denied', (phase, role, cls) => {
    expect(verdict(facts(phase, 'standard', role, true), cls)).toMatchObject({ kind: 'deny', ruleId: 'spec-drift' });
  });

  it('blocks sources in light modes too', () => {
    expect(verdict(facts('tdd-green', 'light-inline', null, true), 'source')).toMatchObject({ kind: 'deny', ruleId: 'spec-drift' });
  });

  it('leaves other files alone', () => {
    expect(verdict(facts('tdd-green', 'standard', ROLE.implementer, true), 'other').kind).toBe('pass');
  });

  it('names both hashes in the reason', () => {
    const d = verdict(facts('tdd-green', 'standard', ROLE.implementer, true), 'source');
    expect(d.reason).toContain('aaaaaaaaaaaa');
    expect(d.reason).toContain('bbbbbbbbbbbb');
  });
});

describe('a target with two classes (a symlink) is judged by the stricter', () => {
  it('denies a link in src/ that points into tests/ in GREEN', () => {
    const d = decideWrites(facts('tdd-green', 'standard', ROLE.implementer), [{ display: 'src/link.ts', classes: ['source', 'test'] }]);
    expect(d).toMatchObject({ kind: 'deny', ruleId: 'tests-frozen' });
  });

  it('a call with several targets is denied when any one is', () => {
    const d = decideWrites(facts('tdd-green', 'standard', ROLE.implementer), [
      { display: 'src/a.ts', classes: ['source'] },
      { display: 'tests/a.test.ts', classes: ['test'] },
    ]);
    expect(d.kind).toBe('deny');
  });
});

describe('deny reasons are written for the model', () => {
  it('say what, which rule, the phase and role, and the next step', () => {
    const d = verdict(facts('tdd-green', 'standard', ROLE.implementer), 'test');
    expect(d.reason).toContain('the/test');
    expect(d.reason).toContain('tdd-green');
    expect(d.reason).toContain(ROLE.implementer);
    expect(d.reason).toContain('TEST_BUG: <file>:<line>');
  });

  it('tell the orchestrator to dispatch the phase role', () => {
    const d = verdict(facts('tdd-red', 'standard', null), 'test');
    expect(d.reason).toContain(`dispatch the ${ROLE.testWriter} subagent`);
  });
});

describe('installed dependencies while the tests are frozen', () => {
  it.each(['tdd-green', 'tdd-refactor'] as const)('%s: a hand edit under node_modules is denied', (phase) => {
    const role = phase === 'tdd-green' ? ROLE.implementer : ROLE.refactorer;
    const d = decideWrites(facts(phase, 'standard', role), [{ display: 'node_modules/vitest/dist/index.js', classes: ['other'], dependency: true }]);
    expect(d).toMatchObject({ kind: 'deny', ruleId: 'dependency-edit' });
  });

  it('is left alone outside GREEN and REFACTOR', () => {
    const d = decideWrites(facts('tdd-red', 'standard', ROLE.testWriter), [{ display: 'node_modules/x.js', classes: ['other'], dependency: true }]);
    expect(d.kind).toBe('pass');
  });
});
