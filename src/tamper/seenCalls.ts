import { mkdirSync, readdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { markName } from '../state/anchorInflight.js';
import type { AnchorPaths } from '../state/anchorPaths.js';
import { childPath } from '../state/childPath.js';

/**
 * The canary's records (src/tamper/rules/canary.ts): during an active cycle, the PreToolUse gate marks each
 * file-tool call it let through (or asked about) by its tool_use_id, in the anchor store outside the
 * work tree; PostToolUse takes the mark back. A PostToolUse with no mark is a call the gate never saw.
 * One empty file per call, bounded: marks of calls that never reached PostToolUse (declined by the
 * person, stopped by another hook) are pruned once there are more than a few.
 */
const MAX_MARKS = 64;
const STALE_MS = 60 * 60_000;

function dirOf(paths: AnchorPaths): string {
  return childPath(paths.home, 'seen');
}

export function markSeen(paths: AnchorPaths, id: string, now = Date.now()): void {
  const dir = dirOf(paths);
  const file = childPath(dir, markName(id));
  try {
    writeFileSync(file, '');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return;
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, '');
    } catch {
      return; // best effort: a missing mark makes the canary fire, which says so plainly
    }
  }
  prune(dir, now);
}

/** Was the call marked? The mark is removed either way. */
export function takeSeen(paths: AnchorPaths, id: string): boolean {
  try {
    unlinkSync(childPath(dirOf(paths), markName(id)));
    return true;
  } catch {
    return false;
  }
}

function prune(dir: string, now: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  if (names.length <= MAX_MARKS) return;
  const aged: [string, number][] = [];
  for (const name of names) {
    try {
      aged.push([name, statSync(childPath(dir, name)).mtimeMs]);
    } catch {
      // gone meanwhile
    }
  }
  aged.sort((a, b) => a[1] - b[1]);
  // The stale ones, and the oldest beyond the bound: a live call is seconds old.
  aged.forEach(([name, mtime], i) => {
    if (now - mtime > STALE_MS || i < aged.length - MAX_MARKS) {
      try {
        unlinkSync(childPath(dir, name));
      } catch {
        // gone meanwhile
      }
    }
  });
}
