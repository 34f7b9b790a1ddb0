import path from 'node:path';
import { deny, type Decision } from '../gate/rules/decision.js';
import type { Protected } from '../state/anchor.js';
import { appendEvent } from '../state/eventLog.js';
import { checkIntegrity, type Finding, type IntegrityReport } from './integrity.js';
import { snapshotCopyPath } from '../state/snapshots.js';
import type { ActiveCycle } from '../state/cycle.js';

const TEST_BUG = 'If a frozen test is wrong, stop and report `TEST_BUG: <file>:<line> — <why>` to the orchestrator instead of changing it.';

/**
 * Wall 2 at the hook (ADR 006): the control set of the cycle, checked at every gated call and
 * after every Bash call. An anchored cycle watches what the CLI recorded; a hand-written state
 * still has its frozen files (restored from the freeze snapshot).
 */
export function integrityOf(cycle: ActiveCycle): IntegrityReport {
  const root = cycle.repo.root;
  const isTest = (abs: string) => {
    const rel = path.relative(root, abs).split(path.sep).join('/');
    return !rel.startsWith('..') && (cycle.stack.isTest(rel) || cycle.stack.isTestConfig(rel));
  };
  const isSource = (abs: string) => {
    const rel = path.relative(root, abs).split(path.sep).join('/');
    return !rel.startsWith('..') && cycle.stack.isSource(rel) && !cycle.stack.isTest(rel);
  };
  return checkIntegrity(cycle.anchorPaths, cycle.anchor, cycle.anchor === null ? unanchoredSet(cycle) : [], { isTest, isSource });
}

function unanchoredSet(cycle: ActiveCycle): Protected[] {
  const root = cycle.repo.root;
  // Without an anchor there is no record of what the rest looked like: only the freeze is known.
  const out: Protected[] = [];
  const frozen = (cycle.state as { frozen?: { files?: unknown; links?: unknown; heldout?: unknown } }).frozen;
  const files = frozen?.files;
  // Held-out files are in the held-out store until `done` (docs/heldout.md): not expected in the tree.
  const heldout = Array.isArray(frozen?.heldout) ? (frozen.heldout as unknown[]) : [];
  const links = typeof frozen?.links === 'object' && frozen.links !== null ? (frozen.links as Record<string, unknown>) : {};
  if (typeof files === 'object' && files !== null) {
    for (const [rel, sha] of Object.entries(files)) {
      if (typeof sha !== 'string' || rel === '' || path.isAbsolute(rel) || rel.split(/[\\/]/).includes('..')) continue;
      if (heldout.includes(rel)) continue;
      const link = Object.hasOwn(links, rel) && typeof links[rel] === 'string' ? links[rel] : undefined;
      out.push({ kind: 'file', path: path.join(root, rel), sha256: sha, what: `the frozen file ${rel}`, copy: snapshotCopyPath(root, 'frozen', rel), ...(link !== undefined ? { link } : {}) });
    }
  }
  return out;
}

export function isClean(r: IntegrityReport): boolean {
  return r.restored.length === 0 && r.broken.length === 0;
}

function list(findings: Finding[]): string {
  const shown = findings.slice(0, 8).map((f) => `${f.what} ${f.change}`);
  return shown.join('; ') + (findings.length > 8 ? `; and ${findings.length - 8} more` : '');
}

function touchesFrozen(findings: Finding[]): boolean {
  return findings.some((f) => f.what.startsWith('the frozen file'));
}

function rel(root: string, abs: string): string {
  const r = path.relative(root, abs);
  return r.startsWith('..') || path.isAbsolute(r) ? abs : r.split(path.sep).join('/');
}

/** Record what was found, once per check, in the event log. */
export function logFindings(cycle: ActiveCycle, r: IntegrityReport, source: string, extra: Record<string, unknown> = {}): void {
  const root = cycle.repo.root;
  appendEvent(root, {
    type: 'hook-restore',
    source,
    files: r.restored.map((f) => rel(root, f.path)),
    ...(r.broken.length > 0 ? { failed: r.broken.map((f) => rel(root, f.path)) } : {}),
    phase: cycle.state.phase,
    ...extra,
  });
}

function frozenOnly(findings: Finding[]): boolean {
  return findings.every((f) => f.what.startsWith('the frozen file'));
}

/** The model's instruction and the person's notice for a report that is not clean. */
export function describeFindings(r: IntegrityReport, root: string, phase: string, by: string): { ruleId: string; reason: string; notice: string } {
  const names = (fs: Finding[]) => {
    const shown = fs.slice(0, 10).map((f) => rel(root, f.path));
    return shown.join(', ') + (fs.length > 10 ? ` and ${fs.length - 10} more` : '');
  };
  const parts: string[] = [];
  if (r.restored.length > 0) {
    parts.push(
      frozenOnly(r.restored)
        ? `${by} changed ${r.restored.length} frozen file(s) (${names(r.restored)}); they were restored from the snapshot taken at the freeze. The tests and the SPEC are certified and read-only in ${phase}: make the tests pass by changing source files only. ${TEST_BUG}`
        : `${by} changed control files outside the gate's rules (${list(r.restored)}); they were restored from the copies kept outside the work tree. The TDD state, .tdd/, the frozen files and Claude Code's settings are changed only by the tdd-gate CLI or by the user.${touchesFrozen(r.restored) ? ` ${TEST_BUG}` : ''}`,
    );
  }
  if (r.broken.length > 0) {
    const fixes = [...new Set(r.broken.map((f) => f.fix).filter((f): f is string => f !== undefined))].slice(0, 5).join('; ');
    parts.push(
      `${frozenOnly(r.broken) ? `frozen file(s) ${names(r.broken)} changed and could not be restored (the snapshot copy is missing or altered)` : `control files changed outside the gate's rules and could not be restored automatically: ${list(r.broken)}`}. Every gated tool call stays blocked until they are repaired. Stop and report this to the user, who repairs them (${fixes}) or runs \`tdd-gate recover\`.`,
    );
  }
  const ruleId = r.broken.length > 0 ? (frozenOnly(r.broken) ? 'frozen-drift' : 'tamper-detected') : frozenOnly(r.restored) ? 'frozen-restored' : 'tamper-restored';
  const notice =
    (r.restored.length > 0 ? `restored ${names(r.restored)} after an unexpected change. ` : '') +
    (r.broken.length > 0 ? `TAMPERING DETECTED: ${list(r.broken)}; gated tool calls are blocked until this is repaired.` : '');
  return { ruleId, reason: parts.join('\n'), notice: notice.trim() };
}

/** PreToolUse: a call is denied while the control set is not as the anchor recorded it. */
export function integrityDecision(cycle: ActiveCycle, toolName: string): Decision | null {
  const r = integrityOf(cycle);
  if (isClean(r)) return null;
  logFindings(cycle, r, 'pre-tool-use', { tool: toolName });
  const d = describeFindings(r, cycle.repo.root, cycle.state.phase, 'something that ran outside a checked tool call (a background command, a monitor, an earlier process)');
  const tail = r.broken.length > 0 ? '' : ' Retry the call if it is still what your task needs.';
  return deny(d.ruleId, `Blocked ${toolName} before it ran: ${d.reason}${tail}`, d.notice);
}
