import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { writeAtomic } from '../state/atomicWrite.js';
import { RefusalError } from '../state/rules/errors.js';
import { sha256Hex } from '../state/hash.js';
import type { StoreDirs } from './paths.js';
import { TDD_DIR } from '../state/rules/tddDir.js';

/**
 * The held-out store (docs/heldout.md): from the freeze to `done` the held-out test files live
 * here, out of the work tree, next to the cycle's anchor in the git common directory (mirrored
 * under the plugin's data directory when the anchor is). Each file is kept gzip-compressed, so a
 * text search that wanders into the git directory finds no test source; its hash stays in the
 * frozen set and every read is checked against it. The runner logs of the RED runs, which print
 * the held-out tests' code, wait here too.
 */

export { storeDirs } from './paths.js';
const FILES = 'files';
const RUNS = 'runs';
const SUFFIX = '.gz';

function all(d: StoreDirs): string[] {
  return d.mirror === null ? [d.primary] : [d.primary, d.mirror];
}

function storedFile(dir: string, rel: string): string {
  return path.join(dir, FILES, rel + SUFFIX);
}

/** The bytes of a held-out file from the store, checked against its frozen hash (the mirror when the first copy does not hold); null when neither does. */
function readStored(d: StoreDirs, rel: string, hash: string): Buffer | null {
  for (const dir of all(d)) {
    try {
      const bytes = gunzipSync(readFileSync(storedFile(dir, rel)));
      if (sha256Hex(bytes) === hash) return bytes;
    } catch {
      // missing or damaged: try the next copy
    }
  }
  return null;
}

/** Held-out files whose stored copy is missing or not the frozen bytes. */
export function damagedInStore(d: StoreDirs, files: Record<string, string>): string[] {
  return Object.entries(files)
    .filter(([rel, h]) => readStored(d, rel, h) === null)
    .map(([rel]) => rel);
}

/** Remove a file and then every folder it leaves empty up to (not including) the root. */
function removeWithEmptyParents(root: string, rel: string): void {
  rmSync(path.join(root, rel), { force: true });
  let dir = path.dirname(rel);
  while (dir !== '.' && dir !== '' && dir !== '/') {
    try {
      rmdirSync(path.join(root, dir));
    } catch {
      return; // not empty
    }
    dir = path.dirname(dir);
  }
}

/**
 * The freeze: each held-out file is written to the store (and its mirror), read back and checked,
 * and only then removed from the work tree (with the folders it leaves empty). Throws, with the
 * work tree untouched, when a copy cannot be made.
 */
export function moveOut(root: string, d: StoreDirs, files: Record<string, string>): void {
  for (const dir of all(d)) {
    rmSync(path.join(dir, FILES), { recursive: true, force: true });
    for (const rel of Object.keys(files)) {
      const dest = storedFile(dir, rel);
      mkdirSync(path.dirname(dest), { recursive: true, mode: 0o700 });
      writeAtomic(dest, gzipSync(readFileSync(path.join(root, rel))), { mode: 0o600, dirMode: 0o700 });
    }
  }
  const bad = damagedInStore(d, files);
  if (bad.length > 0) throw new RefusalError(`the held-out files ${bad.slice(0, 3).join(', ')} could not be kept in the store (the freeze's copy does not read back as the frozen bytes); nothing was moved. Check the disk and freeze again`);
  for (const rel of Object.keys(files)) removeWithEmptyParents(root, rel);
}

/** Write the held-out files into `dest` (the oracle's private copy) from the store; throws when one does not hold the frozen bytes. */
export function placeInto(dest: string, d: StoreDirs, files: Record<string, string>): void {
  for (const [rel, h] of Object.entries(files)) {
    const bytes = readStored(d, rel, h);
    if (bytes === null) throw new RefusalError(`the held-out test ${rel} is missing from the store or altered; the oracle cannot run it. Run \`tdd-gate recover\` or re-certify in a new cycle`);
    const out = path.join(dest, rel);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, bytes);
  }
}

/**
 * Back in the open (`done`, `abort`): every held-out file returns to the work tree from the store
 * (a file at its path that is not the frozen bytes is replaced by them), the kept logs return to
 * .tdd/runs/, and the store is removed. Returns the files put back; throws, leaving the store in
 * place, when a stored copy does not hold the frozen bytes.
 */
export function bringBack(root: string, d: StoreDirs, files: Record<string, string>): string[] {
  const bytes = new Map<string, Buffer>();
  for (const [rel, h] of Object.entries(files)) {
    let now: Buffer | null = null;
    try {
      now = readFileSync(path.join(root, rel));
    } catch {
      // absent, as it should be
    }
    if (now !== null && sha256Hex(now) === h) continue;
    const stored = readStored(d, rel, h);
    if (stored === null) throw new RefusalError(`the held-out test ${rel} is missing from the store or altered (${path.join(d.primary, FILES)}); it was not put back. Restore it from the mirror or from the person's copy, or run \`tdd-gate recover\``);
    bytes.set(rel, stored);
  }
  for (const [rel, b] of bytes) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), b);
  }
  restoreLogs(root, d);
  for (const dir of all(d)) rmSync(dir, { recursive: true, force: true });
  return [...bytes.keys()].sort();
}

/** The runner logs in .tdd/runs/ go to the store (they print the held-out tests' code). */
export function keepLogs(root: string, d: StoreDirs): number {
  const runs = path.join(root, TDD_DIR, RUNS);
  let names: string[];
  try {
    names = readdirSync(runs).filter((n) => n.endsWith('.log'));
  } catch {
    return 0;
  }
  const dest = path.join(d.primary, RUNS);
  mkdirSync(dest, { recursive: true, mode: 0o700 });
  for (const n of names) {
    const from = path.join(runs, n);
    writeAtomic(path.join(dest, n + SUFFIX), gzipSync(readFileSync(from)), { mode: 0o600, dirMode: 0o700 });
    unlinkSync(from);
  }
  return names.length;
}

/** One oracle run's raw log to the store; what stays in the work tree is `shown`. */
export function keepRunLog(root: string, d: StoreDirs, logRel: string, shown: string): void {
  const from = path.join(root, logRel);
  if (!existsSync(from)) return;
  const dest = path.join(d.primary, RUNS, path.basename(logRel) + SUFFIX);
  writeAtomic(dest, gzipSync(readFileSync(from)), { mode: 0o600, dirMode: 0o700 });
  writeAtomic(from, shown);
}

function restoreLogs(root: string, d: StoreDirs): void {
  const from = path.join(d.primary, RUNS);
  let names: string[];
  try {
    names = readdirSync(from).filter((n) => n.endsWith(SUFFIX));
  } catch {
    return;
  }
  const runs = path.join(root, TDD_DIR, RUNS);
  mkdirSync(runs, { recursive: true });
  for (const n of names) {
    try {
      const out = path.join(runs, n.slice(0, -SUFFIX.length));
      writeFileSync(out + '.tmp', gunzipSync(readFileSync(path.join(from, n))));
      renameSync(out + '.tmp', out);
    } catch {
      // a log is a convenience: the receipts keep the output's digest
    }
  }
}
