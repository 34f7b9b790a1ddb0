import { mkdirSync } from 'node:fs';
import { platform } from 'node:os';
import path from 'node:path';
import { RefusalError } from '../../state/rules/errors.js';
import type { CompiledStack } from '../../state/loadStack.js';
import { runCommand, type RunResult } from '../runner.js';
import { hashFile, listProjectFiles } from '../../state/projectFiles.js';
import { COPY_SUFFIX, snapshotDir } from '../../state/snapshots.js';
import type { CliState } from '../../state/schema/cliState.js';
import { driftMessage, driftOf } from './drift.js';
import type { RunOutcome } from '../rules/judge.js';
import type { Context } from '../../state/context.js';
import { assertRunnerInstalled, DEFAULT_TIMEOUT_SECONDS, instrumentFor, keepPyCache, outcomeOf, pyCacheFor, pyEqualityChecked, testEnv } from '../testRun.js';
import { scanTree, type Tree } from '../tree.js';
import { forgetRustSources, freshenChangedRustSources, freshenRustSources, recordRustSources } from './freshen.js';
import { cacheDirs } from './pyCache.js';
import { INSTALLATION_MISMATCH_EXIT, namespaceWorks, prepareCopy, prepareNamespace, SNAPSHOT_MISMATCH_EXIT, type Isolation, type Prepared } from './isolate.js';
import { strayProcesses } from './processes.js';
import { heldoutFiles, outOfSight } from '../../heldout/cycle.js';
import { damagedInStore, placeInto, storeDirs } from '../../heldout/store.js';
import { checkInstallation, checkInstallationHeld } from '../frozenInstallation.js';
import { namespacePlan, type InstallationScan, type NamespacePlan } from '../installation.js';

/** The namespace's mounts for the installation the scan found (null: none recorded). */
function installationMounts(installed: InstallationScan | null): NamespacePlan | null {
  if (installed === null) return null;
  const plan = namespacePlan(installed);
  if (typeof plan === 'string') throw new RefusalError(`${plan}; the oracle cannot hold it still for the run. Rename it, reinstall, and re-certify in a new cycle`);
  return plan;
}

/**
 * Refuses when the oracle (frozen files, runner settings, the SPEC, tests added since, the
 * runner's installation) moved. Returns the installation as it was found (null: not recorded).
 */
export function checkDrift(s: Context, state: CliState, stack: CompiledStack, tree: Tree, when: string, installation = true): InstallationScan | null {
  const drift = driftMessage(driftOf(s.root, state, Object.keys(tree.tests), tree.parts, tree.toolchain));
  if (drift) throw new RefusalError(`the oracle moved${when}: ${drift}`);
  return installation ? checkInstallation(s, state, stack, tree.toolchain, when) : null;
}

/** The snapshot copies (and the held-out store) must hold the frozen bytes: the oracle runs from them. */
function checkSnapshot(s: Context, state: CliState, frozen: Record<string, string>): void {
  const dir = snapshotDir(s.root, 'frozen');
  const held = outOfSight(state) ? heldoutFiles(state) : {};
  const bad = Object.entries(frozen).filter(([rel, h]) => !(rel in held) && hashFile(dir, rel + COPY_SUFFIX) !== h).map(([rel]) => rel);
  if (bad.length > 0) {
    throw new RefusalError(`the frozen snapshot copies of ${bad.slice(0, 3).join(', ')} are missing or altered (.tdd/snapshots/frozen/); the oracle cannot run from them. Restore them, or re-certify in a new cycle`);
  }
  const damaged = damagedInStore(storeDirs(s.repo, s.io.env), held);
  if (damaged.length > 0) {
    throw new RefusalError(`${damaged.length} held-out test file(s) are missing from the cycle's store or altered; the oracle cannot run them. Stop and tell the user, who runs \`tdd-gate recover\` or re-certifies in a new cycle`);
  }
}

