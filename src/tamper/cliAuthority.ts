import { cliEffect } from '../gate/rules/bash/cliCalls.js';
import { anchorPaths } from '../state/anchorPaths.js';
import { RefusalError } from '../state/rules/errors.js';
import { findRepo } from '../state/repo.js';
import { noTicketMessage, readOnlyTicketsMessage, type Ticket } from './rules/tickets.js';
import { takeTicket } from './tickets.js';

/** The ticket this run of the CLI took (one verb per process). */
let taken: Ticket | null = null;

export function currentTicket(): Ticket | null {
  return taken;
}

/**
 * The CLI authorises its own state-changing verbs (ADR 006): inside Claude Code, a verb that
 * changes anything runs only on a ticket the hook recorded for a Bash call it saw and allowed for
 * that verb and those arguments. Outside Claude Code (the person's terminal, CI) nothing is
 * needed. `confirmMessage` is the refusal for the person's verbs (abort, init --force, result
 * --resume), which also need the gate's question on the ticket (personAsked.ts).
 */
export function authoriseVerb(verbName: string, argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv, inside: boolean, confirmMessage: (what: string) => string): void {
  taken = null;
  if (!inside) return;
  const effect = cliEffect(verbName, argv);
  if (effect === 'read') return;
  const repo = findRepoOrNull(cwd);
  if (repo === null) return; // the verb refuses on its own: there is nothing to change
  const ticket = takeTicket(anchorPaths(repo, env).home, verbName, argv);
  if (ticket === 'read-only') throw new RefusalError(readOnlyTicketsMessage(verbName));
  if (ticket !== null) {
    taken = ticket;
    return;
  }
  throw new RefusalError(effect === 'confirm' ? confirmMessage(verbName) : noTicketMessage(verbName));
}

function findRepoOrNull(cwd: string) {
  try {
    return findRepo(cwd);
  } catch {
    return null;
  }
}
