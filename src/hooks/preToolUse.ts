import { PASS, ask, deny, type Decision } from '../core/decision.js';
import { checkOtherTool, checkPreToolUse } from '../schema/handChecks.js';
import type { BashEvent, OtherToolEvent } from '../schema/event.js';
import { clearEnded, markInflight } from '../io/anchorInflight.js';
import { GateError } from '../io/errors.js';
import { markSeen } from '../io/seenCalls.js';
import { appendEvent } from '../io/eventLog.js';
import { loadCycles, type ActiveCycle } from './cycle.js';
import { gateFileTool } from './fileGate.js';
import { gateSpecWriter } from './specWriterGate.js';
import { ROLE } from '../core/roles.js';
import { integrityDecision } from './integrityGate.js';
import { gateMcpTool, isMcpTool } from './mcpGate.js';
import { candidateDirs } from './projectDirs.js';
import { findRepo } from '../io/repo.js';
import { homedir } from 'node:os';
import type * as BashGateModule from './bashGate.js';

/** The Bash gate, which the build keeps out of the part loaded for the other tools (bashPreToolUse.ts). */
export type BashGate = typeof BashGateModule;

const FILE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'Bash']);
/** Tools of the newest client that write or move the session elsewhere (docs/tools.md). */
const OTHER_TOOLS = new Set(['Monitor', 'EnterWorktree']);

function isGatedTool(toolName: string): boolean {
  return FILE_TOOLS.has(toolName) || OTHER_TOOLS.has(toolName) || isMcpTool(toolName);
}

/**
 * A call that reaches the gate as a tool call it stands for, not as one of its own: a shell
 * command a skill embeds is judged as the Bash call it is (skillShell.ts).
 */
interface CallSource {
  /** What the event log names as the tool (default: the tool's name). */
  label: string;
  /** The client cannot ask the person here: what an ask becomes instead (recorded as that). */
  cannotAsk: (asked: Extract<Decision, { kind: 'ask' }>) => Decision;
}

/**
 * PreToolUse: parse, find the branch's cycle, check the control set, decide. Throws only on
 * internal bugs, and when a Bash or Monitor call arrives without the Bash gate (the entry routes
 * those to bashPreToolUse.ts; the throw becomes a deny).
 */
export function preToolUse(input: unknown, env: NodeJS.ProcessEnv, bash: BashGate | null = null, source: CallSource | null = null): Decision {
  const settle = (d: Decision): Decision => (d.kind === 'ask' && source !== null ? source.cannotAsk(d) : d);
  const toolName = (input as { tool_name?: unknown } | null)?.tool_name;
  if ((input as { agent_type?: unknown } | null)?.agent_type === ROLE.specWriter) {
    const scoped = gateSpecWriter(input, env);
    if (scoped.kind !== 'pass') return scoped;
  }
  if (typeof toolName === 'string' && !isGatedTool(toolName)) return PASS;
  if (typeof toolName === 'string' && !FILE_TOOLS.has(toolName)) return otherTool(input, env, bash);
  // By hand, not by preToolUseSchema: this runs on every gated call in an active cycle (ADR 007).
  const checked = checkPreToolUse(input);
  if (!checked.ok) {
    return deny(
      'bad-input',
      `the PreToolUse input could not be understood (${checked.issues}), so the call is blocked to stay safe. Retry the tool call with complete arguments (a path and content for file tools, a command for Bash).`,
    );
  }
  const event = checked.value;
  const loaded = cyclesOf(event, env, bash);
  if (!Array.isArray(loaded)) return settle(loaded);
  const cycles = loaded;
  const tool = source?.label ?? event.tool_name;
  // Usually one project; a call that reaches into several is judged by each, and a deny wins over an ask.
  let verdict: Decision = PASS;
  for (const cycle of cycles) {
    const broken = integrityDecision(cycle, tool);
    if (broken !== null) return broken;
    const decision = settle(event.tool_name === 'Bash' ? (needBash(bash).hardenedBashCheck(cycle.repo, event.tool_input.command) ?? gateBashCall(needBash(bash), cycle, event)) : gateFileTool(cycle, event));
    if (decision.kind === 'pass') continue;
    const target = event.tool_name === 'Bash' ? event.tool_input.command.slice(0, 500) : 'file_path' in event.tool_input ? event.tool_input.file_path : event.tool_input.notebook_path;
    record(cycle, decision, tool, String(target), event.agent_type);
    if (decision.kind === 'deny') return decision;
    if (verdict.kind === 'pass') verdict = decision;
  }
  if (event.tool_name === 'Bash') for (const cycle of cycles) markCommand(cycle, { ...event, tool_name: tool }, verdict.kind === 'ask' ? verdict.ruleId : undefined);
  // The canary's record: PostToolUse checks that the gate saw this write (src/core/canary.ts).
  else if (event.tool_use_id !== undefined) for (const cycle of cycles) markSeen(cycle.anchorPaths, event.tool_use_id);
  return verdict;
}

