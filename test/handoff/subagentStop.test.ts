import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runHookInProcess } from '../helpers/hookInProcess.js';
import { state, testRepo, type TestRepo } from '../helpers/repo.js';

const F = '```';
const VALID = `Validated.\n\n${F}tdd-result\nrole: test-validator\nstatus: ok\nverdict: PASS\nnotes: tests pin the behaviour\n${F}`;

/** A SubagentStop input shaped like the one Claude Code sends (fields of its hook input schema). */
function subagentStop(repo: TestRepo, o: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    session_id: 'b3b4c6e2-5a41-4c1e-9a0f-2f8c1d0e7a11',
    transcript_path: '/home/u/.claude/projects/p/b3b4c6e2.jsonl',
    cwd: repo.root,
    permission_mode: 'default',
    hook_event_name: 'SubagentStop',
    stop_hook_active: false,
    agent_id: 'a8f3c2d1e4b5',
    agent_transcript_path: '/home/u/.claude/projects/p/b3b4c6e2/subagents/agent-a8f3c2d1e4b5.jsonl',
    agent_type: 'tdd-gate:test-validator',
    last_assistant_message: VALID,
    ...o,
  };
}

async function run(input: unknown) {
  const r = await runHookInProcess(input, { event: 'SubagentStop' });
  const out = r.stdout.trim() === '' ? null : (JSON.parse(r.stdout) as { decision?: string; reason?: string });
  return { status: r.status, out, stderr: r.stderr };
}

function events(repo: TestRepo): Record<string, unknown>[] {
  const file = repo.path('.tdd/events.jsonl');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : [];
}

function active(phase = 'tdd-red', extra: Record<string, unknown> = {}): TestRepo {
  const repo = testRepo();
  repo.setState(state(phase, extra));
  return repo;
}

describe('built hook: SubagentStop enforces the tdd-result block', () => {
  it('lets a valid block through and records the result', async () => {
    const repo = active();
    expect(await run(subagentStop(repo))).toEqual({ status: 0, out: null, stderr: '' });
    expect(events(repo)).toMatchObject([{ type: 'result', source: 'subagent-stop', role: 'test-validator', agent_id: 'a8f3c2d1e4b5', status: 'ok' }]);
  });

  it('blocks the stop once with a narrow re-emit instruction when the block is missing', async () => {
    const repo = active();
    const r = await run(subagentStop(repo, { agent_type: 'tdd-gate:implementer', last_assistant_message: 'Implemented add(); all tests pass.' }));
    expect(r.status).toBe(0);
    expect(r.out?.decision).toBe('block');
    expect(r.out?.reason).toContain('no ```tdd-result fenced block found');
    expect(r.out?.reason).toContain('Do not redo or change the work');
    expect(r.out?.reason).toContain('role: implementer');
    expect(events(repo)).toMatchObject([{ type: 'format-violation', role: 'implementer', code: 'no-block', blocked: true }]);
  });

  it('blocks a block that names another role', async () => {
    const repo = active();
    const r = await run(subagentStop(repo, { agent_type: 'tdd-gate:test-writer' }));
    expect(r.out?.decision).toBe('block');
    expect(r.out?.reason).toContain('invoked as test-writer');
  });

  it('blocks two blocks', async () => {
    const repo = active();
    const r = await run(subagentStop(repo, { last_assistant_message: `${VALID}\n\n${VALID}` }));
    expect(r.out?.reason).toContain('2 tdd-result blocks found');
  });

  it('does not block again when stop_hook_active (no loop)', async () => {
    const repo = active();
    const r = await run(subagentStop(repo, { last_assistant_message: 'still no block', stop_hook_active: true }));
    expect(r).toMatchObject({ status: 0, out: null });
    expect(events(repo)).toMatchObject([{ type: 'format-violation', blocked: false, why: 'stop_hook_active' }]);
  });

  it('does not block when the format budget for the role and AC is spent', async () => {
    const loop = {
      limits: { semantic_retries: 2, format_retries: 1, same_failure: 3, max_cycles: 10 },
      cycles_total: 1,
      current_ac: 'AC-1',
      acs: {},
      budgets: { 'implementer AC-1': { semantic: 0, format: 1 } },
      halted: null,
      last: null,
    };
    const repo = active('tdd-green', { loop });
    const r = await run(subagentStop(repo, { agent_type: 'tdd-gate:implementer', last_assistant_message: 'done' }));
    expect(r.out).toBeNull();
    expect(events(repo)).toMatchObject([{ type: 'format-violation', blocked: false, why: 'format-budget-spent' }]);
  });

  it('reads the agent transcript when last_assistant_message is absent', async () => {
    const repo = active();
    const transcript = repo.write(
      'transcript.jsonl',
      [
        { type: 'user', message: { role: 'user', content: 'validate the tests' } },
        { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: VALID }] } },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    const input = subagentStop(repo, { agent_transcript_path: transcript });
    delete input.last_assistant_message;
    expect((await run(input)).out).toBeNull();
    const missing = subagentStop(repo, { agent_transcript_path: repo.path('nope.jsonl') });
    delete missing.last_assistant_message;
    expect((await run(missing)).out?.decision).toBe('block');
  });

  it.each([
    ['another plugin agent', { agent_type: 'other-plugin:reviewer', last_assistant_message: 'hi' }],
    ['a built-in agent', { agent_type: 'general-purpose', last_assistant_message: 'hi' }],
    ['an input without agent_type', { agent_type: undefined, last_assistant_message: 'hi' }],
  ])('does nothing for %s', async (_n, o) => {
    const repo = active();
    expect(await run(subagentStop(repo, o))).toEqual({ status: 0, out: null, stderr: '' });
    expect(events(repo)).toEqual([]);
  });

  it('does nothing without an active cycle', async () => {
    const repo = testRepo();
    expect((await run(subagentStop(repo, { last_assistant_message: 'no block' }))).out).toBeNull();
    repo.setState(state('done'));
    expect((await run(subagentStop(repo, { last_assistant_message: 'no block' }))).out).toBeNull();
  });
});
