import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { Context, DoctorFacts, ProbeFacts, SettingValue } from './rules/doctor.js';
import { anchorMismatch, readAnchor } from '../state/anchor.js';
import { anchorPaths, anchorSaysActive } from '../state/anchorPaths.js';
import { GateError } from '../state/rules/errors.js';
import { EVENTS_REL } from '../state/eventLog.js';
import { PROBE_CONTEXTS, readHeartbeat, readProbeRun, type Heartbeat } from '../tamper/heartbeat.js';
import { readStateText } from '../state/loadState.js';
import { findRepo, type Repo } from '../state/repo.js';
import { wallAvailability } from '../wall/sandbox.js';
import { KILL_SWITCH } from '../hooks/output.js';
import type { CliState } from '../state/schema/cliState.js';
import { driftMessage, driftOf } from '../verify/oracle/drift.js';
import { loadState, openSession, type Session } from '../cli/session.js';
import type { CliIo } from '../cli/verb.js';
import { wallStatus } from '../cli/verbs/harden.js';

/** The plugin's name in `enabledPlugins` and installed_plugins.json: `tdd-gate@<marketplace>`. */
const PLUGIN = 'tdd-gate';

function readJson(file: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function managedSettings(platform: NodeJS.Platform): string {
  return platform === 'darwin' ? '/Library/Application Support/ClaudeCode/managed-settings.json' : '/etc/claude-code/managed-settings.json';
}

/** Claude Code's settings files, highest precedence first, each with the name the person knows it by. */
export function settingsFiles(root: string | null, home: string, platform: NodeJS.Platform = process.platform): { file: string; shown: string }[] {
  return [
    { file: managedSettings(platform), shown: managedSettings(platform) },
    ...(root === null
      ? []
      : [
          { file: path.join(root, '.claude', 'settings.local.json'), shown: '.claude/settings.local.json' },
          { file: path.join(root, '.claude', 'settings.json'), shown: '.claude/settings.json' },
        ]),
    { file: path.join(home, '.claude', 'settings.json'), shown: '~/.claude/settings.json' },
  ];
}

function settingsValues(files: { file: string; shown: string }[], pick: (s: Record<string, unknown>) => unknown): SettingValue[] {
  const out: SettingValue[] = [];
  for (const { file, shown } of files) {
    const s = readJson(file);
    if (s === null) continue;
    const value = pick(s);
    if (value !== undefined) out.push({ file: shown, value });
  }
  return out;
}

/** The folder of the plugin this CLI was started from (`<root>/dist/cli.mjs`), or null. */
function cliRootOf(argv1: string | undefined): string | null {
  if (argv1 === undefined) return null;
  try {
    const file = realpathSync(argv1);
    return path.basename(path.dirname(file)) === 'dist' ? path.dirname(path.dirname(file)) : null;
  } catch {
    return null;
  }
}

function installsOf(home: string): DoctorFacts['installs'] {
  const json = readJson(path.join(home, '.claude', 'plugins', 'installed_plugins.json'));
  const plugins = (json?.plugins ?? {}) as Record<string, unknown>;
  const out: DoctorFacts['installs'] = [];
  for (const [key, value] of Object.entries(plugins)) {
    if (!key.startsWith(`${PLUGIN}@`)) continue;
    for (const entry of Array.isArray(value) ? value : [value]) {
      const e = entry as { scope?: unknown; installPath?: unknown };
      if (typeof e.installPath !== 'string') continue;
      out.push({ key, scope: typeof e.scope === 'string' ? e.scope : 'user', installPath: e.installPath, exists: existsSync(e.installPath), hasHook: existsSync(path.join(e.installPath, 'dist', 'hook.cjs')) });
    }
  }
  return out;
}

/** The marketplaces of the installed or enabled tdd-gate plugins, and whether their source is still there. */
function marketplacesOf(home: string, names: Set<string>): DoctorFacts['marketplaces'] {
  const known = readJson(path.join(home, '.claude', 'plugins', 'known_marketplaces.json')) ?? {};
  const out: DoctorFacts['marketplaces'] = [];
  for (const name of names) {
    const m = known[name] as { source?: { source?: unknown; path?: unknown }; installLocation?: unknown } | undefined;
    if (m === undefined) continue;
    const kind = typeof m.source?.source === 'string' ? m.source.source : 'unknown';
    // A local folder is read in place: once it is deleted, the plugin no longer loads.
    const where = kind === 'directory' || kind === 'file' ? m.source?.path : m.installLocation;
    const p = typeof where === 'string' ? where : null;
    out.push({ name, kind, path: p, exists: p !== null && existsSync(p) });
  }
  return out;
}

function beatFacts(beat: Heartbeat | null, now: number): ProbeFacts['pre'] {
  return beat === null ? null : { agentType: beat.agent_type, agentId: typeof beat.agent_id === 'string' ? beat.agent_id : null, background: beat.background, pluginRoot: beat.plugin_root, ageMs: Math.max(0, now - beat.at) };
}

function probeFacts(repo: Repo, now: number): ProbeFacts[] {
  return PROBE_CONTEXTS.map((context: Context) => {
    const ran = readProbeRun(repo, context);
    return {
      context,
      pre: beatFacts(readHeartbeat(repo, 'PreToolUse', context), now),
      post: beatFacts(readHeartbeat(repo, 'PostToolUse', context), now),
      ran: ran === null ? null : { saw: ran.saw === true, ageMs: Math.max(0, now - ran.at) },
    };
  });
}

function nodeOnPath(env: NodeJS.ProcessEnv): { onPath: string | null; onPathVersion: string | null } {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const p = path.join(dir, process.platform === 'win32' ? 'node.exe' : 'node');
    try {
      if (!statSync(p).isFile()) continue;
    } catch {
      continue;
    }
    const r = spawnSync(p, ['--version'], { encoding: 'utf8', timeout: 10_000 });
    return { onPath: p, onPathVersion: r.status === 0 ? r.stdout.trim() : null };
  }
  return { onPath: null, onPathVersion: null };
}

