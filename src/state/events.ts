import { readFileSync } from 'node:fs';
import path from 'node:path';
import { EVENTS_REL } from './eventLog.js';

export interface LoggedEvent {
  at: string;
  type: string;
  [key: string]: unknown;
}

/** The event log, oldest first; lines that do not parse are skipped (the log is best effort). */
export function readEvents(root: string, since?: string): LoggedEvent[] {
  let text: string;
  try {
    text = readFileSync(path.join(root, EVENTS_REL), 'utf8');
  } catch {
    return [];
  }
  const events: LoggedEvent[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const e = JSON.parse(line) as LoggedEvent;
      if (typeof e.at === 'string' && typeof e.type === 'string' && (since === undefined || e.at >= since)) events.push(e);
    } catch {
      // a torn or foreign line
    }
  }
  return events;
}

export function countHookDenies(root: string, since: string): number {
  return readEvents(root, since).filter((e) => e.type === 'hook-deny').length;
}
