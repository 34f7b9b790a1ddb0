import { readFileSync } from 'node:fs';
import path from 'node:path';
import { specHash } from '../io/hash.js';
import { hashFile } from '../io/projectFiles.js';
import type { CliState } from '../schema/cliState.js';
import { driftedFiles } from './tree.js';

/** Frozen files (tests, test configs, the SPEC) that moved since the freeze, and whether the SPEC did. */
export function driftOf(root: string, state: CliState): { files: string[]; specMoved: boolean } {
  const files = state.frozen ? driftedFiles(state.frozen.files, (rel) => hashFile(root, rel)) : [];
  let live: string | null;
  try {
    live = specHash(readFileSync(path.join(root, state.spec_path), 'utf8'));
  } catch {
    live = null;
  }
  return { files, specMoved: state.spec_hash !== '' && live !== state.spec_hash };
}

export function driftMessage(d: { files: string[]; specMoved: boolean }): string | null {
  if (d.files.length === 0 && !d.specMoved) return null;
  const parts: string[] = [];
  if (d.specMoved) parts.push('the SPEC changed since the freeze');
  const others = d.files.filter((f) => f !== '');
  if (others.length > 0) parts.push(`frozen files changed: ${others.slice(0, 5).join(', ')}${others.length > 5 ? ` and ${others.length - 5} more` : ''}`);
  return `${parts.join('; ')}; restore them (\`git checkout -- <file>\` or from .tdd/snapshots/frozen/) or re-certify with a new cycle`;
}
