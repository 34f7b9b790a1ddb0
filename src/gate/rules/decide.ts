/**
 * The gate's one decision: run the rule list (rules.ts) over a call's facts (facts.ts). Pure; the
 * facts may answer from the disk (src/gate/facts.ts) or from a table (the tests).
 */
import { PASS, type Decision } from './decision.js';
import type { CallFacts, CallKind, CycleCall } from './facts.js';
import { RULES, judgeTarget, type CallRule } from './rules.js';

/** What the gate concludes, and what the hook records of it. */
export interface Verdict<C> {
  decision: Decision;
  /** The projects' decisions to log (a deny or an ask, each with the project it was made in). */
  records: { cycle: C; decision: Decision }[];
  /** Every project the call touches (empty when the call was decided before any was loaded). */
  cycles: readonly C[];
  /** The projects whose rules let the call through. */
  passed: C[];
}

const CALL_RULES = RULES.filter((r): r is CallRule => r.stage === 'call');

/**
 * How several projects' answers combine. Write, Edit, NotebookEdit and Bash: a deny wins over
 * an ask, and the first ask is kept. Monitor, EnterWorktree and MCP tools: the first answer. A
 * skill's unreadable shell command: the first project's answer, logged in every project.
 */
function combining(kind: CallKind | null): 'deny-wins' | 'first' | 'one-for-all' {
  if (kind === 'shell') return 'one-for-all';
  return kind === 'file' || kind === 'bash' ? 'deny-wins' : 'first';
}

/** The whole call: the call rules once, then the cycle rules (with the write block) in each project. */
export function decideCall<C>(f: CallFacts<C>): Verdict<C> {
  const settle = (d: Decision): Decision => (d.kind === 'ask' && f.cannotAsk !== null ? f.cannotAsk(d) : d);
  for (const rule of CALL_RULES) {
    const d = rule.check(f);
    if (d !== undefined) return { decision: settle(d), records: [], cycles: [], passed: [] };
  }
  const cycles = f.cycles() as readonly C[];
  const mode = combining(f.kind);
  const records: Verdict<C>['records'] = [];
  const passed: C[] = [];
  let verdict: Decision = PASS;
  for (const cycle of cycles) {
    const { decision, ruleId } = decideInCycle(f.inCycle(cycle));
    if (decision.kind === 'pass') {
      passed.push(cycle);
      continue;
    }
    // The control set's answer stands as it is: the tamper wing has logged what it restored.
    if (ruleId === 'control-set') return { decision, records, cycles, passed };
    const d = settle(decision);
    if (mode === 'one-for-all') return { decision: d, records: cycles.map((c) => ({ cycle: c, decision: d })), cycles, passed };
    records.push({ cycle, decision: d });
    if (mode === 'first' || d.kind === 'deny') return { decision: d, records, cycles, passed };
    if (verdict.kind === 'pass') verdict = d;
  }
  return { decision: verdict, records, cycles, passed };
}

/**
 * The call in one project: the cycle rules in the list's order; where the block of target and
 * class rules stands, that block for every file the call writes. Also the rule that decided.
 */
export function decideInCycle(f: CycleCall): { decision: Decision; ruleId: string | null } {
  let writesJudged = false;
  for (const rule of RULES) {
    if (rule.stage === 'call') continue;
    if (rule.stage === 'target' || rule.stage === 'class') {
      if (writesJudged) continue;
      writesJudged = true;
      for (const target of f.writes?.() ?? []) {
        const d = judgeTarget(target, () => f.cycle());
        if (d.kind !== 'pass') return { decision: d, ruleId: d.ruleId };
      }
      continue;
    }
    const d = rule.check(f);
    if (d !== undefined) return { decision: d, ruleId: rule.id };
  }
  return { decision: PASS, ruleId: null };
}
