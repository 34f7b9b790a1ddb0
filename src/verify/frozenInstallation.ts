/**
 * The runner's installation at the freeze and at every verify (docs/evidence.md, "The runner's
 * installation is frozen with the tests"): recorded by `freeze` into the state's
 * `runner_installation` (so into the anchor, which keeps the state's text) with the per-file
 * manifest beside the frozen snapshot copies; checked by every verify before the run, and again
 * after it, when not one of its files may have been written.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { TDD_DIR } from '../state/rules/tddDir.js';
import { writeAtomic } from '../state/atomicWrite.js';
import { RefusalError } from '../state/rules/errors.js';
import type { CompiledStack } from '../state/loadStack.js';
import { sha256Hex } from '../state/sha256.js';
import type { CliState } from '../state/schema/cliState.js';
import type { Toolchain } from './rules/toolchain.js';
import { cleanEnv } from './oracle/cleanEnv.js';
import { cacheDirs } from './oracle/pyCache.js';
import type { Session } from '../cli/session.js';
import { manifestText, pathExists, scanInstallation, statMoves, type InstallationScan } from './installation.js';
import { installationFrom, installationMoves, installationRefusal, type FileManifest, type RunnerInstallation } from './rules/installation.js';

/** Where the freeze keeps the per-file manifest of the installation. */
function manifestPath(root: string): string {
  return path.join(root, TDD_DIR, 'snapshots', 'runner-installation.json');
}

/** The test command with the text of the package scripts it may run: what decides the runners looked at. */
function commandText(root: string, command: string): string {
  let scripts = '';
  try {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, unknown> };
    if (/\b(npm|npx|yarn|pnpm|bun)\b/.test(command)) scripts = Object.values(pkg.scripts ?? {}).filter((v): v is string => typeof v === 'string').join('\n');
  } catch {
    // no package.json
  }
  return `${command}\n${scripts}`;
}

function scanNow(s: Session, stack: CompiledStack, toolchain: Toolchain | null, forFreeze = false): InstallationScan {
  const env = cleanEnv(process.env, s.root, stack.config.test_env_allow ?? []);
  let cacheFile: string | null = null;
  try {
    const base = cacheDirs(s.repo.gitDir, s.root).base;
    mkdirSync(base, { recursive: true, mode: 0o700 });
    cacheFile = path.join(base, 'runner-files.json');
  } catch {
    cacheFile = null;
  }
  return scanInstallation({ root: s.root, commandText: commandText(s.root, stack.config.test_command), env, toolchain, cacheFile, forFreeze });
}

/** At the freeze: the installation as it is, its manifest written beside the frozen copies. */
export function recordInstallation(s: Session, stack: CompiledStack, toolchain: Toolchain | null): RunnerInstallation {
  const scan = scanNow(s, stack, toolchain, true);
  const file = manifestPath(s.root);
  mkdirSync(path.dirname(file), { recursive: true });
  writeAtomic(file, manifestText(scan.manifest));
  return scan.record;
}

function frozenManifest(root: string, record: RunnerInstallation): FileManifest | null {
  try {
    const text = readFileSync(manifestPath(root), 'utf8');
    return sha256Hex(text) === record.manifest_sha256 ? (JSON.parse(text) as FileManifest) : null;
  } catch {
    return null;
  }
}

/** The root-relative form of a path inside the project, else the path. */
function shown(root: string, abs: string): string {
  const rel = path.relative(root, abs);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel.split(path.sep).join('/');
}

/**
 * Refuses when the runner's installation is not what the freeze recorded. Returns the scan (what
 * each file's stat was), or null for a cycle frozen before the installation was recorded.
 */
export function checkInstallation(s: Session, state: CliState, stack: CompiledStack, toolchain: Toolchain | null, when: string): InstallationScan | null {
  const frozen = installationFrom((state as { runner_installation?: unknown }).runner_installation);
  if (frozen === null) return null;
  const scan = scanNow(s, stack, toolchain);
  const moves = installationMoves(frozen, scan.record, frozenManifest(s.root, frozen), scan.manifest, (a) => shown(s.root, a), pathExists);
  if (moves.length > 0) throw new RefusalError(`${when === '' ? '' : `${when.trim()}: `}${installationRefusal(moves)}`);
  return scan;
}

/** The package a path of the installation belongs to, as a refusal names it: `expect (node_modules/expect)`. */
function packageOf(s: Session, scan: InstallationScan, abs: string): string | null {
  let best: string | null = null;
  for (const root of Object.keys(scan.record.packages)) {
    const files = scan.manifest[root] ?? {};
    const inside = abs === root || abs.startsWith(`${root}/`);
    // a Python distribution's files lie beside its metadata folder, relative to the site folder
    const listed = !inside && Object.keys(files).some((rel) => rel !== '' && path.resolve(path.dirname(root), rel) === abs);
    if ((inside || listed) && (best === null || root.length > best.length)) best = root;
  }
  if (best === null) return null;
  return `${scan.record.packages[best]?.name ?? best} (${shown(s.root, best)})`;
}

/**
 * After a run: no file of the installation may have been written while the tests ran, even when
 * put back since, and no path that had to stay absent may have appeared (in the oracle's
 * namespace the installation is read-only for the run; in the private copy it is not, and this
 * is what finds a write).
 */
export function checkInstallationHeld(s: Session, before: InstallationScan | null): void {
  if (before === null) return;
  const moved = statMoves(before);
  const appeared = before.record.absent.filter((a) => pathExists(a));
  if (moved.length === 0 && appeared.length === 0) return;
  const names = [...moved.map((a) => ({ a, appeared: false })), ...appeared.map((a) => ({ a, appeared: true }))].slice(0, 3).map(({ a, appeared: added }) => {
    if (added) return `${shown(s.root, a)} appeared`;
    const pkg = packageOf(s, before, a);
    return pkg === null ? shown(s.root, a) : `${shown(s.root, a)} of ${pkg}`;
  });
  const more = moved.length + appeared.length - names.length;
  throw new RefusalError(
    `the test runner's installation was written while the tests ran (${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}): something in the code under test writes to the runner or its assertion packages. Remove that write, reinstall what the freeze recorded (the package manager's lockfile install, e.g. \`npm ci\`, or \`pip install\` of the frozen versions), and verify again`,
  );
}
