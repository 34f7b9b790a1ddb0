import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { ClassifyContext } from './rules/classify.js';
import { manifestIsConfig } from './rules/runnerParts.js';
import type { BaseState, ActivePhase } from './schema/state.js';
import { canonicalize, isCaseInsensitive } from './canonicalPath.js';
import { childPath } from './childPath.js';
import { compileStack, readStack, type CompiledStack } from './loadStack.js';
import { envProbe } from './envProbe.js';
import { readAnchorCopies, repairAnchor, type AnchorRecord } from './anchor.js';
import { anchorPaths, anchorSaysActive, gitCommonDir, type AnchorPaths } from './anchorPaths.js';
import { GateError } from './rules/errors.js';
import { sha256Hex } from './hash.js';
import { parseState, readStateText, type StoredState } from './loadState.js';
import { findRepo, type Repo } from './repo.js';
import { statePathFor } from './statePath.js';
import type { Store } from './store.js';
import { clearMarkers, judgeCycleTraces } from '../tamper/traces.js';
import { controlWhat } from '../tamper/rules/controlSet.js';
import { controlFacts } from '../tamper/controlRecord.js';
import { tracesMessage } from '../tamper/rules/traces.js';

/** Everything the gate needs about the branch's active TDD cycle. */
export interface ActiveCycle {
  repo: Repo;
  statePath: string;
  state: BaseState & { phase: ActivePhase };
  stack: CompiledStack;
  nocase: boolean;
  home: string;
  classify: ClassifyContext;
  /** Where the anchor lives, and the record when the CLI has anchored this cycle (ADR 006). */
  anchorPaths: AnchorPaths;
  anchor: AnchorRecord | null;
}

type CycleLookup = { active: false; repo: Repo | null } | { active: true; cycle: ActiveCycle };

/**
 * The active cycles of every project among `dirs` (see candidateDirs), one per repository.
 * A broken state or stack.json in any of them throws its GateError: the call is denied.
 * `store` null reads the records from the disk; a test passes its own (src/state/store.ts).
 */
export function loadCycles(dirs: readonly string[], env: NodeJS.ProcessEnv = process.env, store: Store | null = null): ActiveCycle[] {
  const roots = new Set<string>();
  const cycles: ActiveCycle[] = [];
  for (const dir of dirs) {
    const repo = findRepo(dir);
    if (repo === null || roots.has(repo.root)) continue;
    roots.add(repo.root);
    const lookup = loadCycleOf(repo, env, store);
    if (lookup.active) cycles.push(lookup.cycle);
  }
  return cycles;
}

/**
 * Find the cycle for `cwd`. The common case (no state file) costs a few stats and one read:
 * this runs on every tool call of every session.
 */
export function loadCycle(cwd: string, env: NodeJS.ProcessEnv = process.env, store: Store | null = null): CycleLookup {
  const repo = findRepo(cwd);
  if (repo === null) return { active: false, repo };
  return loadCycleOf(repo, env, store);
}

function loadCycleOf(repo: Repo, env: NodeJS.ProcessEnv, store: Store | null): CycleLookup {
  const statePath = statePathFor(repo);
  const paths = anchorPaths(repo, env);
  let anchor: AnchorRecord | null;
  if (store === null) {
    const copies = readAnchorCopies(paths);
    anchor = copies.best;
    // The rare write of this path: a copy of the record that lags the other is put back now (repairAnchor).
    repairAnchor(paths, copies);
  } else anchor = store.readAnchor(paths);
  // A store keeps no marker apart from its record: an anchor it does not hold is no anchor.
  if (anchor === null && store === null && anchorSaysActive(repo, env, paths)) {
    // The marker says a cycle is anchored, but no record is readable: the record was deleted or spoiled.
    throw new GateError(
      `the anchor of the TDD cycle on branch ${repo.branch}, kept outside the work tree, is missing or unreadable while its marker says a cycle is active. Something other than the tdd-gate CLI changed it. Stop and report this to the user; the user ends the cycle with \`tdd-gate abort --reason "<why>"\`.`,
      'state-tampered',
    );
  }
  const state = anchoredState(statePath, anchor, store === null ? readStateText : (p) => store.readStateText(p));
  if (state === null || state.phase === 'done') {
    // No silent end: with no state (or a finished one) and no active anchor, a trace of an open
    // cycle fails closed. A store keeps no traces apart from its records.
    if (store === null && (anchor === null || !anchor.active)) {
      const traces = judgeCycleTraces(repo, statePath, paths, anchor);
      if (traces.kind === 'open') throw new GateError(tracesMessage(repo.branch, traces.traces), 'state-tampered');
      if (traces.kind === 'none' && traces.leftovers.length > 0) clearMarkers(statePath, paths);
    }
    return { active: false, repo };
  }
  const nocase = isCaseInsensitive(repo.root);
  const stack = compileStack(readStack(repo.root, store === null ? undefined : (root) => store.readStackText(root)), nocase, envProbe(repo.root));
  const home = env.HOME ?? homedir();
  const controlAbs = [path.join(home, '.claude.json'), '/etc/claude-code/managed-settings.json'].map((p) => canonicalize(p));
  // The git dir is control too: rewriting HEAD or a ref would switch the branch, and with it the state file.
  const controlDirs = [path.join(home, '.claude', 'plugins'), env.CLAUDE_PLUGIN_ROOT, env.CLAUDE_PLUGIN_DATA, childPath(repo.root, '.git'), repo.gitDir, gitCommonDir(repo.gitDir)]
    .filter((d): d is string => typeof d === 'string' && d.length > 0)
    .map((d) => canonicalize(d));
  const facts = controlFacts(repo, home, env);
  return {
    active: true,
    cycle: {
      repo,
      statePath,
      state: state as BaseState & { phase: ActivePhase },
      stack,
      nocase,
      home,
      anchorPaths: paths,
      anchor,
      classify: {
        specRel: specRelative(repo.root, state.spec_path),
        isTest: stack.isTest,
        isTestConfig: manifestAware(stack.isTestConfig, state, repo.root),
        isSource: stack.isSource,
        isFrozenFile: frozenFiles(state, nocase),
        nocase,
        controlAbs,
        controlDirs,
        isControl: (abs, rel) => controlWhat(abs, rel, facts) !== null,
      },
    },
  };
}