function cycleFacts(s: Session | null, env: NodeJS.ProcessEnv): DoctorFacts['cycle'] {
  if (s === null) return { kind: 'no-repo' };
  const branch = s.repo.branch;
  const paths = anchorPaths(s.repo, env);
  const anchor = readAnchor(paths);
  if (anchor === null && anchorSaysActive(s.repo, env, paths)) {
    return { kind: 'unreadable', branch, message: 'the anchor kept outside the work tree is missing or unreadable while its marker says a cycle is active' };
  }
  let text: string | null;
  try {
    text = readStateText(s.statePath);
  } catch {
    text = null;
  }
  const mismatch = anchorMismatch(s.statePath, text, env);
  let state: CliState | null;
  try {
    state = loadState(s);
  } catch (err) {
    if (!(err instanceof GateError)) throw err;
    return { kind: 'unreadable', branch, message: mismatch ?? err.message };
  }
  if (state === null || state.phase === 'done') {
    return mismatch === null ? { kind: 'none', branch } : { kind: 'unreadable', branch, message: mismatch };
  }
  const drift = state.phase === 'tdd-green' || state.phase === 'tdd-refactor' ? driftMessage(driftOf(s.root, state)) : null;
  const skips = skipsSince(s.root, state.started_at);
  return { kind: 'active', branch, phase: state.phase, anchored: anchor !== null && anchor.active, anchorProblem: mismatch, drift, skips: skips.count, lastSkip: skips.last };
}

/** The canary's reports in this cycle's event log. */
export function skipsSince(root: string, since: string): { count: number; last: string | null } {
  let text = '';
  try {
    text = readFileSync(path.join(root, EVENTS_REL), 'utf8');
  } catch {
    return { count: 0, last: null };
  }
  let count = 0;
  let last: string | null = null;
  for (const line of text.split('\n')) {
    if (!line.includes('"gate-skipped"')) continue;
    try {
      const e = JSON.parse(line) as { at?: string; tool?: string; target?: string; context?: string; role?: string };
      if (typeof e.at === 'string' && e.at < since) continue;
      count++;
      last = `${e.tool ?? '?'} of ${e.target ?? '?'} by ${e.context === 'subagent' ? (e.role ?? 'a subagent') : (e.context ?? '?')}, ${e.at ?? ''}`;
    } catch {
      // a torn line
    }
  }
  return { count, last };
}

