import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  comm: string;
  command: string;
}

/** Every process visible in /proc (Linux); empty elsewhere. */
function listProcesses(proc = '/proc'): ProcessInfo[] {
  let entries: string[];
  try {
    entries = readdirSync(proc).filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  const out: ProcessInfo[] = [];
  for (const e of entries) {
    try {
      const stat = readFileSync(`${proc}/${e}/stat`, 'utf8');
      // pid (comm) state ppid …; comm may hold spaces and parentheses, so split at the last ')'.
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      let command = comm;
      try {
        command = readFileSync(`${proc}/${e}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ') || comm;
      } catch {
        // gone meanwhile
      }
      out.push({ pid: Number(e), ppid, comm, command });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'fish', 'ksh', 'bwrap']);

/**
 * Background Bash tasks of the Claude Code session this process runs in: shells (or sandboxes)
 * under the client process that are not this command's own ancestors. A task started before a
 * phase change keeps the sandbox it started in (or none), so the freeze waits for them to end.
 * Outside Claude Code (CLAUDECODE unset) there are none.
 */
export function listBackgroundTasks(procs: readonly ProcessInfo[] = listProcesses(), self = process.pid, insideClaudeCode = process.env.CLAUDECODE === '1'): ProcessInfo[] {
  if (!insideClaudeCode) return [];
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const ancestors = new Set<number>([self]);
  let client: ProcessInfo | undefined;
  // The client is the first ancestor that is not the shell it runs Bash calls in (its process name
  // varies: \`claude\`, or the version number for the native install).
  for (let p = byPid.get(byPid.get(self)?.ppid ?? -1); p !== undefined && !ancestors.has(p.pid); p = byPid.get(p.ppid)) {
    ancestors.add(p.pid);
    if (!SHELLS.has(p.comm)) {
      client = p;
      break;
    }
  }
  if (client === undefined) return [];
  const children = new Map<number, ProcessInfo[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  // The client runs each Bash call as a shell (inside bwrap when sandboxed) directly under itself.
  return (children.get(client.pid) ?? []).filter((c) => !ancestors.has(c.pid) && SHELLS.has(c.comm));
}
