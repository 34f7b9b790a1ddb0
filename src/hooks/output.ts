import type { Decision } from '../core/decision.js';

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

/**
 * PreToolUse. A pass prints nothing: answering "allow" would skip the user's own permission
 * prompt. A deny with a notice also shows the person a line (`systemMessage`).
 */
export function preToolUseOutput(decision: Decision): HookResult {
  switch (decision.kind) {
    case 'pass':
      return NOTHING;
    case 'deny':
    case 'ask':
      return json({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: decision.kind,
          permissionDecisionReason: `tdd-gate [${decision.ruleId}]: ${decision.reason}`,
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
 * Any failure inside the gate. PreToolUse fails closed with a deny naming the error; the other
 * events report it on stderr (exit 1, non-blocking: they never guard a write on their own).
 */
export function internalError(eventName: string, message: string): HookResult {
  if (eventName !== 'PreToolUse') return note(`internal error in the ${eventName} hook: ${message}`, 1);
  return preToolUseOutput({
    kind: 'deny',
    ruleId: 'internal-error',
    reason: `an internal error stopped the gate (${message}); the call is blocked because the gate fails closed. Retry once; if it persists, stop and report this message to the user.`,
  });
}
