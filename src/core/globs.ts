import { minimatch } from 'minimatch';

/** A compiled set of DESIGN §2 globs: with "/" against the root-relative path, else the base name. */
export type PathMatcher = (relPath: string) => boolean;

type Match = (s: string) => boolean;

export function compileGlobs(patterns: readonly string[], nocase: boolean): PathMatcher {
  const matchers = patterns.map((raw) => {
    const pattern = raw.replace(/^\.\//, '');
    return { full: pattern.includes('/'), match: compileOne(pattern, nocase) };
  });
  return (relPath) => {
    const base = relPath.slice(relPath.lastIndexOf('/') + 1);
    return matchers.some(({ full, match }) => match(full ? relPath : base));
  };
}

// Braces, classes, extglobs and escapes go to minimatch; the common shapes (`tests/**`,
// `**/*.test.ts`, `*.spec.*`, `conftest.py`) become one regex, which saves the hook a few
// milliseconds of minimatch set-up on every call in an active cycle.
const NEEDS_MINIMATCH = /[[\]{}()!+@\\]/;

function compileOne(pattern: string, nocase: boolean): Match {
  if (NEEDS_MINIMATCH.test(pattern)) {
    const mm = new minimatch.Minimatch(pattern, { dot: true, nocase, nocomment: true, nonegate: true });
    return (s) => mm.match(s);
  }
  const re = new RegExp(`^${simpleGlobSource(pattern)}$`, nocase ? 'i' : '');
  return (s) => re.test(s);
}

/** Regex source for a glob of literal characters, `*`, `?` and whole-segment `**`, as minimatch reads it with `dot: true`. */
export function simpleGlobSource(pattern: string): string {
  const segments = pattern.split('/');
  let out = '';
  segments.forEach((seg, i) => {
    const last = i === segments.length - 1;
    if (seg === '**') {
      // zero or more whole segments; at the end, one or more characters of any depth
      out += last ? '.*' : '(?:[^/]*(?:/[^/]*)*/)?';
      return;
    }
    out += seg.replace(/[.*?^$|/]/g, (ch) => (ch === '*' ? '[^/]*' : ch === '?' ? '[^/]' : `\\${ch}`));
    if (!last) out += '/';
  });
  return out.replace(/(?:\[\^\/\]\*)+/g, '[^/]*');
}
