import { execFileSync } from 'node:child_process';

function git(root: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null;
  }
}

/** The commit HEAD points at, or null in a repository without commits. */
export function gitHead(root: string): string | null {
  const out = git(root, ['rev-parse', '--verify', '-q', 'HEAD']);
  return out === null ? null : out.trim() || null;
}

export function gitStashCount(root: string): number {
  const out = git(root, ['stash', 'list']);
  if (out === null) return 0;
  return out.split('\n').filter((l) => l.trim() !== '').length;
}
