/**
 * Static word resolution: quotes, escapes, `~`, brace expansion, variables assigned earlier,
 * `$PWD`, and the few command substitutions whose output is known. A word becomes one or more
 * fields; a field that depends on something unknown has `text: null`.
 */
import type { ArithmeticExpression, ParsedScript, Word, WordPart } from './parser.js';
import type { Scope } from './scope.js';

export interface Arg {
  /** Resolved text (a glob pattern when `glob`); null when it cannot be known statically. */
  text: string | null;
  glob: boolean;
  /** The word as written, for messages. */
  raw: string;
  /** When `text` is null: the literal text before the first unknown part (`/tmp/build-` of `/tmp/build-$(date)`). */
  prefix?: string;
  /** When `text` is null: nothing after `prefix` can contain a `/` (the unknown parts are names or numbers). */
  slashFree?: boolean;
  /** With `slashFree`: the literal end of the name (`.bak` of `/tmp/$base.bak`). */
  suffix?: string;
}

/**
 * What a command printed: text, or (for `git ls-files src`, `find src`) glob patterns covering every
 * line, or (for `cat f`) the content of a file, by its absolute path, or (for `basename "$f"` of a
 * loop over a glob) one name matching a glob.
 */
export type Output = string | { patterns: string[] } | { file: string } | { glob: string } | null;

export interface WordEnv {
  home: string;
  /** Environment variables the command inherits and the caller vouches for (temp dirs, project dir). */
  inherited?: Readonly<Record<string, string>>;
  /** Walks a `$( )` / `<( )` body for its own effects and returns its output when known. */
  substitute(script: ParsedScript | undefined, text: string, scope: Scope): Output;
  /**
   * Walks an arithmetic expression (its substitutions, and the values it evaluates as code);
   * false when it may run code the analysis cannot see (the scope is then tainted).
   */
  arith(expr: ArithmeticExpression | undefined, scope: Scope, text: string): boolean;
  /** Evaluates text as arithmetic (an array subscript, a variable's value used as a number). */
  arithText(text: string | null, scope: Scope, what: string): boolean;
  /** Code run by prompt expansion (`${x@P}`, PS4): null = unknown. */
  promptCode(value: string | null, scope: Scope, what: string): void;
  /** A construct the analysis does not model: the rest of the command is unknown. */
  taint(scope: Scope, reason: string): void;
  /** Text the parser split wrongly: judged by the paths it names, and the rest of the command is unknown. */
  unparsed(text: string, scope: Scope): void;
}

interface Field {
  text: string;
  glob: boolean;
  unknown: boolean;
  prefix?: string;
  slashFree?: boolean;
  /** Literal text after the last unknown part. */
  suffix?: string;
}

const MAX_ALTERNATIVES = 64;
const GLOB_SPECIAL = /[\\*?[\](){}|!+@]/g;

// Most words have none of the characters these look for: plain loops then, since V8 compiles
// every regular expression the hook runs, on every call.
export function escapeGlob(s: string): string {
  return hasAny(s, '\\*?[](){}|!+@') ? s.replace(GLOB_SPECIAL, (c) => '\\' + c) : s;
}

function unescapeGlob(s: string): string {
  return s.includes('\\') ? s.replace(/\\(.)/gs, '$1') : s;
}

function hasAny(s: string, chars: string): boolean {
  for (const ch of s) if (chars.includes(ch)) return true;
  return false;
}

/** Each alternative is a list of fields (field splitting adds fields, brace expansion adds alternatives). */
class Builder {
  alts: Field[][] = [[{ text: '', glob: false, unknown: false }]];

  private each(fn: (fields: Field[]) => Field[][]): void {
    const next = this.alts.flatMap(fn);
    this.alts = next.length > MAX_ALTERNATIVES ? [[{ text: '', glob: false, unknown: true }]] : next;
  }

  literal(text: string): void {
    for (const fields of this.alts) {
      const f = last(fields);
      f.text += escapeGlob(text);
      if (f.unknown && text.includes('/')) f.slashFree = false;
      if (f.unknown) f.suffix = (f.suffix ?? '') + text;
    }
  }

