/**
 * What an in-place edit leaves in a file (`sed -i 's/a/b/'`, `perl -pi -e 's/a/b/g'`), computed
 * from the file's current text the way src/gate/rules/contentAfter.ts does for the Edit tool: the RED
 * stub check and the runner settings frozen inside package.json read the result. Only scripts
 * whose meaning is certain are computed — substitutions, line insertions and deletions, with
 * simple addresses; anything else (and any construct where the regular-expression engines could
 * disagree about what matches) is null: not known.
 */

/** An in-place edit by sed (BRE, or ERE with -E) or perl (-p), as the analysis found it. */
export interface InPlaceEdit {
  lang: 'sed' | 'perl';
  scripts: readonly string[];
  /** sed -E / -r. */
  extended?: boolean;
}

type Address = { line: number } | { last: true } | { re: RegExp };

type Cmd =
  | { op: 's'; from: Address | null; to: Address | null; re: RegExp; nth: number; all: boolean; repl: ReplPart[] }
  | { op: 'i' | 'a' | 'c'; from: Address | null; to: Address | null; text: string }
  | { op: 'd'; from: Address | null; to: Address | null };

/** A replacement: literal text, a group (0 = the whole match). */
type ReplPart = string | number;

/** The file's text after the edit; null when the script is not one this module can follow. */
export function applyInPlace(edit: InPlaceEdit, text: string): string | null {
  const cmds: Cmd[] = [];
  for (const s of edit.scripts) {
    const parsed = edit.lang === 'sed' ? parseSed(s, edit.extended === true) : parsePerl(s);
    if (parsed === null) return null;
    cmds.push(...parsed);
  }
  return edit.lang === 'sed' ? runSed(cmds, text) : runPerl(cmds, text);
}

// ---- sed ----

function parseSed(script: string, ere: boolean): Cmd[] | null {
  const out: Cmd[] = [];
  let i = 0;
  const n = script.length;
  const space = () => {
    while (i < n && (script[i] === ' ' || script[i] === '\t' || script[i] === ';' || script[i] === '\n')) i++;
  };
  const address = (): Address | null | undefined => {
    const c = script[i];
    if (c === '$') {
      i++;
      return { last: true };
    }
    if (c !== undefined && c >= '0' && c <= '9') {
      let j = i;
      while (j < n && (script[j] as string) >= '0' && (script[j] as string) <= '9') j++;
      const line = Number(script.slice(i, j));
      i = j;
      return line > 0 ? { line } : undefined;
    }
    if (c === '/') {
      const body = delimited('/');
      if (body === null) return undefined;
      const re = sedRegex(body, '/', ere, '');
      return re === null ? undefined : { re };
    }
    return null;
  };
  const delimited = (d: string): string | null => {
    i++; // the opening delimiter
    let body = '';
    while (i < n && script[i] !== d) {
      if (script[i] === '\n') return null;
      if (script[i] === '\\' && i + 1 < n) {
        // An escaped delimiter that is also an operator (`s|a\|b|…|`): which one sed means is not certain.
        if (script[i + 1] === d && d !== '/' && '.*[]^$+?(){}|'.includes(d)) return null;
        body += script[i + 1] === d ? (d === '/' ? '\\/' : d) : script.slice(i, i + 2);
        i += 2;
        continue;
      }
      body += script[i];
      i++;
    }
    if (i >= n) return null;
    i++; // the closing delimiter
    return body;
  };
  for (space(); i < n; space()) {
    const from = address();
    if (from === undefined) return null;
    let to: Address | null = null;
    if (from !== null && script[i] === ',') {
      i++;
      const t = address();
      if (t === undefined || t === null) return null;
      to = t;
    }
    while (script[i] === ' ') i++;
    const op = script[i];
    i++;
    if (op === 's') {
      const d = script[i];
      // Delimiters that mean something in a pattern or a replacement when escaped are refused.
      if (d === undefined || /[\s\w\\&]/.test(d)) return null;
      const pat = delimited(d);
      if (pat === null) return null;
      i--; // the closing delimiter opens the replacement
      const rep = delimited(d);
      if (rep === null || pat === '') return null;
      let flags = '';
      while (i < n && /[0-9gIi]/.test(script[i] as string)) flags += script[i++];
      if (i < n && !/[\s;}]/.test(script[i] as string)) return null; // p, w, e, m and the rest
      const nthText = flags.replace(/[^0-9]/g, '');
      const re = sedRegex(pat, d, ere, /[Ii]/.test(flags) ? 'i' : '');
      const repl = sedReplacement(rep, d);
      if (re === null || repl === null) return null;
      out.push({ op: 's', from, to, re, nth: nthText === '' ? 1 : Number(nthText), all: flags.includes('g'), repl });
    } else if (op === 'd') {
      out.push({ op: 'd', from, to });
    } else if (op === 'i' || op === 'a' || op === 'c') {
      // GNU one-liner `1i text` (or `1i\text`): the text runs to the end of the line.
      let j = i;
      while (j < n && script[j] === ' ') j++;
      if (script[j] === '\\') j++;
      if (script[j] === '\n') return null; // the POSIX multi-line form
      const end = script.indexOf('\n', j);
      const raw = script.slice(j, end < 0 ? n : end);
      if (raw.endsWith('\\')) return null;
      out.push({ op, from, to, text: raw.replace(/\\(.)/g, '$1') });
      i = end < 0 ? n : end;
    } else return null;
  }
  return out;
}

