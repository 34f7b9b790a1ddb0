import type { Decision } from '../gate/rules/decision.js';
import { decideCall } from '../gate/rules/decide.js';
import { DEFAULT_DEPS, gatherCall, recordVerdict, type BashGate, type CallSource, type GateDeps } from '../gate/facts.js';

export type { BashGate, CallSource, GateDeps } from '../gate/facts.js';

/**
 * PreToolUse, for every tool: gather the call's facts (the gate wing), run the rule list
 * (src/gate/rules/rules.ts), log what it decided and mark what PostToolUse checks. Throws only on
 * internal bugs, and when a Bash or Monitor call arrives without the Bash gate (the entry routes
 * those to bashPreToolUse.ts; the throw becomes a deny). run.ts renders the Decision.
 */
export function preToolUse(input: unknown, env: NodeJS.ProcessEnv, bash: BashGate | null = null, source: CallSource | null = null, deps: GateDeps = DEFAULT_DEPS): Decision {
  const call = gatherCall(input, env, bash, source, deps);
  const verdict = decideCall(call.facts);
  recordVerdict(call, verdict);
  call.after(verdict);
  return verdict.decision;
}
