/**
 * Static word resolution: quotes, escapes, `~`, brace expansion, variables assigned earlier,
 * `$PWD`, and the few command substitutions whose output is known. A word becomes one or more
 * fields; a field that depends on something unknown has `text: null`.
 */
import type { ParsedScript, Word, WordPart } from './parser.js';
import type { Scope } from './scope.js';

export interface Arg {
  /** Resolved text (a glob pattern when `glob`); null when it cannot be known statically. */
  text: string | null;
  glob: boolean;
  /** The word as written, for messages. */
  raw: string;
}

export interface WordEnv {
  home: string;
  /** Environment variables the command inherits and the caller vouches for (temp dirs, project dir). */
  inherited?: Readonly<Record<string, string>>;
  /** Walks a `$( )` / `<( )` body for its own effects and returns its output when known. */
  substitute(script: ParsedScript | undefined, text: string, scope: Scope): string | null;
}

interface Field {
  text: string;
  glob: boolean;
  unknown: boolean;
}

const MAX_ALTERNATIVES = 64;
const GLOB_SPECIAL = /[\\*?[\](){}|!+@]/g;

export function escapeGlob(s: string): string {
  return s.replace(GLOB_SPECIAL, (c) => '\\' + c);
}

function unescapeGlob(s: string): string {
  return s.replace(/\\(.)/gs, '$1');
}

