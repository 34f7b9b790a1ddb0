/**
 * The gate's I/O: what the rules (rules/rules.ts) ask of a tool call, gathered from the event, the
 * projects' cycles and the disk; and, after the decision, what the hook records of it. Nothing here
 * decides: each question is answered when a rule asks it (a Write to README.md never hashes the SPEC).
 */
import { homedir } from 'node:os';
import { ask, deny, type Decision } from './rules/decision.js';
import type { CallFacts, CallKind, CycleCall } from './rules/facts.js';
import type { Verdict } from './rules/decide.js';
import { bashTargets } from './rules/decideBash.js';
import { ROLE, decideSpecWriterTool } from './rules/roles.js';
import { checkOtherTool, checkPreToolUse } from '../state/schema/handChecks.js';
import type { BashEvent, OtherToolEvent, PreToolUseEvent } from '../state/schema/event.js';
import { clearEnded, markInflight } from '../state/anchorInflight.js';
import { GateError } from '../state/rules/errors.js';
import { markSeen } from '../tamper/seenCalls.js';
import { appendEvent } from '../state/eventLog.js';
import { loadCycles, type ActiveCycle } from '../state/cycle.js';
import type { HookDeps } from '../state/store.js';
import { findRepo } from '../state/repo.js';
import { candidateDirs } from '../state/projectDirs.js';
import { integrityDecision } from '../tamper/integrityGate.js';
import { cycleFacts, fileTarget } from './fileGate.js';
import { isMcpTool, mcpTargets } from './mcpGate.js';
import { gateSpecWriter } from '../spec/specWriterGate.js';
import type * as BashGateModule from './bashGate.js';
import type { SeenCliCall } from '../tamper/rules/cliRoads.js';

/** The Bash gate, which the build keeps out of the part loaded for the other tools (hooks/bashPreToolUse.ts). */
export type BashGate = typeof BashGateModule;

/** What the gate reads and writes outside the event: the projects' cycles and the clock. Tests hand in their own. */
export interface GateDeps {
  /** The cycles of the candidate project directories; throws GateError when one cannot be loaded. */
  loadCycles(dirs: string[], env: NodeJS.ProcessEnv): ActiveCycle[];
  /** Milliseconds since the epoch. */
  now(): number;
}

export const DEFAULT_DEPS: GateDeps = { loadCycles, now: () => Date.now() };

/** The hook entry's clock and store (src/state/store.ts) as the gate's deps (store null: the disk). */
export function gateDeps(deps: HookDeps): GateDeps {
  const { store, clock } = deps;
  return { loadCycles: (dirs, env) => loadCycles(dirs, env, store), now: () => clock.now() };
}

/**
 * A call that reaches the gate as a tool call it stands for, not as one of its own: a shell
 * command a skill embeds is judged as the Bash call it is (hooks/skillShell.ts).
 */
export interface CallSource {
  /** What the event log names as the tool (default: the tool's name). */
  label: string;
  /** The client cannot ask the person here: what an ask becomes instead (recorded as that). */
  cannotAsk: (asked: Extract<Decision, { kind: 'ask' }>) => Decision;
}

/** A call's facts, and what the hook records once it is decided. */
interface GatheredCall {
  facts: CallFacts<ActiveCycle>;
  /** The tool as the event log names it. */
  label: string;
  /** What the call touches, for the event log. */
  target: () => string;
  agentType: string | undefined;
  /** After the decision: the marks the PostToolUse checks rely on. */
  after: (verdict: Verdict<ActiveCycle>) => void;
  /**
   * Bash: the CLI's road through the call (src/tamper/rules/cliRoads.ts): the subagent rule and the
   * person's question for its verbs with or without a cycle, and the tickets the CLI takes.
   */
  road?: (decision: Decision) => Decision;
}

const FILE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

function kindOf(toolName: unknown): CallKind | null {
  if (typeof toolName !== 'string' || FILE_TOOLS.has(toolName)) return 'file';
  if (toolName === 'Bash') return 'bash';
  if (toolName === 'Monitor') return 'monitor';
  if (toolName === 'EnterWorktree') return 'worktree';
  return isMcpTool(toolName) ? 'mcp' : null;
}

function needBash(bash: BashGate | null): BashGate {
  if (bash === null) throw new Error('a Bash or Monitor call reached the gate without its Bash part');
  return bash;
}

