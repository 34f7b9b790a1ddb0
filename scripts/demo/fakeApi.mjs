// A scripted stand-in for the Anthropic Messages API, for end-to-end runs of the real Claude Code
// client without a network or an API key. Plain ESM so that `npm run demo` needs no build; the
// types for the TypeScript tests are in fakeApi.d.mts beside this file.
//
// A script maps a conversation name to its turns. Claude Code sends the whole history with every
// request, so the turn to play is the number of assistant messages already in it: the server keeps
// no cursor and a retried request gets the same answer. A conversation is recognised by a marker
// `[[e2e:<name>]]` in its first user message (the `-p` prompt for the main thread, the `prompt` of
// an Agent call for a subagent). Requests without a marker are the client's side requests (titles,
// summaries, token counts); they get a short neutral answer and are recorded as such.
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';

const MARKER = /\[\[e2e:([A-Za-z0-9_-]+)\]\]/u;
export const EXHAUSTED_TEXT = '[fake-api] script exhausted: this conversation has no more scripted turns.';
/** The reply while a step waits for a background child: it ends the turn and is not a scripted turn. */
export const WAITING_TEXT = '[fake-api] waiting for a background agent to finish.';

/**
 * A step that is played only once the task notification of the Agent call `toolUseId` has
 * arrived (the child ran in the background). Until then the model answers WAITING_TEXT, which
 * ends its turn without counting as one: the client then waits for its background child, as a
 * session does, and sends the notification. This keeps turn numbers the same whether the child
 * finishes before or after the orchestrator's next request. (Every step after an Agent call that
 * returned a launch notice waits the same way; this names the call explicitly.)
 */
export function afterNotification(toolUseId, step) {
  const wrapped = typeof step === 'function' ? (ctx) => step(ctx) : () => step;
  wrapped.awaits = toolUseId;
  return wrapped;
}

/** The marker to put in a prompt so that the fake API plays `name`'s script for it. */
export function marker(name) {
  return `[[e2e:${name}]]`;
}

function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b) => {
      if (b && b.type === 'text') return b.text;
      if (b && b.type === 'tool_result') return textOf(b.content);
      return '';
    })
    .join('\n');
}

const NOTIFICATION = /<task-notification>([\s\S]*?)<\/task-notification>/gu;
const tag = (name, text) => {
  const m = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`, 'u').exec(text);
  return m ? m[1] : null;
};

/**
 * The task notifications in a text: how newer clients deliver the final message of a subagent
 * that ran in the background (the Agent call itself returned only a launch notice).
 */
export function taskNotifications(text) {
  const out = [];
  for (const m of text.matchAll(NOTIFICATION)) {
    const body = m[1];
    out.push({ tool_use_id: tag('tool-use-id', body), task_id: tag('task-id', body), status: tag('status', body), result: tag('result', body) });
  }
  return out;
}

/** An Agent result that says the child was started in the background, instead of its final message. */
export function isLaunchNotice(content) {
  return /^Async agent launched\b|working in the background/u.test(content) && !content.includes('```tdd-result');
}

/**
 * The final message of the child an Agent call started: the call's result when the child ran in
 * the foreground, or the result of its task notification when it ran in the background.
 */
export function childAnswer(ctx, toolUseId) {
  const res = ctx.toolResults.find((t) => t.tool_use_id === toolUseId);
  if (res && !isLaunchNotice(res.content)) return res.content;
  const note = ctx.notifications.find((n) => n.tool_use_id === toolUseId && n.result !== null);
  if (note) return note.result;
  throw new Error(`no final message yet for ${toolUseId}${res ? ` (the Agent call returned: ${res.content.slice(0, 80)})` : ''}`);
}

const HOOK_ERROR_PREFIX = /^(?:PreToolUse|PostToolUse):[A-Za-z0-9_]+ hook error: /u;

/**
 * How a tdd-gate text opens: `tdd-gate rule [<rule>]: ` for the PreToolUse and
 * PreSkillShellCommand answers, `tdd-gate [<rule>]: ` for the notices of the other events.
 */
const GATE_OPENING = /^tdd-gate (?:rule )?\[[a-z0-9-]+\]: /u;

/**
 * A tdd-gate deny reason as the model received it in a tool result, or null when the result is
 * not one. Older clients pass the hook's reason as is; newer ones put
 * `PreToolUse:<Tool> hook error: ` in front of it.
 */
