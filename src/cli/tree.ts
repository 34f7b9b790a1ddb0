import { sha256Hex } from '../io/hash.js';
import type { CompiledStack } from '../io/loadStack.js';
import { classifyFiles, hashFiles, listProjectFiles } from '../io/projectFiles.js';
import type { FileHashes } from '../schema/cliState.js';

/** The project's test and source files with their hashes, at one moment. */
export interface Tree {
  tests: FileHashes;
  sources: FileHashes;
  /** Digest of the test + test-config hashes. */
  testsDigest: string;
  /** Digest of every test, test-config and source hash. */
  treeDigest: string;
}

export function digestOf(...maps: FileHashes[]): string {
  const lines = maps.flatMap((m) => Object.entries(m)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return sha256Hex(lines.map(([rel, h]) => `${rel}\0${h}`).join('\n'));
}

export function scanTree(root: string, stack: CompiledStack): Tree {
  const { tests, sources } = classifyFiles(stack, listProjectFiles(root));
  const t = hashFiles(root, tests);
  const s = hashFiles(root, sources);
  return { tests: t, sources: s, testsDigest: digestOf(t), treeDigest: digestOf(t, s) };
}

/** Files in `now` that are new or different from `base`. */
export function changedFiles(base: FileHashes, now: FileHashes): string[] {
  return Object.keys(now).filter((rel) => base[rel] !== now[rel]).sort();
}

/** Frozen files whose bytes differ from the freeze, or that are gone. */
export function driftedFiles(frozen: FileHashes, current: (rel: string) => string | null): string[] {
  return Object.entries(frozen)
    .filter(([rel, h]) => current(rel) !== h)
    .map(([rel]) => rel)
    .sort();
}
