// The fake Messages API on its own (no client needed): the wire format, turn selection by history,
// tool_result recording, and the failure recorded when a client runs past its script.
import { afterEach, describe, expect, it } from 'vitest';
import { EXHAUSTED_TEXT, marker, startFakeApi, type FakeApi, type Script } from '../../scripts/demo/fakeApi.mjs';

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
});
