import { minimatch } from 'minimatch';

/** A compiled set of DESIGN §2 globs: with "/" against the root-relative path, else the base name. */
export type PathMatcher = (relPath: string) => boolean;

export function compileGlobs(patterns: readonly string[], nocase: boolean): PathMatcher {
  const opts = { dot: true, nocase, nocomment: true, nonegate: true } as const;
  const matchers = patterns.map((pattern) => {
    const full = pattern.includes('/');
    const mm = new minimatch.Minimatch(pattern.replace(/^\.\//, ''), opts);
    return { full, mm };
  });
  return (relPath) => {
    const base = relPath.slice(relPath.lastIndexOf('/') + 1);
    return matchers.some(({ full, mm }) => mm.match(full ? relPath : base));
  };
}
