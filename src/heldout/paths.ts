import { anchorPaths, shortName } from '../state/anchorPaths.js';
import { childPath } from '../state/childPath.js';
import type { Repo } from '../state/repo.js';

/** The store's folder under the anchor's home (and its mirror's). */
const STORE_DIR = 'heldout';

export interface StoreDirs {
  primary: string;
  mirror: string | null;
}

/**
 * This work tree's held-out store, next to the cycle's anchor in the git common directory, and
 * its mirror under the plugin's data directory when Claude Code gives one (docs/heldout.md).
 * Paths only: the hook uses this to recognise a read of the store.
 */
export function storeDirs(repo: Repo, env: NodeJS.ProcessEnv): StoreDirs {
  const a = anchorPaths(repo, env);
  const tree = shortName(repo.root);
  return { primary: childPath(a.home, STORE_DIR, tree), mirror: a.mirror === null ? null : childPath(a.mirror.home, STORE_DIR, tree) };
}
