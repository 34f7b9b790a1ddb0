import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { ClassifyContext } from '../core/classify.js';
import type { BaseState, ActivePhase } from '../schema/state.js';
import { canonicalize, isCaseInsensitive } from '../io/canonicalPath.js';
import { compileStack, readStack, type CompiledStack } from '../io/loadStack.js';
import { readState } from '../io/loadState.js';
import { findRepo, type Repo } from '../io/repo.js';
import { statePathFor } from '../io/statePath.js';

/** Everything the gate needs about the branch's active TDD cycle. */
export interface ActiveCycle {
  repo: Repo;
  statePath: string;
  state: BaseState & { phase: ActivePhase };
  stack: CompiledStack;
  nocase: boolean;
  home: string;
  classify: ClassifyContext;
}

export type CycleLookup = { active: false; repo: Repo | null } | { active: true; cycle: ActiveCycle };

/**
 * The active cycles of every project among `dirs` (see candidateDirs), one per repository.
 * A broken state or stack.json in any of them throws its GateError: the call is denied.
 */
export function loadCycles(dirs: readonly string[], env: NodeJS.ProcessEnv = process.env): ActiveCycle[] {
  const roots = new Set<string>();
  const cycles: ActiveCycle[] = [];
  for (const dir of dirs) {
    const repo = findRepo(dir);
    if (repo === null || roots.has(repo.root)) continue;
    roots.add(repo.root);
    const lookup = loadCycleOf(repo, env);
    if (lookup.active) cycles.push(lookup.cycle);
  }
  return cycles;
}

/**
 * Find the cycle for `cwd`. The common case (no state file) costs a few stats and one read:
 * this runs on every tool call of every session.
 */
export function loadCycle(cwd: string, env: NodeJS.ProcessEnv = process.env): CycleLookup {
  const repo = findRepo(cwd);
  if (repo === null) return { active: false, repo };
  return loadCycleOf(repo, env);
}

function loadCycleOf(repo: Repo, env: NodeJS.ProcessEnv): CycleLookup {
  const statePath = statePathFor(repo);
  const state = readState(statePath);
  if (state === null || state.phase === 'done') return { active: false, repo };
  const nocase = isCaseInsensitive(repo.root);
  const stack = compileStack(readStack(repo.root), nocase);
  const home = env.HOME ?? homedir();
  const controlAbs = [path.join(home, '.claude.json'), '/etc/claude-code/managed-settings.json'].map((p) => canonicalize(p));
  // The git dir is control too: rewriting HEAD or a ref would switch the branch, and with it the state file.
  const controlDirs = [path.join(home, '.claude', 'plugins'), env.CLAUDE_PLUGIN_ROOT, path.join(repo.root, '.git'), repo.gitDir, gitCommonDir(repo.gitDir)]
    .filter((d): d is string => typeof d === 'string' && d.length > 0)
    .map((d) => canonicalize(d));
  return {
    active: true,
    cycle: {
      repo,
      statePath,
      state: state as BaseState & { phase: ActivePhase },
      stack,
      nocase,
      home,
      classify: {
        specRel: specRelative(repo.root, state.spec_path),
        isTest: stack.isTest,
        isTestConfig: stack.isTestConfig,
        isSource: stack.isSource,
        nocase,
        controlAbs,
        controlDirs,
      },
    },
  };
}

/** The SPEC's root-relative path, canonical like every write target (symlinks, `..`, absolute). */
function specRelative(root: string, specPath: string): string {
  const abs = canonicalize(path.resolve(root, specPath));
  return path.relative(root, abs).split(path.sep).join('/');
}

/** A worktree's git dir names the shared one in `commondir`; a plain repository has none. */
function gitCommonDir(gitDir: string): string | undefined {
  try {
    return path.resolve(gitDir, readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
  } catch {
    return undefined;
  }
}
