import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stateSlug } from './rules/stateSlug.js';
import type { Repo } from './repo.js';
import { childPath, isNormalizedAbsolute } from './childPath.js';

/**
 * Where the anchor of a branch's cycle lives (ADR 006): outside the work tree, in the git common
 * directory (shared by every worktree of the repository), and mirrored under the plugin's data
 * directory when Claude Code gives one. Only paths here: this module is on the hot path.
 */
export interface AnchorPaths {
  /** `<git common dir>/tdd-gate`. */
  home: string;
  /** The anchor record of the branch's cycle. */
  record: string;
  /** Exists exactly while the anchored cycle is active: one stat tells the quick check. */
  active: string;
  /** The same two in the mirror, when CLAUDE_PLUGIN_DATA is set. */
  mirror: { home: string; record: string; active: string } | null;
}

export const ANCHOR_DIR = 'tdd-gate';

/**
 * FNV-1a (64 bit) in hex: a stable short name for a branch or a directory. Not for integrity
 * (that is sha256, elsewhere): node:crypto costs milliseconds to load on the quick path.
 */
export function shortName(text: string): string {
  // In two 32-bit halves: BigInt arithmetic costs more than the rest of the quick check.
  // h * 0x100000001b3 = h * 0x1b3 + (h << 40), modulo 2^64.
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (const byte of Buffer.from(text, 'utf8')) {
    lo = (lo ^ byte) >>> 0;
    const low = lo * 0x1b3;
    hi = (Math.imul(hi, 0x1b3) + Math.floor(low / 0x100000000) + (lo << 8)) >>> 0;
    lo = low >>> 0;
  }
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}

/** A worktree's git dir names the shared one in `commondir`; a plain repository's git dir is its own. */
export function gitCommonDir(gitDir: string): string {
  try {
    // A worktree's commondir is relative (`../..`): the common dir is the normalized one. Worktrees only.
    // eslint-disable-next-line no-restricted-syntax -- a path read from the file, see above
    return resolve(gitDir, readFileSync(childPath(gitDir, 'commondir'), 'utf8').trim());
  } catch {
    return gitDir;
  }
}

export function anchorPaths(repo: Repo, env: NodeJS.ProcessEnv): AnchorPaths {
  const common = gitCommonDir(repo.gitDir);
  const base = `${stateSlug(repo.branch)}-${shortName(repo.branch)}.json`;
  const home = childPath(common, ANCHOR_DIR);
  const data = env.CLAUDE_PLUGIN_DATA;
  const mirrorHome = typeof data === 'string' && data !== '' ? dataChild(data, 'anchors', shortName(common)) : null;
  return {
    home,
    record: childPath(home, `anchor-${base}`),
    active: childPath(home, 'active', base),
    mirror: mirrorHome === null ? null : { home: mirrorHome, record: childPath(mirrorHome, `anchor-${base}`), active: childPath(mirrorHome, 'active', base) },
  };
}

/** A path under CLAUDE_PLUGIN_DATA, which the environment may give with `..` or a trailing `/`. */
function dataChild(data: string, ...names: string[]): string {
  if (isNormalizedAbsolute(data)) return childPath(data, ...names);
  // eslint-disable-next-line no-restricted-syntax -- the environment's path as written: normalized
  return join(data, ...names);
}

/** The event log's copy in the anchor directory, one per work tree. */
export function eventsCopyPath(anchorHome: string, root: string): string {
  return childPath(anchorHome, `events-${shortName(root)}.jsonl`); // a home of anchorPaths(): normalized
}

/** One or two stats: does an anchor say a cycle is active on this branch? */
export function anchorSaysActive(repo: Repo, env: NodeJS.ProcessEnv, known?: AnchorPaths): boolean {
  const p = known ?? anchorPaths(repo, env);
  return exists(p.active) || (p.mirror !== null && exists(p.mirror.active));
}

function exists(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false }) !== undefined; // no error object for the usual answer
  } catch {
    return false;
  }
}
