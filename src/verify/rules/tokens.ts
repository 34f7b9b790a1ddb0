import { skipGoLike, skipJs } from '../evidence/declarations.js';

/**
 * A source file as tokens (pure): words, string literals (their text), numbers and punctuation,
 * with comments skipped, so a rule reads code, never a comment or the text of a string that only
 * looks like code. The string and comment skippers are the declaration parser's.
 */
export type TokLang = 'js' | 'py' | 'go' | 'rs';

export interface Tok {
  /** w: a word; s: a string literal (v is its text between the quotes); n: a number; p: punctuation. */
  k: 'w' | 's' | 'n' | 'p';
  v: string;
  /** 1-based line. */
  line: number;
  /** Curly-brace depth where it starts (0: the module's top level). */
  depth: number;
}

const PUNCT = ['===', '!==', '...', '**=', '==', '!=', '=>', '::', '?.', '&&', '||', '->', ':=', '<=', '>=', '+=', '-='];

function isWordChar(c: string | undefined): boolean {
  if (c === undefined) return false;
  const n = c.charCodeAt(0);
  return (n >= 97 && n <= 122) || (n >= 65 && n <= 90) || (n >= 48 && n <= 57) || n === 95 || n === 36 || n > 127;
}

/** Python: a comment, or a string with its prefix (r, b, f, u and pairs), from `k`; -1 when none starts there. */
function skipPy(text: string, k: number): { end: number; body: [number, number] | null } | null {
  const c = text[k];
  if (c === '#') {
    const nl = text.indexOf('\n', k);
    return { end: nl === -1 ? text.length : nl, body: null };
  }
  let q = k;
  if (!isWordChar(text[k - 1])) while (q < k + 2 && /[rRbBuUfF]/.test(text[q] ?? '')) q++;
  const quote = text[q];
  if (quote !== '"' && quote !== "'") return null;
  if (q > k && !(quote === '"' || quote === "'")) return null;
  const raw = /[rR]/.test(text.slice(k, q));
  const triple = text.startsWith(quote.repeat(3), q);
  const open = q + (triple ? 3 : 1);
  let j = open;
  while (j < text.length) {
    if (text[j] === '\\' && !raw) {
      j += 2;
      continue;
    }
    if (triple ? text.startsWith(quote.repeat(3), j) : text[j] === quote || text[j] === '\n') break;
    j++;
  }
  const end = Math.min(text.length, j + (triple ? 3 : 1));
  return { end, body: [open, Math.min(j, text.length)] };
}

/** The tokens of `text` in `lang`. */
export function tokenize(text: string, lang: TokLang): Tok[] {
  const out: Tok[] = [];
  let line = 1;
  let depth = 0;
  let k = 0;
  const advanceLines = (from: number, to: number) => {
    for (let j = text.indexOf('\n', from); j !== -1 && j < to; j = text.indexOf('\n', j + 1)) line++;
  };
  while (k < text.length) {
    const c = text[k] as string;
    if (c === '\n') {
      line++;
      k++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      k++;
      continue;
    }
    // strings and comments
    if (lang === 'py') {
      const s = skipPy(text, k);
      if (s !== null) {
        if (s.body) out.push({ k: 's', v: text.slice(s.body[0], s.body[1]), line, depth });
        advanceLines(k, s.end);
        k = s.end;
        continue;
      }
    } else {
      const end = lang === 'js' ? skipJs(text, k) : skipGoLike(text, k, lang === 'rs');
      if (end > k) {
        const comment = c === '/' && (text[k + 1] === '/' || text[k + 1] === '*');
        const regex = lang === 'js' && c === '/' && !comment;
        const lifetime = lang === 'rs' && c === "'" && end === k + 1;
        if (!comment && !regex && !lifetime) {
          const open = c === 'r' ? text.indexOf('"', k) + 1 : k + 1;
          const close = c === 'r' ? text.lastIndexOf('"', end - 1) : end - 1;
          out.push({ k: 's', v: text.slice(open, Math.max(open, close)), line, depth });
        } else if (lifetime) out.push({ k: 'p', v: "'", line, depth });
        advanceLines(k, end);
        k = end;
        continue;
      }
    }
    if (isWordChar(c)) {
      let j = k + 1;
      while (isWordChar(text[j])) j++;
      const v = text.slice(k, j);
      out.push({ k: /^[0-9]/.test(v) ? 'n' : 'w', v, line, depth });
      k = j;
      continue;
    }
    const p = PUNCT.find((op) => text.startsWith(op, k)) ?? c;
    if (p === '{') depth++;
    out.push({ k: 'p', v: p, line, depth: p === '}' ? Math.max(0, depth - 1) : depth });
    if (p === '}') depth = Math.max(0, depth - 1);
    k += p.length;
  }
  return out;
}