/** POSIX bracket classes, as JavaScript ranges. */
const CLASSES: Record<string, string> = {
  alpha: 'a-zA-Z',
  digit: '0-9',
  alnum: 'a-zA-Z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  space: ' \\t\\n\\r\\f\\v',
  blank: ' \\t',
  punct: '!-\\/:-@\\[-`{-~',
  xdigit: '0-9A-Fa-f',
  word: 'a-zA-Z0-9_',
};

/**
 * A sed regular expression as a JavaScript one, or null. POSIX takes the leftmost-longest match
 * where JavaScript backtracks: they agree unless an alternation or a repeated group is involved,
 * so those are refused.
 */
function sedRegex(src: string, delim: string, ere: boolean, flags: string): RegExp | null {
  let out = '';
  let i = 0;
  const n = src.length;
  let atStart = true;
  let lastGroup = false;
  while (i < n) {
    const c = src[i] as string;
    const start = atStart;
    atStart = false;
    const wasGroup = lastGroup;
    lastGroup = false;
    if (c === '[') {
      const b = bracket(src, i);
      if (b === null) return null;
      out += b.js;
      i = b.end;
      continue;
    }
    if (c === '\\') {
      const e = src[i + 1];
      i += 2;
      if (e === undefined) return null;
      if (e === delim) out += escapeJs(e);
      else if (!ere && e === '(') {
        out += '(';
        atStart = true;
      } else if (!ere && e === ')') {
        out += ')';
        lastGroup = true;
      } else if (!ere && (e === '{' || e === '+' || e === '?')) {
        if (wasGroup) return null;
        if (e === '{') {
          const close = src.indexOf('\\}', i);
          if (close < 0 || !/^\d+(,\d*)?$/.test(src.slice(i, close))) return null;
          out += `{${src.slice(i, close)}}`;
          i = close + 2;
        } else out += e;
      } else if (!ere && e === '}') return null;
      else if (e === '|') return null;
      else if (e >= '1' && e <= '9') out += '\\' + e;
      else if (e === 'n') out += '\\n';
      else if (e === 't') out += '\\t';
      else if (e === '<' || e === '>' || e === 'b') out += '\\b';
      else if (e === 'w' || e === 'W' || e === 's' || e === 'S' || e === 'B') out += '\\' + e;
      else if ('.*[]^$\\/&'.includes(e) || (ere && '(){}+?|'.includes(e))) out += escapeJs(e);
      else return null;
      continue;
    }
    i++;
    if (c === '*') {
      if (start) out += '\\*';
      else if (wasGroup) return null;
      else out += '*';
    } else if (c === '^') out += start ? '^' : '\\^';
    else if (c === '$') out += i === n || (!ere && src.startsWith('\\)', i)) || (ere && src[i] === ')') ? '$' : '\\$';
    else if (c === '.') out += '.';
    else if (ere && c === '(') {
      out += '(';
      atStart = true;
    } else if (ere && c === ')') {
      out += ')';
      lastGroup = true;
    } else if (ere && c === '|') return null;
    else if (ere && (c === '+' || c === '?')) {
      if (wasGroup) return null;
      out += c;
    } else if (ere && c === '{') {
      if (wasGroup) return null;
      const close = src.indexOf('}', i);
      if (close < 0 || !/^\d+(,\d*)?$/.test(src.slice(i, close))) return null;
      out += `{${src.slice(i, close)}}`;
      i = close + 1;
    } else out += escapeJs(c);
  }
  try {
    return new RegExp(out, flags);
  } catch {
    return null;
  }
}

