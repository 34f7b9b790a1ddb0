import type { Decision } from '../gate/rules/decision.js';

/**
 * The one place that knows Claude Code's hook output format, for every event this plugin answers
 * (DESIGN §4, §6). Handlers return values; only this module turns them into stdout, stderr and
 * an exit code.
 */
export interface HookResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export const KILL_SWITCH = 'TDD_GATE_DISABLE';

export const NOTHING: HookResult = { stdout: '', stderr: '', exitCode: 0 };

function json(value: unknown): HookResult {
  return { stdout: JSON.stringify(value), stderr: '', exitCode: 0 };
}

/** The events whose answer lets a command or a tool call run or not: they fail closed. */
type GateEvent = 'PreToolUse' | 'PreSkillShellCommand';

function isGateEvent(eventName: string): eventName is GateEvent {
  return eventName === 'PreToolUse' || eventName === 'PreSkillShellCommand';
}

/**
 * The rules whose deny is not the gate judging the call: the gate could not read the call or
 * failed itself. Their reasons say so and what to do; they are not framed as a rule at work.
 * (Comparisons, not a Set built at load: this module is on the path of every call.)
 */
const notAJudgement = (ruleId: string) => ruleId === 'internal-error' || ruleId === 'bad-input';
/** Denies of a call that was itself fine: the gate put back what something else had changed. */
const callWasFine = (ruleId: string) => ruleId === 'frozen-restored' || ruleId === 'tamper-restored';

/**
 * The text the model reads for a deny or an ask. Newer clients hand every deny on as
 * `PreToolUse:<Tool> hook error: <text>`, whatever the output's shape (docs/adr/008): so the text
 * itself opens with the rule and says that this is the gate at work, not a failure to retry.
 */
export function gateText(decision: Exclude<Decision, { kind: 'pass' }>): string {
  const opening = `tdd-gate rule [${decision.ruleId}]: ${decision.reason}`;
  if (decision.kind === 'ask' || notAJudgement(decision.ruleId)) return opening;
  if (callWasFine(decision.ruleId)) return `${opening} This is the gate working as designed, not an error.`;
  return `${opening} This is the gate working as designed, not an error; do not retry the same call.`;
}

/**
 * PreToolUse, and PreSkillShellCommand (a shell command a skill or slash command embeds, newer
 * clients), which takes the same answer. A pass prints nothing: answering "allow" would skip the
 * user's own permission prompt. A deny with a notice also shows the person a line
 * (`systemMessage`). A skill's shell command cannot wait for the person, so an ask never goes
 * out for it (the client would refuse the command anyway, with a reason of its own).
 */
export function preToolUseOutput(decision: Decision, eventName: GateEvent = 'PreToolUse'): HookResult {
  switch (decision.kind) {
    case 'pass':
      return NOTHING;
    case 'deny':
    case 'ask':
      return json({
        hookSpecificOutput: {
          hookEventName: eventName,
          permissionDecision: eventName === 'PreSkillShellCommand' ? 'deny' : decision.kind,
          permissionDecisionReason: gateText(decision),
        },
        ...(decision.kind === 'deny' && decision.notice !== undefined ? { systemMessage: `tdd-gate: ${decision.notice}` } : {}),
      });
  }
}

/**
 * PostToolUse: `reason` reaches the model (once: additionalContext with the same text would
 * repeat it); `notice` tells the person.
 */
export function postToolUseBlock(reason: string, notice: string): HookResult {
  return json({ decision: 'block', reason, systemMessage: `tdd-gate: ${notice}` });
}

/** PostToolUseFailure (a command that failed): it cannot block, so the model gets the text as context. */
export function postToolUseFailureContext(reason: string, notice: string): HookResult {
  return json({ hookSpecificOutput: { hookEventName: 'PostToolUseFailure', additionalContext: reason }, systemMessage: `tdd-gate: ${notice}` });
}

/** PostToolUse that lets the result stand and adds what the model should know about it. */
export function postToolUseContext(text: string, eventName: 'PostToolUse' | 'PostToolUseFailure' = 'PostToolUse'): HookResult {
  return json({ hookSpecificOutput: { hookEventName: eventName, additionalContext: text } });
}

/** SubagentStop: the child continues with `reason` as its instruction. */
export function subagentStopBlock(reason: string): HookResult {
  return json({ decision: 'block', reason });
}

/** SessionStart: text added to the model's context. */
export function sessionContext(text: string): HookResult {
  return json({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } });
}

/** A note for the log (stderr), the call unaffected. */
export function note(text: string, exitCode = 0): HookResult {
  return { stdout: '', stderr: `tdd-gate: ${text}\n`, exitCode };
}

/**
 * Any failure inside the gate. The gate events (PreToolUse, PreSkillShellCommand) fail closed
 * with a deny naming the error; the other events report it on stderr (exit 1, non-blocking:
 * they never guard a write on their own).
 */
export function internalError(eventName: string, message: string): HookResult {
  if (!isGateEvent(eventName)) return note(`internal error in the ${eventName} hook: ${message}`, 1);
  return preToolUseOutput(
    {
      kind: 'deny',
      ruleId: 'internal-error',
      reason: `an internal error stopped the gate (${message}); the call is blocked because the gate fails closed. Retry once; if it persists, stop and report this message to the user.`,
    },
    eventName,
  );
}

/** Hook input that is not JSON: the gate events deny it, the others note it (exit 1). */
export function badJson(eventName: string, message: string): HookResult {
  if (!isGateEvent(eventName)) return note(`the ${eventName} hook input is not valid JSON (${message})`, 1);
  return preToolUseOutput({ kind: 'deny', ruleId: 'bad-input', reason: `the hook input is not valid JSON (${message}); the call is blocked to stay safe. Retry the tool call.` }, eventName);
}
