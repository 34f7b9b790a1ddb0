import { isRole, parseResult, type BlockErrorCode, type Role, type TddResult } from './block.js';
import { formatInstruction } from './classify.js';

/** What the SubagentStop hook does with one tdd-gate child's final message. Pure. */
type StopDecision =
  | { kind: 'ignore' }
  | { kind: 'valid'; role: Role; result: TddResult }
  /** Let the stop through although the block is invalid: the in-turn nudge was already used. */
  | { kind: 'let-stop'; role: Role; code: BlockErrorCode; message: string; why: 'stop_hook_active' | 'format-budget-spent' }
  | { kind: 'block'; role: Role; code: BlockErrorCode; message: string; reason: string };

export const AGENT_PREFIX = 'tdd-gate:';

export interface StopFacts {
  agentType: string | undefined;
  message: string;
  stopHookActive: boolean;
  /** The acceptance criterion in progress (for the template), or "-". */
  ac: string;
  /** Format retries already spent for this role and AC, and the limit (the CLI's budget). */
  formatUsed: number;
  formatLimit: number;
}

export function decideStop(f: StopFacts): StopDecision {
  if (f.agentType === undefined || !f.agentType.startsWith(AGENT_PREFIX)) return { kind: 'ignore' };
  const role = f.agentType.slice(AGENT_PREFIX.length);
  if (!isRole(role)) return { kind: 'ignore' };
  const parse = parseResult(f.message, { role });
  if (parse.ok) return { kind: 'valid', role, result: parse.result };
  // One nudge per child run: stop_hook_active means this turn already continues after a block.
  if (f.stopHookActive) return { kind: 'let-stop', role, code: parse.code, message: parse.message, why: 'stop_hook_active' };
  if (f.formatUsed >= f.formatLimit) return { kind: 'let-stop', role, code: parse.code, message: parse.message, why: 'format-budget-spent' };
  return { kind: 'block', role, code: parse.code, message: parse.message, reason: `tdd-gate [result-format]: ${formatInstruction(parse.message, role, f.ac)}` };
}
