/**
 * No silent end (DESIGN §2, ADR 006): "no state and no anchor" is "no cycle" only when no trace of
 * an open cycle remains. Pure: the facts come from src/tamper/traces.ts.
 */

/** One trace of an open cycle, where it was found. */
export interface Trace {
  /** For the model and the person: "the project marker .tdd/open-main-1a2b3c". */
  what: string;
  /** When the cycle it stands for was opened (ms), when the trace says. */
  openedAt: number | null;
  /**
   * Left by older versions after a cycle too (snapshots): listed beside a strong trace, never
   * enough alone to fail closed.
   */
  weak?: boolean;
}

export interface TraceFacts {
  /** The branch's anchor record (the git-dir one or its mirror, whichever is further). */
  anchor: { active: boolean; at: number; seq: number } | null;
  /** The last journal entry of the branch that records a state change. */
  journal: { active: boolean; seq: number; at: number } | null;
  /** Every other trace found (markers, the session's transcript, leftovers). */
  traces: Trace[];
}

export type TraceVerdict =
  /** The anchor itself says a cycle is active: the anchor's own checks decide. */
  | { kind: 'anchored' }
  /** No cycle: nothing remains, or the cycle was closed properly (what is left are leftovers to clear). */
  | { kind: 'none'; leftovers: Trace[] }
  /** A cycle's records are gone but traces remain: fail closed, the person recovers or aborts. */
  | { kind: 'open'; traces: Trace[] };

export function judgeTraces(f: TraceFacts): TraceVerdict {
  if (f.anchor !== null && f.anchor.active) return { kind: 'anchored' };
  const traces = [...f.traces];
  // The journal is further along than the record: the record was rolled back or deleted.
  if (f.journal !== null && f.journal.active && (f.anchor === null || f.journal.seq > f.anchor.seq)) {
    traces.unshift({ what: `the anchor journal (its last entry for this branch, #${f.journal.seq}, records an active cycle)`, openedAt: f.journal.at });
  }
  const strong = traces.some((t) => t.weak !== true);
  if (f.anchor === null) return strong ? { kind: 'open', traces } : { kind: 'none', leftovers: [] };
  // A closed record: a trace of a cycle opened after the close stands for a newer cycle whose record is gone.
  const closedAt = f.anchor.at;
  const newer = traces.filter((t) => t.weak !== true && ((t.openedAt !== null && t.openedAt > closedAt) || t.what.startsWith('the anchor journal')));
  if (newer.length > 0) return { kind: 'open', traces: newer };
  return { kind: 'none', leftovers: traces.filter((t) => t.weak !== true) };
}

/** The reason every gated call is denied while traces remain. */
export function tracesMessage(branch: string, traces: readonly Trace[]): string {
  const shown = traces.slice(0, 5).map((t) => t.what);
  return (
    `no TDD state and no anchor were found for branch ${branch}, but traces of a cycle that was never ended remain (${shown.join('; ')}${traces.length > 5 ? `; and ${traces.length - 5} more` : ''}): ` +
    "the cycle's records were deleted by something other than the tdd-gate CLI. Stop and report this to the user; do not recreate or edit the state. " +
    'The user rebuilds the cycle from what remains with `tdd-gate recover`, or ends it with `tdd-gate abort --reason "<why>"`.'
  );
}
