import { stateFileName } from './hash.js';
import type { Repo } from './repo.js';
import { childPath } from './childPath.js';

export const TDD_DIR = '.tdd';

/** The branch's state file (DESIGN §2). */
export function statePathFor(repo: Repo): string {
  return childPath(repo.root, TDD_DIR, stateFileName(repo.branch));
}
