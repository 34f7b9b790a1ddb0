import { hardeningFor, heldoutSection, writablePathEntries, type HardeningSection } from '../../wall/rules/sandbox.js';
import { realpathSync } from 'node:fs';
import { heldoutFiles, outOfSight } from '../../heldout/cycle.js';
import { storeDirs } from '../../heldout/paths.js';
import { homedir } from 'node:os';
import path from 'node:path';
import { repinWatched } from '../../state/anchor.js';
import { RefusalError, UsageError } from '../../state/rules/errors.js';
import { appendEvent } from '../../state/eventLog.js';
import { listBackgroundTasks } from '../../wall/sandboxProcesses.js';
import { foreignWeakenings, hardeningFactsFor, probeWall, refreshInodes, RELOAD_MS, settingsCarry, wallAvailability, type WallAvailability, type WallStatus } from '../../wall/sandbox.js';
import { applySection, readRecord, restoreSettings, SETTINGS_REL, writeRecord } from '../../wall/settingsMerge.js';
import { splitGlobs } from '../../state/schema/stack.js';
import type { CliState } from '../../state/schema/cliState.js';
import { parseFlags } from '../args.js';
import { loadStack, loadState, openSession, out, type Session } from '../session.js';
import type { CliIo, Verb } from '../verb.js';
import { unavailableLine, wallMode, type WallMode } from '../../wall/rules/mode.js';
import { removeStrays, notePresentAtStart } from '../../wall/strays.js';

const USAGE = 'tdd-gate harden on|off|auto|status [--json]';

/** Whether the OS wall goes up here (src/wall/rules/mode.ts): the project's and the person's choice, and the platform. */
function modeOf(s: Session, availability?: WallAvailability): WallMode {
  const record = readRecord(s.repo.gitDir);
  let stack: 'auto' | 'on' | 'off' | undefined;
  try {
    stack = loadStack(s).config.os_wall;
  } catch {
    stack = undefined;
  }
  const worktree = record.off === true ? 'off' : record.on ? 'on' : null;
  const needsProbe = worktree !== 'off' && !(worktree === null && stack === 'off');
  const a = availability ?? (needsProbe ? wallAvailability(s.io.env) : { ok: false, backend: 'none' as const });
  return wallMode({ stack, worktree, available: a.ok, problem: a.problem });
}

/** Inside a Claude Code Bash call (the client sets CLAUDECODE=1 for the commands it runs). */
function insideClaudeCode(env: NodeJS.ProcessEnv): boolean {
  return env.CLAUDECODE === '1';
}

function active(state: CliState | null): state is CliState {
  return state !== null && state.phase !== 'done';
}

function sectionOf(s: Session, state: CliState): HardeningSection | null {
  const stack = loadStack(s);
  const facts = hardeningFactsFor(s.repo, state, { language: stack.config.language, testGlobs: splitGlobs(stack.config.test_file_glob) }, s.io.env);
  return hardeningFor({ ...facts, heldout: heldoutFacts(s, state) });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A write the sandbox denied: the CLI was run inside the wall, in a form the settings do not take out of it. */
function explainDenied(err: unknown): never {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EROFS' || code === 'EPERM' || code === 'EACCES') {
    throw new RefusalError(
      `hardened mode: ${SETTINGS_REL} and .tdd/ are read-only inside the Bash sandbox, and this command ran inside it. Run the CLI exactly as the /tdd skill shows (\`node "<plugin>/dist/cli.mjs" <verb> …\`, one plain call); \`harden off\` is for the person, from a terminal outside Claude Code`,
      { cause: err },
    );
  }
  throw err;
}

/**
 * At `init`: refuse when the wall is required but the sandbox cannot run here (no cycle starts
 * without it); say so in one line when it is merely unavailable; refuse when other settings would
 * open a wall that goes up.
 */
