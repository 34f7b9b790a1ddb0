import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';

export interface Stray {
  pid: number;
  comm: string;
  cwd: string;
}

function statusField(pid: number | 'self', key: string): string | null {
  try {
    const m = new RegExp(`^${key}:\\s*(.*)$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m?.[1]?.trim() ?? null;
  } catch {
    return null;
  }
}

/** Our own line of parents, up to init: the shell and the agent that called us are not strays. */
function ancestry(): Set<number> {
  const out = new Set<number>([process.pid]);
  let pid = process.ppid;
  for (let k = 0; k < 64 && pid > 1 && !out.has(pid); k++) {
    out.add(pid);
    pid = Number(statusField(pid, 'PPid') ?? 0);
  }
  return out;
}

/**
 * Processes of ours (same user) whose working directory is inside the project, other than our
 * own ancestry: a watcher or a background shell that could swap files while the tests run.
 * Linux only (empty elsewhere: no /proc).
 */
export function strayProcesses(root: string, ignore: readonly string[] = []): Stray[] {
  let pids: number[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
  } catch {
    return [];
  }
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    realRoot = root;
  }
  const mine = ancestry();
  const uid = process.getuid?.();
  const out: Stray[] = [];
  for (const pid of pids) {
    if (mine.has(pid)) continue;
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      continue; // gone, a kernel thread, or not ours to see
    }
    const rel = path.relative(realRoot, cwd);
    if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
    const state = statusField(pid, 'State') ?? '';
    if (state.startsWith('Z') || state.startsWith('X')) continue;
    const uids = (statusField(pid, 'Uid') ?? '').split(/\s+/);
    if (uid !== undefined && uids[0] !== String(uid)) continue;
    // Our own children (a test run still exiting) share our process group.
    if (Number(statusField(pid, 'PPid')) === process.pid) continue;
    let comm = '';
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      comm = '?';
    }
    if (ignore.includes(comm)) continue;
    out.push({ pid, comm, cwd });
  }
  return out;
}
