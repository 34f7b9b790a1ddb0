/**
 * The tdd-gate CLI's verbs as the hook must know them: the one list of their names, each with what
 * the gate and the OS wall need to know about it (docs/contracts.md, "CLI verbs"). The CLI's
 * registry (src/cli/registry.ts) holds each verb's code, and test/cli/verbLists.test.ts ties every
 * verb there to its entry here; the hook reads this table alone (loading the registry would bring
 * every verb's code into the hook's parts).
 */
export interface VerbEntry {
  /** True when the verb changes state: subagents may not run it, and the CLI authorises it. */
  mutates: boolean;
  /** A verb that changes state only with this flag (read-only without it). */
  writesOnlyWith?: string;
  /**
   * Operands that make the verb read-only (its first operand after the verb's words): `harden
   * status` reports the wall, and proves it from inside the sandbox, where no ticket can be taken;
   * `harden on|off|auto` change the worktree's choice.
   */
  readsWithOperand?: readonly string[];
  /** The person confirms it (it ends a cycle or overrides its bounds): always (null), or with this flag. */
  confirm?: string | null;
  /**
   * 'out': runs outside the OS wall (it writes .tdd/, which the sandbox denies); 'in': stays inside.
   * The sandbox lets a verb out by its first word, so verbs that share one share this too.
   */
  wall: 'out' | 'in';
}

export const VERB_TABLE = {
  init: { mutates: true, confirm: '--force', wall: 'out' },
  'stack detect': { mutates: true, writesOnlyWith: '--write', wall: 'in' },
  'stack check': { mutates: false, wall: 'in' },
  'advance red': { mutates: true, wall: 'out' },
  'verify red': { mutates: true, wall: 'out' },
  freeze: { mutates: true, wall: 'out' },
  'verify green': { mutates: true, wall: 'out' },
  revert: { mutates: true, wall: 'out' },
  'advance refactor': { mutates: true, wall: 'out' },
  'verify refactor': { mutates: true, wall: 'out' },
  done: { mutates: true, wall: 'out' },
  status: { mutates: false, wall: 'in' },
  abort: { mutates: true, confirm: null, wall: 'out' },
  result: { mutates: true, confirm: '--resume', wall: 'out' },
  handoff: { mutates: true, wall: 'out' },
  context: { mutates: false, wall: 'out' },
  log: { mutates: false, wall: 'out' },
  'spec check': { mutates: false, wall: 'in' },
  harden: { mutates: true, readsWithOperand: ['status'], wall: 'in' },
  recover: { mutates: true, confirm: null, wall: 'in' },
  doctor: { mutates: false, wall: 'in' },
  statusline: { mutates: false, wall: 'in' },
  audit: { mutates: true, wall: 'in' },
} as const satisfies Record<string, VerbEntry>;

/** A verb's name as written on the command line (`abort`, `verify red`). */
export type VerbName = keyof typeof VERB_TABLE;

// Nothing is derived when a module loads: a hook part that imports this runs on every gated call,
// and a call that names no verb must not pay for lists it never reads. Each answer is a lookup in
// the table, or a walk over it when a message or the sandbox section needs the list.

/** The verb's entry; undefined for a name the table does not have. */
export function verbEntry(name: string): VerbEntry | undefined {
  return Object.hasOwn(VERB_TABLE, name) ? VERB_TABLE[name as VerbName] : undefined;
}

function firstWord(name: string): string {
  const space = name.indexOf(' ');
  return space < 0 ? name : name.slice(0, space);
}

/** Does a verb of two words start with `word` (`verify red`, `spec check`)? */
export function startsTwoWordVerb(word: string): boolean {
  for (const name in VERB_TABLE) if (name.length > word.length && name.startsWith(word) && name[word.length] === ' ') return true;
  return false;
}

/** The verbs that change nothing: subagents may run them. */
export function readOnlyVerbs(): string[] {
  const out: string[] = [];
  for (const name in VERB_TABLE) if (!VERB_TABLE[name as VerbName].mutates) out.push(name);
  return out;
}

/** The first words of the verbs that run outside the OS wall, each once, in the table's order (the sandbox section lists them so). */
export function unsandboxedVerbs(): string[] {
  const out: string[] = [];
  for (const name in VERB_TABLE) {
    const word = firstWord(name);
    if (VERB_TABLE[name as VerbName].wall === 'out' && !out.includes(word)) out.push(word);
  }
  return out;
}