/** A command the gate lets run is marked in flight until its PostToolUse (anchorInflight.ts). */
function markCommand(cycle: ActiveCycle, event: { tool_name: string; tool_use_id?: string | undefined; agent_type?: string | undefined; agent_id?: string | undefined; tool_input: object }, asked?: string): void {
  const input = event.tool_input as { run_in_background?: unknown; timeout?: unknown };
  clearEnded(cycle.anchorPaths, event.agent_id ?? null);
  markInflight(cycle.anchorPaths, {
    id: event.tool_use_id ?? `anon-${process.pid}-${Date.now()}`,
    agentType: event.agent_type,
    agentId: event.agent_id,
    tool: event.tool_name,
    background: event.tool_name === 'Monitor' || input.run_in_background === true,
    timeoutMs: typeof input.timeout === 'number' ? input.timeout : undefined,
    asked,
  });
}

function needBash(bash: BashGate | null): BashGate {
  if (bash === null) throw new Error('a Bash or Monitor call reached the gate without its Bash part');
  return bash;
}

function gateBashCall(bash: BashGate, cycle: ActiveCycle, event: BashEvent): Decision {
  if ((event.tool_input as { dangerouslyDisableSandbox?: unknown }).dangerouslyDisableSandbox === true) {
    return deny(
      'sandbox-off',
      `Blocked Bash with dangerouslyDisableSandbox (phase ${cycle.state.phase}): while a TDD cycle is active, commands run inside the sandbox the user configured. Run the command without that flag; if the sandbox stops something the task needs, stop and tell the user.`,
    );
  }
  const where = `(phase ${cycle.state.phase}, ${event.agent_type ?? 'main thread'})`;
  const programs = bash.gatePluginPrograms(event.tool_input.command, event.cwd, process.env, cycle.home, where);
  if (programs.kind !== 'pass') return programs;
  return bash.gateBash(cycle, event);
}

export function record(cycle: ActiveCycle, decision: Decision, tool: string, target: string, agentType: string | undefined): void {
  if (decision.kind === 'pass') return;
  appendEvent(cycle.repo.root, {
    type: decision.kind === 'deny' ? 'hook-deny' : 'hook-ask',
    tool,
    target,
    rule: decision.ruleId,
    role: agentType ?? 'main',
    phase: cycle.state.phase,
  });
}

/**
 * The cycles a call can touch, or the decision when one of them cannot be loaded. While the gate
 * fails closed (a state the anchor does not recognise, a broken stack.json or state file), plain
 * reads and the CLI's read-only verbs still run: they are how the model finds out what is wrong
 * (isPlainRead); `recover` is the person's to confirm; everything else is blocked.
 */
