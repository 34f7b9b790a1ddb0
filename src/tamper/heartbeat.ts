import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { ANCHOR_DIR, gitCommonDir, shortName } from '../state/anchorPaths.js';
import { childPath } from '../state/childPath.js';
import { findRepo, type Repo } from '../state/repo.js';

/**
 * Heartbeats: proof that a hook of this plugin ran, in a given context, for the doctor's own probe
 * command (`tdd-gate doctor --probe <context>`). The hook writes one only when it sees that command,
 * never for an ordinary call; the probe reads it right after (the PreToolUse hook runs before the
 * command), and `tdd-gate doctor` reports what each context showed. They live beside the anchor, in
 * the git common directory, one file per work tree, event and context.
 */
export const PROBE_CONTEXTS = ['main', 'subagent', 'background'] as const;
export type ProbeContext = (typeof PROBE_CONTEXTS)[number];

/** A probe counts a heartbeat written at most this long before it ran. */
const PROBE_WINDOW_MS = 120_000;

export interface Heartbeat {
  event: string;
  /** The context the probe command claims (its argument). */
  context: ProbeContext;
  /** What the hook input said about the caller. */
  agent_type: string | null;
  agent_id: string | null;
  background: boolean;
  tool_use_id: string | null;
  session_id: string | null;
  /** Where the hook that wrote it runs from (CLAUDE_PLUGIN_ROOT in the hook's environment). */
  plugin_root: string | null;
  node: string;
  at: number;
}

/** What the probe command found when it ran. */
interface ProbeRun {
  context: ProbeContext;
  at: number;
  saw: boolean;
  /** When the heartbeat it took as its own was written (a second probe cannot count it again). */
  heartbeat_at: number | null;
}

function dirOf(repo: Repo): string {
  return childPath(gitCommonDir(repo.gitDir), ANCHOR_DIR, 'heartbeats');
}

function heartbeatFile(repo: Repo, event: string, context: ProbeContext): string {
  return childPath(dirOf(repo), `${shortName(repo.root)}-${event}-${context}.json`);
}

function probeRunFile(repo: Repo, context: ProbeContext): string {
  return childPath(dirOf(repo), `${shortName(repo.root)}-ran-${context}.json`);
}

function isContext(word: string): word is ProbeContext {
  return (PROBE_CONTEXTS as readonly string[]).includes(word);
}

/**
 * The context a command probes, when it is the doctor's probe; null for every other command. A
 * substring test first: this runs on every Bash call the hook sees.
 */
function probedContext(command: string): ProbeContext | null {
  const at = command.indexOf('--probe');
  if (at < 0 || !command.includes('doctor')) return null;
  let i = at + '--probe'.length;
  if (command.charAt(i) === '=') i++;
  else {
    if (command.charAt(i) !== ' ') return null;
    while (command.charAt(i) === ' ') i++;
  }
  let word = '';
  while (i < command.length && word.length < 16) {
    const ch = command.charAt(i);
    if (ch < 'a' || ch > 'z') break;
    word += ch;
    i++;
  }
  return isContext(word) ? word : null;
}

/**
 * Called by the hook entry for every PreToolUse and PostToolUse before anything else; writes a
 * heartbeat only for the probe command, best effort (a heartbeat never changes a decision).
 */
export function noteProbe(eventName: string, input: unknown, env: NodeJS.ProcessEnv): void {
  const fields = input as { cwd?: unknown; tool_input?: { command?: unknown; run_in_background?: unknown } | null } | null;
  const command = fields?.tool_input?.command;
  if (typeof command !== 'string' || !command.includes('--probe')) return;
  const context = probedContext(command);
  if (context === null || typeof fields?.cwd !== 'string') return;
  try {
    const repo = findRepo(fields.cwd);
    if (repo === null) return;
    const f = input as Record<string, unknown>;
    const text = (k: string) => (typeof f[k] === 'string' ? (f[k]) : null);
    const beat: Heartbeat = {
      event: eventName,
      context,
      agent_type: text('agent_type'),
      agent_id: text('agent_id'),
      background: fields.tool_input?.run_in_background === true,
      tool_use_id: text('tool_use_id'),
      session_id: text('session_id'),
      plugin_root: env.CLAUDE_PLUGIN_ROOT ?? null,
      node: process.version,
      at: Date.now(),
    };
    mkdirSync(dirOf(repo), { recursive: true });
    writeFileSync(heartbeatFile(repo, eventName, context), JSON.stringify(beat));
  } catch {
    // best effort: the doctor then reports that it saw nothing
  }
}

function readJson<T>(file: string): T | null {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof v === 'object' && v !== null ? (v as T) : null;
  } catch {
    return null;
  }
}

export function readHeartbeat(repo: Repo, event: string, context: ProbeContext): Heartbeat | null {
  const beat = readJson<Heartbeat>(heartbeatFile(repo, event, context));
  return beat !== null && typeof beat.at === 'number' ? beat : null;
}

export function readProbeRun(repo: Repo, context: ProbeContext): ProbeRun | null {
  const run = readJson<ProbeRun>(probeRunFile(repo, context));
  return run !== null && typeof run.at === 'number' ? run : null;
}

/**
 * Did the hook see the probe that runs now? Its heartbeat must be recent and not one an earlier
 * probe already took.
 */
export function heartbeatIsFresh(beat: Heartbeat | null, previous: ProbeRun | null, now: number): boolean {
  if (beat === null) return false;
  const age = now - beat.at;
  if (age < -5_000 || age > PROBE_WINDOW_MS) return false;
  return previous?.heartbeat_at !== beat.at;
}

/** Record what the probe found; false when it could not be written (inside a sandbox). */
export function writeProbeRun(repo: Repo, run: ProbeRun): boolean {
  try {
    mkdirSync(dirOf(repo), { recursive: true });
    writeFileSync(probeRunFile(repo, run.context), JSON.stringify(run));
    return true;
  } catch {
    return false;
  }
}
