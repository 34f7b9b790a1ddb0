import { lstatSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CYCLES_DIR } from './rules/record.js';
import { gitExec } from '../state/git.js';

/** The audit could not run (a ref that does not resolve, a checkout git cannot read): exit 3. */
export class AuditCannotRun extends Error {}

function git(root: string, args: string[]): string {
  try {
    return gitExec(args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    const why = (e.stderr ?? e.message).trim().split('\n')[0] ?? '';
    throw new AuditCannotRun(`git ${args.slice(0, 3).join(' ')} failed: ${why}`, { cause: err });
  }
}

/** The commit a ref names. */
export function resolveCommit(root: string, ref: string): string {
  try {
    return git(root, ['rev-parse', '--verify', '-q', `${ref}^{commit}`]).trim();
  } catch {
    throw new AuditCannotRun(`the ref "${ref}" does not name a commit here; fetch it (a CI checkout needs the full history: fetch-depth 0) or pass another --base/--head`);
  }
}

/** Where base and head meet (what a pull request is measured against). */
export function mergeBase(root: string, base: string, head: string): string {
  try {
    return git(root, ['merge-base', base, head]).trim();
  } catch {
    throw new AuditCannotRun(`${base.slice(0, 12)} and ${head.slice(0, 12)} share no history; fetch the whole history (fetch-depth 0) and audit again`);
  }
}

export interface AddedRecord {
  /** The commit that added the record. */
  commit: string;
  /** Root-relative path of the record. */
  path: string;
}

/** Every cycle record added in base..head (all of head's history when base is null), oldest commit first. */
export function addedRecords(root: string, base: string | null, head: string): AddedRecord[] {
  const range = base === null ? head : `${base}..${head}`;
  const out = git(root, ['log', '--reverse', '--topo-order', '--diff-filter=A', '--no-renames', '--name-only', '--format=%x01%H', range, '--', `${CYCLES_DIR}/`]);
  const records: AddedRecord[] = [];
  for (const chunk of out.split('\x01')) {
    const lines = chunk.split('\n').map((l) => l.trim()).filter(Boolean);
    const commit = lines.shift();
    if (!commit) continue;
    for (const rel of lines) {
      if (/^\.tdd\/cycles\/[^/]+\.json$/.test(rel)) records.push({ commit, path: rel });
    }
  }
  return records;
}

/** Files that differ between base and head (every file of head when base is null). */
export function changedPaths(root: string, base: string | null, head: string): string[] {
  const out = base === null ? git(root, ['ls-tree', '-r', '-z', '--name-only', head]) : git(root, ['diff', '--name-only', '--no-renames', '-z', base, head]);
  return out.split('\0').filter(Boolean).sort();
}

/** Cycle records and their copies changed or deleted in base..head (records are only ever added). */
export function rewrittenRecords(root: string, base: string | null, head: string): string[] {
  if (base === null) return [];
  const out = git(root, ['diff', '--name-only', '--no-renames', '--diff-filter=MDT', '-z', base, head, '--', `${CYCLES_DIR}/`]);
  return out.split('\0').filter(Boolean).sort();
}

/** git's id of a file's bytes at a commit; null when the commit has no such file. */
export function blobAt(root: string, commit: string, rel: string): string | null {
  try {
    return gitExec(['rev-parse', '--verify', '-q', `${commit}:${rel}`], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null;
  } catch {
    return null;
  }
}

/** Top-level folders linked, not checked out, into a replay: the installed dependencies and build caches. */
const LINKED_DIRS = ['node_modules', '.venv', 'venv', 'target'];

interface Worktree {
  dir: string;
  remove: () => void;
}

/**
 * A detached worktree of `commit` in a temporary folder, with the checkout's installed
 * dependencies (node_modules, a virtualenv) linked in, so the replay runs what the lockfile
 * installed. The caller removes it.
 */
export function addWorktree(root: string, commit: string): Worktree {
  const parent = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tdd-gate-audit-')));
  const dir = path.join(parent, path.basename(root));
  git(root, ['worktree', 'add', '--detach', '--quiet', dir, commit]);
  for (const top of LINKED_DIRS) {
    try {
      lstatSync(path.join(root, top));
    } catch {
      continue;
    }
    try {
      lstatSync(path.join(dir, top));
      continue; // committed: the commit's own
    } catch {
      symlinkSync(path.join(root, top), path.join(dir, top));
    }
  }
  return {
    dir,
    remove: () => {
      try {
        gitExec(['worktree', 'remove', '--force', dir], { cwd: root, stdio: 'ignore' });
      } catch {
        // removed below; prune forgets it
      }
      rmSync(parent, { recursive: true, force: true });
      try {
        gitExec(['worktree', 'prune'], { cwd: root, stdio: 'ignore' });
      } catch {
        // best effort
      }
    },
  };
}