export function cyclesOf(event: { cwd: string; tool_name: string; tool_input: object }, env: NodeJS.ProcessEnv, bash: BashGate | null): ActiveCycle[] | Decision {
  try {
    return loadCycles(candidateDirs(event, env), env);
  } catch (err) {
    if (!(err instanceof GateError)) throw err;
    const command = (event.tool_input as { command?: unknown }).command;
    const shell = (event.tool_name === 'Bash' || event.tool_name === 'Monitor') && typeof command === 'string' ? command : null;
    if (shell !== null && bash !== null && bash.isPlainRead(shell, event.cwd, findRepo(event.cwd)?.root ?? event.cwd, env.HOME ?? homedir(), env)) return [];
    if (err.ruleId === 'state-tampered') {
      const verb = event.tool_name === 'Bash' && shell !== null ? bareCliVerb(shell) : null;
      const subagent = (event as { agent_type?: unknown }).agent_type !== undefined;
      if (verb === 'recover' && !subagent) return ask('cli-confirm', `\`tdd-gate recover\` restores the TDD state and the control files from the anchor kept outside the work tree. ${err.message} Confirm only if you, the user, want the cycle restored; it is recorded either way.`);
      if (verb === 'status' || verb === 'log') return [];
      return deny(err.ruleId, `${err.message} (${event.tool_name} blocked: the gate fails closed; plain reads such as \`ls\`, \`cat\` and \`tdd-gate status\` still run.)`, `the TDD state of this branch was deleted or rewritten outside the tdd-gate CLI; run \`tdd-gate recover\` to restore it (or \`tdd-gate abort\` to end the cycle).`);
    }
    return deny(err.ruleId, `${err.message} (${event.tool_name} blocked: the gate fails closed; plain reads such as \`ls\`, \`cat\` and \`tdd-gate stack check\` still run.)`);
  }
}

/** `tdd-gate <verb>` or `node <…>/dist/cli.mjs <verb>` and nothing else: the verb; otherwise null. */
function bareCliVerb(command: string): string | null {
  const m = /^\s*(?:tdd-gate|npx\s+tdd-gate|node\s+(?:"[^"$`]*\/dist\/cli\.mjs"|'[^']*\/dist\/cli\.mjs'|[^\s"'$`;&|<>()]*\/dist\/cli\.mjs))\s+(recover|status|log)(?:\s+--json)?\s*$/.exec(command);
  return m?.[1] ?? null;
}

function otherTool(input: unknown, env: NodeJS.ProcessEnv, bash: BashGate | null): Decision {
  // By hand, not by otherToolSchema: zod stays out of the hook's start-up (ADR 007).
  const checked = checkOtherTool(input);
  if (!checked.ok) {
    return deny('bad-input', `the PreToolUse input could not be understood (${checked.issues}), so the call is blocked to stay safe. Retry the tool call with complete arguments.`);
  }
  const event = checked.value;
  const loaded = cyclesOf(event, env, bash);
  if (!Array.isArray(loaded)) return loaded;
  for (const cycle of loaded) {
    const broken = integrityDecision(cycle, event.tool_name);
    if (broken !== null) return broken;
    const decision = gateOther(cycle, event, bash);
    if (decision.kind === 'pass') {
      if (event.tool_name === 'Monitor') markCommand(cycle, event);
      continue;
    }
    record(cycle, decision, event.tool_name, JSON.stringify(event.tool_input).slice(0, 500), event.agent_type);
    return decision;
  }
  return PASS;
}

function gateOther(cycle: ActiveCycle, event: OtherToolEvent, bash: BashGate | null): Decision {
  const where = `(phase ${cycle.state.phase})`;
  switch (event.tool_name) {
    case 'EnterWorktree':
      return deny(
        'worktree-switch',
        `Blocked EnterWorktree ${where}: while a TDD cycle is active the session stays in this work tree and on this branch; the cycle's state and frozen files belong to it. Continue here; worktrees can be used after \`tdd-gate done\`, or after the user aborts the cycle.`,
      );
    case 'Monitor': {
      const command = (event.tool_input as { command?: unknown }).command;
      if (typeof command !== 'string') return PASS; // a WebSocket watch runs nothing here
      // A monitor runs its command in the background, with no PostToolUse: judged like Bash before it starts.
      const asBash = { ...event, tool_name: 'Bash', tool_input: { command, run_in_background: true } } as unknown as BashEvent;
      return gateBashCall(needBash(bash), cycle, asBash);
    }
    default:
      return gateMcpTool(cycle, event);
  }
}
