/** The tdd-gate CLI's verbs, seen from the Bash gate (docs/contracts.md, "CLI verbs"). */
import { startsTwoWordVerb, verbEntry } from '../../../state/rules/verbs.js';
import type { Arg } from './words.js';

// The verbs, read-only or not, confirmed or not, are the one table the CLI's registry is held to
// (src/state/rules/verbs.ts; test/cli/verbLists.test.ts).

/** The first operand after the verb's words (flags skipped), or null. */
function operandAfter(verb: string, args: readonly string[]): string | null {
  const words = verb.split(' ');
  let i = 0;
  let matched = 0;
  for (; i < args.length && matched < words.length; i++) {
    const a = args[i] as string;
    if (a.startsWith('-')) continue;
    if (a !== words[matched]) return null;
    matched++;
  }
  if (matched < words.length) return null;
  for (; i < args.length; i++) {
    const a = args[i] as string;
    if (!a.startsWith('-')) return a;
  }
  return null;
}

/** The verb as written (`verify red`, `abort`); null when it is not static. */
export function cliVerb(args: readonly Arg[]): string | null {
  const words: string[] = [];
  for (const a of args) {
    if (a.text === null) return words.length === 0 ? null : words.join(' ');
    if (a.text.startsWith('-')) {
      if (words.length === 0) continue;
      break;
    }
    words.push(a.text);
    if (words.length === 2 || !startsTwoWordVerb(words[0] as string)) break;
  }
  return words.join(' ');
}

type CliEffect = 'read' | 'change' | 'confirm';

/**
 * What a call does to the cycle. Unknown verbs count as changes (fail closed); `abort` and
 * `init --force` end a cycle, so the person confirms them.
 */
export function cliEffect(verb: string | null, args: readonly string[]): CliEffect {
  if (verb === null) return 'change';
  const has = (flag: string) => args.includes(flag);
  if (verb === '' || verb === 'help' || has('--help') || has('-h') || has('--version')) return 'read';
  const entry = verbEntry(verb);
  if (entry === undefined) return 'change';
  if (!entry.mutates) return 'read';
  if (entry.writesOnlyWith !== undefined) return has(entry.writesOnlyWith) ? 'change' : 'read';
  // `harden status` reads (it proves the wall from inside the sandbox, where no ticket can be taken).
  if (entry.readsWithOperand !== undefined) {
    const operand = operandAfter(verb, args);
    if (operand !== null && entry.readsWithOperand.includes(operand)) return 'read';
  }
  // `result --resume` after a halt overrides the retry bounds: the person's call, like abort.
  if (entry.confirm !== undefined && (entry.confirm === null || has(entry.confirm))) return 'confirm';
  return 'change';
}

/** The plugin's own programs (hooks.json runs one, the skills the other). */
export type ProgramRole = 'hook' | 'cli';

/** One reference to a plugin program in a command, as the hook resolved it on disk. */
export interface ProgramReference {
  role: ProgramRole;
  /** The word as written. */
  word: string;
  /** True when written the documented way: `node <…>/dist/cli.mjs` (normalized) or `tdd-gate`. */
  documented: boolean;
}

/**
 * What running a plugin program means for a Bash command (DESIGN §3, ADR 006). Pure: the caller
 * finds the references by canonical path and content (copies, `dist/./cli.mjs`, imports).
 * - the hook program takes events only from Claude Code: a command that runs it could forge one
 *   (a SubagentStop that `freeze` trusts), so it is denied for everyone;
 * - the CLI by any spelling but the documented one hides its verb from the gate (the `ask` for
 *   `abort`, the subagent rule), so it is denied; the documented spelling is judged by verb.
 */
export function programPolicy(refs: readonly ProgramReference[]): { ruleId: 'hook-feed' | 'cli-spelling'; ref: ProgramReference } | null {
  const hook = refs.find((r) => r.role === 'hook');
  if (hook !== undefined) return { ruleId: 'hook-feed', ref: hook };
  const hidden = refs.find((r) => r.role === 'cli' && !r.documented);
  if (hidden !== undefined) return { ruleId: 'cli-spelling', ref: hidden };
  return null;
}
