import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../state/hash.js';
import type { FileHashes } from '../state/schema/cliState.js';
import { TDD_DIR } from '../state/rules/tddDir.js';
import { gitExec } from '../state/git.js';

/**
 * Copies of the test files as RED began, so "written or changed in this cycle" can be judged per
 * test (its declaration block then and now), not per file.
 */
const DIR = path.join(TDD_DIR, 'snapshots', 'baseline');

export function writeBaseline(root: string, rels: readonly string[]): void {
  const dir = path.join(root, DIR);
  rmSync(dir, { recursive: true, force: true });
  for (const rel of rels) {
    const dest = path.join(dir, rel + '.copy');
    try {
      mkdirSync(path.dirname(dest), { recursive: true });
      copyFileSync(path.join(root, rel), dest);
    } catch {
      // a file that vanished meanwhile has no baseline text; it is judged by its hash
    }
  }
}

/**
 * The text of `rel` at the baseline: null when it did not exist then, undefined when its text is
 * not known (no copy, and HEAD holds other bytes). Copies and HEAD are checked against the hash.
 */
export function baselineText(root: string, hashes: FileHashes, rel: string): string | null | undefined {
  const want = hashes[rel];
  if (want === undefined) return null;
  for (const read of [() => readFileSync(path.join(root, DIR, rel + '.copy')), () => gitExec(['show', `HEAD:${rel}`], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024 })]) {
    try {
      const bytes = read();
      if (sha256Hex(bytes) === want) return bytes.toString('utf8');
    } catch {
      // try the next source
    }
  }
  return undefined;
}
