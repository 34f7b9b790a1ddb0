/**
 * Tickets: the CLI authorises its own state-changing verbs (docs/tamper-evidence.md, "The CLI's
 * own check"). When the PreToolUse hook allows (or asks the person about) a main-thread Bash call
 * that runs a state-changing verb of the CLI, it records a one-shot ticket for that verb and those
 * arguments in the anchor store; the CLI, run inside Claude Code, takes the ticket before it
 * changes anything, and refuses without one. A verb reached by any other road (a wrapper, an
 * interpreter, a git hook, a delayed background job, a subagent) finds no ticket. Pure: no fs.
 */

export interface Ticket {
  version: 1;
  /** The verb as the registry names it (`verify red`, `abort`). */
  verb: string;
  /** argsDigest of the arguments after the program; ANY_ARGS when some were not literal. */
  args: string;
  /** The rule of the gate's question to the person (`cli-confirm`), when it asked; null otherwise. */
  asked: string | null;
  session: string | null;
  tool_use_id: string | null;
  at: number;
  until: number;
}

/** A ticket for a call whose arguments the hook could not read statically (`--plan "$P"`). */
const ANY_ARGS = 'any';

/** Long enough for the person to answer the gate's question; a plain call starts at once. */
const ASKED_MS = 15 * 60_000;
const PLAIN_MS = 2 * 60_000;

/**
 * FNV-1a (32 bit) of the arguments, NUL-separated, in hex: a name, not a secret (a process that
 * can write the anchor store can write a ticket; the OS wall is the wall against that).
 */
function argsDigest(args: readonly string[]): string {
  let h = 0x811c9dc5;
  const text = args.join('\u0000');
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** The verb as part of a file name: `verify red` → `verify-red`. */
function verbSlug(verb: string): string {
  let out = '';
  for (const ch of verb) out += (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ? ch : '-';
  return out.slice(0, 40);
}

export function newTicket(call: { verb: string; args: readonly string[]; literal: boolean; asked: string | null; session: string | null; toolUseId: string | null }, now: number): Ticket {
  return {
    version: 1,
    verb: call.verb,
    args: call.literal ? argsDigest(call.args) : ANY_ARGS,
    asked: call.asked,
    session: call.session,
    tool_use_id: call.toolUseId,
    at: now,
    until: now + (call.asked !== null ? ASKED_MS : PLAIN_MS),
  };
}

/** Does `t` authorise running `verb` with `args` now? */
export function ticketFits(t: unknown, verb: string, args: readonly string[], now: number): t is Ticket {
  if (typeof t !== 'object' || t === null) return false;
  const r = t as Partial<Ticket>;
  if (r.version !== 1 || r.verb !== verb || typeof r.until !== 'number' || typeof r.at !== 'number') return false;
  if (r.until <= now || r.at > now + 5_000) return false;
  return r.args === ANY_ARGS || r.args === argsDigest(args);
}

/** File names: a prefix per verb and digest, so the CLI reads only the candidates. */
export function ticketPrefixes(verb: string, args: readonly string[]): string[] {
  const slug = verbSlug(verb);
  return [`${slug}.${argsDigest(args)}.`, `${slug}.${ANY_ARGS}.`];
}

export function ticketName(t: Ticket, nonce: string): string {
  return `${verbSlug(t.verb)}.${t.args}.${nonce}.json`;
}

/** The CLI's refusal when a state-changing verb ran inside Claude Code with no ticket. */
/** The hook's ticket was there, but this run could not take it: it ran inside the OS wall (Claude Code's Bash sandbox). */
export function readOnlyTicketsMessage(verb: string): string {
  return (
    `\`tdd-gate ${verb}\` ran inside Claude Code's Bash sandbox (the OS wall), which keeps tdd-gate's records read-only, so nothing changed. ` +
    'The CLI changes the cycle only as one plain Bash call of its own, exactly as the /tdd skill shows it (`node "<plugin>/dist/cli.mjs" <verb> …`, nothing piped, chained or redirected into it). ' +
    (verb === 'harden' ? '`harden status` works from inside the wall; `harden on|off|auto` during a cycle are the person\'s, from a terminal outside Claude Code.' : 'Run it that way, or ask the person.')
  );
}

export function noTicketMessage(verb: string): string {
  return (
    `\`tdd-gate ${verb}\` ran inside Claude Code, but not as a Bash call that the tdd-gate hook saw and allowed for this verb ` +
    '(it was started by another program, a wrapper or interpreter, a git hook, a background job, a subagent, or with the hooks switched off), so nothing changed. ' +
    `The orchestrator runs \`tdd-gate ${verb}\` as its own Bash command; subagents never run the CLI's state-changing verbs. If the hooks are not running, \`/tdd-gate:doctor\` says why.`
  );
}
