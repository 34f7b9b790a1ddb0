import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { childPath } from '../state/childPath.js';
import { newTicket, ticketFits, ticketName, ticketPrefixes, type Ticket } from './rules/tickets.js';

/**
 * The tickets' store (src/tamper/rules/tickets.ts): `<git common dir>/tdd-gate/tickets/`, one file
 * per ticket, written by the hook and taken (renamed, read, removed) by the CLI: one verb run each.
 */
function dirOf(anchorHome: string): string {
  return childPath(anchorHome, 'tickets');
}

interface TicketCall {
  verb: string;
  args: readonly string[];
  literal: boolean;
  asked: string | null;
  session: string | null;
  toolUseId: string | null;
}

/** The hook: one ticket per state-changing verb of a call it let run. Best effort (the CLI refuses without). */
export function issueTickets(anchorHome: string, calls: readonly TicketCall[], now = Date.now()): void {
  if (calls.length === 0) return;
  const dir = dirOf(anchorHome);
  try {
    mkdirSync(dir, { recursive: true });
  } catch {
    return;
  }
  calls.forEach((call, i) => {
    const t = newTicket(call, now);
    const nonce = `${now.toString(36)}-${process.pid.toString(36)}-${i}-${Math.floor(Math.random() * 1e9).toString(36)}`;
    try {
      writeFileSync(childPath(dir, ticketName(t, nonce)), JSON.stringify(t));
    } catch {
      // the CLI then refuses, which says so plainly
    }
  });
  prune(dir, now);
}

/**
 * The CLI: take one ticket that authorises `verb` with `args` now, or null. Taking is a rename to a
 * name of this process first, so two runs cannot both take one ticket. 'read-only' when a candidate
 * was there but the store refused the rename (the call ran inside the OS wall, which keeps the
 * anchor store read-only): nothing was taken, and the refusal can say where the call ran.
 */
export function takeTicket(anchorHome: string, verb: string, args: readonly string[], now = Date.now()): Ticket | 'read-only' | null {
  const dir = dirOf(anchorHome);
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return null;
  }
  const prefixes = ticketPrefixes(verb, args);
  let readOnly = false;
  for (const name of names) {
    if (!name.endsWith('.json') || !prefixes.some((p) => name.startsWith(p))) continue;
    const claimed = childPath(dir, `${name}.taken-${process.pid}`);
    try {
      renameSync(childPath(dir, name), claimed);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') readOnly = true;
      continue; // taken by another run meanwhile, or a store this process cannot change
    }
    let t: unknown = null;
    try {
      t = JSON.parse(readFileSync(claimed, 'utf8'));
    } catch {
      t = null;
    }
    remove(claimed);
    if (ticketFits(t, verb, args, now)) return t;
  }
  return readOnly ? 'read-only' : null;
}

/** Expired and half-taken tickets go. */
function prune(dir: string, now: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  if (names.length < 16) return;
  for (const name of names) {
    const file = childPath(dir, name);
    try {
      const t = JSON.parse(readFileSync(file, 'utf8')) as { until?: unknown };
      if (typeof t.until === 'number' && t.until > now) continue;
    } catch {
      // unreadable: goes
    }
    remove(file);
  }
}

function remove(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // gone already
  }
}
