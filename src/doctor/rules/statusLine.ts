/**
 * `tdd-gate statusline` (pure): one short line for Claude Code's status bar — the phase, the mode,
 * the role at work, what is left of its retry budget, and whether the gate is live.
 */
export interface StatusFacts {
  /** null: no cycle on this branch (or a finished one). */
  phase: string | null;
  mode: string | null;
  /** The role whose turn it is, without the `tdd-gate:` prefix; null when unknown. */
  role: string | null;
  /** Retries left for that role on the current criterion. */
  retries: { left: number; limit: number } | null;
  halted: boolean;
  /** Why the gate is not live (hooks switched off, a record out of step, a skip seen); empty: live. */
  gateProblems: string[];
  /** The canary's reports in this cycle. */
  skips: number;
  /** Not inside a git repository: the gate has nothing to guard here (DESIGN §2). */
  outsideRepo?: boolean;
}

export function renderStatusLine(f: StatusFacts): string {
  if (f.outsideRepo === true) return 'tdd-gate: idle here (not a git repository)';
  const gate = f.gateProblems.length > 0 ? `gate OFF: ${f.gateProblems[0]}` : f.skips > 0 ? `gate skipped ${f.skips}×` : 'gate on';
  if (f.phase === null) return `tdd-gate: no cycle · ${gate}`;
  const parts = [`tdd-gate ${f.phase}`];
  if (f.mode !== null) parts.push(f.mode);
  if (f.halted) parts.push('HALTED');
  else if (f.role !== null) parts.push(f.role);
  if (f.retries !== null) parts.push(`retries ${f.retries.left}/${f.retries.limit}`);
  parts.push(gate);
  return parts.join(' · ');
}

/** The role a phase belongs to in a mode (DESIGN §3): who should be at work now. */
export function roleAtWork(phase: string, mode: string, redValid: boolean): string | null {
  if (mode === 'light-inline' || mode === 'prototype-inline') return 'main thread';
  switch (phase) {
    case 'tdd-plan':
      return 'planner';
    case 'tdd-red':
      return mode === 'standard' ? (redValid ? 'test-validator' : 'test-writer') : 'implementer';
    case 'tdd-green':
      return 'implementer';
    case 'tdd-refactor':
      return mode === 'standard' ? 'refactorer' : 'implementer';
    default:
      return null;
  }
}

/** A status line that cannot fail: what is printed when anything goes wrong. */
export const STATUS_UNKNOWN = 'tdd-gate: ?';
