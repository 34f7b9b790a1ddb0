import { appendFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { anchorPaths, eventsCopyPath } from './anchorPaths.js';
import { findRepo } from './repo.js';
import { ensureTddDir } from './tddDir.js';

export const EVENTS_REL = '.tdd/events.jsonl';

/**
 * Append one event to `.tdd/events.jsonl`, and to its copy in the anchor directory while an
 * anchored cycle is active: the log is append-only and appended only by tdd-gate, so a line that
 * is not in the copy was written by something else (ADR 006). Never throws: a log failure must not
 * turn a deny into a crash.
 */
export function appendEvent(root: string, event: Record<string, unknown>): void {
  const line = JSON.stringify({ at: new Date().toISOString(), ...event }) + '\n';
  try {
    ensureTddDir(root);
    const file = path.join(root, EVENTS_REL);
    appendFileSync(file, line);
  } catch {
    // best effort by design
  }
  try {
    const copy = eventsCopyOf(root);
    if (copy !== null) appendFileSync(copy, line);
  } catch {
    // best effort by design
  }
}

/** The anchor's copy of the log, when an anchored cycle keeps one. */
function eventsCopyOf(root: string): string | null {
  const repo = findRepo(root);
  if (repo === null) return null;
  const copy = eventsCopyPath(anchorPaths(repo, process.env).home, repo.root);
  return existsSync(copy) ? copy : null;
}