function checkProcesses(s: Context, stack: CompiledStack, state: CliState): void {
  const since = new Date(state.started_at);
  const strays = strayProcesses(s.root, stack.config.oracle_ignore_processes ?? [], Number.isNaN(since.getTime()) ? undefined : since);
  if (strays.length > 0) {
    const list = strays.slice(0, 4).map((p) => `${p.pid} ${p.comm} (in ${p.cwd})`).join(', ');
    throw new RefusalError(
      `processes started from the project are still running: ${list}${strays.length > 4 ? ` and ${strays.length - 4} more` : ''}; the tests must run with nothing else touching the project. Stop them (\`kill <pid>\`) and verify again (a person can list an editor's helper in oracle_ignore_processes in .tdd/stack.json)`,
    );
  }
}

function chooseIsolation(stack: CompiledStack, state: CliState): Isolation {
  const want = stack.config.oracle_isolation ?? 'auto';
  // Held-out tests out of sight have no place in the work tree to be mounted on: they run in the private copy.
  if (want === 'copy' || outOfSight(state)) return 'copy';
  if (namespaceWorks()) return 'namespace';
  if (want === 'namespace') {
    throw new RefusalError(`oracle_isolation is "namespace" but this system does not allow a private mount namespace (${platform()}); set it to "auto" or "copy" in .tdd/stack.json`);
  }
  return 'copy';
}

/**
 * Run the frozen tests out of the agent's reach (DESIGN §5, wall 3): the oracle must not have
 * moved; no process of ours may still be running inside the project; the test command runs
 * against the frozen bytes (a read-only mount namespace, else a private copy); and the oracle
 * must still be where it was when the run ends. `command` is the test command, or a narrowed form
 * of it a hand-off child named (checked by the caller).
 */
