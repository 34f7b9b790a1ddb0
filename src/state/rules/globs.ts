import { minimatch } from 'minimatch';

/** A compiled set of DESIGN §2 globs: with "/" against the root-relative path, else the base name. */
export type PathMatcher = (relPath: string) => boolean;

type Match = (s: string) => boolean;

export function compileGlobs(patterns: readonly string[], nocase: boolean): PathMatcher {
  const matchers = patterns.map((raw) => {
    const pattern = raw.startsWith('./') ? raw.slice(2) : raw;
    return { full: pattern.includes('/'), match: compileOne(pattern, nocase) };
  });
  return (relPath) => {
    const base = relPath.slice(relPath.lastIndexOf('/') + 1);
    return matchers.some(({ full, match }) => match(full ? relPath : base));
  };
}

// Braces, classes, extglobs and escapes go to minimatch; the common shapes (`tests/**`,
// `**/*.test.ts`, `*.spec.*`, `conftest.py`) are matched segment by segment here. The hook
// compiles the stack's globs on every call in an active cycle (some forty patterns with the
// default runner configs): a regular expression per pattern cost more than the whole
// classification, since V8 compiles each one it runs.
const MINIMATCH_SYNTAX = '[]{}()!+@\\';

function compileOne(pattern: string, nocase: boolean): Match {
  for (const ch of pattern) {
    if (MINIMATCH_SYNTAX.includes(ch)) {
      const mm = new minimatch.Minimatch(pattern, { dot: true, nocase, nocomment: true, nonegate: true });
      return (s) => mm.match(s);
    }
  }
  const segments = (nocase ? fold(pattern) : pattern).split('/');
  return (s) => matchSegments(segments, 0, (nocase ? fold(s) : s).split('/'), 0);
}

/**
 * `**` as a whole segment is zero or more whole segments, and at the end of the pattern any
 * rest (one or more segments, empty ones included); any other segment matches one segment.
 * This is how minimatch reads these shapes with `dot: true`.
 */
function matchSegments(pattern: readonly string[], i: number, path: readonly string[], j: number): boolean {
  for (; i < pattern.length; i++, j++) {
    const seg = pattern[i] as string;
    if (seg === '**') {
      if (i === pattern.length - 1) return j < path.length;
      for (let k = j; k < path.length; k++) if (matchSegments(pattern, i + 1, path, k)) return true;
      return false;
    }
    if (j >= path.length || !matchSegment(seg, path[j] as string)) return false;
  }
  return j === path.length;
}

/**
 * One segment: `*` any run of characters, `?` one character, anything else itself. A segment of
 * stars alone matches at least one character, as in minimatch (`tests/*` does not match `tests/`).
 */
function matchSegment(p: string, s: string): boolean {
  if (s === '') return p === '';
  let pi = 0;
  let si = 0;
  let star = -1; // the last `*` seen, and where in `s` its run would end next
  let resume = 0;
  while (si < s.length) {
    const c = p[pi];
    if (c === '*') {
      star = pi++;
      resume = si;
    } else if (c !== undefined && (c === '?' || c === s[si])) {
      pi++;
      si++;
    } else if (star >= 0) {
      pi = star + 1;
      si = ++resume;
    } else {
      return false;
    }
  }
  while (p[pi] === '*') pi++;
  return pi === p.length;
}

/**
 * Case folding as a regular expression's `i` flag does it (without `u`): each UTF-16 unit to its
 * upper case where that is one unit and does not turn a non-ASCII letter into an ASCII one.
 */
function fold(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] as string;
    const up = ch.toUpperCase();
    out += up.length === 1 && !(ch.charCodeAt(0) >= 128 && up.charCodeAt(0) < 128) ? up : ch;
  }
  return out;
}
