import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../state/hash.js';
import type { CompiledStack } from '../state/loadStack.js';
import { classifyFiles, hashFiles, listProjectFiles } from '../state/projectFiles.js';
import { ignoredCandidates, isAlwaysFrozen } from './oracle/files.js';
import { loadedFiles } from './oracle/loadedFiles.js';
import { cleanEnv } from './oracle/cleanEnv.js';
import { outsideParts, toolchainPart } from './oracle/outsideConfig.js';
import { toolchainOf } from './oracle/toolchain.js';
import { isEnvironmentPath } from '../state/rules/envDirs.js';
import type { Toolchain } from './rules/toolchain.js';
import { envProbe } from '../state/envProbe.js';
import { oracleParts } from './oracle/runnerParts.js';
import { manifestIsConfig } from '../state/rules/runnerParts.js';
import type { FileHashes } from '../state/schema/cliState.js';

/** The project's test and source files with their hashes, at one moment. */
export interface Tree {
  tests: FileHashes;
  sources: FileHashes;
  /** Runner settings and test regions inside editable files: part → sha256. */
  parts: FileHashes;
  /** Digest of the test + test-config hashes. */
  testsDigest: string;
  /** Digest of every test, test-config and source hash. */
  treeDigest: string;
  /** The test command's toolchain as the caller's environment resolves it (folded into `parts`). */
  toolchain: Toolchain;
}

export function digestOf(...maps: FileHashes[]): string {
  const lines = maps.flatMap((m) => Object.entries(m)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return sha256Hex(lines.map(([rel, h]) => `${rel}\0${h}`).join('\n'));
}

/**
 * The tests (with every runner config: the stack's test_config_glob and the files always frozen,
 * git-ignored ones included) and the sources (tracked or untracked, not ignored).
 */
export function scanTree(root: string, stack: CompiledStack): Tree {
  // Environment folders (a virtualenv, node_modules, caches) hold no tests, configs or sources:
  // src/state/rules/envDirs.ts decides, for the stack's globs and the files always frozen alike.
  const probe = envProbe(root);
  const listed = listProjectFiles(root).filter((rel) => !isEnvironmentPath(rel, probe));
  const { tests: classified, sources } = classifyFiles(stack, listed);
  // A nested module manifest is runner configuration where its folder holds tests; a new module of sources is not.
  const holdsTests = (dir: string) => classified.some((t) => t.startsWith(dir + '/') && stack.isTest(t));
  const isConfig = (rel: string) => (stack.isTestConfig(rel) || isAlwaysFrozen(rel)) && manifestIsConfig(rel, holdsTests) !== false;
  const extra = [...listed, ...ignoredCandidates(root, probe)].filter((rel) => stack.isTest(rel) || isConfig(rel));
  // What the test command, its scripts and the frozen configs load by name is frozen with them;
  // a program inside an environment folder (`.venv/bin/python`) is the toolchain's, recorded below.
  const configs = extra.filter(isConfig);
  const loaded = loadedFiles((rel) => readText(root, rel), (rel) => isFileIn(root, rel), stack.config.test_command, configs).filter((rel) => !isEnvironmentPath(rel, probe));
  const tests = [...new Set([...classified.filter((rel) => stack.isTest(rel) || isConfig(rel)), ...extra, ...loaded])].sort();
  const sourceSet = new Set(sources.filter((rel) => !tests.includes(rel)));
  const t = hashFiles(root, tests);
  const s = hashFiles(root, [...sourceSet]);
  // The runner's settings inside editable files are part of the oracle, so part of each digest.
  // What the run inherits from outside the project, as the test command would find it: cargo's
  // configuration, the programs the command starts and the toolchain locations.
  const env = cleanEnv(process.env, root, stack.config.test_env_allow ?? []);
  const toolchain = toolchainOf(root, stack.config.test_command, env, probe);
  const parts = {
    ...oracleParts((rel) => readText(root, rel), stack.config.test_command, Object.keys(s)),
    ...outsideParts(root, env, (rel) => readText(root, rel)),
    ...toolchainPart(toolchain),
  };
  return { tests: t, sources: s, parts, testsDigest: digestOf(t, parts), treeDigest: digestOf(t, s, parts), toolchain };
}

/** Files in `now` that are new or different from `base`. */
export function changedFiles(base: FileHashes, now: FileHashes): string[] {
  return Object.keys(now).filter((rel) => base[rel] !== now[rel]).sort();
}

function isFileIn(root: string, rel: string): boolean {
  try {
    return statSync(path.join(root, rel)).isFile();
  } catch {
    return false;
  }
}

/** A project file's text, or null when it cannot be read. */
export function readText(root: string, rel: string): string | null {
  try {
    return readFileSync(path.join(root, rel), 'utf8');
  } catch {
    return null;
  }
}
