import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { ensureTddDir } from './tddDir.js';

export const EVENTS_REL = '.tdd/events.jsonl';

/** Append one event to `.tdd/events.jsonl`. Never throws: a log failure must not turn a deny into a crash. */
export function appendEvent(root: string, event: Record<string, unknown>): void {
  try {
    ensureTddDir(root);
    const file = path.join(root, EVENTS_REL);
    appendFileSync(file, JSON.stringify({ at: new Date().toISOString(), ...event }) + '\n');
  } catch {
    // best effort by design
  }
}
