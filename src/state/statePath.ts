import { stateFileName } from './hash.js';
import type { Repo } from './repo.js';
import { childPath } from './childPath.js';
import { TDD_DIR } from './rules/tddDir.js';

/** The branch's state file (DESIGN §2). */
export function statePathFor(repo: Repo): string {
  return childPath(repo.root, TDD_DIR, stateFileName(repo.branch));
}
