import { describe, expect, it } from 'vitest';
import { CYCLE_START_GRACE_MS, callContext, canaryVerdict, describeCanary, type CanaryFacts } from '../../src/tamper/rules/canary.js';

const base: CanaryFacts = { toolName: 'Write', toolUseId: 'toolu_1', recorded: false, phase: 'tdd-green', cycleAgeMs: 3_600_000 };

describe('the canary rule: a write PreToolUse did not record means the gate was skipped', () => {
  it.each<[string, Partial<CanaryFacts>, ReturnType<typeof canaryVerdict>]>([
    ['recorded by PreToolUse', { recorded: true }, 'recorded'],
    ['not recorded, GREEN', {}, 'skipped'],
    ['not recorded, RED, Edit', { phase: 'tdd-red', toolName: 'Edit' }, 'skipped'],
    ['not recorded, MultiEdit', { toolName: 'MultiEdit' }, 'skipped'],
    ['not recorded, NotebookEdit', { toolName: 'NotebookEdit' }, 'skipped'],
    ['not recorded, REFACTOR', { phase: 'tdd-refactor' }, 'skipped'],
    ['no tool_use_id: nothing to match', { toolUseId: null }, 'unknown'],
    ['empty tool_use_id', { toolUseId: '' }, 'unknown'],
    ['a Bash call (its own in-flight mark)', { toolName: 'Bash' }, 'unknown'],
    ['an MCP tool', { toolName: 'mcp__fs__write' }, 'unknown'],
    ['tdd-plan, cycle started a moment ago (the write may predate init)', { phase: 'tdd-plan', cycleAgeMs: 2_000 }, 'unknown'],
    ['tdd-plan, cycle older than the grace', { phase: 'tdd-plan', cycleAgeMs: CYCLE_START_GRACE_MS + 1 }, 'skipped'],
    ['tdd-plan, start time unknown', { phase: 'tdd-plan', cycleAgeMs: null }, 'skipped'],
    ['tdd-plan, start time in the future (clock skew)', { phase: 'tdd-plan', cycleAgeMs: -5_000 }, 'skipped'],
    ['GREEN, young cycle: no grace past tdd-plan', { cycleAgeMs: 1_000 }, 'skipped'],
  ])('%s', (_name, over, want) => {
    expect(canaryVerdict({ ...base, ...over })).toBe(want);
  });
});

describe('which context skipped the gate', () => {
  it.each<[string, Record<string, unknown>, string, string]>([
    ['the main thread', { tool_input: { file_path: 'a' } }, 'main', 'the main thread'],
    ['a subagent, by agent type and id', { agent_type: 'tdd-gate:implementer', agent_id: 'a1', tool_input: {} }, 'subagent', 'the subagent tdd-gate:implementer (agent id a1)'],
    ['a subagent without an id', { agent_type: 'general-purpose' }, 'subagent', 'the subagent general-purpose'],
    ['a background command of the main thread', { tool_input: { command: 'x', run_in_background: true } }, 'background', 'a background command of the main thread'],
    ['a background command of a subagent', { agent_type: 'Explore', tool_input: { run_in_background: true } }, 'subagent', 'the subagent Explore, in the background'],
    ['an empty agent type is the main thread', { agent_type: '' }, 'main', 'the main thread'],
  ])('%s', (_name, input, kind, label) => {
    expect(callContext(input)).toMatchObject({ kind, label });
  });
});

describe('what the model and the person are told', () => {
  const context = callContext({ agent_type: 'tdd-gate:implementer', agent_id: 'a1' });
  it('names the tool, the file, the context, the phase and what was put back', () => {
    const d = describeCanary({ toolName: 'Write', target: 'tests/a.test.ts', phase: 'tdd-green', context, restored: ['tests/a.test.ts'], targetRestored: true });
    expect(d.ruleId).toBe('gate-skipped');
    expect(d.reason).toContain('The Write of tests/a.test.ts by the subagent tdd-gate:implementer (agent id a1) ran without the tdd-gate PreToolUse check (phase tdd-green)');
    expect(d.reason).toContain('What could be put back was: tests/a.test.ts');
    expect(d.reason).not.toContain('has no copy');
    expect(d.reason).toContain('Stop and report this to the user');
    expect(d.notice).toContain('the gate was skipped for the subagent tdd-gate:implementer');
    expect(d.notice).toContain('Restored tests/a.test.ts');
    expect(d.notice).toContain('/tdd-gate:doctor');
  });
  it('says when the written file itself could not be put back', () => {
    const d = describeCanary({ toolName: 'Edit', target: 'src/a.ts', phase: 'tdd-red', context: callContext({}), restored: [], targetRestored: false });
    expect(d.reason).toContain('src/a.ts itself has no copy to restore');
    expect(d.reason).not.toContain('What could be put back');
    expect(d.notice).not.toContain('Restored');
  });
});