/** A POSIX bracket expression at `at` (`[^]a[:digit:]-]`) as a JavaScript class; backslashes are literal in it. */
function bracket(src: string, at: number): { js: string; end: number } | null {
  let i = at + 1;
  let js = '[';
  if (src[i] === '^') {
    js += '^';
    i++;
  }
  let first = true;
  while (i < src.length) {
    const c = src[i] as string;
    if (c === ']' && !first) return { js: js + ']', end: i + 1 };
    first = false;
    if (c === '[' && src[i + 1] === ':') {
      const close = src.indexOf(':]', i + 2);
      const name = close < 0 ? '' : src.slice(i + 2, close);
      const range = CLASSES[name];
      if (range === undefined) return null;
      js += range;
      i = close + 2;
      continue;
    }
    if (c === '[' && (src[i + 1] === '.' || src[i + 1] === '=')) return null;
    js += c === '-' ? '-' : escapeJs(c);
    i++;
  }
  return null;
}

function escapeJs(c: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(c) ? '\\' + c : c;
}

/** `&`, `\1`…`\9`, `\n`, `\&`; case conversions (`\U`, `\L`, …) are refused. */
function sedReplacement(rep: string, delim: string): ReplPart[] | null {
  const parts: ReplPart[] = [];
  let lit = '';
  const flush = () => {
    if (lit !== '') parts.push(lit);
    lit = '';
  };
  for (let i = 0; i < rep.length; i++) {
    const c = rep[i] as string;
    if (c === '&') {
      flush();
      parts.push(0);
    } else if (c === '\\') {
      const e = rep[++i];
      if (e === undefined) return null;
      if (e >= '1' && e <= '9') {
        flush();
        parts.push(Number(e));
      } else if (e === 'n') lit += '\n';
      else if (e === 't') lit += '\t';
      else if (e === '\n' || e === '&' || e === '\\' || e === delim || e === '/') lit += e;
      else return null;
    } else lit += c;
  }
  flush();
  return parts;
}

function runSed(cmds: readonly Cmd[], text: string): string {
  const lines = text.split('\n');
  const trailing = lines[lines.length - 1] === '';
  if (trailing) lines.pop();
  const active = cmds.map(() => false);
  let out = '';
  lines.forEach((line, idx) => {
    const no = idx + 1;
    const last = idx === lines.length - 1;
    let space: string | null = line;
    let after = '';
    for (let k = 0; k < cmds.length && space !== null; k++) {
      const c = cmds[k] as Cmd;
      if (!selected(c, k, active, space, no, last)) continue;
      if (c.op === 's') space = substitute(space, c, true);
      else if (c.op === 'd') space = null;
      else if (c.op === 'i') out += c.text + '\n';
      else if (c.op === 'a') after += c.text + '\n';
      else {
        // `c`: the line (or the range, at its end) is replaced by the text.
        if (c.to === null || !active[k]) out += c.text + '\n';
        space = null;
      }
    }
    // The last line keeps its missing newline, unless text is appended after it.
    if (space !== null) out += space + (last && !trailing && after === '' ? '' : '\n');
    out += after;
  });
  return out;
}

/** Does command `k` apply to this line (ranges keep their state in `active`)? */
function selected(c: Cmd, k: number, active: boolean[], space: string, no: number, last: boolean): boolean {
  const hit = (a: Address) => ('line' in a ? a.line === no : 'last' in a ? last : a.re.test(space));
  if (c.from === null) return true;
  if (c.to === null) return hit(c.from);
  if (active[k]) {
    const to = c.to;
    if ('line' in to ? no >= to.line : hit(to)) active[k] = false;
    return true;
  }
  if (!hit(c.from)) return false;
  // A range whose end is a line number at or before its start covers only that line.
  active[k] = !('line' in c.to && c.to.line <= no) && !('last' in c.to && last);
  return true;
}

