import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { GateError } from './rules/errors.js';
import { hashFile } from './projectFiles.js';
import { TDD_DIR } from './rules/tddDir.js';

type SnapshotKind = 'frozen' | 'green-entry' | 'refactor';

/**
 * Copies carry a `.copy` suffix: under their own names, a test runner that does not skip dot
 * directories (vitest, jest, node --test) would collect and run the frozen copies as tests.
 */
export const COPY_SUFFIX = '.copy';

export function snapshotDir(root: string, kind: SnapshotKind): string {
  return path.join(root, TDD_DIR, 'snapshots', kind);
}

/** Where the copy of root-relative `rel` lives in snapshot `kind`. */
export function snapshotCopyPath(root: string, kind: SnapshotKind, rel: string): string {
  return path.join(snapshotDir(root, kind), rel + COPY_SUFFIX);
}

/** Replace the snapshot `kind` with copies of `rels`. */
export function writeSnapshot(root: string, kind: SnapshotKind, rels: readonly string[]): void {
  const dir = snapshotDir(root, kind);
  rmSync(dir, { recursive: true, force: true });
  for (const rel of rels) {
    const dest = snapshotCopyPath(root, kind, rel);
    mkdirSync(path.dirname(dest), { recursive: true });
    copyFileSync(path.join(root, rel), dest);
  }
}

/**
 * Put the files of a snapshot back: each file in `files` gets its copy (checked against the
 * recorded hash first, so a tampered snapshot is never restored), each file in `extra` that the
 * snapshot does not hold is deleted (it was created after the snapshot). Returns what changed.
 */
export function restoreSnapshot(
  root: string,
  kind: SnapshotKind,
  files: Record<string, string>,
  extra: readonly string[],
): { restored: string[]; deleted: string[] } {
  const dir = snapshotDir(root, kind);
  for (const [rel, hash] of Object.entries(files)) {
    if (hashFile(dir, rel + COPY_SUFFIX) !== hash) {
      throw new GateError(`the ${kind} snapshot copy of ${rel} is missing or altered (.tdd/snapshots/${kind}/${rel}${COPY_SUFFIX}); nothing was restored. Restore the file from git instead.`, 'snapshot-corrupt');
    }
  }
  const restored: string[] = [];
  for (const [rel, hash] of Object.entries(files)) {
    if (hashFile(root, rel) === hash) continue;
    const dest = path.join(root, rel);
    mkdirSync(path.dirname(dest), { recursive: true });
    copyFileSync(path.join(dir, rel + COPY_SUFFIX), dest);
    restored.push(rel);
  }
  const deleted: string[] = [];
  for (const rel of extra) {
    if (rel in files) continue;
    rmSync(path.join(root, rel), { force: true });
    deleted.push(rel);
  }
  return { restored, deleted };
}