export function assertWallAvailable(s: Session): void {
  const mode = modeOf(s);
  if (mode.kind === 'unavailable' && mode.required) {
    throw new RefusalError(`the OS wall is required here, but Claude Code's Bash sandbox cannot run: ${mode.problem}. Install it, or turn the requirement off (\`tdd-gate harden auto\` from a terminal, or \`"os_wall": "auto"\` in .tdd/stack.json)`);
  }
  if (mode.kind === 'unavailable') s.io.stderr.write(`${unavailableLine(mode.problem)}\n`);
  if (mode.kind === 'up') assertNoHoles(s, 'a cycle cannot start behind the wall');
}

/** Other settings sources that open the wall (their excludedCommands are merged with ours). */
function assertNoHoles(s: Session, what: string): void {
  const weak = foreignWeakenings(s.root, s.io.env.HOME ?? homedir());
  if (weak.length > 0) {
    throw new RefusalError(`hardened mode: ${what}: ${weak.join('; ')}. Remove those entries (entries in .claude/settings.local.json are set aside during a cycle and come back after), then retry`);
  }
}

/** Background Bash tasks of this session would keep writing through an older sandbox (or none). */
export function assertNoBackgroundTasks(s: Session, verb: string): void {
  if (modeOf(s).kind !== 'up') return;
  const tasks = listBackgroundTasks();
  if (tasks.length === 0) return;
  const list = tasks.slice(0, 5).map((t) => `pid ${t.pid} (${t.command.slice(0, 80)})`).join(', ');
  throw new RefusalError(
    `hardened mode: ${tasks.length} background task(s) of this session are still running (${list}); a process started before \`${verb}\` keeps the write access it had. Stop them (e.g. the KillShell tool or \`kill <pid>\`), then run \`${verb}\` again`,
  );
}

/** tdd-gate wrote the settings file itself: an active cycle's anchor records its new content. */
function repinSettings(s: Session, note: string): void {
  repinWatched(s.repo, [path.join(s.root, SETTINGS_REL)], s.io.env, note);
}

/**
 * Keep the settings in step with the cycle: the section for the current phase while one is active,
 * the person's own file back when none is. Called by every verb that moves the phase; a no-op
 * unless hardened mode is on. Prints one line when it changed something.
 */
export async function syncHardening(s: Session): Promise<void> {
  const line = await applyHardening(s);
  // On stderr: `done --json` and friends keep a clean stdout for the programs that read it.
  if (line) s.io.stderr.write(`${line}\n`);
}

/** Held-out tests out of sight: the store's folders and the files' places, canonical (docs/heldout.md). */
function heldoutFacts(s: Session, state: CliState | null): { stores: string[]; files: string[] } | null {
  if (state === null || !outOfSight(state)) return null;
  const dirs = storeDirs(s.repo, s.io.env);
  const real = (p: string) => {
    try {
      return realpathSync.native(p);
    } catch {
      return p;
    }
  };
  return { stores: [dirs.primary, ...(dirs.mirror !== null ? [dirs.mirror] : [])].map(real), files: Object.keys(heldoutFiles(state)).map((rel) => path.join(s.root, rel)) };
}

/**
 * Without hardened mode, the settings carry only the `Read(…)` rules that keep held-out tests out of
 * the client's file tools while they are out of sight; they come out (the file back byte for byte)
 * when the held-out tests are back.
 */
async function applyHeldoutOnly(s: Session, state: CliState | null): Promise<string | null> {
  const record = readRecord(s.repo.gitDir);
  const heldout = heldoutFacts(s, state);
  if (heldout === null) {
    if (record.applied === null) return null;
    const outcome = restoreSettings(s.root, s.repo.gitDir);
    if (outcome === 'nothing-applied') return null;
    if (state !== null && active(state)) repinSettings(s, 'held-out tests back');
    appendEvent(s.root, { type: 'heldout-settings', action: 'restore', outcome });
    return `tdd-gate: held-out tests are back: ${SETTINGS_REL} restored (${outcome === 'byte-exact' ? 'byte for byte' : 'your later changes kept, ours removed'}).`;
  }
  const section = heldoutSection(heldout);
  const { changed } = applySection(s.root, s.repo.gitDir, section, state?.phase ?? 'done', s.now());
  if (changed) {
    repinSettings(s, `held-out read rules ${state?.phase ?? ''}`);
    appendEvent(s.root, { type: 'heldout-settings', action: 'apply', rules: section.deny.length });
    if (insideClaudeCode(s.io.env)) await sleep(Number(s.io.env.TDD_GATE_RELOAD_MS ?? RELOAD_MS));
  }
  return changed ? `tdd-gate: held-out tests: ${section.deny.length} Read rules keep them out of the client's file tools in ${SETTINGS_REL} until \`done\`.` : null;
}