const HAS_GLOB = /[*?[]/;

/** Each alternative is a list of fields (field splitting adds fields, brace expansion adds alternatives). */
class Builder {
  alts: Field[][] = [[{ text: '', glob: false, unknown: false }]];

  private each(fn: (fields: Field[]) => Field[][]): void {
    const next = this.alts.flatMap(fn);
    this.alts = next.length > MAX_ALTERNATIVES ? [[{ text: '', glob: false, unknown: true }]] : next;
  }

  literal(text: string): void {
    for (const fields of this.alts) last(fields).text += escapeGlob(text);
  }

  glob(pattern: string): void {
    for (const fields of this.alts) {
      const f = last(fields);
      f.text += pattern;
      f.glob = true;
    }
  }

  unknown(): void {
    for (const fields of this.alts) last(fields).unknown = true;
  }

  /** A value from an expansion: quoted values stay one literal field; unquoted ones split and glob. */
  value(values: readonly string[], quoted: boolean, pattern = false): void {
    this.each((fields) =>
      values.map((v) => {
        const copy = fields.map((f) => ({ ...f }));
        if (pattern) {
          last(copy).text += v;
          last(copy).glob = true;
          return copy;
        }
        if (quoted) {
          last(copy).text += escapeGlob(v);
          return copy;
        }
        const pieces = v.split(/[ \t\n]+/);
        pieces.forEach((piece, i) => {
          if (i > 0) copy.push({ text: '', glob: false, unknown: false });
          const f = last(copy);
          f.text += piece.replace(/[\\(){}|!+@]/g, (c) => '\\' + c);
          if (HAS_GLOB.test(piece)) f.glob = true;
        });
        return copy;
      }),
    );
  }

  alternatives(variants: readonly string[]): void {
    this.each((fields) =>
      variants.map((v) => {
        const copy = fields.map((f) => ({ ...f }));
        last(copy).text += escapeGlob(v);
        return copy;
      }),
    );
  }

  result(raw: string): Arg[] {
    return this.alts.flat().map((f) => ({
      text: f.unknown ? null : f.glob ? f.text : unescapeGlob(f.text),
      glob: !f.unknown && f.glob,
      raw,
    }));
  }
}

function last(fields: Field[]): Field {
  return fields[fields.length - 1] as Field;
}

export function resolveWord(word: Word, scope: Scope, env: WordEnv): Arg[] {
  const b = new Builder();
  const parts = word.parts;
  if (parts === undefined || parts.length === 0) {
    const v = word.value;
    if (v === '~' || v.startsWith('~/')) b.literal(env.home + v.slice(1));
    else b.literal(v);
    return b.result(word.text);
  }
  parts.forEach((part, i) => addPart(b, part, false, i === 0, scope, env));
  return b.result(word.text);
}

/** Resolve a word that must be a single string (a command name, an option value). */
export function resolveSingle(word: Word, scope: Scope, env: WordEnv): Arg {
  const args = resolveWord(word, scope, env);
  return args.length === 1 && args[0] !== undefined ? args[0] : { text: null, glob: false, raw: word.text };
}

function addPart(b: Builder, part: WordPart, quoted: boolean, first: boolean, scope: Scope, env: WordEnv): void {
  switch (part.type) {
    case 'Literal': {
      const v = part.value;
      if (!quoted && first && (v === '~' || v.startsWith('~/'))) b.literal(env.home + v.slice(1));
      else b.literal(v);
      return;
    }
    case 'SingleQuoted':
    case 'AnsiCQuoted':
      b.literal(part.value);
      return;
    case 'DoubleQuoted':
    case 'LocaleString':
      if (part.parts.length === 0) b.literal('');
      for (const p of part.parts) addPart(b, p, true, false, scope, env);
      return;
    case 'Glob':
    case 'ExtendedGlob':
      if (quoted) b.literal(part.text);
      else b.glob(part.text);
      return;
    case 'BraceExpansion': {
      const variants = quoted ? [part.text] : expandBraces(part.text);
      if (variants === null) b.unknown();
      else b.alternatives(variants);
      return;
    }
    case 'SimpleExpansion':
      expandVar(b, part.text.slice(1), quoted, scope, env);
      return;
    case 'ParameterExpansion':
      if (part.prefix === undefined && part.index === undefined && part.operation === undefined) {
        expandVar(b, part.parameter, quoted, scope, env);
      } else if (part.operation?.type === 'Default' && part.prefix === undefined) {
        // ${x:-word}: the variable when known and set, else unknown (it may come from the environment).
        const v = lookup(part.parameter, scope, env);
        if (v !== null && v.every((s) => s !== '')) b.value(v, quoted);
        else b.unknown();
      } else b.unknown();
      return;
    case 'CommandExpansion': {
      const out = env.substitute(part.script, part.text, scope);
      if (out === null) b.unknown();
      else b.value([out], quoted);
      return;
    }
    case 'ProcessSubstitution':
      env.substitute(part.script, part.text, scope);
      b.literal('/dev/fd/63');
      return;
    case 'ArithmeticExpansion':
      b.unknown();
      return;
  }
}

const NUMERIC_SPECIALS = new Set(['$', '!', '?', '#', 'RANDOM', 'SRANDOM', 'BASHPID', 'PPID', 'UID', 'EUID', 'SECONDS', 'EPOCHSECONDS', 'LINENO', 'SHLVL']);

function lookup(name: string, scope: Scope, env: WordEnv): readonly string[] | null {
  const v = scope.vars.get(name);
  if (v !== undefined) return v;
  if (name === 'PWD') {
    const cwds = scope.cwds.filter((c): c is string => c !== null);
    return cwds.length === scope.cwds.length ? cwds : null;
  }
  if (name === 'HOME') return [env.home];
  const inherited = env.inherited?.[name];
  if (inherited !== undefined && inherited !== '') return [inherited];
  // Numbers (pids, counters, status): no slash, so a stand-in classifies the path the same way.
  if (NUMERIC_SPECIALS.has(name)) return ['0'];
  return null;
}

function expandVar(b: Builder, name: string, quoted: boolean, scope: Scope, env: WordEnv): void {
  const v = lookup(name, scope, env);
  if (v === null) b.unknown();
  else b.value(v, quoted, scope.globVars.has(name));
}

/** `{a,b}c`, nested lists and `{1..3}` / `{a..e}` sequences; null when it holds expansions. */
export function expandBraces(text: string): string[] | null {
  if (/[$`'"\\]/.test(text)) return null;
  try {
    const out = expand(text);
    return out.length > MAX_ALTERNATIVES ? null : out;
  } catch (err) {
    if (err instanceof TooLarge) return null;
    throw err;
  }
}

class TooLarge extends Error {}

function expand(text: string): string[] {
  const open = text.indexOf('{');
  if (open < 0) return [text];
  let depth = 0;
  const commas: number[] = [];
  let close = -1;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) {
        close = i;
        break;
      }
    } else if (c === ',' && depth === 1) commas.push(i);
  }
  if (close < 0) return [text];
  const head = text.slice(0, open);
  const tail = expand(text.slice(close + 1));
  const inner = text.slice(open + 1, close);
  let items: string[];
  if (commas.length > 0) {
    const bounds = [open, ...commas, close];
    items = bounds.slice(0, -1).flatMap((b, i) => expand(text.slice(b + 1, bounds[i + 1])));
  } else {
    const seq = sequence(inner);
    if (seq === null) return expand(text.slice(close + 1)).map((t) => head + '{' + inner + '}' + t);
    items = seq;
  }
  const out: string[] = [];
  for (const it of items) for (const t of tail) out.push(head + it + t);
  return out;
}

function sequence(inner: string): string[] | null {
  const num = /^(-?\d+)\.\.(-?\d+)$/.exec(inner);
  if (num) {
    const a = Number(num[1]);
    const z = Number(num[2]);
    if (Math.abs(z - a) > MAX_ALTERNATIVES) throw new TooLarge();
    const step = a <= z ? 1 : -1;
    const out: string[] = [];
    for (let i = a; step > 0 ? i <= z : i >= z; i += step) out.push(String(i));
    return out;
  }
  const chr = /^([a-zA-Z])\.\.([a-zA-Z])$/.exec(inner);
  if (chr && chr[1] !== undefined && chr[2] !== undefined) {
    const a = chr[1].charCodeAt(0);
    const z = chr[2].charCodeAt(0);
    const out: string[] = [];
    for (let i = Math.min(a, z); i <= Math.max(a, z); i++) out.push(String.fromCharCode(i));
    return out;
  }
  return null;
}