/** Memoized: a question a rule may ask more than once is answered once. */
function once<T>(f: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = f();
      done = true;
    }
    return value;
  };
}

/** A PreToolUse call (and a skill's Bash command, with its source): the facts of every tool. */
export function gatherCall(input: unknown, env: NodeJS.ProcessEnv, bash: BashGate | null, source: CallSource | null, deps: GateDeps): GatheredCall {
  const fields = input as { tool_name?: unknown; agent_type?: unknown } | null;
  const toolName = fields?.tool_name;
  const kind = kindOf(toolName);
  const specWriter = fields?.agent_type === ROLE.specWriter ? () => gateSpecWriter(input, env) : null;
  const tool = typeof toolName === 'string' ? toolName : 'the call';
  const base = { kind, tool, specWriter, cannotAsk: source?.cannotAsk ?? null };
  const none: GatheredCall = {
    facts: {
      ...base,
      badInput: null,
      cycles: () => [],
      inCycle: () => {
        throw new Error('no project to judge this call in');
      },
    },
    label: tool,
    target: () => '',
    agentType: undefined,
    after: () => undefined,
  };
  if (kind === null) return none;
  if (kind === 'file' || kind === 'bash') {
    // By hand, not by preToolUseSchema: this runs on every gated call in an active cycle (ADR 007).
    const checked = checkPreToolUse(input);
    if (!checked.ok) return { ...none, facts: { ...none.facts, badInput: checked.issues } };
    return fileOrBashCall(checked.value, env, bash, source, deps, base);
  }
  // By hand, not by otherToolSchema: zod stays out of the hook's start-up (ADR 007).
  const checked = checkOtherTool(input);
  if (!checked.ok) return { ...none, facts: { ...none.facts, badInput: checked.issues } };
  return otherToolCall(checked.value, kind, env, bash, deps, base);
}

type Base = Pick<CallFacts<ActiveCycle>, 'kind' | 'tool' | 'specWriter' | 'cannotAsk'>;

function fileOrBashCall(event: PreToolUseEvent, env: NodeJS.ProcessEnv, bash: BashGate | null, source: CallSource | null, deps: GateDeps, base: Base): GatheredCall {
  const label = source?.label ?? event.tool_name;
  const cycles = once(() => cyclesOf(event, env, bash, deps));
  const seen: SeenCliCall[] = [];
  const inCycle = (cycle: ActiveCycle): CycleCall => {
    const common = { phase: cycle.state.phase, tool: label, integrity: () => integrityDecision(cycle, label), cycle: once(() => cycleFacts(cycle, event.agent_type)) };
    if (event.tool_name !== 'Bash') return { ...common, kind: 'file', writes: () => [fileTarget(cycle, event)] };
    return bashInCycle(cycle, event, env, bash, common, 'bash', seen);
  };
  const road =
    event.tool_name === 'Bash'
      ? (decision: Decision): Decision => {
          const settle = (d: Decision): Decision => (d.kind === 'ask' && base.cannotAsk !== null ? base.cannotAsk(d) : d);
          const loaded = cycles();
          if (!Array.isArray(loaded)) return decision.kind === 'deny' ? decision : settle(needBash(bash).ticketCliCalls(event, [], decision, null, env));
          return settle(needBash(bash).ticketCliCalls(event, loaded, decision, loaded.length > 0 ? seen : null, env));
        }
      : undefined;
  return {
    facts: { ...base, badInput: null, cycles, inCycle },
    label,
    target: () => String(event.tool_name === 'Bash' ? event.tool_input.command.slice(0, 500) : 'file_path' in event.tool_input ? event.tool_input.file_path : event.tool_input.notebook_path),
    agentType: event.agent_type,
    ...(road !== undefined ? { road } : {}),
    after: (verdict) => {
      if (verdict.decision.kind === 'deny') return;
      const asked = verdict.decision.kind === 'ask' ? verdict.decision.ruleId : undefined;
      if (event.tool_name === 'Bash') for (const cycle of verdict.cycles) markCommand(cycle, { ...event, tool_name: label }, deps, asked);
      // The canary's record: PostToolUse checks that the gate saw this write (src/tamper/rules/canary.ts).
      else if (event.tool_use_id !== undefined) for (const cycle of verdict.cycles) markSeen(cycle.anchorPaths, event.tool_use_id);
    },
  };
}