export async function runOracle(s: Context, stack: CompiledStack, state: CliState, tree: Tree, label: string, command = stack.config.test_command): Promise<{ run: RunResult; outcome: RunOutcome; isolation: Isolation }> {
  const frozen = state.frozen?.files;
  if (!frozen) throw new RefusalError('nothing is frozen in this cycle; `tdd-gate freeze` first');
  const installed = checkDrift(s, state, stack, tree, '');
  checkSnapshot(s, state, frozen);
  if (Object.keys(frozen).some((rel) => /[\n\r]/.test(rel))) throw new RefusalError('a frozen path contains a line break; rename it and re-certify in a new cycle');
  checkProcesses(s, stack, state);
  const env = testEnv(s, stack);
  assertRunnerInstalled(s, command, env);
  const isolation = chooseIsolation(stack, state);
  const py = pyCacheFor(s, stack, command, env);
  const dirs = cacheDirs(s.repo.gitDir, s.root);
  // cargo builds into a target folder of the oracle's own (unless the project names its own in test_env_allow)
  const cargo = isolation === 'namespace' && /(^|[\s/;&|(])cargo(\s|$)/.test(command) && !(stack.config.test_env_allow ?? []).includes('CARGO_TARGET_DIR');
  if (cargo) mkdirSync(dirs.cargoTarget, { recursive: true, mode: 0o700 });
  const writable = py !== null || cargo ? dirs.rw : null;
  const held = outOfSight(state) ? heldoutFiles(state) : {};
  const prepared: Prepared = isolation === 'namespace' ? prepareNamespace(s.root, frozen, writable, installationMounts(installed)) : prepareCopy(s.root, listProjectFiles(s.root), frozen, Object.keys(held));
  if (prepared.isolation === 'copy' && Object.keys(held).length > 0) {
    try {
      placeInto(prepared.cwd, storeDirs(s.repo, s.io.env), held);
    } catch (err) {
      prepared.cleanup();
      throw err;
    }
  }
  // cargo builds held-out tests into the store, not into the project's target/ (where their test
  // binary could be run). The store lies in the git directory, which the OS wall keeps read-only:
  // the folder is made here and the run may write it (and nothing else of the store).
  const heldTarget = Object.keys(held).length > 0 && /(^|[\s/;&|(])cargo(\s|$)/.test(command) && !(stack.config.test_env_allow ?? []).includes('CARGO_TARGET_DIR') ? path.join(storeDirs(s.repo, s.io.env).primary, 'cargo-target') : null;
  if (heldTarget !== null) mkdirSync(heldTarget, { recursive: true, mode: 0o700 });
  const heldCargo = heldTarget !== null ? { CARGO_TARGET_DIR: heldTarget } : {};
  const timeoutSeconds = stack.config.test_timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS;
  let run: RunResult;
  let outcome: RunOutcome;
  const files = [...Object.keys(tree.tests), ...Object.keys(tree.sources)];
  if (prepared.isolation === 'copy') py?.skip(prepared.cwd);
  try {
    if (cargo) {
      freshenChangedRustSources(s.root, tree.sources, dirs.cargoSources);
      forgetRustSources(dirs.cargoSources);
    } else if (prepared.isolation === 'namespace') freshenRustSources(s.root, Object.keys(tree.sources));
    if (prepared.isolation === 'copy') {
      const bad = Object.entries(frozen).filter(([rel, h]) => hashFile(prepared.cwd, rel) !== h);
      if (bad.length > 0) throw new RefusalError('the frozen files changed while the private copy was made; verify again');
    }
    run = await runCommand({
      root: s.root,
      cwd: prepared.cwd,
      command,
      label,
      timeoutSeconds,
      env: { ...env, ...prepared.env, ...py?.env, ...(cargo ? { CARGO_TARGET_DIR: dirs.cargoTarget } : {}), ...heldCargo },
      instrument: instrumentFor(s.root, { pyEqualityChecked: pyEqualityChecked(stack, tree) }),
      now: s.now(),
      progress: s.io.stderr,
      onStop: () => {
        prepared.cleanup();
        py?.discard();
      },
      ...(prepared.wrap ? { wrap: prepared.wrap } : {}),
      ...(heldTarget !== null ? { writable: [heldTarget] } : {}),
    });
    if (prepared.isolation === 'copy') {
      const moved = Object.entries(frozen).filter(([rel, h]) => hashFile(prepared.cwd, rel) !== h);
      if (moved.length > 0) throw new RefusalError(`frozen files changed while the tests ran: ${moved.slice(0, 3).map(([r]) => r).join(', ')}; something in the source writes to the tests: remove it and verify again`);
    }
    outcome = outcomeOf(run, prepared.cwd, files, timeoutSeconds);
    keepPyCache(py);
    // Only what held still for the whole run counts as built from (a source changed meanwhile is freshened next time).
    if (cargo && !run.timedOut) recordRustSources(Object.fromEntries(Object.entries(tree.sources).filter(([rel, h]) => !rel.endsWith('.rs') || hashFile(s.root, rel) === h)), dirs.cargoSources);
  } finally {
    py?.discard();
    prepared.cleanup();
  }
  if (prepared.isolation === 'namespace' && run.exitCode === SNAPSHOT_MISMATCH_EXIT && /frozen snapshot copies do not match/.test(run.output)) {
    throw new RefusalError('the frozen snapshot copies changed while the oracle was set up; stop whatever writes to .tdd/ and verify again');
  }
  // Hashes after the run: nothing may have swapped the oracle while it ran.
  // The installation was what the freeze recorded before the run; not one of its files or
  // folders may have been written since (a stat of each, no hashing).
  checkInstallationHeld(s, installed);
  if (prepared.isolation === 'namespace' && run.exitCode === INSTALLATION_MISMATCH_EXIT && /tdd-gate: the runner's installation (could not be mounted|as the run would see it)/.test(run.output)) {
    const why = /tdd-gate: the runner's installation could not be mounted read-only[^\n]*/.exec(run.output)?.[0];
    throw new RefusalError(
      why !== undefined
        ? `${why.replace(/^tdd-gate: /, '')}; the oracle does not run the tests over an installation it cannot hold still. Stop and tell the user (on a system that cannot mount it, a person can set oracle_isolation to "copy" in .tdd/stack.json)`
        : "the test runner's installation changed while the oracle was set up: what the run would have seen is not what was checked against the freeze. Stop whatever writes to the runner's packages and verify again",
    );
  }
  checkDrift(s, state, stack, scanTree(s.root, stack), ' while the tests ran', false);
  checkSnapshot(s, state, frozen);
  return { run, outcome, isolation: prepared.isolation };
}

