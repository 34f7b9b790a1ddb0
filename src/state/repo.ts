import { readFileSync, statSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { childPath } from './childPath.js';
import { isLineTerminator, isSpace } from './rules/ascii.js';

export interface Repo {
  /** The git top level (canonical). */
  root: string;
  gitDir: string;
  /** Branch name, or "HEAD" when detached. */
  branch: string;
}

function realOrSelf(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

/**
 * The git top level of `cwd` and its branch, read from `.git` directly: spawning git costs more
 * than the whole rest of the hook. Worktrees and submodules have a `.git` file naming their git dir.
 */
export function findRepo(cwd: string): Repo | null {
  // The cwd comes from the input: relative, `..` or `//` would give another walk up.
  // eslint-disable-next-line no-restricted-syntax -- an input path, normalized once per directory tried
  let dir = realOrSelf(resolve(cwd));
  for (;;) {
    const dotGit = childPath(dir, '.git');
    let isDir: boolean | null = null;
    try {
      isDir = statSync(dotGit, { throwIfNoEntry: false })?.isDirectory() ?? null; // most levels have none: no error object
    } catch {
      isDir = null;
    }
    if (isDir !== null) {
      const gitDir = isDir ? dotGit : readGitFile(dotGit, dir);
      return { root: dir, gitDir, branch: readBranch(gitDir) };
    }
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function readGitFile(dotGit: string, dir: string): string {
  const target = gitdirLine(readFileSync(dotGit, 'utf8'));
  if (target === null) throw new Error(`${dotGit} is not a valid gitdir file`);
  // Git writes a relative path (`../.git/worktrees/x`) or an absolute one: the git dir is the normalized one.
  // eslint-disable-next-line no-restricted-syntax -- a path read from the file, worktrees and submodules only
  return resolve(dir, target);
}

/**
 * The path of the first `gitdir:` line of a `.git` file, trimmed; null when there is none. By hand
 * (every call in a worktree reads it): the first line starting `gitdir:` whose rest, white space
 * skipped, is not blank, as /^gitdir:\s*(.+?)\s*$/m finds it. Where that expression took white
 * space for the path (`gitdir:  `), this finds none: an error either way, as no git dir has a
 * blank name (git itself refuses such a file).
 */
export function gitdirLine(text: string): string | null {
  for (let start = 0; start < text.length; ) {
    let end = start;
    while (end < text.length && !isLineTerminator(text[end] as string)) end++;
    if (text.startsWith('gitdir:', start)) {
      let from = start + 'gitdir:'.length;
      while (from < text.length && isSpace(text[from] as string)) from++; // over line ends too, as \s* does
      let to = from;
      while (to < text.length && !isLineTerminator(text[to] as string)) to++;
      const value = text.slice(from, to).trimEnd();
      if (value !== '') return value;
    }
    start = end + 1;
  }
  return null;
}

function readBranch(gitDir: string): string {
  const head = readFileSync(childPath(gitDir, 'HEAD'), 'utf8').trim();
  // `ref: refs/heads/<branch>`; anything else is a detached HEAD.
  if (!head.startsWith('ref:')) return 'HEAD';
  const ref = head.slice(4).trim();
  if (ref === '' || [...'\n\r\u2028\u2029'].some((eol) => ref.includes(eol))) return 'HEAD';
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
}