async function applyHardening(s: Session): Promise<string | null> {
  const record = readRecord(s.repo.gitDir);
  const state = loadState(s);
  // Without the wall during a cycle, the settings still carry the held-out tests' read rules.
  if (active(state) && modeOf(s).kind !== 'up') return applyHeldoutOnly(s, state);
  try {
    if (!active(state)) {
      const outcome = restoreSettings(s.root, s.repo.gitDir);
      // No sandboxed command can be running now that its section is gone: its leftovers can go.
      const strays = outcome === 'nothing-applied' ? [] : removeStrays(s.root, s.repo.gitDir);
      if (outcome === 'nothing-applied') return null;
      if (active(state)) repinSettings(s, 'hardening off');
      appendEvent(s.root, { type: 'hardening', action: 'restore', outcome, strays });
      return `tdd-gate: OS wall down: ${SETTINGS_REL} restored (${outcome === 'byte-exact' ? 'byte for byte' : 'your later changes kept, ours removed'})${strays.length > 0 ? `; sandbox placeholders removed: ${strays.join(', ')}` : ''}.`;
    }
    if (record.applied === null) notePresentAtStart(s.root, s.repo.gitDir);
    const section = sectionOf(s, state);
    if (section === null) return null;
    const frozenNow = state.phase === 'tdd-green' || state.phase === 'tdd-refactor';
    const wasFrozen = record.applied?.phase === 'tdd-green' || record.applied?.phase === 'tdd-refactor';
    const fresh = frozenNow && !wasFrozen ? refreshInodes(s.root, Object.keys(state.frozen?.files ?? {})) : [];
    const { changed } = applySection(s.root, s.repo.gitDir, section, state.phase, s.now());
    // The state change was anchored before this write: the anchor must know the section is ours.
    if (changed) repinSettings(s, `hardening ${state.phase}`);
    if (changed) appendEvent(s.root, { type: 'hardening', action: 'apply', phase: state.phase, deny_write: section.sandbox.filesystem.denyWrite.length, fresh_inodes: fresh.length });
    // The client applies a changed settings file about a second after the write; the next Bash
    // command must not start before that, so the verb returns only then.
    if (changed && insideClaudeCode(s.io.env)) await sleep(Number(s.io.env.TDD_GATE_RELOAD_MS ?? RELOAD_MS));
    return changed ? `tdd-gate: OS wall: Claude Code's sandbox now holds ${section.sandbox.filesystem.denyWrite.length} paths read-only for ${state.phase}${fresh.length > 0 ? ` (${fresh.length} frozen files given fresh inodes)` : ''}.` : null;
  } catch (err) {
    return explainDenied(err);
  }
}

