import { attributesStart, itemEnd } from '../rules/testRegions.js';

/**
 * Test declarations, found by parsing a test file (pure). A test's identity rests on its
 * declaration — the `describe`/`it`/`test` call, the `def test_…`, the `func TestX` or its
 * `t.Run`, the `#[test] fn` — not on the name the runner prints, which may carry values computed
 * at run time. Each declaration has its own span (the whole call or item, nothing up to the next
 * one), the title as the source spells it, and a pattern for the names a runner may report for it.
 */
export type DeclLang = 'js' | 'py' | 'go' | 'rs';

export interface Decl {
  kind: 'suite' | 'test';
  /** The title as the source spells it: a literal's value, else the expression's text. */
  title: string;
  /** The runner reports exactly `title` for it (a plain literal, no placeholders). */
  literal: boolean;
  /** Matches the names a runner may report for it (one segment of the reported path). */
  pattern: RegExp;
  /** A table of cases (`test.each`, `test.for`, `describe.each`). */
  each: boolean;
  /** Offsets of its own block: the whole call (`it(…)`, `test.each(…)(…)`) or item, with its decorators or attributes. */
  start: number;
  end: number;
  /** Offset of the call's callee (or the item's name), for a runner's reported location. */
  at: number;
  parent: Decl | null;
  children: Decl[];
  /** JS: an each table written as an array literal: each row's text, and the block with the table left out. */
  rows?: string[];
  shell?: string;
}

export interface ParsedFile {
  lang: DeclLang;
  text: string;
  /** Every declaration, in source order. */
  all: Decl[];
}

/** The language of a test file by its name; null when none of ours. */
export function declLang(file: string): DeclLang | null {
  if (/\.(?:[cm]?[jt]sx?)$/.test(file)) return 'js';
  if (file.endsWith('.py')) return 'py';
  if (file.endsWith('.go')) return 'go';
  if (file.endsWith('.rs')) return 'rs';
  return null;
}

export function parseDecls(text: string, lang: DeclLang): ParsedFile {
  const all = lang === 'js' ? jsDecls(text) : lang === 'py' ? pyDecls(text) : lang === 'go' ? goDecls(text) : rsDecls(text);
  return { lang, text, all };
}

/** The declaration's block text, each line's trailing blanks dropped. */
export function blockText(text: string, d: Decl): string {
  return text
    .slice(d.start, d.end)
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
}

/** The lexical path of spelled titles from the outermost declaration to `d`. */
export function declPath(d: Decl): string[] {
  const out: string[] = [];
  for (let x: Decl | null = d; x !== null; x = x.parent) out.unshift(x.title);
  return out;
}

/** Offset of a 1-based line and column. */
export function offsetOf(text: string, line: number, column: number): number {
  let at = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', at);
    if (nl === -1) return text.length;
    at = nl + 1;
  }
  return at + Math.max(0, column - 1);
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ANY = '[\\s\\S]*?';
const exact = (s: string) => new RegExp(`^${escapeRe(s)}$`);

// ---------------------------------------------------------------- JavaScript and TypeScript

function isIdent(c: string | undefined): boolean {
  if (c === undefined) return false;
  const n = c.charCodeAt(0);
  return (n >= 97 && n <= 122) || (n >= 65 && n <= 90) || (n >= 48 && n <= 57) || n === 95 || n === 36;
}
const JS_SUITES = new Set(['describe', 'suite', 'context', 'fdescribe', 'xdescribe', 'xcontext']);
const JS_TESTS = new Set(['it', 'test', 'specify', 'bench', 'fit', 'xit', 'xtest', 'xspecify']);
const REGEX_AFTER_WORD = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

/** Could a `/` at `k` start a regular expression literal (not a division)? */
function regexAllowed(text: string, k: number): boolean {
  let j = k - 1;
  while (j >= 0 && /\s/.test(text[j] as string)) j--;
  if (j < 0) return true;
  const c = text[j] as string;
  if (isIdent(c)) {
    let s = j;
    while (s > 0 && isIdent(text[s - 1])) s--;
    return REGEX_AFTER_WORD.has(text.slice(s, j + 1));
  }
  return !/[)\]}'"`]/.test(c);
}