  glob(pattern: string): void {
    for (const fields of this.alts) {
      const f = last(fields);
      if (f.unknown) f.slashFree = false;
      f.text += pattern;
      f.glob = true;
    }
  }

  /** An unknown part; `slashFree` when it cannot hold a `/` (a file's base name, a number). */
  unknown(slashFree = false): void {
    for (const fields of this.alts) {
      const f = last(fields);
      if (!f.unknown && !f.glob) f.prefix = unescapeGlob(f.text);
      f.slashFree = (f.unknown ? (f.slashFree ?? false) : true) && slashFree;
      f.suffix = '';
      f.unknown = true;
    }
  }

  /** A value from an expansion: quoted values stay one literal field; unquoted ones split and glob. */
  value(values: readonly string[], quoted: boolean, pattern = false, ifs: string | null = ' \t\n'): void {
    if (!quoted && !pattern && ifs === null) {
      this.unknown();
      return;
    }
    if (values.some((v) => v.includes('/'))) for (const fields of this.alts) if (last(fields).unknown) last(fields).slashFree = false;
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
        const pieces = ifs === ' \t\n' ? v.split(/[ \t\n]+/) : ifs === '' ? [v] : v.split(new RegExp(`[${(ifs ?? '').replace(/[\\\]^-]/g, '\\$&')}]`));
        pieces.forEach((piece, i) => {
          if (i > 0) copy.push({ text: '', glob: false, unknown: false });
          const f = last(copy);
          f.text += piece.replace(/[\\(){}|!+@]/g, (c) => '\\' + c);
          if (hasAny(piece, '*?[')) f.glob = true;
        });
        return copy;
      }),
    );
  }

  /** `"${a[@]}"`, `"$@"`: each element is its own field (unquoted ones split further). */
  fields(list: readonly string[], quoted: boolean): void {
    if (list.length === 0) return;
    this.each((fields) => {
      let copy: Field[][] = [fields.map((f) => ({ ...f }))];
      list.forEach((v, i) => {
        copy = copy.map((fs) => {
          if (i > 0) fs.push({ text: '', glob: false, unknown: false });
          return fs;
        });
        const sub = new Builder();
        sub.alts = copy;
        sub.value([v], quoted);
        copy = sub.alts;
      });
      return copy;
    });
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
      ...(f.unknown && f.prefix !== undefined && f.prefix !== '' ? { prefix: f.prefix, ...(f.slashFree ? { slashFree: true, suffix: f.suffix ?? '' } : {}) } : {}),
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
    literalStart(b, word.value, scope, env);
    return b.result(word.text);
  }
  parts.forEach((part, i) => addPart(b, part, false, i === 0, scope, env));
  return b.result(word.text);
}

/**
 * The tilde prefixes bash expands at the start of a word (and after `=` in an assignment-like
 * word): `~`, `~/`, `~+` ($PWD), `~-` ($OLDPWD), `~N` (the directory stack), `~user`.
 */
function literalStart(b: Builder, v: string, scope: Scope, env: WordEnv): void {
  const m = v.includes('~') ? /^([A-Za-z_][A-Za-z0-9_]*=)?~([^/:]*)(.*)$/s.exec(v) : null;
  if (m === null) {
    b.literal(v);
    return;
  }
  const [, assign = '', name = '', rest = ''] = m;
  const home = scope.vars.get('HOME');
  let dirs: readonly (string | null)[] | null;
  if (name === '') dirs = home === undefined ? [env.home] : home;
  else if (name === '+') dirs = scope.cwds;
  else if (name === '-') dirs = scope.oldCwds;
  else if (/^[+-]?\d+$/.test(name)) {
    const stack = [...scope.cwds.slice(0, 1), ...scope.dirStack];
    const n = Number(name.replace(/^[+-]/, ''));
    const i = name.startsWith('-') ? stack.length - 1 - n : n;
    dirs = i >= 0 && i < stack.length ? [stack[i] ?? null] : [];
  } else dirs = null; // ~user: another account's home, not known here
  if (dirs !== null && dirs.length === 0) {
    b.literal(v);
    return;
  }
  b.literal(assign);
  if (dirs === null || dirs.some((d) => d === null)) b.unknown();
  else b.value(dirs as string[], true);
  b.literal(rest);
}