export function wallStatus(s: Session): WallStatus {
  const record = readRecord(s.repo.gitDir);
  let state: CliState | null = null;
  const problems: string[] = [];
  try {
    state = loadState(s);
  } catch (err) {
    problems.push(`the state cannot be read (${(err as Error).message})`);
  }
  const probed = insideClaudeCode(s.io.env) && active(state) ? probeWall(s.root) : null;
  // Inside the wall a second bubblewrap cannot start (the client refuses nested namespaces): the
  // refused probe write is the proof that the sandbox runs.
  const availability: WallAvailability = probed === true ? { ok: true, backend: 'bubblewrap' } : wallAvailability(s.io.env);
  const mode = modeOf(s, availability);
  const on = mode.kind !== 'off';
  // What was applied for this phase is what the file must carry (HOME or TMPDIR may differ inside the sandbox).
  const applied = on && active(state) && record.applied !== null && record.applied.phase === state.phase && settingsCarry(s.root, record.applied.section);
  const sinceWriteMs = record.applied ? Math.max(0, s.now().getTime() - Date.parse(record.applied.at)) : null;
  if (on) {
    problems.push(...foreignWeakenings(s.root, s.io.env.HOME ?? homedir()));
    const risky = writablePathEntries((s.io.env.PATH ?? '').split(':'), s.root);
    if (risky.length > 0) problems.push(`PATH holds entries a sandboxed command can write (${risky.join(', ')}): a program planted there would run in place of \`node\` outside the wall; remove them from PATH for Claude Code`);
    if (!availability.ok && mode.kind === 'unavailable' && mode.required) problems.push(availability.problem ?? 'the sandbox cannot run');
    if (active(state) && !applied) problems.push(`${SETTINGS_REL} does not carry the section for ${state.phase}; run a tdd-gate verb (it re-applies it) or \`tdd-gate harden on\``);
    if (applied && sinceWriteMs !== null && sinceWriteMs < RELOAD_MS) problems.push('the settings were written under a second ago; the client may not have applied them yet');
    if (probed === false) problems.push('a write to .tdd/ from this Bash call went through: the sandbox is not in force in this session (it is switched on at the session start if bubblewrap was missing then, or turned off in user or managed settings); restart Claude Code');
  }
  return { on, mode, availability, applied, sinceWriteMs, probed, problems };
}

function statusLines(w: WallStatus, cycleActive: boolean): string[] {
  const mode = w.mode;
  if (mode.kind === 'off') return [`tdd-gate: the OS wall is off: ${mode.why} (\`tdd-gate harden auto\` puts the default back).`];
  if (mode.kind === 'unavailable' && !mode.required) return [unavailableLine(mode.problem)];
  const up = w.availability.ok && (!cycleActive || (w.applied && w.problems.length === 0));
  const lines = [
    `tdd-gate: the OS wall is ${mode.kind === 'up' ? mode.why : 'required'}; it is ${!cycleActive ? 'not needed (no active cycle): it goes up at `init`' : up ? (w.probed ? 'UP (a write to .tdd/ from this Bash call was refused by the OS)' : 'UP (settings applied and reloaded)') : 'NOT up'}.`,
    `  sandbox: ${w.availability.ok ? w.availability.backend : `unavailable: ${w.availability.problem ?? ''}`}`,
    `  settings: ${cycleActive ? (w.applied ? `${SETTINGS_REL} carries the section${w.sinceWriteMs !== null ? `, written ${Math.round(w.sinceWriteMs / 1000)} s ago` : ''}` : 'section missing') : 'your own file, untouched'}`,
  ];
  for (const p of w.problems) lines.push(`  problem: ${p}`);
  return lines;
}

async function on(s: Session, io: CliIo): Promise<number> {
  const a = wallAvailability(io.env);
  if (!a.ok) throw new RefusalError(`hardened mode needs Claude Code's Bash sandbox, which cannot run here: ${a.problem ?? 'unknown problem'}. Nothing was changed`);
  assertNoHoles(s, 'other settings would open the wall, so nothing was changed');
  const record = readRecord(s.repo.gitDir);
  const state = loadState(s);
  if (active(state)) assertNoBackgroundTasks(s, 'harden on');
  try {
    writeRecord(s.repo.gitDir, { ...record, on: true, off: false });
  } catch (err) {
    explainDenied(err);
  }
  appendEvent(s.root, { type: 'hardening', action: 'on' });
  await syncHardening(s);
  out(s, active(state) ? `tdd-gate: OS wall required for this worktree (${state.phase}).` : 'tdd-gate: OS wall required for this worktree: it goes up when a cycle starts (`tdd-gate init`, which refuses where the sandbox cannot run) and comes down at `done` or `abort`.');
  return 0;
}

