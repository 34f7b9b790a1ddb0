import path from 'node:path';
import { stateFileName } from './hash.js';
import type { Repo } from './repo.js';

export const TDD_DIR = '.tdd';

/** The branch's state file (DESIGN §2). */
export function statePathFor(repo: Repo): string {
  return path.join(repo.root, TDD_DIR, stateFileName(repo.branch));
}
