/** What the gate concludes about one tool call. Only src/hooks/output.ts knows the wire format. */
export type Decision =
  | { kind: 'pass' }
  | { kind: 'deny'; ruleId: string; reason: string; notice?: string }
  | { kind: 'ask'; ruleId: string; reason: string };

export const PASS: Decision = { kind: 'pass' };

/** `notice`, when given, is shown to the person as well (tamper evidence): the reason reaches only the model. */
export function deny(ruleId: string, reason: string, notice?: string): Decision {
  return notice === undefined ? { kind: 'deny', ruleId, reason } : { kind: 'deny', ruleId, reason, notice };
}

export function ask(ruleId: string, reason: string): Decision {
  return { kind: 'ask', ruleId, reason };
}