function bashInCycle(cycle: ActiveCycle, event: BashEvent, env: NodeJS.ProcessEnv, bash: BashGate | null, common: Omit<CycleCall, 'kind'>, kind: 'bash' | 'monitor', seen?: SeenCliCall[]): CycleCall {
  const where = `(phase ${cycle.state.phase}, ${event.agent_type ?? 'main thread'})`;
  const call = once(() => {
    const c = needBash(bash).bashCall(cycle, event, env, kind);
    seen?.push(...c.analysis.cliCalls);
    return c;
  });
  return {
    ...common,
    kind,
    ...(kind === 'bash' ? { hardened: () => needBash(bash).hardenedBashCheck(cycle.repo, event.tool_input.command) } : {}),
    sandboxDisabled: (event.tool_input as { dangerouslyDisableSandbox?: unknown }).dangerouslyDisableSandbox === true,
    programs: () => needBash(bash).gatePluginPrograms(event.tool_input.command, event.cwd, env, cycle.home, where),
    bash: call,
    writes: () => {
      const c = call();
      return bashTargets(c.analysis, c.facts);
    },
    cycle: () => call().facts.cycle(),
  };
}

function otherToolCall(event: OtherToolEvent, kind: CallKind, env: NodeJS.ProcessEnv, bash: BashGate | null, deps: GateDeps, base: Base): GatheredCall {
  const cycles = once(() => cyclesOf(event, env, bash, deps));
  const command = (event.tool_input as { command?: unknown }).command;
  const inCycle = (cycle: ActiveCycle): CycleCall => {
    const common = { phase: cycle.state.phase, tool: event.tool_name, integrity: () => integrityDecision(cycle, event.tool_name), cycle: once(() => cycleFacts(cycle, event.agent_type)) };
    if (kind === 'mcp') return { ...common, kind, writes: () => mcpTargets(cycle, event) };
    if (kind !== 'monitor') return { ...common, kind };
    // A monitor runs its command in the background, with no PostToolUse: judged like Bash before it starts.
    if (typeof command !== 'string') return { ...common, kind, bash: () => null }; // a WebSocket watch runs nothing here
    const asBash = { ...event, tool_name: 'Bash', tool_input: { command, run_in_background: true } } as unknown as BashEvent;
    return bashInCycle(cycle, asBash, env, bash, common, 'monitor');
  };
  return {
    facts: { ...base, badInput: null, cycles, inCycle },
    label: event.tool_name,
    target: () => JSON.stringify(event.tool_input).slice(0, 500),
    agentType: event.agent_type,
    after: (verdict) => {
      if (kind === 'monitor') for (const cycle of verdict.passed) markCommand(cycle, event, deps);
    },
  };
}

/**
 * A skill's shell command in a shell the gate cannot read (PowerShell): it does not run during a
 * cycle. `problem` is set when the input itself cannot be read.
 */
export function gatherShellCall(fields: Record<string, unknown> | null, shell: string, where: string, env: NodeJS.ProcessEnv, deps: GateDeps, problem: boolean): GatheredCall {
  const agentType = typeof fields?.agent_type === 'string' ? fields.agent_type : undefined;
  const label = `${shell} in ${where}`;
  const event = { cwd: (fields?.cwd ?? '') as string, tool_name: shell, tool_input: (fields?.tool_input ?? {}), ...(agentType !== undefined ? { agent_type: agentType } : {}) };
  const facts: CallFacts<ActiveCycle> = {
    kind: 'shell',
    tool: shell,
    specWriter: !problem && fields?.agent_type === ROLE.specWriter ? () => decideSpecWriterTool(shell) : null,
    badInput: problem ? 'it needs cwd, tool_name and tool_input.command' : null,
    cycles: once(() => cyclesOf(event, env, null, deps)),
    inCycle: (cycle) => ({ kind: 'shell', phase: cycle.state.phase, tool: shell, skill: where, cycle: once(() => cycleFacts(cycle, agentType)) }),
    cannotAsk: (asked) => deny(asked.ruleId, asked.reason),
  };
  return { facts, label, target: () => String((event.tool_input as { command?: unknown }).command).slice(0, 500), agentType, after: () => undefined };
}

/** The event log's line for each project's deny or ask (the control set logs its own). */
export function recordVerdict(call: GatheredCall, verdict: Verdict<ActiveCycle>): void {
  for (const { cycle, decision } of verdict.records) {
    if (decision.kind === 'pass') continue;
    appendEvent(cycle.repo.root, {
      type: decision.kind === 'deny' ? 'hook-deny' : 'hook-ask',
      tool: call.label,
      target: call.target(),
      rule: decision.ruleId,
      role: call.agentType ?? 'main',
      phase: cycle.state.phase,
    });
  }
}

