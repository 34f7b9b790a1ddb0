import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TDD_DIR } from './rules/tddDir.js';

/** `.tdd/.gitignore`: state, run logs, snapshots and the event log stay local; stack.json and the cycle records are committed. */
export const TDD_GITIGNORE = '# written by tdd-gate: state, runs and snapshots stay local; stack.json and cycles/ (the cycle records) are committed\n*\n!.gitignore\n!stack.json\n!cycles/\n!cycles/**\n';

/**
 * Creates `.tdd/` under the project root with its .gitignore (kept if present), so nothing tdd-gate
 * writes there (a run log, the event log) lands in `git add -A`, even before the first `init`.
 * Returns the folder's path.
 */
export function ensureTddDir(root: string): string {
  const dir = path.join(root, TDD_DIR);
  mkdirSync(dir, { recursive: true });
  const ignore = path.join(dir, '.gitignore');
  if (!existsSync(ignore)) writeFileSync(ignore, TDD_GITIGNORE);
  return dir;
}
