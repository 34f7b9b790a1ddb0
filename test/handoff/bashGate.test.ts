import { describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import { runHookInProcess } from '../helpers/hookInProcess.js';
import { state, testRepo } from '../helpers/repo.js';

// The hand-off verbs as the built Bash gate sees them (docs/handoff.md, "Who may run what").
describe('built hook: the hand-off verbs in Bash', () => {
  it.each([
    ['the orchestrator records a result', 'pass', undefined, 'tdd-gate result out.md --role implementer --ac AC-1'],
    ['the orchestrator writes a manifest', 'pass', undefined, 'tdd-gate handoff red'],
    ['the orchestrator resumes after a halt: the person confirms', 'ask', undefined, 'tdd-gate result --resume'],
    ['a child records its own result', 'deny', 'tdd-gate:implementer', 'tdd-gate result out.md --role implementer'],
    ['a child resumes a halt', 'deny', 'tdd-gate:implementer', 'tdd-gate result --resume'],
    ['a child writes a manifest', 'deny', 'tdd-gate:test-writer', 'tdd-gate handoff red'],
    ['a child reads its context', 'pass', 'tdd-gate:implementer', 'tdd-gate context --role implementer'],
  ])('%s → %s', async (_n, decision, agent_type, command) => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    const r = await runHookInProcess(ev.bash({ cwd: repo.root, ...(agent_type !== undefined && { agent_type }) }, command));
    expect(r.decision).toBe(decision);
    if (decision === 'ask') expect(r.reason).toContain('resumes the TDD loop after a halt');
  });
});
