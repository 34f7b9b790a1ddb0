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