/** If a string, template, comment or regular expression starts at `k`, the offset after it; else -1. */
export function skipJs(text: string, k: number): number {
  const c = text[k];
  if (c === '/' && text[k + 1] === '/') {
    const nl = text.indexOf('\n', k);
    return nl === -1 ? text.length : nl;
  }
  if (c === '/' && text[k + 1] === '*') {
    const close = text.indexOf('*/', k + 2);
    return close === -1 ? text.length : close + 2;
  }
  if (c === "'" || c === '"') {
    let j = k + 1;
    while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
    return Math.min(j + 1, text.length);
  }
  if (c === '`') return skipTemplate(text, k);
  if (c === '/' && regexAllowed(text, k)) {
    let j = k + 1;
    let cls = false;
    while (j < text.length && text[j] !== '\n') {
      const d = text[j];
      if (d === '\\') j++;
      else if (d === '[') cls = true;
      else if (d === ']') cls = false;
      else if (d === '/' && !cls) break;
      j++;
    }
    if (text[j] !== '/') return -1; // not a regular expression after all
    j++;
    while (isIdent(text[j])) j++;
    return j;
  }
  return -1;
}

function skipTemplate(text: string, k: number): number {
  let j = k + 1;
  while (j < text.length) {
    const c = text[j];
    if (c === '\\') j += 2;
    else if (c === '`') return j + 1;
    else if (c === '$' && text[j + 1] === '{') j = skipBalanced(text, j + 1);
    else j++;
  }
  return text.length;
}

/**
 * `open` is at `(`, `[` or `{`: the offset after the bracket that closes it, brackets inside
 * strings and comments skipped by `skip` (the language's own: JavaScript's by default).
 */
function skipBalanced(text: string, open: number, skip: (text: string, at: number) => number = skipJs): number {
  let depth = 0;
  let j = open;
  while (j < text.length) {
    const past = skip(text, j);
    if (past !== -1) {
      j = past;
      continue;
    }
    const c = text[j];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) return j + 1;
    }
    j++;
  }
  return text.length;
}

function skipSpace(text: string, k: number): number {
  for (;;) {
    while (k < text.length && /\s/.test(text[k] as string)) k++;
    if (text[k] === '/' && (text[k + 1] === '/' || text[k + 1] === '*')) k = skipJs(text, k);
    else return k;
  }
}

/** The top-level comma-separated parts of `text[from, to)` (offsets). */
function splitArgs(text: string, from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  let start = from;
  let j = from;
  while (j < to) {
    const skip = skipJs(text, j);
    if (skip !== -1) {
      j = skip;
      continue;
    }
    const c = text[j];
    if (c === '(' || c === '[' || c === '{') {
      j = skipBalanced(text, j);
      continue;
    }
    if (c === ',') {
      out.push([start, j]);
      start = j + 1;
    }
    j++;
  }
  if (text.slice(start, to).trim() !== '') out.push([start, to]);
  return out;
}

function unescapeJs(body: string): string {
  return body.replace(/\\(?:u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|(\r?\n)|(.))/g, (_m, cp?: string, u?: string, x?: string, nl?: string, ch?: string) => {
    if (cp !== undefined) return String.fromCodePoint(Number.parseInt(cp, 16));
    if (u !== undefined || x !== undefined) return String.fromCharCode(Number.parseInt((u ?? x) as string, 16));
    if (nl !== undefined) return '';
    return ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', 0: '\0' } as Record<string, string>)[ch ?? ''] ?? ch ?? '';
  });
}

