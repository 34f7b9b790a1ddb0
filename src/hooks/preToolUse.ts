import { PASS, deny, type Decision } from '../core/decision.js';
import { checkPreToolUse } from '../schema/handChecks.js';
import { GateError } from '../io/errors.js';
import { appendEvent } from '../io/eventLog.js';
import { loadCycles, type ActiveCycle } from './cycle.js';
import { gateFileTool } from './fileGate.js';
import { load as loadBashGate } from './lazy/bashGate.js';
import { candidateDirs } from './projectDirs.js';

const GATED_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'Bash']);

/** PreToolUse: parse, find the branch's cycle, decide. Throws only on internal bugs. */
export async function preToolUse(input: unknown, env: NodeJS.ProcessEnv): Promise<Decision> {
  const toolName = (input as { tool_name?: unknown } | null)?.tool_name;
  if (typeof toolName === 'string' && !GATED_TOOLS.has(toolName)) return PASS;
  // By hand, not by preToolUseSchema: this runs on every gated call in an active cycle (ADR 005).
  const checked = checkPreToolUse(input);
  if (!checked.ok) {
    return deny(
      'bad-input',
      `the PreToolUse input could not be understood (${checked.issues}), so the call is blocked to stay safe. Retry the tool call with complete arguments (a path and content for file tools, a command for Bash).`,
    );
  }
  const event = checked.value;
  let cycles: ActiveCycle[];
  try {
    cycles = loadCycles(candidateDirs(event, env), env);
  } catch (err) {
    if (err instanceof GateError) return deny(err.ruleId, `${err.message} (${event.tool_name} blocked: the gate fails closed.)`);
    throw err;
  }
  // Usually one project; a call that reaches into several is judged by each, and a deny wins over an ask.
  let verdict: Decision = PASS;
  for (const cycle of cycles) {
    const decision = event.tool_name === 'Bash' ? (await loadBashGate()).gateBash(cycle, event) : gateFileTool(cycle, event);
    if (decision.kind === 'pass') continue;
    const target = event.tool_name === 'Bash' ? event.tool_input.command.slice(0, 500) : 'file_path' in event.tool_input ? event.tool_input.file_path : event.tool_input.notebook_path;
    appendEvent(cycle.repo.root, {
      type: decision.kind === 'deny' ? 'hook-deny' : 'hook-ask',
      tool: event.tool_name,
      target,
      rule: decision.ruleId,
      role: event.agent_type ?? 'main',
      phase: cycle.state.phase,
    });
    if (decision.kind === 'deny') return decision;
    if (verdict.kind === 'pass') verdict = decision;
  }
  return verdict;
}
