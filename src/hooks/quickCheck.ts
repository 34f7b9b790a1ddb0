import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { ROLE } from '../gate/rules/roles.js';
import { anchorPaths, anchorSaysActive } from '../state/anchorPaths.js';
import { cycleMarked } from '../tamper/openMarkers.js';
import { findRepo } from '../state/repo.js';
import { stateSlug } from '../state/rules/stateSlug.js';
import { candidateDirs, targetKey } from '../state/projectDirs.js';
import { childPath } from '../state/childPath.js';
import { TDD_DIR } from '../state/rules/tddDir.js';

/**
 * The hot path of every tool call in every session: with no state file for the branch (or no
 * repository) in any project the call can touch, and no anchor saying a cycle is active there
 * (one or two stats), TDD is not active and the gate has nothing to decide. Answered with a few stats and no hashing, before the schemas and matchers are even
 * loaded. Anything unusual returns "full", so the complete, validating path decides (and denies
 * bad input).
 */
export function quickCheck(eventName: string, input: unknown, env: NodeJS.ProcessEnv): 'inactive' | 'full' {
  if (typeof input !== 'object' || input === null) return 'full';
  const fields = input as Record<string, unknown>;
  const { cwd, tool_name, tool_input } = fields;
  if (typeof cwd !== 'string' || cwd === '') return 'full';
  // PreSkillShellCommand: a shell command a skill embeds, judged like a Bash PreToolUse (its tool_name is the shell).
  const gateEvent = eventName === 'PreToolUse' || eventName === 'PreSkillShellCommand';
  const toolEvent = gateEvent || eventName === 'PostToolUse';
  if (toolEvent && (typeof tool_name !== 'string' || typeof tool_input !== 'object' || tool_input === null)) return 'full';
  if (gateEvent && !hasTarget(eventName === 'PreToolUse' ? (tool_name as string) : 'Bash', tool_input as Record<string, unknown>)) return 'full';
  // The spec-writer is confined to specs/ with or without a cycle (docs/spec-formats.md).
  if (gateEvent && fields.agent_type === ROLE.specWriter) return 'full';
  // A command that names the CLI: its state-changing verbs get their tickets, with or without a cycle (src/tamper/cliAuthority.ts).
  if (gateEvent && namesCli((tool_input as Record<string, unknown>).command)) return 'full';
  try {
    const seen = new Set<string>();
    for (const dir of candidateDirs(fields, env)) {
      const repo = findRepo(dir);
      if (repo === null || seen.has(repo.root)) continue;
      seen.add(repo.root);
      // The state file says so, or, when it is gone, the anchor outside the work tree does, or a trace of an open cycle (src/tamper/openMarkers.ts).
      const names = tddNames(repo.root);
      if (names !== null && hasStateFile(names, childPath(repo.root, TDD_DIR), repo.branch)) return 'full';
      const paths = anchorPaths(repo, env);
      if (anchorSaysActive(repo, env, paths) || cycleMarked(paths, names, repo.branch)) return 'full';
    }
    return 'inactive';
  } catch {
    return 'full';
  }
}

/** The names in the project's .tdd/, or null when there is none (most projects: no error object). */
function tddNames(root: string): string[] | null {
  const dir = childPath(root, TDD_DIR); // root is canonical (findRepo)
  if (!existsSync(dir)) return null;
  try {
    return readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw err;
  }
}

function hasStateFile(names: readonly string[], dir: string, branch: string): boolean {
  // Same slug, any hash: the full path computes the exact name (slugs can collide; hashes decide).
  const prefix = `state-${stateSlug(branch)}-`;
  return names.some((n) => n.startsWith(prefix) && n.endsWith('.json') && !isDone(childPath(dir, n)));
}

/**
 * A finished cycle leaves its state file behind with phase "done": TDD is not active, and every
 * later call would otherwise pay for the full gate. Anything but a clean "done" goes the full way.
 */
function isDone(file: string): boolean {
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as { phase?: unknown } | null;
    return state !== null && typeof state === 'object' && state.phase === 'done';
  } catch {
    return false;
  }
}

function namesCli(command: unknown): boolean {
  return typeof command === 'string' && (command.includes('tdd-gate') || command.includes('cli.mjs'));
}

/** A gated tool without its target is malformed input, for the full path to deny. */
function hasTarget(toolName: string, toolInput: Record<string, unknown>): boolean {
  const key = targetKey(toolName);
  return key === undefined || typeof toolInput[key] === 'string';
}
