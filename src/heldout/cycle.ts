import { execFileSync } from 'node:child_process';
import type { CompiledStack } from '../state/loadStack.js';
import type { CliState } from '../state/schema/cliState.js';
import { keepsTwoSets } from './rules/defaults.js';

/**
 * A cycle's held-out set as the CLI sees it (docs/heldout.md). Out of sight: from the freeze to
 * `done` (or `abort`), the held-out files are in the store, not in the work tree.
 */

type StateLike = Pick<CliState, 'phase' | 'mode'> & { frozen?: CliState['frozen'] };

/** The held-out files the freeze moved to the store, with their frozen hashes. */
export function heldoutFiles(state: StateLike): Record<string, string> {
  const files = state.frozen?.files ?? {};
  const out: Record<string, string> = {};
  for (const rel of state.frozen?.heldout ?? []) if (files[rel] !== undefined) out[rel] = files[rel];
  return out;
}

/** Are held-out tests out of sight now (frozen and not yet back)? */
export function outOfSight(state: StateLike): boolean {
  return (state.phase === 'tdd-green' || state.phase === 'tdd-refactor') && (state.frozen?.heldout?.length ?? 0) > 0;
}

/** The held-out test files among `tests` (root-relative), in a mode that keeps two sets. */
export function heldoutAmong(stack: CompiledStack, mode: string, tests: readonly string[]): string[] {
  if (!keepsTwoSets(mode)) return [];
  return tests.filter((rel) => stack.isTest(rel) && stack.isHeldout(rel)).sort();
}

/**
 * Held-out files git has a copy of (in the index or in HEAD): their content would stay readable
 * from git (`git show`, `git log -p`) while they are meant to be out of sight.
 */
export function trackedByGit(root: string, rels: readonly string[]): string[] {
  if (rels.length === 0) return [];
  const tracked = new Set<string>();
  const lines = (args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024 }).split('\0');
    } catch {
      return [];
    }
  };
  for (const f of lines(['ls-files', '-z', '--', ...rels])) if (f !== '') tracked.add(f);
  for (const f of lines(['ls-tree', '-r', '-z', '--name-only', 'HEAD', '--', ...rels])) if (f !== '') tracked.add(f);
  return rels.filter((r) => tracked.has(r));
}
