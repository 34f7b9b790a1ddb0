import { describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import { runHookBundle } from '../helpers/hook.js';
import { state, testRepo } from '../helpers/repo.js';

describe('built hook: smoke', () => {
  it('passes everything when no state file exists', () => {
    const repo = testRepo();
    const r = runHookBundle(ev.write({ cwd: repo.root }, 'tests/a.test.ts'));
    expect(r).toMatchObject({ status: 0, decision: 'pass' });
  });

  it('denies a test write in tdd-green with the frozen-tests rule', () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    const r = runHookBundle(ev.write({ cwd: repo.root, agent_type: 'tdd-gate:implementer' }, 'tests/a.test.ts'));
    expect(r.decision).toBe('deny');
    expect(r.reason).toContain('tests-frozen');
  });

  it('lets the implementer write a source file in tdd-green', () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    const r = runHookBundle(ev.write({ cwd: repo.root, agent_type: 'tdd-gate:implementer' }, 'src/a.ts'));
    expect(r.decision).toBe('pass');
  });

  it('denies unparseable input', () => {
    const r = runHookBundle('{not json', { raw: true });
    expect(r.decision).toBe('deny');
  });
});