/** Resolve a word that must be a single string (a command name, an option value). */
export function resolveSingle(word: Word, scope: Scope, env: WordEnv): Arg {
  const args = resolveWord(word, scope, env);
  return args.length === 1 && args[0] !== undefined ? args[0] : { text: null, glob: false, raw: word.text };
}

function addPart(b: Builder, part: WordPart, quoted: boolean, first: boolean, scope: Scope, env: WordEnv): void {
  switch (part.type) {
    case 'Literal': {
      if (!quoted && first) literalStart(b, part.value, scope, env);
      else b.literal(part.value);
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
      // `[$(cmd)]`, `@($(cmd))`: the substitutions inside still run.
      walkParts(part.parts, scope, env);
      if (quoted) b.literal(part.text);
      else b.glob(part.text);
      return;
    case 'BraceExpansion': {
      walkParts(part.parts, scope, env);
      const variants = quoted ? [part.text] : expandBraces(part.text);
      if (variants === null) b.unknown();
      else b.alternatives(variants);
      return;
    }
    case 'SimpleExpansion': {
      const name = part.text.slice(1);
      const list = name === '@' || name === '*' ? scope.positional : null;
      if (list !== null && list !== undefined && list.every((v) => v !== null)) b.fields(name === '*' && quoted ? [list.join(' ')] : (list), quoted);
      else expandVar(b, name, quoted, scope, env);
      return;
    }
    case 'ParameterExpansion':
      parameterExpansion(b, part, quoted, scope, env);
      return;
    case 'CommandExpansion': {
      // A substitution cut short by the parser (`${x/$(cmd a/b)/y}` splits at the inner slash) is not what bash runs.
      if (!/^(?:\$\([\s\S]*\)|`[\s\S]*`)$/.test(part.text)) env.unparsed(part.text, scope);
      const out = env.substitute(part.script, part.text, scope);
      if (out === null) b.unknown(slashFreeOutput(part.script));
      else if (typeof out === 'string') b.value([out], quoted);
      else if ('glob' in out) b.value([out.glob], true, true);
      else if (quoted || !('patterns' in out)) b.unknown();
      else b.value(out.patterns, false, true);
      return;
    }
    case 'ProcessSubstitution':
      env.substitute(part.script, part.text, scope);
      b.literal('/dev/fd/63');
      return;
    case 'ArithmeticExpansion':
      // An integer: a stand-in without a slash classifies a path the same way.
      if (env.arith(part.expression, scope, part.text)) b.literal('0');
      else b.unknown();
      return;
  }
}

/** Walk word parts only for the code they run (their value is not needed). */
function walkParts(parts: readonly WordPart[] | undefined, scope: Scope, env: WordEnv): void {
  if (parts === undefined) return;
  const b = new Builder();
  for (const p of parts) addPart(b, p, false, false, scope, env);
}

/** Walk a word only for the code it runs. */
export function walkWord(word: Word | undefined, scope: Scope, env: WordEnv): Arg[] {
  return word === undefined ? [] : resolveWord(word, scope, env);
}

type ParamPart = Extract<WordPart, { type: 'ParameterExpansion' }>;

/** Prompt-expansion and quoting transforms that run no code (`@P` does). */
const SAFE_TRANSFORMS = new Set(['Q', 'E', 'A', 'a', 'K', 'k', 'U', 'u', 'L']);

function parameterExpansion(b: Builder, part: ParamPart, quoted: boolean, scope: Scope, env: WordEnv): void {
  const op = part.operation;
  // The subscript of an indexed array is arithmetic: `${a[$(cmd)]}`, `${a[x]}` with x='b[$(cmd)]'.
  if (part.index !== undefined) {
    const idx = resolveSingle(part.index, scope, env);
    if (idx.text !== '@' && idx.text !== '*') env.arithText(idx.text, scope, `the array subscript in ${part.text}`);
  }
  let name: string | null = part.parameter;
  if (part.prefix === '!' && op?.type !== 'Names' && part.index === undefined) {
    // ${!x}: the variable named by x's value, which may itself be `a[<arithmetic>]`.
    const target = lookup(part.parameter, scope, env);
    name = target !== null && target.length === 1 ? (target[0] ?? null) : null;
    if (name !== null && name.includes('[')) {
      env.arithText(name.slice(name.indexOf('[') + 1, name.lastIndexOf(']') > 0 ? name.lastIndexOf(']') : undefined), scope, `the subscript in ${part.text}`);
      name = null;
    } else if (name === null) env.arithText(null, scope, `the indirect expansion ${part.text}`);
  }
  if (op !== undefined) {
    switch (op.type) {
      case 'Default':
      case 'Remove':
      case 'CaseModification':
        walkWord(op.operand, scope, env);
        break;
      case 'Replace':
        walkWord(op.pattern, scope, env);
        walkWord(op.replacement, scope, env);
        break;
      case 'Slice':
        for (const w of [op.offset, op.length]) if (w !== undefined) env.arithText(resolveSingle(w, scope, env).text, scope, `the offset in ${part.text}`);
        break;
      case 'Transform': {
        const t = resolveSingle(op.operand, scope, env).text;
        if (t === 'P') env.promptCode(name === null ? null : singleValue(lookup(name, scope, env)), scope, part.text);
        else if (t === null || !SAFE_TRANSFORMS.has(t)) env.taint(scope, `the expansion ${part.text} is not modelled`);
        break;
      }
      case 'Names':
        break;
      case 'Unknown':
        env.taint(scope, `the expansion ${part.text} is not modelled`);
        break;
    }
  }
  // `${a[@]}`, `${@}`: every element, as separate fields.
  const whole = part.index?.text === '@' || part.index?.text === '*' || ((name === '@' || name === '*') && part.index === undefined);
  if (whole && op === undefined && part.prefix === undefined && name !== null) {
    const list = name === '@' || name === '*' ? scope.positional : scope.arrays.get(name);
    if (list !== null && list !== undefined && list.every((v) => v !== null)) {
      b.fields(name === '*' || part.index?.text === '*' ? (quoted ? [list.join(' ')] : (list)) : (list), quoted);
      return;
    }
  }
  if (name === null || part.prefix === '#' || part.index !== undefined || (part.prefix === '!' && part.parameter === name)) {
    if (part.prefix === '#') b.literal('0');
    else b.unknown();
    return;
  }
  if (op === undefined) {
    expandVar(b, name, quoted, scope, env);
    return;
  }
  const v = lookup(name, scope, env);
  switch (op.type) {
    case 'Default': {
      // ${x:-word}: the variable when known and set, else unknown (it may come from the environment).
      if (op.operator.includes('+') || op.operator.includes('?')) b.unknown();
      else if (v !== null && v.every((s) => s !== '')) b.value(v, quoted);
      else b.unknown();
      return;
    }
    case 'Remove': {
      const pat = resolveSingle(op.operand, scope, env);
      if (v === null || pat.text === null) return b.unknown();
      const glob = scope.globVars.has(name);
      const out = v.map((s) => removeAffix(s, pat.glob ? pat.text ?? '' : escapeGlob(pat.text ?? ''), op.operator));
      if (out.some((o) => o === null)) return b.unknown();
      if (glob) b.value(out as string[], quoted, true);
      else b.value(out as string[], quoted);
      return;
    }
    case 'Replace':
    case 'Slice':
    case 'CaseModification':
    case 'Transform':
    case 'Names':
    case 'Unknown':
      b.unknown();
  }
}

function singleValue(v: readonly string[] | null): string | null {
  return v !== null && v.length === 1 ? (v[0] ?? null) : null;
}

/** `${x%pat}`, `${x%%pat}`, `${x#pat}`, `${x##pat}` for a glob pattern; null when the pattern is not understood. */
function removeAffix(value: string, pattern: string, op: string): string | null {
  const re = globToRegex(pattern);
  if (re === null) return null;
  const suffix = op.startsWith('%');
  const longest = op.length === 2;
  const cuts: number[] = [];
  for (let i = 0; i <= value.length; i++) {
    const piece = suffix ? value.slice(i) : value.slice(0, i);
    if (re.test(piece)) cuts.push(i);
  }
  if (cuts.length === 0) return value;
  if (suffix) return value.slice(0, longest ? Math.min(...cuts) : Math.max(...cuts));
  return value.slice(longest ? Math.max(...cuts) : Math.min(...cuts));
}

function globToRegex(pattern: string): RegExp | null {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '\\') out += (pattern[++i] ?? '').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else if (c === '*') out += '[\\s\\S]*';
    else if (c === '?') out += '[\\s\\S]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) return null;
      out += '[' + pattern.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\') + ']';
      i = end;
    } else out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  try {
    return new RegExp(`^${out}$`);
  } catch {
    return null;
  }
}

