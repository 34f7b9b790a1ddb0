import { dirname, join, resolve } from 'node:path';
import { isSpace } from './rules/ascii.js';

const TARGET_KEY: Record<string, string> = {
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
  Bash: 'command',
};

/** The input field naming what a read tool reads (held-out tests, docs/heldout.md): its folder's project is a candidate. */
const READ_KEY: Record<string, string> = {
  Read: 'file_path',
  NotebookRead: 'notebook_path',
  Grep: 'path',
  Glob: 'path',
};

/** The input field naming what a gated tool writes, or undefined for tools the gate ignores. */
export function targetKey(toolName: string): string | undefined {
  return TARGET_KEY[toolName];
}

const MAX_PATH_WORDS = 32;
// A path word starts with `~` or `/` at the start of the command or after one of these (or white space)…
const BEFORE_WORD = '\'"=:(<>';
// …and ends before one of these (or white space): shell syntax.
const ENDS_WORD = '\'";|&<>()`$';

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
  const key = targetKey(toolName) ?? READ_KEY[toolName];
  const toolInput = input.tool_input as Record<string, unknown> | undefined;
  const value = key === undefined ? undefined : toolInput?.[key];
  if (typeof value === 'string') {
    const words = toolName === 'Bash' ? pathWords(value) : [value];
    for (const word of words) {
      // The words come from the input as written (`..`, `//`, a relative file_path): the directory
      // the shell or the tool would reach is the normalized one, so these two normalize.
      // eslint-disable-next-line no-restricted-syntax -- an input path, see above
      const expanded = home !== undefined && (word === '~' || word.startsWith('~/')) ? join(home, word.slice(1)) : word;
      // eslint-disable-next-line no-restricted-syntax -- an input path, see above
      if (!expanded.startsWith('~')) dirs.push(dirname(resolve(cwd, expanded)));
    }
  }
  return [...new Set(dirs)];
}

/**
 * The absolute and home-relative path words of a shell command, at most MAX_PATH_WORDS: what
 * /(?:^|[\s'"=:(<>])((?:~|\/)[^\s'";|&<>()`$]*)/g finds, by hand (a Bash call with no cycle runs
 * this; test/hooks/projectDirs.test.ts holds it to that expression).
 */
export function pathWords(command: string): string[] {
  const out = new Set<string>();
  // From one `/` or `~` to the next with indexOf: a loop over every character of a long heredoc,
  // run by V8's interpreter, would cost more than the expression did.
  let slash = command.indexOf('/');
  let tilde = command.indexOf('~');
  let from = 0;
  while (out.size < MAX_PATH_WORDS) {
    if (slash !== -1 && slash < from) slash = command.indexOf('/', from);
    if (tilde !== -1 && tilde < from) tilde = command.indexOf('~', from);
    const at = slash === -1 ? tilde : tilde === -1 ? slash : Math.min(slash, tilde);
    if (at === -1) break;
    const prev = at === 0 ? null : (command[at - 1] as string);
    if (prev !== null && !isSpace(prev) && !BEFORE_WORD.includes(prev)) {
      from = at + 1;
      continue;
    }
    let end = at + 1;
    while (end < command.length && !isSpace(command[end] as string) && !ENDS_WORD.includes(command[end] as string)) end++;
    if (end - at > 1) out.add(command.slice(at, end));
    from = end;
  }
  return [...out];
}