/** A `statusLine` that runs tdd-gate's CLI: does that CLI still exist? */
function statusLineFacts(files: { file: string; shown: string }[]): DoctorFacts['statusLine'] {
  for (const { file, shown } of files) {
    const command = (readJson(file)?.statusLine as { command?: unknown } | undefined)?.command;
    if (typeof command !== 'string' || !command.includes('statusline')) continue;
    const m = /(["']?)([^"'\s]*dist[/\\]cli\.mjs)\1/.exec(command);
    if (!m?.[2]) continue;
    return { file: shown, cliPath: m[2], exists: existsSync(m[2]) };
  }
  return null;
}

/** The client's release from AI_AGENT (`claude-code_2-1-197_agent`), which Claude Code sets for its commands. */
export function clientVersion(env: NodeJS.ProcessEnv): string | null {
  const m = /^claude-code_(\d+)-(\d+)-(\d+)(?:_|$)/.exec(env.AI_AGENT ?? '');
  return m ? `${m[1]}.${m[2]}.${m[3]}` : null;
}

export function gatherDoctorFacts(io: CliIo, argv1: string | undefined = process.argv[1]): DoctorFacts {
  const env = io.env;
  const home = env.HOME ?? homedir();
  let s: Session | null = null;
  try {
    s = findRepo(io.cwd) === null ? null : openSession(io);
  } catch {
    s = null;
  }
  const files = settingsFiles(s?.root ?? null, home);
  const installs = installsOf(home);
  const enabled = files.flatMap(({ file, shown }) => {
    const map = readJson(file)?.enabledPlugins;
    if (typeof map !== 'object' || map === null) return [];
    return Object.entries(map as Record<string, unknown>)
      .filter(([k]) => k.startsWith(`${PLUGIN}@`))
      .map(([key, value]) => ({ file: shown, key, value }));
  });
  const names = new Set([...installs.map((i) => i.key), ...enabled.map((e) => e.key)].map((k) => k.slice(PLUGIN.length + 1)));
  const now = Date.now();
  let wall: DoctorFacts['wall'];
  if (s !== null) {
    const w = wallStatus(s);
    wall = { ok: w.availability.ok, backend: w.availability.backend, problem: w.availability.problem ?? null, hardenedOn: w.mode.kind === 'unavailable' ? w.mode.required : w.mode.kind === 'up' && w.mode.required, problems: w.problems.filter((p) => p !== w.availability.problem) };
  } else {
    const a = wallAvailability(env);
    wall = { ok: a.ok, backend: a.backend, problem: a.problem ?? null, hardenedOn: false, problems: [] };
  }
  return {
    insideClaudeCode: env.CLAUDECODE === '1',
    client: clientVersion(env),
    cliRoot: cliRootOf(argv1),
    pluginRootEnv: env.CLAUDE_PLUGIN_ROOT ?? null,
    installs,
    marketplaces: marketplacesOf(home, names),
    enabled,
    disableAllHooks: settingsValues(files, (x) => x.disableAllHooks),
    managedHooksOnly: settingsValues(files.slice(0, 1), (x) => x.allowManagedHooksOnly),
    killSwitchEnv: env[KILL_SWITCH] === '1',
    killSwitchSettings: settingsValues(files, (x) => (x.env as Record<string, unknown> | undefined)?.[KILL_SWITCH]),
    probes: s === null ? null : probeFacts(s.repo, now),
    node: { version: process.version, ...nodeOnPath(env) },
    wall,
    cycle: cycleFacts(s, env),
    statusLine: statusLineFacts(files),
  };
}
