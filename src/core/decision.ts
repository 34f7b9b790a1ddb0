/** What the gate concludes about one tool call. Only toHookOutput knows the wire format. */
export type Decision =
  | { kind: 'pass' }
  | { kind: 'deny'; ruleId: string; reason: string }
  | { kind: 'ask'; ruleId: string; reason: string };

export const PASS: Decision = { kind: 'pass' };

export function deny(ruleId: string, reason: string): Decision {
  return { kind: 'deny', ruleId, reason };
}

export function ask(ruleId: string, reason: string): Decision {
  return { kind: 'ask', ruleId, reason };
}

/**
 * The PreToolUse stdout for a decision. A pass prints nothing: answering "allow" would skip the
 * user's own permission prompt (DESIGN §4).
 */
export function toHookOutput(decision: Decision): string {
  switch (decision.kind) {
    case 'pass':
      return '';
    case 'deny':
    case 'ask':
      return JSON.stringify({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: decision.kind,
          permissionDecisionReason: `tdd-gate [${decision.ruleId}]: ${decision.reason}`,
        },
      });
  }
}
