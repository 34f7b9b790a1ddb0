/**
 * Whether the OS wall goes up for a cycle: on by default wherever Claude Code's sandbox can run,
 * unless the project opts out in `stack.json` (`"os_wall": "off"`) or the person turns it off for
 * this worktree (`tdd-gate harden off`). `"os_wall": "on"` or `tdd-gate harden on` make it required:
 * no cycle starts where the sandbox cannot run. The person's choice for the worktree wins over
 * the project's.
 */

export type OsWallSetting = 'auto' | 'on' | 'off';

interface WallModeFacts {
  /** stack.json `os_wall` (absent: auto). */
  stack: OsWallSetting | undefined;
  /** The person's choice for this worktree (`harden on` / `harden off`), or none. */
  worktree: 'on' | 'off' | null;
  /** The sandbox can run here; `problem` says what is missing when not. */
  available: boolean;
  problem?: string | undefined;
}

export type WallMode =
  | { kind: 'up'; required: boolean; why: string }
  | { kind: 'off'; why: string }
  | { kind: 'unavailable'; required: boolean; problem: string };

export function wallMode(f: WallModeFacts): WallMode {
  if (f.worktree === 'off') return { kind: 'off', why: 'turned off for this worktree (`tdd-gate harden off`)' };
  const required = f.worktree === 'on' || f.stack === 'on';
  if (!required && f.stack === 'off') return { kind: 'off', why: 'turned off for the project (`"os_wall": "off"` in .tdd/stack.json)' };
  const why = f.worktree === 'on' ? 'required for this worktree (`tdd-gate harden on`)' : f.stack === 'on' ? 'required by the project (`"os_wall": "on"`)' : 'on by default';
  if (!f.available) return { kind: 'unavailable', required, problem: f.problem ?? 'the sandbox cannot run here' };
  return { kind: 'up', required, why };
}

/** The one line SessionStart, `status`, `doctor` and `/tdd` give when the sandbox cannot run here. */
export function unavailableLine(problem: string): string {
  return `tdd-gate: no OS wall here — Claude Code's Bash sandbox cannot run (${problem}); the gate allows during a cycle only Bash commands it can fully analyse.`;
}

/**
 * Claude Code's Linux sandbox bridges its network proxy through two Unix sockets in the client's
 * temporary folder, `<tmp>/claude-socks-<16 hex>.sock` the longer; a socket path holds at most 107
 * bytes (108 with its NUL), so a temporary folder longer than 72 bytes makes every sandboxed
 * command fail ("failed to create bridge sockets"). Then the settings give the client a short one.
 */
const SOCKET_PATH_MAX = 107;
const BRIDGE_NAME = '/claude-socks-0123456789abcdef.sock'.length;

export function shortTmpFor(clientTmp: string): string | null {
  return Buffer.byteLength(clientTmp, 'utf8') + BRIDGE_NAME > SOCKET_PATH_MAX ? '/tmp' : null;
}

/** SessionStart's line when the client's own temporary folder is too long for its bridge sockets. */
export function longTmpLine(clientTmp: string): string | null {
  if (shortTmpFor(clientTmp) === null) return null;
  return `tdd-gate: the temporary folder Claude Code started with (${Buffer.byteLength(clientTmp, 'utf8')} bytes: ${clientTmp}) is too long for its sandbox's sockets (at most ${SOCKET_PATH_MAX - BRIDGE_NAME} bytes): every sandboxed Bash call may fail with "failed to create bridge sockets". The settings give it TMPDIR=/tmp, which older clients take; otherwise tell the user to restart Claude Code with a short TMPDIR (\`TMPDIR=/tmp claude\`).`;
}
