import { describe, expect, it } from 'vitest';
import { PASS, deny, type Decision } from '../../src/gate/rules/decision.js';
import { decideCall } from '../../src/gate/rules/decide.js';
import type { CallFacts, CycleCall, CycleFacts, WriteTarget } from '../../src/gate/rules/facts.js';
import { RULES } from '../../src/gate/rules/rules.js';

// The gate's one rule list: its shape, and the decision run over facts handed in as values.

describe('the rule list', () => {
  it('names and documents every rule', () => {
    for (const rule of RULES) {
      expect(rule.id).toMatch(/^[a-z]+(?:-[a-z]+)*$/);
      expect(rule.doc.length).toBeGreaterThan(20);
    }
  });

  it('checks the call before any project, and keeps the write rules together in one block', () => {
    const stages = RULES.map((r) => r.stage).join(' ');
    expect(stages).toMatch(/^(call )+(cycle )+(target )+(class )+(cycle ?)+$/);
  });
});

const green: CycleFacts = { phase: 'tdd-green', mode: 'standard', role: 'tdd-gate:implementer', specRel: 'specs/a.md', specDrift: null };

/** One project, one call: facts as a table row would give them. */
function call(kind: CallFacts<string>['kind'], inCycle: Partial<CycleCall> = {}, cycles: readonly string[] | Decision = ['repo']): CallFacts<string> {
  return {
    kind,
    tool: 'Write',
    specWriter: null,
    badInput: null,
    cannotAsk: null,
    cycles: () => cycles,
    inCycle: () => ({ kind: kind ?? 'file', phase: 'tdd-green', tool: 'Write', cycle: () => green, ...inCycle }),
  };
}

const testFile: WriteTarget = { display: 'tests/a.test.ts', classes: ['test'] };
const source: WriteTarget = { display: 'src/a.ts', classes: ['source'], contentAfter: 'export const a = 1;\n', contentBefore: null };

describe('decideCall', () => {
  it.each<[string, CallFacts<string>, string | null]>([
    ['passes a tool the gate does not judge', call(null), null],
    ['denies input it cannot read', { ...call('file'), badInput: 'tool_input.file_path: missing' }, 'bad-input'],
    ['passes a call outside every cycle', call('file', {}, []), null],
    ['hands on the decision of a cycle that cannot be loaded', call('file', {}, deny('stack-invalid', 'broken')), 'stack-invalid'],
    ['denies a test write in GREEN', call('file', { writes: () => [testFile] }), 'tests-frozen'],
    ['passes a source write in GREEN by its phase writer', call('file', { writes: () => [source] }), null],
    ['checks the control set before the writes', call('file', { writes: () => [testFile], integrity: () => deny('tamper-restored', 'put back') }), 'tamper-restored'],
    ['denies EnterWorktree during a cycle', call('worktree'), 'worktree-switch'],
    ['passes a Monitor that runs no command', call('monitor', { bash: () => null, sandboxDisabled: true }), null],
  ])('%s', (_name, facts, ruleId) => {
    const { decision } = decideCall(facts);
    expect(decision.kind === 'pass' ? null : decision.ruleId).toBe(ruleId);
  });

  it('logs a deny in the project it was made in, but not the control set (it logs its own)', () => {
    const written = decideCall(call('file', { writes: () => [testFile] }));
    expect(written.records).toEqual([{ cycle: 'repo', decision: written.decision }]);
    const restored = decideCall(call('file', { integrity: () => deny('tamper-restored', 'put back') }));
    expect(restored.records).toEqual([]);
  });

  it('lets a deny in one project win over an ask in another, for Write and Bash', () => {
    const facts: CallFacts<string> = {
      ...call('bash', {}, ['a', 'b']),
      inCycle: (c) => ({ kind: 'bash', phase: 'tdd-green', tool: 'Bash', cycle: () => green, programs: () => (c === 'a' ? PASS : deny('hook-feed', 'no')) }),
    };
    const verdict = decideCall(facts);
    expect(verdict.decision).toMatchObject({ kind: 'deny', ruleId: 'hook-feed' });
    expect(verdict.passed).toEqual(['a']);
  });
});
