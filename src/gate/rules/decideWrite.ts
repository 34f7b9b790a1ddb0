/**
 * The write rules for Write, Edit, MultiEdit, NotebookEdit and MCP tools: the block of target and
 * class rules in the gate's one list (rules.ts), run for each file a call writes.
 */
import { PASS, type Decision } from './decision.js';
import type { CycleFacts, WriteTarget } from './facts.js';
import { judgeTarget } from './rules.js';

export type { CycleFacts, WriteTarget } from './facts.js';

/** One write target: the first rule with something to say decides. */
export function decideWriteTarget(c: CycleFacts, t: WriteTarget): Decision {
  return judgeTarget(t, () => c);
}

/** Several targets: the first one denied decides. */
export function decideWrites(c: CycleFacts, targets: readonly WriteTarget[]): Decision {
  for (const t of targets) {
    const d = judgeTarget(t, () => c);
    if (d.kind !== 'pass') return d;
  }
  return PASS;
}