/**
 * Replace the chosen matches. sed (POSIX) never takes an empty match right where the previous
 * match ended (`s/a*\/-/g` on `name` gives `-n-m-e-`); perl and JavaScript do.
 */
function substitute(line: string, c: Extract<Cmd, { op: 's' }>, posix = false): string {
  const re = new RegExp(c.re.source, c.re.flags.includes('g') ? c.re.flags : c.re.flags + 'g');
  let count = 0;
  let out = '';
  let at = 0;
  let prevEnd = -1;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) {
    const start = m.index;
    const text = m[0];
    if (text === '') re.lastIndex++;
    if (posix && text === '' && start === prevEnd) continue;
    prevEnd = start + text.length;
    count++;
    if (count < c.nth || (!c.all && count > c.nth)) continue;
    out += line.slice(at, start) + c.repl.map((p) => (typeof p === 'string' ? p : (m[p] ?? ''))).join('');
    at = start + text.length;
    if (!c.all) break;
  }
  return out + line.slice(at);
}

// ---- perl -p ----

/** `s/re/rep/flags` statements only (flags g and i), in perl's own regex dialect as far as JavaScript shares it. */
function parsePerl(code: string): Cmd[] | null {
  const out: Cmd[] = [];
  for (const stmt of code.split(';')) {
    const t = stmt.trim();
    if (t === '') continue;
    const m = /^s([/|#!,])((?:\\.|(?!\1)[^\\])*)\1((?:\\.|(?!\1)[^\\])*)\1([gi]*)$/s.exec(t);
    if (m === null) return null;
    const [, d = '/', pat = '', rep = '', flags = ''] = m;
    // Constructs JavaScript reads differently (or perl interpolates) are refused.
    if (pat === '' || /\(\?|\[:|\\[^dDwWsSbBntr.\\/*+?()[\]{}|^$1-9-]|[$@](?=[\w{])/.test(pat.replace(/\$$/, ''))) return null;
    const endAnchored = pat.endsWith('$') && !pat.endsWith('\\$');
    let re: RegExp;
    try {
      re = new RegExp((endAnchored ? pat.slice(0, -1) + '(?=\\n?$)' : pat).split('\\' + d).join(escapeJs(d)), flags.includes('i') ? 'i' : '');
    } catch {
      return null;
    }
    const repl = perlReplacement(rep, d);
    if (repl === null) return null;
    out.push({ op: 's', from: null, to: null, re, nth: 1, all: flags.includes('g'), repl });
  }
  return out;
}

/** `$1`, `\1`, `$&`, `\n`, `\t`; any other interpolation is refused. */
function perlReplacement(rep: string, delim: string): ReplPart[] | null {
  const parts: ReplPart[] = [];
  let lit = '';
  const flush = () => {
    if (lit !== '') parts.push(lit);
    lit = '';
  };
  for (let i = 0; i < rep.length; i++) {
    const c = rep[i] as string;
    if (c === '$' || c === '\\') {
      const e = rep[i + 1];
      i++;
      if (e !== undefined && e >= '1' && e <= '9' && !(rep[i + 1] !== undefined && /\d/.test(rep[i + 1] as string))) {
        flush();
        parts.push(Number(e));
      } else if (c === '$' && e === '&') {
        flush();
        parts.push(0);
      } else if (c === '\\' && e === 'n') lit += '\n';
      else if (c === '\\' && e === 't') lit += '\t';
      else if (c === '\\' && e !== undefined && (e === delim || e === '\\' || e === '/' || e === '$' || e === '@')) lit += e;
      else return null;
    } else if (c === '@') return null;
    else lit += c;
  }
  flush();
  return parts;
}

/** perl -p: each line with its newline; `$` before that newline, as perl reads it. */
function runPerl(cmds: readonly Cmd[], text: string): string {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  return lines
    .map((line) => {
      let s = line;
      for (const c of cmds) if (c.op === 's') s = substitute(s, c);
      return s;
    })
    .join('');
}
