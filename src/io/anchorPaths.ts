import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { stateSlug } from './stateSlug.js';
import type { Repo } from './repo.js';

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
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= BigInt(byte);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

/** A worktree's git dir names the shared one in `commondir`; a plain repository's git dir is its own. */
export function gitCommonDir(gitDir: string): string {
  try {
    return path.resolve(gitDir, readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
  } catch {
    return gitDir;
  }
}

export function anchorPaths(repo: Repo, env: NodeJS.ProcessEnv): AnchorPaths {
  const common = gitCommonDir(repo.gitDir);
  const base = `${stateSlug(repo.branch)}-${shortName(repo.branch)}.json`;
  const home = path.join(common, ANCHOR_DIR);
  const data = env.CLAUDE_PLUGIN_DATA;
  const mirrorHome = typeof data === 'string' && data !== '' ? path.join(data, 'anchors', shortName(common)) : null;
  return {
    home,
    record: path.join(home, `anchor-${base}`),
    active: path.join(home, 'active', base),
    mirror: mirrorHome === null ? null : { home: mirrorHome, record: path.join(mirrorHome, `anchor-${base}`), active: path.join(mirrorHome, 'active', base) },
  };
}

/** The event log's copy in the anchor directory, one per work tree. */
export function eventsCopyPath(anchorHome: string, root: string): string {
  return path.join(anchorHome, `events-${shortName(root)}.jsonl`);
}

/** One or two stats: does an anchor say a cycle is active on this branch? */
export function anchorSaysActive(repo: Repo, env: NodeJS.ProcessEnv): boolean {
  const p = anchorPaths(repo, env);
  return exists(p.active) || (p.mirror !== null && exists(p.mirror.active));
}

function exists(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch {
    return false;
  }
}