/**
 * The branch's state, checked against its anchor. With no active anchor, the state file alone
 * decides (a hand-written state is valid, DESIGN §2). Once the CLI has anchored an active cycle,
 * a state file that is missing, unreadable or not the one the CLI last wrote is tampering: every
 * gated call is denied until the person runs `tdd-gate recover`.
 */
function anchoredState(statePath: string, anchor: AnchorRecord | null, readStateText: (statePath: string) => string | null): StoredState | null {
  if (anchor === null || !anchor.active) {
    const text = readStateText(statePath);
    return text === null ? null : parseState(text, statePath);
  }
  for (let attempt = 0; ; attempt++) {
    let text: string | null = null;
    try {
      text = readStateText(statePath);
    } catch {
      text = null;
    }
    if (text !== null && sha256Hex(text) === anchor.state_sha256) return parseState(text, statePath);
    // The CLI writes the state, then the anchor, under its lock: wait for a running command.
    if (attempt < 20 && lockHeld(statePath)) {
      sleep(50);
      continue;
    }
    throw new GateError(tamperedMessage(statePath, anchor, text === null ? 'is missing or unreadable' : 'differs from the one the tdd-gate CLI last wrote'), 'state-tampered');
  }
}

function tamperedMessage(statePath: string, anchor: AnchorRecord, how: string): string {
  return (
    `the TDD state file ${path.relative(anchor.repo, statePath)} ${how}, but the anchor kept outside the work tree says a cycle is active on branch ${anchor.branch} (phase ${anchor.phase}). ` +
    'Something other than the tdd-gate CLI deleted or rewrote it. Stop and report this to the user; do not recreate or edit the state. ' +
    'The user restores it with `tdd-gate recover` (or ends the cycle with `tdd-gate abort --reason "<why>"`).'
  );
}

function lockHeld(statePath: string): boolean {
  try {
    readFileSync(`${statePath}.lock`);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EISDIR';
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The SPEC's root-relative path, canonical like every write target (symlinks, `..`, absolute). */
function specRelative(root: string, specPath: string): string {
  const abs = canonicalize(path.resolve(root, specPath));
  return path.relative(root, abs).split(path.sep).join('/');
}

/**
 * A nested module manifest (go.mod, Cargo.toml) is runner configuration where its folder holds
 * tests: in GREEN/REFACTOR, where the freeze recorded files; before the freeze, wherever the
 * folder exists already. A new module in a new folder is neither a test nor a config.
 */
function manifestAware(isTestConfig: (rel: string) => boolean, state: StoredState, root: string): (rel: string) => boolean {
  let frozenKeys: string[] | null | undefined;
  const holdsTests = (dir: string): boolean => {
    if (frozenKeys === undefined) {
      const files = state.phase === 'tdd-green' || state.phase === 'tdd-refactor' ? (state as { frozen?: { files?: unknown } }).frozen?.files : undefined;
      frozenKeys = files !== null && typeof files === 'object' ? Object.keys(files) : null;
    }
    if (frozenKeys !== null) return frozenKeys.some((k) => k.startsWith(dir + '/'));
    return existsSync(childPath(root, dir));
  };
  return (rel) => isTestConfig(rel) && manifestIsConfig(rel, holdsTests) !== false;
}

/**
 * GREEN/REFACTOR: the files the freeze recorded (`frozen.files`: tests, runner configs, the files
 * the run loads). `verify` refuses any change to them; wall 1 denies it at the write.
 */
function frozenFiles(state: StoredState, nocase: boolean): ((rel: string) => boolean) | undefined {
  if (state.phase !== 'tdd-green' && state.phase !== 'tdd-refactor') return undefined;
  const files = (state as { frozen?: { files?: unknown } }).frozen?.files;
  if (files === null || typeof files !== 'object') return undefined;
  const fold = (s: string) => (nocase ? s.toLowerCase() : s);
  const names = new Set(Object.keys(files).map(fold));
  return names.size === 0 ? undefined : (rel) => names.has(fold(rel));
}
