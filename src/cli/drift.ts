import { readFileSync } from 'node:fs';
import path from 'node:path';
import { specHash } from '../io/hash.js';
import { hashFile } from '../io/projectFiles.js';
import type { CliState } from '../schema/cliState.js';
import { driftedFiles } from './tree.js';

export interface Drift {
  /** Frozen files whose bytes differ from the freeze, or that are gone. */
  files: string[];
  /** Test files that were not there at the freeze (an unfrozen test is an unreviewed oracle). */
  added: string[];
  specMoved: boolean;
}

/** How far the oracle (tests, test configs, the SPEC) moved since the freeze. */
export function driftOf(root: string, state: CliState, currentTests: readonly string[] = []): Drift {
  const frozen = state.frozen?.files ?? {};
  const files = state.frozen ? driftedFiles(frozen, (rel) => hashFile(root, rel)) : [];
  const added = state.frozen ? currentTests.filter((rel) => !(rel in frozen)) : [];
  let live: string | null;
  try {
    live = specHash(readFileSync(path.join(root, state.spec_path), 'utf8'));
  } catch {
    live = null;
  }
  return { files, added, specMoved: state.spec_hash !== '' && live !== state.spec_hash };
}

const list = (xs: string[]) => `${xs.slice(0, 5).join(', ')}${xs.length > 5 ? ` and ${xs.length - 5} more` : ''}`;

export function driftMessage(d: Drift): string | null {
  const parts: string[] = [];
  if (d.specMoved) parts.push('the SPEC changed since the freeze');
  if (d.files.length > 0) parts.push(`frozen files changed: ${list(d.files)}`);
  if (d.added.length > 0) parts.push(`test files added after the freeze: ${list(d.added)}`);
  if (parts.length === 0) return null;
  return `${parts.join('; ')}; restore them (\`git checkout -- <file>\`, or the copies in .tdd/snapshots/frozen/), remove added tests, or re-certify in a new cycle`;
}
