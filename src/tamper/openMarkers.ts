import { statSync } from 'node:fs';
import type { AnchorPaths } from '../state/anchorPaths.js';
import { childPath } from '../state/childPath.js';
import { stateSlug } from '../state/rules/stateSlug.js';

/**
 * The stat-only traces of an open cycle, for the quick check (on every tool call of every
 * session, so: no reads, no hashing, no regular expressions). Each exists exactly while a cycle is
 * open and is removed when `done` or `abort` closes it; they lie in different places, so the
 * command that deletes the state, the anchor and its mirror does not take them all:
 * - `.tdd/open-<slug>-<h6>` in the project (found in the listing the quick check reads anyway);
 * - the journal's mode in the anchor store: 0600 while a cycle of the repository is open
 *   (src/io/anchor.ts), so a journal left alone with its record deleted still says so;
 * - the hook's stat cache of the branch in the anchor store of the git common dir (written at the
 *   first gated call of the cycle, removed at each state change and at the close).
 * (The event log and its copy are one per work tree, not per branch: a cycle on another branch
 * would read as a trace here; the full path weighs them.)
 * One present sends the call the full way, where src/tamper/traces.ts weighs every trace.
 */
function openMarkerPrefix(branch: string): string {
  return `open-${stateSlug(branch)}-`;
}

export function cycleMarked(paths: AnchorPaths, tddNames: readonly string[] | null, branch: string): boolean {
  if (tddNames !== null) {
    const prefix = openMarkerPrefix(branch);
    if (tddNames.some((n) => n.startsWith(prefix))) return true;
  }
  return exists(statCacheOf(paths)) || journalOpen(paths);
}

/** The journal's mode says whether a cycle of the repository is open (src/io/anchor.ts markJournal). */
function journalOpen(paths: AnchorPaths): boolean {
  if (process.platform === 'win32') return false;
  try {
    const st = statSync(childPath(paths.home, 'journal.jsonl'), { throwIfNoEntry: false });
    return st !== undefined && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** The hook's stat cache (src/io/anchor.ts statCachePath): written only while a cycle is checked. */
export function statCacheOf(paths: AnchorPaths): string {
  const record = paths.record;
  const name = record.slice(record.lastIndexOf('/') + 1 + 'anchor-'.length);
  return childPath(paths.home, `stat-${name}`);
}

function exists(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
