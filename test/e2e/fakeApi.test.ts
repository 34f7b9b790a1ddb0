// The fake Messages API on its own (no client needed): the wire format, turn selection by history,
// tool_result recording, and the failure recorded when a client runs past its script.
import { afterEach, describe, expect, it } from 'vitest';
import { afterNotification, childAnswer, EXHAUSTED_TEXT, gateReason, hookNotices, isLaunchNotice, marker, startFakeApi, toldSince, WAITING_TEXT, type FakeApi, type Script } from '../../scripts/demo/fakeApi.mjs';

let api: FakeApi | null = null;
afterEach(async () => {
  await api?.close();
  api = null;
});

const script: Script = {
  main: [{ text: 'Reading.', tools: [{ name: 'Read', input: { file_path: '/x' } }] }, { text: 'Done.' }],
};

async function post(body: Record<string, unknown>): Promise<Response> {
  return fetch(`http://127.0.0.1:${api!.port}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', max_tokens: 10, ...body }),
  });
}

const first = { role: 'user', content: [{ type: 'text', text: `${marker('main')} go` }] };

function events(sse: string): Array<{ event: string; data: Record<string, unknown> }> {
  return sse
    .trim()
    .split('\n\n')
    .map((chunk) => {
      const [e, d] = chunk.split('\n');
      return { event: e!.slice('event: '.length), data: JSON.parse(d!.slice('data: '.length)) as Record<string, unknown> };
    });
}

describe('fake Messages API', () => {
  it('streams a scripted turn as SSE with input_json_delta for the tool input', async () => {
    api = await startFakeApi({ script });
    const res = await post({ stream: true, messages: [first] });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const evs = events(await res.text());
    expect(evs.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const json = evs
      .filter((e) => (e.data.delta as { type?: string } | undefined)?.type === 'input_json_delta')
      .map((e) => (e.data.delta as { partial_json: string }).partial_json)
      .join('');
    expect(JSON.parse(json)).toEqual({ file_path: '/x' });
    expect(evs.find((e) => e.event === 'message_delta')!.data).toMatchObject({ delta: { stop_reason: 'tool_use' } });
  });

  it('plays the turn after the history, records tool results, and answers JSON when not streaming', async () => {
    api = await startFakeApi({ script });
    const res = await post({
      messages: [
        first,
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_e2e_main_0_0', name: 'Read', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_e2e_main_0_0', content: [{ type: 'text', text: 'denied: why' }], is_error: true }] },
      ],
    });
    expect(await res.json()).toMatchObject({ content: [{ type: 'text', text: 'Done.' }], stop_reason: 'end_turn' });
    expect(api.toolResults).toEqual([
      { conversation: 'main', tool_use_id: 'toolu_e2e_main_0_0', name: null, input: null, content: 'denied: why', is_error: true },
    ]);
    expect(api.failures).toEqual([]);
  });

  it('records a failure when the client runs past the script, and answers side requests', async () => {
    api = await startFakeApi({ script });
    const past = await post({ messages: [first, { role: 'assistant', content: 'a' }, { role: 'user', content: 'b' }, { role: 'assistant', content: 'c' }, { role: 'user', content: 'd' }] });
    expect(JSON.stringify(await past.json())).toContain(EXHAUSTED_TEXT);
    expect(api.failures).toEqual(['conversation "main" ran past its script (asked for turn 3 of 2)']);
    await post({ messages: [{ role: 'user', content: 'Write a title for this conversation' }] });
    expect(api.requests.map((r) => r.kind)).toEqual(['turn', 'side']);
  });

  it('waits for a background child: a step after its notification is played only once it arrived, and the wait is not a turn', async () => {
    const launch = 'toolu_e2e_main_0_0';
    api = await startFakeApi({
      script: {
        main: [
          { tools: [{ name: 'Agent', input: { subagent_type: 'tdd-gate:planner', description: 'p', prompt: `${marker('planner')} go`, run_in_background: true } }] },
          afterNotification(launch, (ctx) => ({ text: `got: ${childAnswer(ctx, launch)}` })),
        ],
      },
    });
    const call = { role: 'assistant', content: [{ type: 'tool_use', id: launch, name: 'Agent', input: {} }] };
    const notice = { role: 'user', content: [{ type: 'tool_result', tool_use_id: launch, content: [{ type: 'text', text: 'Async agent launched successfully.\nagentId: a1\nThe agent is working in the background.' }] }] };
    const waiting = await post({ messages: [first, call, notice] });
    expect(await waiting.json()).toMatchObject({ content: [{ type: 'text', text: WAITING_TEXT }], stop_reason: 'end_turn' });
    const note = `<task-notification>\n<task-id>a1</task-id>\n<tool-use-id>${launch}</tool-use-id>\n<status>completed</status>\n<result>Plan written.\n\n\`\`\`tdd-result\nrole: planner\nstatus: ok\n\`\`\`</result>\n</task-notification>`;
    const res = await post({
      messages: [first, call, notice, { role: 'assistant', content: [{ type: 'text', text: WAITING_TEXT }] }, { role: 'system', content: [{ type: 'text', text: `<system-reminder>\n${note}\n</system-reminder>` }] }],
    });
    expect(await res.json()).toMatchObject({ content: [{ type: 'text', text: 'got: Plan written.\n\n```tdd-result\nrole: planner\nstatus: ok\n```' }] });
    expect(api.notifications).toMatchObject([{ conversation: 'main', tool_use_id: launch, task_id: 'a1', status: 'completed' }]);
    expect(api.requests.filter((q) => q.kind === 'turn').map((q) => [q.turn, q.waiting ?? null])).toEqual([[1, launch], [1, null]]);
    expect(api.failures).toEqual([]);
  });

  it('a script written for foreground children also waits after an Agent call that came back as a launch notice', async () => {
    const launch = 'toolu_e2e_main_0_0';
    api = await startFakeApi({
      script: { main: [{ tools: [{ name: 'Agent', input: { subagent_type: 'tdd-gate:planner', description: 'p', prompt: `${marker('planner')} go` } }] }, { text: 'next step' }] },
    });
    const call = { role: 'assistant', content: [{ type: 'tool_use', id: launch, name: 'Agent', input: {} }] };
    const notice = { role: 'user', content: [{ type: 'tool_result', tool_use_id: launch, content: 'Async agent launched successfully.\nagentId: a1' }] };
    await post({ messages: [first] });
    expect(await (await post({ messages: [first, call, notice] })).json()).toMatchObject({ content: [{ text: WAITING_TEXT }] });
    const note = { role: 'user', content: `<task-notification><tool-use-id>${launch}</tool-use-id><status>completed</status><result>done</result></task-notification>` };
    const res = await post({ messages: [first, call, notice, { role: 'assistant', content: [{ type: 'text', text: WAITING_TEXT }] }, note] });
    expect(await res.json()).toMatchObject({ content: [{ type: 'text', text: 'next step' }] });
    expect(api.failures).toEqual([]);
  });

  it('reads what the model was told in both clients\' shapes', () => {
    const reason = 'tdd-gate rule [tests-frozen]: Blocked write to test file tests/a.test.ts (phase tdd-green): read-only. This is the gate working as designed, not an error; do not retry the same call.';
    expect(gateReason(reason)).toBe(reason);
    expect(gateReason(`PreToolUse:Write hook error: ${reason}`)).toBe(reason);
    // The opening of releases before the rule wording, still read.
    expect(gateReason('PreToolUse:Write hook error: tdd-gate [tests-frozen]: read-only.')).toBe('tdd-gate [tests-frozen]: read-only.');
    expect(gateReason('File created successfully')).toBeNull();
    expect(isLaunchNotice('Async agent launched successfully.\nagentId: x')).toBe(true);
    expect(isLaunchNotice('Done.\n```tdd-result\nrole: planner\nstatus: ok\n```')).toBe(false);
    const notice = 'tdd-gate [frozen-restored]: the last Bash command changed 1 frozen file(s) (tests/a.test.ts); they were restored.';
    const hookLine = `PostToolUse:Bash hook blocking error from command: "node hook.mjs PostToolUse": ${notice}`;
    const result = { type: 'tool_result', tool_use_id: 't1', content: '(Bash completed with no output)' };
    const older = { messages: [first, { role: 'assistant', content: 'x' }, { role: 'user', content: [result, { type: 'text', text: `<system-reminder>\n${hookLine}\n</system-reminder>` }] }] };
    const newer = { messages: [first, { role: 'assistant', content: 'x' }, { role: 'user', content: [result] }, { role: 'system', content: [{ type: 'text', text: hookLine }] }] };
    for (const body of [older, newer]) {
      expect(toldSince(body)).toContain(hookLine);
      expect(toldSince(body)).toContain('(Bash completed with no output)');
      expect(hookNotices(body)).toEqual([notice]);
    }
  });
});
