import { readdirSync } from 'node:fs';
import path from 'node:path';
import { findRepo } from '../io/repo.js';
import { stateSlug } from '../io/stateSlug.js';

/**
 * The hot path of every tool call in every session: with no state file for the branch (or no
 * repository), TDD is not active and the gate has nothing to decide. Answered with a few stats and
 * no hashing, before the schemas and matchers are even loaded. Anything unusual returns "full",
 * so the complete, validating path decides (and denies bad input).
 */
export function quickCheck(eventName: string, input: unknown): 'inactive' | 'full' {
  if (typeof input !== 'object' || input === null) return 'full';
  const { cwd, tool_name, tool_input } = input as Record<string, unknown>;
  if (typeof cwd !== 'string' || cwd === '') return 'full';
  const toolEvent = eventName === 'PreToolUse' || eventName === 'PostToolUse';
  if (toolEvent && (typeof tool_name !== 'string' || typeof tool_input !== 'object' || tool_input === null)) return 'full';
  if (eventName === 'PreToolUse' && !hasTarget(tool_name as string, tool_input as Record<string, unknown>)) return 'full';
  try {
    const repo = findRepo(cwd);
    if (repo === null) return 'inactive';
    let names: string[];
    try {
      names = readdirSync(path.join(repo.root, '.tdd'));
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'inactive' : 'full';
    }
    // Same slug, any hash: the full path computes the exact name (slugs can collide; hashes decide).
    const prefix = `state-${stateSlug(repo.branch)}-`;
    return names.some((n) => n.startsWith(prefix) && n.endsWith('.json')) ? 'full' : 'inactive';
  } catch {
    return 'full';
  }
}

const TARGET_KEY: Record<string, string> = {
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
  Bash: 'command',
};

/** A gated tool without its target is malformed input, for the full path to deny. */
function hasTarget(toolName: string, toolInput: Record<string, unknown>): boolean {
  const key = TARGET_KEY[toolName];
  return key === undefined || typeof toolInput[key] === 'string';
}
