import { readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

interface Stray {
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

/** Clock ticks per second of /proc/<pid>/stat times: 100 on every Linux architecture in use. */
const CLK_TCK = 100;

function bootTimeMs(): number | null {
  try {
    const m = /^btime\s+(\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    return m?.[1] ? Number(m[1]) * 1000 : null;
  } catch {
    return null;
  }
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: number | 'self'): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** When a process started (ms since the epoch). */
function startedAtMs(fields: string[], boot: number): number | null {
  const ticks = Number(fields[19]);
  return Number.isFinite(ticks) ? boot + (ticks * 1000) / CLK_TCK : null;
}

/** Claude Code's Bash sandbox bridges its network proxy with socat, exactly these two arguments. */
const BRIDGE_LISTEN = /^UNIX-LISTEN:\/[^,\0]*\/claude-(?:http|socks)-[0-9a-f]{16}\.sock,fork,reuseaddr$/;
const BRIDGE_CONNECT = /^TCP:localhost:\d{1,5},keepalive,keepidle=10,keepintvl=5,keepcnt=3$/;

/**
 * The client's sandbox network bridge (hardened mode): it runs in the project for the whole
 * session and moves bytes between a socket and a local port, touching no file. Recognised by its
 * exact arguments and its program (socat itself, a file only root can change), so a look-alike of
 * the agent's is not.
 */
function isSandboxBridge(pid: number, comm: string): boolean {
  if (comm !== 'socat') return false;
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a, i, all) => a !== '' || i < all.length - 1);
    if (argv.length !== 3 || !BRIDGE_LISTEN.test(argv[1] ?? '') || !BRIDGE_CONNECT.test(argv[2] ?? '')) return false;
    const program = readlinkSync(`/proc/${pid}/exe`);
    const exe = statSync(program);
    return /^socat\d*$/.test(path.basename(program)) && exe.uid === 0 && (exe.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/**
 * Processes of ours (same user) whose working directory is inside the project, started after
 * `since` (the cycle began), other than our own ancestry: a watcher or a background shell that
 * could swap files while the tests run. What ran before the cycle (an editor, a terminal, the
 * client's own servers) is not the cycle's doing. Linux only (empty elsewhere: no /proc).
 */
export function strayProcesses(root: string, ignore: readonly string[] = [], since?: Date): Stray[] {
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
  const boot = since ? bootTimeMs() : null;
  // The other commands of our own command line (`tdd-gate verify green | tail`) share our process group.
  const ownGroup = statFields('self')?.[2];
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
    if (ignore.includes(comm) || isSandboxBridge(pid, comm)) continue;
    const fields = statFields(pid);
    if (fields && ownGroup !== undefined && fields[2] === ownGroup) continue;
    if (since && boot !== null && fields) {
      const started = startedAtMs(fields, boot);
      // A second of slack: /proc's boot time is whole seconds.
      if (started !== null && started < since.getTime() - 1000) continue;
    }
    out.push({ pid, comm, cwd });
  }
  return out;
}
