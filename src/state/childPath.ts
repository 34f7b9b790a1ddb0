import { sep } from 'node:path';

/**
 * path.join(dir, ...names) for a `dir` that is already absolute and normalized (a realpath, or
 * the result of path.resolve or path.join) and plain `names` (no separator, no `.` or `..`).
 * The hook builds a few dozen such paths on every gated call; through node's normalizing join,
 * that is enough for V8 to spend more compiling path.normalize than the joins cost (ADR 007).
 */
export function childPath(dir: string, ...names: string[]): string {
  let out = dir.endsWith(sep) ? dir.slice(0, -1) : dir;
  for (const name of names) out += sep + name;
  return out;
}

/**
 * Whether `p` is absolute and already normalized (POSIX: no empty, `.` or `..` segment, no
 * trailing `/`), so that childPath may extend it. A string check: node's join or resolve of a
 * path costs ≈ 0.2 M instructions on its first call (docs/performance.md), more than the quick check's stats.
 */
export function isNormalizedAbsolute(p: string): boolean {
  if (sep !== '/' || !p.startsWith('/')) return false;
  if (p === '/') return true;
  if (p.endsWith('/') || p.endsWith('/.') || p.endsWith('/..')) return false;
  return !p.includes('//') && !p.includes('/./') && !p.includes('/../');
}
