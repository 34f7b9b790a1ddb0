/** A small getopt: enough to tell a writer's operands from its options. */
import type { Arg } from './words.js';

interface Argv {
  /** Every flag seen: `-x` for each short letter, `--name` for long ones. */
  flags: Set<string>;
  /** Values of options that take one (`-o FILE`, `--output=FILE`), last one wins. */
  values: Map<string, Arg>;
  /** All values of repeatable options. */
  all: Map<string, Arg[]>;
  operands: Arg[];
}

/**
 * `valued` lists the options that take a value: short ones as `-o`, long ones as `--output`.
 * An unresolvable word is an operand (it may be a path), which fails closed for writers.
 */
export function parseArgv(args: readonly Arg[], valued: readonly string[] = [], opts: { stopAtOperand?: boolean } = {}): Argv {
  const takes = new Set(valued);
  const out: Argv = { flags: new Set(), values: new Map(), all: new Map(), operands: [] };
  const put = (name: string, value: Arg) => {
    out.flags.add(name);
    out.values.set(name, value);
    out.all.set(name, [...(out.all.get(name) ?? []), value]);
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as Arg;
    const t = a.text;
    if (t === null || t === '-' || !t.startsWith('-') || a.glob) {
      out.operands.push(a);
      if (opts.stopAtOperand) {
        out.operands.push(...args.slice(i + 1));
        break;
      }
      continue;
    }
    if (t === '--') {
      out.operands.push(...args.slice(i + 1));
      break;
    }
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      const name = eq < 0 ? t : t.slice(0, eq);
      if (eq >= 0) put(name, { ...a, text: t.slice(eq + 1) });
      else if (takes.has(name) && i + 1 < args.length) put(name, args[++i] as Arg);
      else out.flags.add(name);
      continue;
    }
    for (let j = 1; j < t.length; j++) {
      const name = '-' + t[j];
      if (takes.has(name)) {
        const rest = t.slice(j + 1);
        if (rest !== '') put(name, { ...a, text: rest });
        else if (i + 1 < args.length) put(name, args[++i] as Arg);
        else out.flags.add(name);
        break;
      }
      out.flags.add(name);
    }
  }
  return out;
}

export function has(argv: Argv, ...names: string[]): boolean {
  return names.some((n) => argv.flags.has(n));
}

/**
 * The single-letter options of a command line, reading each cluster up to a letter that takes
 * the rest of the word (`stop`: an in-place suffix) or a value (`valued`).
 */
export function shortFlags(args: readonly Arg[], stop: string, valued: string): Set<string> {
  const out = new Set<string>();
  for (const a of args) {
    const t = a.text;
    if (t === null || !t.startsWith('-') || t.startsWith('--') || t === '-') continue;
    for (const ch of t.slice(1)) {
      out.add(ch);
      if (stop.includes(ch) || valued.includes(ch)) break;
    }
  }
  return out;
}
