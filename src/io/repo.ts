import { readFileSync, statSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { childPath } from './childPath.js';

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
  const text = readFileSync(dotGit, 'utf8');
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  if (!m?.[1]) throw new Error(`${dotGit} is not a valid gitdir file`);
  return resolve(dir, m[1]);
}

function readBranch(gitDir: string): string {
  const head = readFileSync(childPath(gitDir, 'HEAD'), 'utf8').trim();
  // `ref: refs/heads/<branch>`; anything else is a detached HEAD.
  if (!head.startsWith('ref:')) return 'HEAD';
  const ref = head.slice(4).trim();
  if (ref === '' || [...'\n\r\u2028\u2029'].some((eol) => ref.includes(eol))) return 'HEAD';
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
}