/**
 * Does `toks` at `i` read as `pattern`? Each part is a word or punctuation to match exactly, `$s`
 * any string literal, `$w` any word, or `"text` for a string literal of that text.
 */
export function at(toks: readonly Tok[], i: number, ...pattern: string[]): boolean {
  for (let p = 0; p < pattern.length; p++) {
    const t = toks[i + p];
    const want = pattern[p] as string;
    if (t === undefined) return false;
    if (want === '$s') {
      if (t.k !== 's') return false;
    } else if (want === '$w') {
      if (t.k !== 'w') return false;
    } else if (want.startsWith('"')) {
      if (t.k !== 's' || t.v !== want.slice(1)) return false;
    } else if (t.k === 's' || t.v !== want) return false;
  }
  return true;
}

/** A string literal's text with its escapes read (`\x76`, `\u0076`, `\u{76}`, octal, the one-letter ones); a raw string stays as written. */
export function unescapeString(v: string): string {
  if (!v.includes('\\')) return v;
  let out = '';
  for (let k = 0; k < v.length; k++) {
    const c = v[k] as string;
    if (c !== '\\' || k + 1 >= v.length) {
      out += c;
      continue;
    }
    const d = v[k + 1] as string;
    const hex = (from: number, n: number) => {
      const h = v.slice(from, from + n);
      return h.length === n && [...h].every((x) => '0123456789abcdefABCDEF'.includes(x)) ? parseInt(h, 16) : NaN;
    };
    if (d === 'x' && !Number.isNaN(hex(k + 2, 2))) {
      out += String.fromCodePoint(hex(k + 2, 2));
      k += 3;
    } else if (d === 'u' && v[k + 2] === '{') {
      const close = v.indexOf('}', k + 3);
      const n = close === -1 ? NaN : hex(k + 3, close - k - 3);
      if (Number.isNaN(n)) out += d;
      else out += String.fromCodePoint(n);
      k = close === -1 ? k + 1 : close;
    } else if ((d === 'u' && !Number.isNaN(hex(k + 2, 4))) || (d === 'U' && !Number.isNaN(hex(k + 2, 8)))) {
      const n = d === 'u' ? 4 : 8;
      out += String.fromCodePoint(hex(k + 2, n));
      k += 1 + n;
    } else if (d >= '0' && d <= '7') {
      let j = k + 1;
      while (j < k + 4 && (v[j] ?? '') >= '0' && (v[j] ?? '') <= '7') j++;
      out += String.fromCharCode(parseInt(v.slice(k + 1, j), 8));
      k = j - 1;
    } else {
      out += ({ n: '\n', t: '\t', r: '\r' } as Record<string, string>)[d] ?? d;
      k++;
    }
  }
  return out;
}

/** A string value put together from literal text, and the index after its tokens. */
export interface ConstString {
  v: string;
  end: number;
}

/**
 * The string the expression at `i` evaluates to when it is made of literal text only: a literal
 * (escapes read; a template without substitutions), a name `held` maps to one, literals joined
 * with `+` (or, in Python, written side by side), `[…].join(…)` / `''.join([…])`, a reversal
 * (`.split('').reverse().join('')`, `[::-1]`), `String.fromCharCode(…)` / `chr(…)`. Null when
 * any part is not literal: a name built from a variable is not a constant.
 */