export function gateReason(content) {
  const text = content.replace(HOOK_ERROR_PREFIX, '');
  return GATE_OPENING.test(text) ? text : null;
}

/**
 * What the model was told since its last reply: every message after the last assistant message,
 * as text. Older clients put hook notices into the user message as a system reminder; newer ones
 * add a separate system message after it.
 */
export function toldSince(body) {
  const messages = body?.messages ?? [];
  let k = messages.length;
  while (k > 0 && messages[k - 1].role !== 'assistant') k--;
  return messages.slice(k).map((m) => textOf(m.content)).join('\n');
}

/**
 * The tdd-gate notices a hook added since the model's last reply, outside the tool results (a
 * PostToolUse restore: a system reminder in the user message on older clients, a system message
 * on newer ones), each as its `tdd-gate [rule]: …` (or `tdd-gate rule [rule]: …`) text.
 */
export function hookNotices(body) {
  const messages = body?.messages ?? [];
  let k = messages.length;
  while (k > 0 && messages[k - 1].role !== 'assistant') k--;
  const texts = [];
  for (const m of messages.slice(k)) {
    if (typeof m.content === 'string') texts.push(m.content);
    else if (Array.isArray(m.content)) for (const b of m.content) if (b && b.type === 'text') texts.push(b.text);
  }
  return texts.flatMap((t) => [...t.matchAll(/tdd-gate (?:rule )?\[[a-z0-9-]+\]: (?:(?!<\/system-reminder>)[^\n])*/gu)].map((m) => m[0].trim()));
}

function conversationOf(body) {
  const first = (body.messages ?? []).find((m) => m.role === 'user');
  const match = first ? MARKER.exec(textOf(first.content)) : null;
  return match ? match[1] : null;
}

function toolUseId(conversation, turn, index) {
  return `toolu_e2e_${conversation}_${turn}_${index}`;
}

