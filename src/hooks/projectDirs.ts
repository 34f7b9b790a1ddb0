import { dirname, join, resolve } from 'node:path';

const TARGET_KEY: Record<string, string> = {
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
  Bash: 'command',
};

/** The input field naming what a gated tool writes, or undefined for tools the gate ignores. */
export function targetKey(toolName: string): string | undefined {
  return TARGET_KEY[toolName];
}

const MAX_PATH_WORDS = 32;
// An absolute or home-relative path word in a shell command, ended by shell syntax.
const PATH_WORD = /(?:^|[\s'"=:(<>])((?:~|\/)[^\s'";|&<>()`$]*)/g;

/**
 * Directories whose projects a call can touch. The session's `cwd` moves with every `cd` the
 * model runs, so it alone is not enough: a Write to `/repo/tests/a.test.ts` from `cwd=/tmp` must
 * still meet the cycle of `/repo`. Candidates: the cwd, the project Claude Code was started in
 * (CLAUDE_PROJECT_DIR), the directory of a file tool's target, and the absolute paths a Bash
 * command names. Each is looked up with a few stats; none is read unless it has a state file.
 */
export function candidateDirs(input: Record<string, unknown>, env: NodeJS.ProcessEnv): string[] {
  const cwd = input.cwd as string;
  const home = env.HOME;
  const dirs = [cwd];
  if (env.CLAUDE_PROJECT_DIR) dirs.push(env.CLAUDE_PROJECT_DIR);
  const toolName = typeof input.tool_name === 'string' ? input.tool_name : '';
  const key = targetKey(toolName);
  const toolInput = input.tool_input as Record<string, unknown> | undefined;
  const value = key === undefined ? undefined : toolInput?.[key];
  if (typeof value === 'string') {
    const words = toolName === 'Bash' ? pathWords(value) : [value];
    for (const word of words) {
      const expanded = home !== undefined && (word === '~' || word.startsWith('~/')) ? join(home, word.slice(1)) : word;
      if (!expanded.startsWith('~')) dirs.push(dirname(resolve(cwd, expanded)));
    }
  }
  return [...new Set(dirs)];
}

function pathWords(command: string): string[] {
  const out = new Set<string>();
  for (const m of command.matchAll(PATH_WORD)) {
    if (m[1] !== undefined && m[1].length > 1) out.add(m[1]);
    if (out.size >= MAX_PATH_WORDS) break;
  }
  return [...out];
}