const NUMERIC_SPECIALS = new Set(['$', '!', '?', '#', 'RANDOM', 'SRANDOM', 'BASHPID', 'PPID', 'UID', 'EUID', 'SECONDS', 'EPOCHSECONDS', 'LINENO', 'SHLVL']);

export function lookup(name: string, scope: Scope, env: WordEnv): readonly string[] | null {
  const v = scope.vars.get(name);
  if (v !== undefined) return v;
  if (name === 'PWD' || name === 'OLDPWD') {
    const dirs = name === 'PWD' ? scope.cwds : scope.oldCwds;
    const known = dirs.filter((c): c is string => c !== null);
    return known.length === dirs.length ? known : null;
  }
  if (/^[1-9]$/.test(name) && scope.positional !== null) {
    const p = scope.positional[Number(name) - 1];
    return p === undefined ? [''] : p === null ? null : [p];
  }
  if (name === '#') return ['0'];
  if (name === 'HOME') return [env.home];
  const inherited = env.inherited?.[name];
  if (inherited !== undefined && inherited !== '') return [inherited];
  // Numbers (pids, counters, status): no slash, so a stand-in classifies the path the same way.
  if (NUMERIC_SPECIALS.has(name)) return ['0'];
  return null;
}

function expandVar(b: Builder, name: string, quoted: boolean, scope: Scope, env: WordEnv): void {
  const v = lookup(name, scope, env);
  if (v === null) b.unknown(scope.numeric.has(name) || scope.slashFree.has(name));
  else b.value(v, quoted, scope.globVars.has(name), ifsOf(scope));
}

