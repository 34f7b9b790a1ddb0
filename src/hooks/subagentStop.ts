import { readFileSync } from 'node:fs';
import * as z from 'zod/mini';
import '../state/schema/zod.js';
import { NO_AC, readLoop } from '../handoff/rules/loop.js';
import { resultDigest } from '../handoff/rules/digest.js';
import { AGENT_PREFIX, decideStop } from '../handoff/rules/stopDecision.js';
import { clearAgent, inflight } from '../state/anchorInflight.js';
import { anchorPaths } from '../state/anchorPaths.js';
import { appendEvent } from '../state/eventLog.js';
import { findRepo } from '../state/repo.js';
import { statePathFor } from '../state/statePath.js';
import { readState } from '../state/stateStore.js';
import { NOTHING, subagentStopBlock, type HookResult } from './output.js';

// Claude Code's SubagentStop input: tolerant of extra keys, only the fields we use.
const inputSchema = z.looseObject({
  cwd: z.string().check(z.minLength(1)),
  agent_id: z.optional(z.string()),
  agent_type: z.optional(z.string()),
  agent_transcript_path: z.optional(z.string()),
  last_assistant_message: z.optional(z.string()),
  stop_hook_active: z.optional(z.boolean()),
});

const PASS: HookResult = NOTHING;

/** The text of the last assistant message in a transcript (JSONL), for inputs without last_assistant_message. */
function lastAssistantText(transcript: string | undefined): string {
  if (transcript === undefined) return '';
  let lines: string[];
  try {
    lines = readFileSync(transcript, 'utf8').split('\n');
  } catch {
    return '';
  }
  for (let k = lines.length - 1; k >= 0; k--) {
    try {
      const entry = JSON.parse(lines[k] ?? '') as { type?: string; message?: { content?: unknown } };
      if (entry.type !== 'assistant') continue;
      const content = entry.message?.content;
      if (typeof content === 'string') return content;
      if (Array.isArray(content)) {
        const text = content.filter((c: { type?: string }) => c.type === 'text').map((c: { text?: string }) => c.text ?? '').join('\n');
        if (text !== '') return text;
      }
    } catch {
      // not a JSON line
    }
  }
  return '';
}

/**
 * SubagentStop: a tdd-gate child must end with one valid tdd-result block. When it does not, its
 * stop is blocked once with a narrow instruction to re-emit the block; other agents are untouched.
 */
export function subagentStop(input: unknown, env: NodeJS.ProcessEnv): HookResult {
  const parsed = inputSchema.safeParse(input);
  if (!parsed.success) return PASS;
  const ev = parsed.data;
  if (!ev.agent_type?.startsWith(AGENT_PREFIX)) return PASS;
  const repo = findRepo(ev.cwd);
  if (repo === null) return PASS;
  const state = readState(statePathFor(repo));
  if (state === null || state.phase === 'done') return PASS;
  const loop = readLoop(state);
  const ac = loop.current_ac ?? NO_AC;
  const role = ev.agent_type.slice(AGENT_PREFIX.length);
  const message = ev.last_assistant_message ?? lastAssistantText(ev.agent_transcript_path);
  const d = decideStop({
    agentType: ev.agent_type,
    message,
    stopHookActive: ev.stop_hook_active === true,
    ac,
    formatUsed: loop.budgets[`${role} ${ac}`]?.format ?? 0,
    formatLimit: loop.limits.format_retries,
  });
  const who = { role, agent_id: ev.agent_id ?? null, ac };
  const paths = anchorPaths(repo, env);
  // Commands still in flight (other than this agent's own background ones) could have piped this
  // very event into the hook: its result is then not one freeze may trust.
  const running = inflight(paths).filter((m) => !(m.agent_id !== null && m.agent_id === ev.agent_id));
  if (ev.agent_id !== undefined) clearAgent(paths, ev.agent_id);
  if (d.kind === 'valid' && running.length > 0) {
    appendEvent(repo.root, { type: 'result-unverified', source: 'subagent-stop', ...who, why: `${running.length} command(s) were running when this stop arrived`, digest: resultDigest(d.result) });
    return PASS;
  }
  switch (d.kind) {
    case 'ignore':
      return PASS;
    case 'valid':
      appendEvent(repo.root, {
        type: 'result',
        source: 'subagent-stop',
        ...who,
        status: d.result.status,
        block_ac: d.result.ac ?? null,
        ...(d.result.verdict ? { verdict: d.result.verdict } : {}),
        digest: resultDigest(d.result),
      });
      return PASS;
    case 'let-stop':
      appendEvent(repo.root, { type: 'format-violation', source: 'subagent-stop', ...who, code: d.code, message: d.message, blocked: false, why: d.why });
      return PASS;
    case 'block':
      appendEvent(repo.root, { type: 'format-violation', source: 'subagent-stop', ...who, code: d.code, message: d.message, blocked: true });
      return subagentStopBlock(d.reason);
  }
}
