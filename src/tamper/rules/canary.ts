/**
 * The canary (pure): a write that reaches PostToolUse in an active cycle without the PreToolUse
 * decision the gate records for it means the client ran that call without the gate. Which context
 * it came from is what the person needs to know: the main thread, a subagent (by its agent type),
 * a background command.
 */

/** The tools whose PostToolUse the canary checks: the file writers (a Bash call has its own in-flight mark). */
export const CANARY_TOOLS: ReadonlySet<string> = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

interface CallContext {
  kind: 'main' | 'subagent' | 'background';
  /** In words, for the reason and the notice. */
  label: string;
  agentType: string | null;
}

/** Where a hook input says the call came from. */
export function callContext(input: { agent_type?: unknown; agent_id?: unknown; tool_input?: unknown }): CallContext {
  const agentType = typeof input.agent_type === 'string' && input.agent_type !== '' ? input.agent_type : null;
  const background = (input.tool_input as { run_in_background?: unknown } | null | undefined)?.run_in_background === true;
  if (agentType !== null) {
    const id = typeof input.agent_id === 'string' && input.agent_id !== '' ? ` (agent id ${input.agent_id})` : '';
    return { kind: 'subagent', label: `the subagent ${agentType}${id}${background ? ', in the background' : ''}`, agentType };
  }
  if (background) return { kind: 'background', label: 'a background command of the main thread', agentType: null };
  return { kind: 'main', label: 'the main thread', agentType: null };
}

export interface CanaryFacts {
  toolName: string;
  /** The call's id; without one nothing can be matched. */
  toolUseId: string | null;
  /** Did PreToolUse record this call? */
  recorded: boolean;
  phase: string;
  /**
   * How long ago the cycle started, in ms (null: unknown). A call whose PreToolUse ran just before
   * `init` (a write made in parallel with it) was judged with no cycle, so it left no record: not
   * a skip. Only a cycle still in tdd-plan can be that young.
   */
  cycleAgeMs: number | null;
}

/** Calls judged in the first moments of a cycle may have been judged before it began. */
export const CYCLE_START_GRACE_MS = 30_000;

type CanaryVerdict = 'recorded' | 'skipped' | 'unknown';

export function canaryVerdict(f: CanaryFacts): CanaryVerdict {
  if (!CANARY_TOOLS.has(f.toolName) || f.toolUseId === null || f.toolUseId === '') return 'unknown';
  if (f.recorded) return 'recorded';
  if (f.phase === 'tdd-plan' && f.cycleAgeMs !== null && f.cycleAgeMs >= 0 && f.cycleAgeMs < CYCLE_START_GRACE_MS) return 'unknown';
  return 'skipped';
}

interface CanaryReport {
  ruleId: 'gate-skipped';
  reason: string;
  notice: string;
}

/**
 * What the model and the person are told when the canary fires. `restored` lists the control files
 * put back from their copies; `target` is the file the call wrote.
 */
export function describeCanary(p: { toolName: string; target: string; phase: string; context: CallContext; restored: string[]; targetRestored: boolean }): CanaryReport {
  const putBack =
    p.restored.length > 0
      ? ` What could be put back was: ${p.restored.join(', ')} (from the copies kept at the freeze).`
      : '';
  const target = p.targetRestored ? '' : ` ${p.target} itself has no copy to restore: it stays as the call left it, unchecked.`;
  return {
    ruleId: 'gate-skipped',
    reason:
      `The ${p.toolName} of ${p.target} by ${p.context.label} ran without the tdd-gate PreToolUse check (phase ${p.phase}): Claude Code did not run the gate for ${p.context.label}, so the write was never judged by the phase rules.${putBack}${target} ` +
      'Stop and report this to the user; do not repeat or work around the write. The user checks the plugin with `/tdd-gate:doctor`.',
    notice: `the gate was skipped for ${p.context.label}: its ${p.toolName} of ${p.target} reached PostToolUse with no PreToolUse decision.${p.restored.length > 0 ? ` Restored ${p.restored.join(', ')}.` : ''} Run /tdd-gate:doctor.`,
  };
}