/** A command the gate lets run is marked in flight until its PostToolUse (anchorInflight.ts). */
function markCommand(cycle: ActiveCycle, event: { tool_name: string; tool_use_id?: string | undefined; agent_type?: string | undefined; agent_id?: string | undefined; tool_input: object }, deps: GateDeps, asked?: string): void {
  const input = event.tool_input as { run_in_background?: unknown; timeout?: unknown };
  clearEnded(cycle.anchorPaths, event.agent_id ?? null);
  markInflight(cycle.anchorPaths, {
    id: event.tool_use_id ?? `anon-${process.pid}-${deps.now()}`,
    agentType: event.agent_type,
    agentId: event.agent_id,
    tool: event.tool_name,
    background: event.tool_name === 'Monitor' || input.run_in_background === true,
    timeoutMs: typeof input.timeout === 'number' ? input.timeout : undefined,
    asked,
  });
}

/**
 * The cycles a call can touch, or the decision when one of them cannot be loaded. While the gate
 * fails closed (a state the anchor does not recognise, a broken stack.json or state file), plain
 * reads and the CLI's read-only verbs still run: they are how the model finds out what is wrong
 * (isPlainRead); `recover` is the person's to confirm; everything else is blocked.
 */
function cyclesOf(event: { cwd: string; tool_name: string; tool_input: object; agent_type?: string | undefined }, env: NodeJS.ProcessEnv, bash: BashGate | null, deps: GateDeps): ActiveCycle[] | Decision {
  try {
    return deps.loadCycles(candidateDirs(event, env), env);
  } catch (err) {
    if (!(err instanceof GateError)) throw err;
    const command = (event.tool_input as { command?: unknown }).command;
    const shell = (event.tool_name === 'Bash' || event.tool_name === 'Monitor') && typeof command === 'string' ? command : null;
    if (shell !== null && bash !== null && bash.isPlainRead(shell, event.cwd, findRepo(event.cwd)?.root ?? event.cwd, env.HOME ?? homedir(), env)) return [];
    if (err.ruleId === 'state-tampered') {
      const verb = event.tool_name === 'Bash' && shell !== null ? bareCliVerb(shell) : null;
      const subagent = event.agent_type !== undefined;
      if (verb === 'recover' && !subagent) return ask('cli-confirm', `\`tdd-gate recover\` restores the TDD state and the control files from the anchor kept outside the work tree. ${err.message} Confirm only if you, the user, want the cycle restored; it is recorded either way.`);
      if (verb === 'abort' && !subagent) return ask('cli-confirm', `\`tdd-gate abort\` ends the TDD cycle whose records were deleted or rewritten, and closes what is left of it. ${err.message} Confirm only if you, the user, want the cycle ended; it is recorded either way.`);
      if (verb === 'status' || verb === 'log') return [];
      return deny(err.ruleId, `${err.message} (${event.tool_name} blocked: the gate fails closed; plain reads such as \`ls\`, \`cat\` and \`tdd-gate status\` still run.)`, `the TDD state of this branch was deleted or rewritten outside the tdd-gate CLI; run \`tdd-gate recover\` to restore it (or \`tdd-gate abort\` to end the cycle).`);
    }
    return deny(err.ruleId, `${err.message} (${event.tool_name} blocked: the gate fails closed; plain reads such as \`ls\`, \`cat\` and \`tdd-gate stack check\` still run.)`);
  }
}

/** `tdd-gate <verb>` or `node <…>/dist/cli.mjs <verb>` and nothing else: the verb; otherwise null. */
function bareCliVerb(command: string): string | null {
  const m = /^\s*(?:tdd-gate|npx\s+tdd-gate|node\s+(?:"[^"$`]*\/dist\/cli\.mjs"|'[^']*\/dist\/cli\.mjs'|[^\s"'$`;&|<>()]*\/dist\/cli\.mjs))\s+(?:(recover|status|log)(?:\s+--json)?|(abort)\s+--reason(?:\s+|=)(?:"[^"$`\\]*"|'[^']*'|[^\s"'$`;&|<>()\\]+))\s*$/.exec(command);
  return m?.[1] ?? m?.[2] ?? null;
}