/** Normalises a scripted turn to Messages API content blocks and a stop reason. */
function render(conversation, turnIndex, turn) {
  const content = [];
  if (turn.text) content.push({ type: 'text', text: turn.text });
  (turn.tools ?? []).forEach((t, i) => {
    content.push({ type: 'tool_use', id: toolUseId(conversation, turnIndex, i), name: t.name, input: t.input });
  });
  if (content.length === 0) content.push({ type: 'text', text: '(done)' });
  return { content, stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn' };
}

function sse(res, event, data) {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

let messageCounter = 0;

function reply(res, body, answer) {
  const id = `msg_e2e_${++messageCounter}`;
  const usage = { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model: body.model, content: answer.content, stop_reason: answer.stop_reason, stop_sequence: null, usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  sse(res, 'message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
  answer.content.forEach((block, index) => {
    if (block.type === 'text') {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    } else {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      const json = JSON.stringify(block.input);
      // Two deltas, as the real API streams partial JSON in pieces.
      const cut = Math.floor(json.length / 2);
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(0, cut) } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(cut) } });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: answer.stop_reason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

/**
 * Starts the fake API. `onTurn`, when given, is called for every scripted request as it is
 * answered, with the tool results that arrived with it (`fresh`) and the answer (for live progress).
 * @param {{ script: Record<string, Array<object|Function>>, listen?: { path: string } | { port?: number }, onTurn?: Function }} options
 */
export async function startFakeApi(options) {
  const script = options.script;
  /** Every request, in order: { at, method, url, conversation, turn, model, kind }. */
  const requests = [];
  /** Every tool_result the client sent back, once each, in order. */
  const toolResults = [];
  /** The tool calls we played, by id, to label the results. */
  const played = new Map();
  /** Problems that must fail the scenario (running past the script, unknown conversations). */
  const failures = [];
  const seenResults = new Set();
  /** Task notifications (a background child's completion), once each, in order. */
  const notifications = [];
  const seenNotifications = new Set();

  function recordNotifications(conversation, body) {
    for (const message of body.messages ?? []) {
      if (message.role === 'assistant') continue;
      for (const n of taskNotifications(textOf(message.content))) {
        const key = `${conversation}\0${n.task_id}\0${n.status}\0${n.result}`;
        if (seenNotifications.has(key)) continue;
        seenNotifications.add(key);
        notifications.push({ conversation, ...n });
      }
    }
  }

  function recordResults(conversation, body) {
    recordNotifications(conversation, body);
    for (const message of body.messages ?? []) {
      if (message.role !== 'user' || !Array.isArray(message.content)) continue;
      for (const block of message.content) {
        if (!block || block.type !== 'tool_result' || seenResults.has(block.tool_use_id)) continue;
        seenResults.add(block.tool_use_id);
        const call = played.get(block.tool_use_id);
        toolResults.push({
          conversation,
          tool_use_id: block.tool_use_id,
          name: call ? call.name : null,
          input: call ? call.input : null,
          content: textOf(block.content),
          is_error: block.is_error === true,
        });
      }
    }
  }

  function answerMessages(body) {
    const conversation = conversationOf(body);
    if (conversation === null) {
      requests.push({ at: Date.now(), kind: 'side', conversation: null, turn: null, model: body.model, body });
      return { content: [{ type: 'text', text: 'OK' }], stop_reason: 'end_turn' };
    }
    const before = toolResults.length;
    recordResults(conversation, body);
    const fresh = toolResults.slice(before);
    const turn = (body.messages ?? []).filter((m) => m.role === 'assistant' && textOf(m.content) !== WAITING_TEXT).length;
    requests.push({ at: Date.now(), kind: 'turn', conversation, turn, model: body.model, body });
    const answer = play(conversation, turn, body);
    if (options.onTurn) {
      try {
        options.onTurn({ conversation, turn, body, fresh, answer, waiting: requests[requests.length - 1].waiting });
      } catch (error) {
        failures.push(`onTurn: ${error instanceof Error ? error.stack : String(error)}`);
      }
    }
    return answer;
  }

  /** The answer for turn `turn` of `conversation`: its scripted step, a wait, or "script exhausted". */
  function play(conversation, turn, body) {
    const turns = script[conversation];
    if (!turns) {
      failures.push(`no script for conversation "${conversation}"`);
      return { content: [{ type: 'text', text: EXHAUSTED_TEXT }], stop_reason: 'end_turn' };
    }
    let step = turns[turn];
    // Wait for background children: the one a step names, and any Agent call of this conversation
    // that came back as a launch notice (a client that runs children in the background by default
    // plays a script written for foreground children in the same turns).
    const notified = (id) => notifications.some((n) => n.conversation === conversation && n.tool_use_id === id);
    const launched = toolResults.filter((r) => r.conversation === conversation && r.name === 'Agent' && isLaunchNotice(r.content)).map((r) => r.tool_use_id);
    const awaits = [...(typeof step === 'function' && step.awaits !== undefined ? [step.awaits] : []), ...launched].find((id) => !notified(id));
    if (step !== undefined && awaits !== undefined) {
      requests[requests.length - 1].waiting = awaits;
      return { content: [{ type: 'text', text: WAITING_TEXT }], stop_reason: 'end_turn' };
    }
    if (typeof step === 'function') step = step({ toolResults: toolResults.filter((r) => r.conversation === conversation), notifications: notifications.filter((n) => n.conversation === conversation), body });
    if (!step) {
      failures.push(`conversation "${conversation}" ran past its script (asked for turn ${turn + 1} of ${turns.length})`);
      return { content: [{ type: 'text', text: EXHAUSTED_TEXT }], stop_reason: 'end_turn' };
    }
    const answer = render(conversation, turn, step);
    for (const block of answer.content) if (block.type === 'tool_use') played.set(block.id, { name: block.name, input: block.input });
    return answer;
  }

  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '/';
      let body = {};
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      } catch {
        body = {};
      }
      try {
        if (req.method === 'POST' && url.startsWith('/v1/messages/count_tokens')) {
          requests.push({ at: Date.now(), kind: 'count_tokens', conversation: null, turn: null, model: body.model });
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ input_tokens: 100 }));
        } else if (req.method === 'POST' && url.startsWith('/v1/messages')) {
          reply(res, body, answerMessages(body));
        } else {
          // Reachability probes (HEAD /) and anything else: a plain, empty success.
          requests.push({ at: Date.now(), kind: 'other', method: req.method, url, conversation: null, turn: null });
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(req.method === 'HEAD' ? undefined : '{}');
        }
      } catch (error) {
        failures.push(`fake API error: ${error instanceof Error ? error.stack : String(error)}`);
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'fake API error' } }));
      }
    });
  });

  const listen = options.listen ?? {};
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    if ('path' in listen) server.listen(listen.path, resolve);
    else server.listen(listen.port ?? 0, '127.0.0.1', resolve);
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : null,
    path: typeof address === 'string' ? address : null,
    requests,
    toolResults,
    notifications,
    failures,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve(undefined));
      }),
  };
}