export function constString(toks: readonly Tok[], i: number, lang: TokLang, held: ReadonlyMap<string, string> = new Map()): ConstString | null {
  const first = operand(toks, i, lang, held);
  if (first === null) return null;
  let { v, end } = first;
  for (;;) {
    if (at(toks, end, '+')) {
      const next = operand(toks, end + 1, lang, held);
      if (next === null) return null;
      v += next.v;
      end = next.end;
    } else if (lang === 'py' && toks[end]?.k === 's') {
      const next = operand(toks, end, lang, held);
      if (next === null) return null;
      v += next.v;
      end = next.end;
    } else return { v, end };
  }
}

function listOf(toks: readonly Tok[], i: number, lang: TokLang, held: ReadonlyMap<string, string>, close: string): { items: string[]; end: number } | null {
  const items: string[] = [];
  let j = i;
  while (!at(toks, j, close)) {
    const item = constString(toks, j, lang, held);
    if (item === null) return null;
    items.push(item.v);
    j = item.end;
    if (at(toks, j, ',')) j++;
    else if (!at(toks, j, close)) return null;
  }
  return { items, end: j + 1 };
}

function charCodes(toks: readonly Tok[], i: number): { v: string; end: number } | null {
  let v = '';
  let j = i;
  while (toks[j]?.k === 'n') {
    const n = Number((toks[j] as Tok).v);
    if (!Number.isInteger(n) || n < 0 || n > 0x10ffff) return null;
    v += String.fromCodePoint(n);
    j++;
    if (at(toks, j, ',')) j++;
  }
  return at(toks, j, ')') && j > i ? { v, end: j + 1 } : null;
}

function operand(toks: readonly Tok[], i: number, lang: TokLang, held: ReadonlyMap<string, string>): ConstString | null {
  const t = toks[i];
  if (t === undefined) return null;
  let base: ConstString | null = null;
  if (t.k === 's') {
    if (lang === 'js' && t.v.includes('${')) return null;
    base = { v: unescapeString(t.v), end: i + 1 };
    // Python: ''.join([...]) / ''.join((...))
    if (lang === 'py' && at(toks, i + 1, '.', 'join', '(') && (at(toks, i + 4, '[') || at(toks, i + 4, '('))) {
      const list = listOf(toks, i + 5, lang, held, at(toks, i + 4, '[') ? ']' : ')');
      if (list === null || !at(toks, list.end, ')')) return null;
      base = { v: list.items.join(base.v), end: list.end + 1 };
    }
  } else if (t.k === 'w' && held.has(t.v) && !at(toks, i - 1, '.')) base = { v: held.get(t.v) as string, end: i + 1 };
  else if (at(toks, i, '(')) {
    const inner = constString(toks, i + 1, lang, held);
    if (inner === null || !at(toks, inner.end, ')')) return null;
    base = { v: inner.v, end: inner.end + 1 };
  } else if (lang === 'js' && at(toks, i, '[')) {
    const list = listOf(toks, i + 1, lang, held, ']');
    if (list === null || !at(toks, list.end, '.', 'join', '(')) return null;
    const sep = at(toks, list.end + 3, ')') ? { v: ',', end: list.end + 3 } : constString(toks, list.end + 3, lang, held);
    if (sep === null || !at(toks, sep.end, ')')) return null;
    base = { v: list.items.join(sep.v), end: sep.end + 1 };
  } else if (lang === 'js' && at(toks, i, 'String', '.', 'fromCharCode', '(')) base = charCodes(toks, i + 4);
  else if (lang === 'py' && at(toks, i, 'chr', '(')) base = charCodes(toks, i + 2);
  if (base === null) return null;
  // a reversal
  if (lang === 'js' && at(toks, base.end, '.', 'split', '(', '"', ')', '.', 'reverse', '(', ')', '.', 'join', '(', '"', ')')) return { v: [...base.v].reverse().join(''), end: base.end + 14 };
  if (lang === 'py' && at(toks, base.end, '[', '::', '-', '1', ']')) return { v: [...base.v].reverse().join(''), end: base.end + 5 };
  if (lang === 'py' && at(toks, base.end, '[', ':', ':', '-', '1', ']')) return { v: [...base.v].reverse().join(''), end: base.end + 6 };
  return base;
}
