import type { Decision } from '../gate/rules/decision.js';
import { decideCall } from '../gate/rules/decide.js';
import { DEFAULT_DEPS, gatherCall, recordVerdict, type BashGate, type CallSource, type GateDeps } from '../gate/facts.js';
import { PASS, deny } from '../gate/rules/decision.js';
import { GateError } from '../state/rules/errors.js';
import { appendEvent } from '../state/eventLog.js';
import type { ActiveCycle } from '../state/cycle.js';
import { findRepo } from '../state/repo.js';
import { canonicalize } from '../state/canonicalPath.js';
import { candidateDirs } from '../state/projectDirs.js';
import { heldoutDeny, heldoutFactsOf, isReadTool, mcpVerdict, readToolVerdict } from '../heldout/gate.js';
import { storeDirs } from '../heldout/paths.js';
import path from 'node:path';

export type { BashGate, CallSource, GateDeps } from '../gate/facts.js';

/**
 * PreToolUse, for every tool: gather the call's facts (the gate wing), run the rule list
 * (src/gate/rules/rules.ts), log what it decided and mark what PostToolUse checks. Throws only on
 * internal bugs, and when a Bash or Monitor call arrives without the Bash gate (the entry routes
 * those to bashPreToolUse.ts; the throw becomes a deny). run.ts renders the Decision.
 */
export function preToolUse(input: unknown, env: NodeJS.ProcessEnv, bash: BashGate | null = null, source: CallSource | null = null, deps: GateDeps = DEFAULT_DEPS): Decision {
  // Held-out tests out of sight (docs/heldout.md): no tool reads them, whoever calls it.
  const held = heldoutCheck(input, env, bash, source, deps);
  if (held !== null) return held;
  const call = gatherCall(input, env, bash, source, deps);
  let verdict = decideCall(call.facts);
  // Bash: the CLI's verbs in the call get their tickets, or the subagent rule, or the person's question.
  if (call.road !== undefined) {
    const decision = call.road(verdict.decision);
    if (decision !== verdict.decision) verdict = { ...verdict, decision };
  }
  recordVerdict(call, verdict);
  call.after(verdict);
  return verdict.decision;
}

const SHELL_TOOLS = new Set(['Bash', 'Monitor']);

/**
 * The held-out check, before the rule list: the read tools (Read, NotebookRead, Grep, Glob) are
 * decided here whole (they write nothing; PASS unless they reach held-out tests out of sight); a
 * shell command or an MCP call that would read them is denied; anything else goes on (null).
 * Reads are never blocked for a broken state (they are how the model finds out what is wrong),
 * except reads of the held-out store, which the repository alone tells.
 */
function heldoutCheck(input: unknown, env: NodeJS.ProcessEnv, bash: BashGate | null, source: CallSource | null, deps: GateDeps): Decision | null {
  const fields = input as { cwd?: unknown; tool_name?: unknown; tool_input?: unknown; agent_type?: unknown } | null;
  const toolName = fields?.tool_name;
  const cwd = fields?.cwd;
  const toolInput = fields?.tool_input;
  if (typeof toolName !== 'string') return null;
  const read = isReadTool(toolName);
  const shell = SHELL_TOOLS.has(toolName);
  const mcp = toolName.startsWith('mcp__');
  if (!read && !shell && !mcp) return null;
  if (typeof cwd !== 'string' || typeof toolInput !== 'object' || toolInput === null) return read ? PASS : null;
  const agentType = typeof fields?.agent_type === 'string' ? fields.agent_type : undefined;
  let cycles: ActiveCycle[];
  try {
    cycles = deps.loadCycles(candidateDirs(fields as Record<string, unknown>, env), env);
  } catch (err) {
    if (!(err instanceof GateError)) throw err;
    // The rule list fails closed for the writing tools; a read of the store stays denied.
    return read ? storeOnly(toolName, cwd, toolInput as Record<string, unknown>, env) : null;
  }
  const label = source?.label ?? toolName;
  for (const cycle of cycles) {
    const f = heldoutFactsOf(cycle, env);
    if (f === null) continue;
    let decision: Decision | null = null;
    if (read) {
      const v = readToolVerdict(f, toolName, cwd, toolInput as Record<string, unknown>);
      if (v.hidden) decision = heldoutDeny(cycle, label, v, agentType);
    } else if (shell) {
      const command = (toolInput as { command?: unknown }).command;
      if (typeof command === 'string' && bash !== null) decision = bash.heldoutBashCheck(cycle, command, cwd, agentType, label);
    } else {
      const v = mcpVerdict(f, cwd, toolInput);
      if (v.hidden) decision = heldoutDeny(cycle, label, v, agentType);
    }
    if (decision === null || decision.kind === 'pass') continue;
    const target = typeof (toolInput as { command?: unknown }).command === 'string' ? String((toolInput as { command: string }).command) : JSON.stringify(toolInput);
    appendEvent(cycle.repo.root, { type: 'hook-deny', tool: label, target: target.slice(0, 500), rule: decision.ruleId, role: agentType ?? 'main', phase: cycle.state.phase });
    return decision;
  }
  return read ? PASS : null;
}

/** With the cycle's state unreadable: a read of a path inside this repository's held-out store is still denied. */
function storeOnly(toolName: string, cwd: string, toolInput: Record<string, unknown>, env: NodeJS.ProcessEnv): Decision {
  const repo = findRepo(cwd);
  if (repo === null) return PASS;
  const dirs = storeDirs(repo, env);
  const stores = [dirs.primary, ...(dirs.mirror !== null ? [dirs.mirror] : [])].map((d) => canonicalize(d));
  for (const key of ['file_path', 'notebook_path', 'path']) {
    const raw = toolInput[key];
    if (typeof raw !== 'string' || raw === '') continue;
    const p = canonicalize(path.resolve(cwd, raw));
    if (stores.some((s) => p === s || p.startsWith(`${s}/`) || s.startsWith(`${p}/`))) {
      return deny('heldout-hidden', `Blocked ${toolName}: it would read the cycle's held-out store, and the cycle's state cannot be read to say otherwise. Run \`tdd-gate status\` to see what is wrong with the state and tell the user.`);
    }
  }
  return PASS;
}