function off(s: Session, io: CliIo): number {
  const state = loadState(s);
  if (active(state) && insideClaudeCode(io.env)) {
    throw new RefusalError(`a cycle is active (${state.phase}); only the person turns the wall off, from a terminal outside Claude Code (\`tdd-gate harden off\`), or the cycle ends (\`done\`, or \`abort\` with the person's consent)`);
  }
  const record = readRecord(s.repo.gitDir);
  try {
    const outcome = restoreSettings(s.root, s.repo.gitDir);
    const strays = outcome === 'nothing-applied' ? [] : removeStrays(s.root, s.repo.gitDir);
    if (outcome !== 'nothing-applied') repinSettings(s, 'hardening off');
    writeRecord(s.repo.gitDir, { ...readRecord(s.repo.gitDir), on: false, off: true });
    appendEvent(s.root, { type: 'hardening', action: 'off', outcome, strays });
    out(s, `tdd-gate: OS wall off for this worktree${outcome === 'nothing-applied' ? '' : `; ${SETTINGS_REL} restored (${outcome === 'byte-exact' ? 'byte for byte' : 'your later changes kept, ours removed'})`}.${record.off === true ? ' (It was off already.)' : ''} \`tdd-gate harden auto\` puts the default back.`);
  } catch (err) {
    explainDenied(err);
  }
  return 0;
}

/** One line on the OS wall for `status`: up, off and why, or the one-line notice where the sandbox cannot run. */
export function wallLine(s: Session, cycleActive: boolean): string {
  const probed = insideClaudeCode(s.io.env) && cycleActive ? probeWall(s.root) : null;
  const mode = modeOf(s, probed === true ? { ok: true, backend: 'bubblewrap' } : undefined);
  if (mode.kind === 'unavailable') return mode.required ? `tdd-gate: the OS wall is required but cannot run here (${mode.problem})` : unavailableLine(mode.problem);
  if (mode.kind === 'off') return `  wall     off: ${mode.why}`;
  if (!cycleActive) return `  wall     ${mode.why}: it goes up at \`init\``;
  if (probed === false) return '  wall     NOT up in this session: a write to .tdd/ from this Bash call went through (restart Claude Code; `tdd-gate harden status` says more)';
  return `  wall     up (${mode.why})${probed === true ? ': a write to .tdd/ from this Bash call was refused' : ''}`;
}

/** Back to the default: the wall wherever the sandbox can run, unless the project opts out. */
async function auto(s: Session): Promise<number> {
  const state = loadState(s);
  const record = readRecord(s.repo.gitDir);
  if (record.off === true && active(state)) assertNoBackgroundTasks(s, 'harden auto');
  try {
    writeRecord(s.repo.gitDir, { ...record, on: false, off: false });
  } catch (err) {
    explainDenied(err);
  }
  appendEvent(s.root, { type: 'hardening', action: 'auto' });
  await syncHardening(s);
  const mode = modeOf(s);
  out(s, mode.kind === 'up' ? 'tdd-gate: OS wall on by default here.' : mode.kind === 'off' ? `tdd-gate: OS wall off: ${mode.why}.` : unavailableLine(mode.problem));
  return 0;
}

export const harden: Verb = {
  name: 'harden',
  summary: 'the OS wall: Claude Code\'s Bash sandbox keeps what the phase protects read-only (on = required, off = off for this worktree, auto = the default, status)',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, { json: { type: 'boolean' } }, USAGE, 1);
    const action = positionals[0];
    if (action !== 'on' && action !== 'off' && action !== 'auto' && action !== 'status') throw new UsageError(`say on, off, auto or status. Usage: ${USAGE}`);
    const s = openSession(io);
    if (action === 'on') return on(s, io);
    if (action === 'off') return off(s, io);
    if (action === 'auto') return auto(s);
    const w = wallStatus(s);
    let cycleActive = false;
    try {
      cycleActive = active(loadState(s));
    } catch {
      cycleActive = true;
    }
    if (values.json) out(s, JSON.stringify({ ...w, active: cycleActive, up: w.mode.kind === 'up' && (!cycleActive || (w.applied && w.problems.length === 0)) }));
    else for (const line of statusLines(w, cycleActive)) out(s, line);
    return 0;
  },
};
