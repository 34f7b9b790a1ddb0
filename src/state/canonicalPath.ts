import { lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { TargetLocation } from './rules/classify.js';

const MAX_LINKS = 40;

/**
 * Realpath of the longest existing prefix, with the missing rest appended. Dangling symlinks are
 * followed by hand, so `src/x.ts -> ../tests/new.test.ts` counts as the test it will create.
 */
export function canonicalize(absPath: string, depth = 0): string {
  return canonical(path.resolve(absPath), depth);
}

/** canonicalize() of a path already absolute and normalized (the hook's hot path: no resolve per level). */
function canonical(p: string, depth: number): string {
  try {
    return realpathSync.native(p);
  } catch {
    // fall through: some component does not exist
  }
  if (depth < MAX_LINKS) {
    try {
      if (lstatSync(p).isSymbolicLink()) {
        return canonicalize(path.resolve(path.dirname(p), readlinkSync(p)), depth + 1);
      }
    } catch {
      // p itself does not exist
    }
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  // Both parts normalized: joining them is concatenation.
  const head = canonical(parent, depth);
  return (head.endsWith(path.sep) ? head : head + path.sep) + path.basename(p);
}

function relInside(root: string, abs: string): string | null {
  const rel = path.relative(root, abs);
  if (rel === '' ) return '';
  if (rel.startsWith('..') && (rel === '..' || rel.startsWith('../') || rel.startsWith('..' + path.sep))) return null;
  if (path.isAbsolute(rel)) return null;
  return rel.split(path.sep).join('/');
}

/**
 * Every location a write to `raw` can land on: the fully resolved file, and, when the last
 * component is a symlink, the link itself (an atomic write replaces the link with a file). The
 * lexical path counts too: `.claude/settings.json` is a control file by name even when `.claude`
 * has become a link to somewhere else.
 */
export function resolveTarget(root: string, cwd: string, raw: string, nocase: boolean, home?: string): TargetLocation[] {
  const expanded = home !== undefined && (raw === '~' || raw.startsWith('~/')) ? path.join(home, raw.slice(1)) : raw;
  const abs = path.resolve(cwd, expanded);
  const real = canonicalize(abs);
  const linkPath = path.join(canonicalize(path.dirname(abs)), path.basename(abs));
  const locations = [real, linkPath, abs].filter((p, i, all) => all.indexOf(p) === i);
  return locations.map((p) => ({ abs: p, rel: relInsideFold(root, p, nocase) }));
}

function relInsideFold(root: string, abs: string, nocase: boolean): string | null {
  if (!nocase) return relInside(root, abs);
  const rel = relInside(root.toLowerCase(), abs.toLowerCase());
  return rel === null ? null : abs.slice(abs.length - rel.length).split(path.sep).join('/');
}

/** True when the file system holding `dir` ignores case (macOS and Windows defaults). */
export function isCaseInsensitive(dir: string): boolean {
  let flipped = '';
  for (const ch of dir) flipped += ch >= 'a' && ch <= 'z' ? ch.toUpperCase() : ch >= 'A' && ch <= 'Z' ? ch.toLowerCase() : ch;
  if (flipped === dir) return false;
  try {
    const a = statSync(dir);
    const b = statSync(flipped);
    return a.ino === b.ino && a.dev === b.dev;
  } catch {
    return false;
  }
}