/** A title argument: its spelled text, whether the runner reports it as is, and the pattern of what it reports. */
function jsTitle(arg: string, each: boolean): { title: string; literal: boolean; pattern: RegExp } {
  const a = arg.trim();
  let value: string | null = null;
  let parts: string[] | null = null; // a template's static parts around its ${…}
  if (/^(['"])[\s\S]*\1$/.test(a) && skipJs(a, 0) === a.length) value = unescapeJs(a.slice(1, -1));
  else if (a.startsWith('`') && skipTemplate(a, 0) === a.length) {
    const inner = a.slice(1, -1);
    const statics: string[] = [];
    let last = 0;
    for (let j = 0; j < inner.length; j++) {
      if (inner[j] === '\\') j++;
      else if (inner[j] === '$' && inner[j + 1] === '{') {
        const close = skipBalanced(inner, j + 1);
        statics.push(inner.slice(last, j));
        last = close;
        j = close - 1;
      }
    }
    statics.push(inner.slice(last));
    if (statics.length === 1) value = unescapeJs(inner);
    else parts = statics.map(unescapeJs);
    if (parts) return { title: inner, literal: false, pattern: new RegExp(`^${parts.map((p) => (each ? placeholders(p) : escapeRe(p))).join(ANY)}$`) };
  }
  if (value === null) return { title: a.replace(/\s+/g, ' '), literal: false, pattern: /^[\s\S]*$/ };
  if (each) {
    const re = placeholders(value);
    return { title: value, literal: re === escapeRe(value), pattern: new RegExp(`^${re}$`) };
  }
  return { title: value, literal: true, pattern: exact(value) };
}

/** An each title's printf placeholders (`%s`, `%#`, …) and `$variable`s as wildcards. */
function placeholders(title: string): string {
  let out = '';
  for (let j = 0; j < title.length; j++) {
    const c = title[j] as string;
    const n = title[j + 1] ?? '';
    if (c === '%' && n === '%') {
      out += '%';
      j++;
    } else if (c === '%' && /[pdisfjoOc#$]/.test(n)) {
      out += ANY;
      j++;
    } else if (c === '$' && /[A-Za-z_\d]/.test(n)) {
      const m = /^\$[\w$]+(?:\.[\w$]+|\[\d+\])*/.exec(title.slice(j));
      out += ANY;
      j += (m?.[0].length ?? 1) - 1;
    } else out += escapeRe(c);
  }
  return out;
}

/** `open` is at a `<` of type arguments: the offset after its `>`, or -1 when it is not one. */
function typeArgsEnd(text: string, open: number): number {
  let depth = 0;
  for (let j = open; j < text.length && j < open + 2000; j++) {
    const c = text[j];
    if (c === '<') depth++;
    else if (c === '>' && text[j - 1] !== '=') {
      depth--;
      if (depth === 0) return text[skipSpace(text, j + 1)] === '(' ? j + 1 : -1;
    } else if (c === ';' || c === ')') return -1;
    else if (c === '(' || c === '[' || c === '{') {
      j = skipBalanced(text, j) - 1;
    }
  }
  return -1;
}

/** Does the argument look like a function (the test's body)? */
function isFunctionArg(arg: string): boolean {
  return /^(?:async\s+)?(?:function\b|\(|[\w$]+\s*=>)/.test(arg.trim());
}

function jsDecls(text: string): Decl[] {
  const all: Decl[] = [];
  const scan = (from: number, to: number, parent: Decl | null): void => {
    let k = from;
    while (k < to) {
      const skip = skipJs(text, k);
      if (skip !== -1) {
        k = skip;
        continue;
      }
      const c = text[k] as string;
      if (!isIdent(c) || isIdent(text[k - 1])) {
        k++;
        continue;
      }
      let e = k;
      while (isIdent(text[e])) e++;
      const word = text.slice(k, e);
      const found = jsCall(k, e, word, parent);
      if (found) {
        const { decl, bodyFrom } = found;
        all.push(decl);
        parent?.children.push(decl);
        scan(bodyFrom, decl.end, decl);
        k = decl.end;
        continue;
      }
      k = e;
    }
  };
  const jsCall = (k: number, e: number, word: string, parent: Decl | null): { decl: Decl; bodyFrom: number } | null => {
    let begin = k;
    // `t.test(…)` inside a test: node:test's subtest.
    const member = text[k - 1] === '.';
    if (member) {
      if (word !== 'test' || parent === null || parent.kind !== 'test') return null;
      let o = k - 2;
      while (o >= 0 && isIdent(text[o - 1])) o--;
      if (!isIdent(text[o]) || text[o - 1] === '.') return null;
      begin = o;
    } else {
      if (!JS_SUITES.has(word) && !JS_TESTS.has(word)) return null;
      if (/\bfunction\s*\*?\s*$/.test(text.slice(Math.max(0, k - 12), k))) return null;
    }
    let each = false;
    let j = e;
    let call: [number, number] | null = null;
    let tableCall: [number, number] | null = null;
    for (;;) {
      j = skipSpace(text, j);
      const c = text[j];
      if (c === '.' && !member) {
        const m = /^\.\s*([\w$]+)/.exec(text.slice(j, j + 40));
        if (!m) return null;
        if (m[1] === 'each' || m[1] === 'for') each = true;
        j += m[0].length;
        continue;
      }
      if (c === '(') {
        const close = skipBalanced(text, j);
        const next = skipSpace(text, close);
        if (text[next] === '(' || text[next] === '`') {
          if (each && tableCall === null) tableCall = [j + 1, close - 1];
          j = close;
          continue;
        }
        if (text[next] === '{' || (text[next] === '=' && text[next + 1] === '>')) return null; // a method or a function's parameters
        call = [j + 1, close - 1];
        j = close;
        break;
      }
      if (c === '`' && each) {
        j = skipTemplate(text, j); // a table as a tagged template
        continue;
      }
      if (c === '<') {
        const close = typeArgsEnd(text, j); // TypeScript's `test.each<[number, number]>(…)`
        if (close === -1) return null;
        j = close;
        continue;
      }
      return null;
    }
    const args = splitArgs(text, call[0], call[1]);
    const first = args[0];
    if (!first) return null;
    if (member && (args.length < 2 || !isFunctionArg(text.slice(...(args[args.length - 1] as [number, number]))))) return null;
    const title = jsTitle(text.slice(first[0], first[1]), each);
    let end = j;
    const semi = skipSpace(text, end);
    if (text[semi] === ';' && !text.slice(end, semi).includes('\n')) end = semi + 1;
    const kind = member ? 'test' : JS_SUITES.has(word) ? 'suite' : 'test';
    const decl: Decl = { kind, ...title, each, start: begin, end, at: k, parent, children: [] };
    if (tableCall) {
      const t0 = skipSpace(text, tableCall[0]);
      if (text[t0] === '[') {
        const tEnd = skipBalanced(text, t0);
        if (text.slice(tEnd, tableCall[1]).trim() === '') {
          decl.rows = splitArgs(text, t0 + 1, tEnd - 1).map(([a, b]) => text.slice(a, b).trim());
          decl.shell = text.slice(begin, t0) + '[…]' + text.slice(tEnd, end);
        }
      }
    }
    return { decl, bodyFrom: first[1] };
  };
  scan(0, text.length, null);
  return all;
}

// ---------------------------------------------------------------- Python

/**
 * `class` and `def` statements by indentation, over logical lines (brackets, strings and `\`
 * continuations joined). A function's block starts at its decorators (`@pytest.mark.parametrize`
 * holds its cases) and ends before the next statement indented no deeper than its `def`.
 */
function pyDecls(text: string): Decl[] {
  const lines = logicalLines(text);
  const all: Decl[] = [];
  const open: { decl: Decl; indent: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const { start, indent, head } = lines[i]!;
    if (/^\s*(?:#|$)/.test(head)) continue;
    while (open.length > 0 && open[open.length - 1]!.indent >= indent) open.pop();
    const m = /^(?:async\s+)?def\s+(\w+)|^class\s+(\w+)/.exec(head.trimStart());
    if (!m) continue;
    let from = start;
    for (let j = i - 1; j >= 0; j--) {
      const prev = lines[j]!;
      if (prev.indent === indent && prev.head.trimStart().startsWith('@')) from = prev.start;
      else if (!/^\s*(?:#|$)/.test(prev.head)) break;
    }
    let endLine = i + 1;
    let end = lines[i]!.end;
    for (; endLine < lines.length; endLine++) {
      const l = lines[endLine]!;
      if (/^\s*(?:#|$)/.test(l.head)) continue;
      if (l.indent <= indent) break;
      end = l.end;
    }
    const name = (m[1] ?? m[2]) as string;
    const parent = open.length > 0 ? open[open.length - 1]!.decl : null;
    const decl: Decl = { kind: m[2] ? 'suite' : 'test', title: name, literal: true, pattern: exact(name), each: false, start: from, end, at: start + head.indexOf(name), parent, children: [] };
    all.push(decl);
    parent?.children.push(decl);
    open.push({ decl, indent });
  }
  return all;
}

/** Python's logical lines: offsets, indentation, and the first physical line's text. */
function logicalLines(text: string): { start: number; end: number; indent: number; head: string }[] {
  const out: { start: number; end: number; indent: number; head: string }[] = [];
  let k = 0;
  while (k < text.length) {
    const start = k;
    let depth = 0;
    let j = k;
    for (;;) {
      if (j >= text.length) break;
      const c = text[j] as string;
      if (c === '#') {
        while (j < text.length && text[j] !== '\n') j++;
        continue;
      }
      if (c === '"' || c === "'") {
        const triple = text.startsWith(c.repeat(3), j);
        const q = triple ? c.repeat(3) : c;
        j += q.length;
        while (j < text.length && !text.startsWith(q, j) && (triple || text[j] !== '\n')) j += text[j] === '\\' ? 2 : 1;
        j += q.length;
        continue;
      }
      if (c === '(' || c === '[' || c === '{') depth++;
      else if (c === ')' || c === ']' || c === '}') depth = Math.max(0, depth - 1);
      else if (c === '\\' && text[j + 1] === '\n') {
        j += 2;
        continue;
      } else if (c === '\n' && depth === 0) break;
      j++;
    }
    const nl = text.indexOf('\n', start);
    const head = text.slice(start, nl === -1 ? text.length : nl);
    let end = Math.min(j, text.length);
    while (end > start && /\s/.test(text[end - 1] as string)) end--;
    out.push({ start, end, indent: /^[ \t]*/.exec(head)?.[0].length ?? 0, head });
    k = j + 1;
  }
  return out;
}

// ---------------------------------------------------------------- Go

/** If a string, rune or comment starts at `k` (Go or Rust), the offset after it; else -1. */
export function skipGoLike(text: string, k: number, rust: boolean): number {
  const c = text[k];
  if (c === '/' && text[k + 1] === '/') {
    const nl = text.indexOf('\n', k);
    return nl === -1 ? text.length : nl;
  }
  if (c === '/' && text[k + 1] === '*') {
    const close = text.indexOf('*/', k + 2);
    return close === -1 ? text.length : close + 2;
  }
  if (c === '"') {
    let j = k + 1;
    while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    return j + 1;
  }
  if (c === '`' && !rust) {
    const close = text.indexOf('`', k + 1);
    return close === -1 ? text.length : close + 1;
  }
  if (rust && c === 'r' && !isIdent(text[k - 1])) {
    const raw = /^r(#*)"/.exec(text.slice(k, k + 40));
    if (raw) {
      const close = text.indexOf(`"${raw[1] ?? ''}`, k + raw[0].length);
      return close === -1 ? text.length : close + 1 + (raw[1]?.length ?? 0);
    }
  }
  if (c === "'") {
    const ch = /^'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|[0-7]{3}|.)|[^\\'\n])'/.exec(text.slice(k, k + 16));
    return ch ? k + ch[0].length : k + 1; // a rune or char, or a lifetime's quote
  }
  return -1;
}

function skipBalancedGo(text: string, open: number, rust: boolean): number {
  return skipBalanced(text, open, (t, at) => skipGoLike(t, at, rust));
}

/** A Go string literal's value; null for anything else. */
function goString(arg: string): string | null {
  const a = arg.trim();
  if (/^`[^`]*`$/.test(a)) return a.slice(1, -1);
  if (/^"(?:[^"\\\n]|\\.)*"$/.test(a)) return unescapeJs(a.slice(1, -1));
  return null;
}

/** The subtest name `go test` reports for a `t.Run` title (testing's rewrite: spaces to `_`, unprintable runes quoted). */
export function goRewrite(title: string): string {
  let out = '';
  for (const ch of title) {
    if (/\s/.test(ch)) out += '_';
    else if (/[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(ch)) out += ch;
    else out += JSON.stringify(ch).slice(1, -1);
  }
  return out;
}

/** Top-level `func`s, and the `x.Run(name, func…)` calls inside them (nested). */
function goDecls(text: string): Decl[] {
  const all: Decl[] = [];
  const scanRuns = (from: number, to: number, parent: Decl): void => {
    let k = from;
    while (k < to) {
      const skip = skipGoLike(text, k, false);
      if (skip !== -1) {
        k = skip;
        continue;
      }
      if (text.startsWith('.Run', k) && !isIdent(text[k + 4])) {
        const open = skipSpace(text, k + 4);
        if (text[open] === '(') {
          const close = skipBalancedGo(text, open, false);
          const args = splitGoArgs(text, open + 1, close - 1);
          if (args.length >= 2 && /\bfunc\s*\(/.test(text.slice(args[1]![0], args[1]![1]))) {
            let begin = k;
            while (begin > from && /[\w.()]/.test(text[begin - 1] as string)) begin--;
            const arg = text.slice(args[0]![0], args[0]![1]);
            const lit = goString(arg);
            const d: Decl = lit !== null
              ? { kind: 'test', title: lit, literal: true, pattern: new RegExp(`^${escapeRe(goRewrite(lit))}(?:#\\d+)?$`), each: false, start: begin, end: close, at: k + 1, parent, children: [] }
              : { kind: 'test', title: arg.trim().replace(/\s+/g, ' '), literal: false, pattern: /^[^/]*$/, each: false, start: begin, end: close, at: k + 1, parent, children: [] };
            all.push(d);
            parent.children.push(d);
            scanRuns(args[1]![0], close, d);
            k = close;
            continue;
          }
        }
      }
      k++;
    }
  };
  let k = 0;
  while (k < text.length) {
    const skip = skipGoLike(text, k, false);
    if (skip !== -1) {
      k = skip;
      continue;
    }
    const c = text[k] as string;
    if (c === '{' || c === '(' || c === '[') {
      k = skipBalancedGo(text, k, false);
      continue;
    }
    const m = (k === 0 || text[k - 1] === '\n') && /^func\s+(?:\([^)]*\)\s*)?(\w+)\s*(?:\[[^\]]*\]\s*)?\(/.exec(text.slice(k, k + 300));
    if (!m) {
      k++;
      continue;
    }
    const params = k + m[0].length - 1;
    let j = skipBalancedGo(text, params, false);
    // past the results to the body
    while (j < text.length && text[j] !== '{' && text[j] !== '\n') {
      if (text[j] === '(') j = skipBalancedGo(text, j, false);
      else if (/^(?:interface|struct)\s*\{/.test(text.slice(j, j + 12))) j = skipBalancedGo(text, text.indexOf('{', j), false);
      else j++;
    }
    if (text[j] !== '{') {
      k = j;
      continue;
    }
    const end = skipBalancedGo(text, j, false);
    const name = m[1] as string;
    const d: Decl = { kind: 'test', title: name, literal: true, pattern: exact(name), each: false, start: k, end, at: k + m[0].indexOf(name), parent: null, children: [] };
    all.push(d);
    scanRuns(j, end, d);
    k = end;
  }
  return all.sort((a, b) => a.start - b.start);
}

function splitGoArgs(text: string, from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  let start = from;
  let j = from;
  while (j < to) {
    const skip = skipGoLike(text, j, false);
    if (skip !== -1) {
      j = skip;
      continue;
    }
    const c = text[j];
    if (c === '(' || c === '[' || c === '{') {
      j = skipBalancedGo(text, j, false);
      continue;
    }
    if (c === ',') {
      out.push([start, j]);
      start = j + 1;
    }
    j++;
  }
  if (text.slice(start, to).trim() !== '') out.push([start, to]);
  return out;
}

/** Every string literal a Go file spells, as `go test` would report it for a subtest name. */
export function goLiteralNames(text: string): Set<string> {
  const out = new Set<string>();
  let k = 0;
  while (k < text.length) {
    const c = text[k];
    if (c === '"' || c === '`') {
      const end = skipGoLike(text, k, false);
      const v = goString(text.slice(k, end));
      if (v !== null) out.add(goRewrite(v));
      k = end;
      continue;
    }
    const skip = skipGoLike(text, k, false);
    k = skip !== -1 ? skip : k + 1;
  }
  return out;
}

// ---------------------------------------------------------------- Rust

/** `mod name { … }` blocks and every `fn` item (with its attributes), nested by module. */
function rsDecls(text: string): Decl[] {
  const all: Decl[] = [];
  const scan = (from: number, to: number, parent: Decl | null): void => {
    let k = from;
    while (k < to) {
      const skip = skipGoLike(text, k, true);
      if (skip !== -1) {
        k = skip;
        continue;
      }
      if (isIdent(text[k - 1]) || !/[a-z]/.test(text[k] as string)) {
        k++;
        continue;
      }
      const m = /^(?:mod\s+(\w+)\s*\{|(?:(?:const|async|unsafe|extern\s*(?:"[^"]*")?)\s+)*fn\s+(\w+))/.exec(text.slice(k, k + 200));
      if (!m) {
        while (isIdent(text[k])) k++;
        continue;
      }
      const lineStart = text.lastIndexOf('\n', k - 1) + 1;
      const lead = text.slice(lineStart, k);
      const start = /^\s*(?:pub(?:\([^)]*\))?\s+)?$/.test(lead) ? attributesStart(text, lineStart, lineStart) : k;
      const end = itemEnd(text, k + m[0].length - (m[1] ? 1 : 0));
      const name = (m[1] ?? m[2]) as string;
      const d: Decl = { kind: m[1] ? 'suite' : 'test', title: name, literal: true, pattern: exact(name), each: false, start, end, at: k + m[0].indexOf(name), parent, children: [] };
      all.push(d);
      parent?.children.push(d);
      if (m[1]) scan(k + m[0].length, end - 1, d);
      k = end;
    }
  };
  scan(0, text.length, null);
  return all;
}
