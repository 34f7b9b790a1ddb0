import type { Verb } from './verb.js';

/** What help reads of a verb: any registry of such, at any depth (the tests use one of their own). */
type Helped = Pick<Verb, 'summary' | 'usage' | 'help'> & { name: string };

/** The flags that ask for help wherever they stand after the verb. */
export function isHelpFlag(arg: string): boolean {
  return arg === '--help' || arg === '-h';
}

/** One verb: its usage line, its summary and, when it has one, its longer text. */
export function verbHelp(verb: Helped): string {
  const lines = [`usage: ${verb.usage}`, verb.summary];
  if (verb.help !== undefined && verb.help.trim() !== '') lines.push('', verb.help.trimEnd());
  return lines.join('\n');
}

/** The verbs whose name continues `prefix` by one or more words ("advance" → "advance red", "advance refactor"). */
export function verbsUnder<V extends Helped>(prefix: string, verbs: readonly V[]): V[] {
  return prefix === '' ? [] : verbs.filter((v) => v.name.startsWith(`${prefix} `));
}

/** A group of verbs sharing their first words: each one's usage and summary. */
function groupHelp(prefix: string, group: readonly Helped[]): string {
  const lines = [`tdd-gate ${prefix}: ${group.map((v) => `\`${v.name}\``).join(', ')}`];
  for (const v of group) lines.push('', `usage: ${v.usage}`, `  ${v.summary}`);
  lines.push('', `(\`tdd-gate ${group[0]?.name ?? prefix} --help\` shows one of them)`);
  return lines.join('\n');
}

/**
 * The help for the words a person typed before `--help` (or after `help`): the longest verb those
 * words start with, else the group of verbs those words begin, else null (no such verb). Flags and
 * what follows the first flag are ignored. Pure: works for any registry, so a new verb, one word or
 * several, gets its help with no change here.
 */
export function helpFor(args: readonly string[], verbs: readonly Helped[]): string | null {
  const words: string[] = [];
  for (const a of args) {
    if (a.startsWith('-')) break;
    words.push(a);
  }
  for (let n = words.length; n > 0; n--) {
    const name = words.slice(0, n).join(' ');
    const verb = verbs.find((v) => v.name === name);
    if (verb) return verbHelp(verb);
  }
  for (let n = words.length; n > 0; n--) {
    const prefix = words.slice(0, n).join(' ');
    const group = verbsUnder(prefix, verbs);
    if (group.length > 0) return groupHelp(prefix, group);
  }
  return null;
}
