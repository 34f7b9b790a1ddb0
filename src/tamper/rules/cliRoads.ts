import { cliEffect } from '../../gate/rules/bash/cliCalls.js';
import { readOnlyVerbs } from '../../state/rules/verbs.js';
import { ask, deny, type Decision } from '../../gate/rules/decision.js';

/** A call of the CLI that the Bash analysis found in a command (src/core/bash/types.ts). */
export interface SeenCliCall {
  verb: string | null;
  args: string[];
  /** Every argument was literal (the ticket can name them). */
  literal: boolean;
  text: string;
}

interface TicketRequest {
  verb: string;
  args: string[];
  literal: boolean;
  asked: string | null;
}

function short(text: string): string {
  return text.length > 120 ? text.slice(0, 117) + '…' : text;
}

/**
 * The road a Bash call gives the CLI's state-changing verbs (ADR 006). With or without a cycle:
 * subagents never run them; the person's verbs (abort, recover, init --force, result --resume)
 * are asked about however they are spelled; every call the gate lets run gets a ticket per verb,
 * which the CLI takes before it changes anything. With a cycle, `verdict` is the Bash gate's own
 * decision; without one it is a pass.
 */
export function cliRoad(calls: readonly SeenCliCall[], agentType: string | undefined, inCycle: boolean, verdict: Decision): { decision: Decision; tickets: TicketRequest[] } {
  const changing = calls.filter((c) => cliEffect(c.verb, c.args) !== 'read');
  if (changing.length === 0) return { decision: verdict, tickets: [] };
  if (agentType !== undefined) {
    const call = changing[0]!;
    return {
      decision: deny(
        'subagent-cli',
        `Blocked \`${short(call.text)}\` (${agentType}): subagents never run the tdd-gate CLI's state-changing verbs (${call.verb ?? 'a verb that is not static'}); only the orchestrator moves the cycle. Read-only verbs (${readOnlyVerbs().join(', ')}) are fine. Finish your task and report back in your tdd-result block.`,
      ),
      tickets: [],
    };
  }
  if (verdict.kind === 'deny') return { decision: verdict, tickets: [] };
  let decision: Decision = verdict;
  const confirm = changing.find((c) => cliEffect(c.verb, c.args) === 'confirm');
  if (!inCycle && confirm !== undefined && decision.kind === 'pass') {
    decision = ask(
      'cli-confirm',
      `\`${short(confirm.text)}\` is the user's decision (it ends, restores or overrides a TDD cycle). Confirm only if you, the user, want it; it is recorded either way.`,
    );
  }
  const asked = decision.kind === 'ask' ? decision.ruleId : null;
  const tickets = changing.filter((c): c is SeenCliCall & { verb: string } => c.verb !== null && c.verb !== '').map((c) => ({ verb: c.verb, args: c.args, literal: c.literal, asked }));
  return { decision, tickets };
}