/** The field separators unquoted expansions split on; null when IFS was set to something unknown. */
function ifsOf(scope: Scope): string | null {
  const v = scope.vars.get('IFS');
  if (v === undefined) return ' \t\n';
  return v !== null && v.length === 1 ? (v[0] ?? null) : null;
}

/** `{a,b}c`, nested lists and `{1..3}` / `{a..e}` sequences; null when it holds expansions. */
function expandBraces(text: string): string[] | null {
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

/** Commands whose output never holds a `/`: a base name, a number, a hash, a host or user name. */
export function slashFreeOutput(script: ParsedScript | undefined): boolean {
  let node = script?.commands.length === 1 ? script.commands[0]?.command : undefined;
  if (node?.type === 'Pipeline') node = node.commands[node.commands.length - 1];
  if (node?.type !== 'Command' || node.name === undefined) return false;
  const args = node.suffix.map((s) => ('text' in s ? s.text : ''));
  switch (node.name.value) {
    case 'basename':
    case 'wc':
    case 'nproc':
    case 'whoami':
    case 'hostname':
    case 'uname':
    case 'id':
    case 'seq':
      return true;
    case 'date':
      // `+%D` and the locale formats print slashes.
      return args.every((a) => !/[/$`]|%[Dxc]/.test(a));
    case 'git':
      return /^rev-parse( --short(=\d+)?)? HEAD$|^log -1 --(?:format|pretty)=%h$|^log -1 --(?:format|pretty)=%H$/.test(args.join(' '));
    default:
      return false;
  }
}
