import { existsSync } from 'node:fs';
import path from 'node:path';
import { analyzeBash } from './rules/bash/analyze.js';
import type { BashFacts } from './rules/decideBash.js';
import type { BashCall, CycleFacts } from './rules/facts.js';
import type { BashEvent } from '../state/schema/event.js';
import { contentAfterWrite, insideRoot, writeTargets } from './bashFacts.js';
import { classesOf } from './targetClasses.js';
import { diskOf } from './fileGate.js';
import { scriptReader } from './scriptFacts.js';
import { canonicalize } from '../state/canonicalPath.js';
import type { ActiveCycle } from '../state/cycle.js';
import { cycleFacts } from './fileGate.js';
import { frozenPartChange, partFileOf } from './frozenParts.js';
import { homedir } from 'node:os';
import { findRepo } from '../state/repo.js';
import { anchorPaths } from '../state/anchorPaths.js';
import { cliRoad, type SeenCliCall } from '../tamper/rules/cliRoads.js';
import { issueTickets } from '../tamper/tickets.js';
import type { Decision } from './rules/decision.js';
import { osWallOn } from '../wall/sandboxGate.js';

// Bash-only checks that run before the analysis, here so the Write path's part does not carry them.
export { hardenedBashCheck } from '../wall/sandboxGate.js';
export { gatePluginPrograms } from '../tamper/pluginPrograms.js';
export { isPlainRead } from './plainRead.js';
export { heldoutBashCheck } from '../heldout/bashGate.js';

/**
 * Bash: analyse the command (pure) and gather what the rules ask of the disk. The scripts the
 * command runs (package.json scripts, shell and interpreter files, Makefiles) are read here and
 * handed to the analysis.
 */
export function bashCall(cycle: ActiveCycle, event: BashEvent, env: NodeJS.ProcessEnv, kind: 'bash' | 'monitor' = 'bash'): BashCall {
  const analysis = analyzeBash(event.tool_input.command, {
    cwd: event.cwd,
    home: cycle.home,
    root: cycle.repo.root,
    inherited: inheritedEnv(env),
    read: scriptReader(),
    exists: existsSync,
    allow: (cycle.stack.config.bash_allow ?? []).map(allowWords),
  });
  return { analysis, facts: bashFacts(cycle, event, kind) };
}

/** With no active cycle, a command that names the CLI: the CLI calls it makes (the analysis alone). */
function cliCallsOutsideCycle(event: BashEvent, home: string): SeenCliCall[] {
  const command = event.tool_input.command;
  if (!command.includes('tdd-gate') && !command.includes('cli.mjs')) return [];
  let root = event.cwd;
  try {
    root = findRepo(event.cwd)?.root ?? event.cwd;
  } catch {
    // the cwd as given
  }
  return analyzeBash(command, { cwd: event.cwd, home, root, inherited: inheritedEnv(process.env), read: scriptReader() }).cliCalls;
}

/**
 * The CLI's road through this Bash call (src/tamper/rules/cliRoads.ts): subagents are denied its
 * state-changing verbs, the person's verbs are asked about, and every verb the call may run gets
 * its one-shot ticket in the anchor store of each repository the call can touch.
 */
export function ticketCliCalls(event: BashEvent, cycles: readonly ActiveCycle[], verdict: Decision, seen: SeenCliCall[] | null, env: NodeJS.ProcessEnv): Decision {
  const found = seen !== null && seen.length > 0 ? seen : cliCallsOutsideCycle(event, env.HOME ?? homedir());
  // One project's gate and another's may both report a call: one ticket each.
  const calls = found.filter((c, i) => found.findIndex((d) => d.text === c.text && d.args.join('\u0000') === c.args.join('\u0000')) === i);
  const { decision, tickets } = cliRoad(calls, event.agent_type, cycles.length > 0, verdict);
  if (tickets.length === 0) return decision;
  const homes = new Set(cycles.map((c) => c.anchorPaths.home));
  try {
    const here = findRepo(event.cwd);
    if (here !== null) homes.add(anchorPaths(here, env).home);
  } catch {
    // no repository at the cwd
  }
  const session = typeof (event as { session_id?: unknown }).session_id === 'string' ? (event as { session_id: string }).session_id : null;
  for (const home of homes) issueTickets(home, tickets.map((t) => ({ ...t, session, toolUseId: event.tool_use_id ?? null })));
  return decision;
}

/**
 * Variables the Bash tool's shell inherits from Claude Code, as the hook does: temp dirs and the
 * project and plugin roots. Resolving them keeps `echo x > "$TMPDIR/log"` from failing closed.
 */
const INHERITED = ['TMPDIR', 'TMP', 'TEMP', 'CLAUDE_PROJECT_DIR', 'CLAUDE_PLUGIN_ROOT', 'USER', 'LOGNAME', 'XDG_CACHE_HOME', 'XDG_RUNTIME_DIR', 'CDPATH'];

function inheritedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of INHERITED) {
    const v = env[name];
    if (v !== undefined && v !== '') out[name] = v;
  }
  return out;
}

/** A `bash_allow` entry as words: `make test` is `make` with `test` first. */
function allowWords(entry: string): string[] {
  return entry.split(' ').filter((w) => w !== '');
}

/**
 * Permission modes in which an ask reaches a person: in `bypassPermissions` and `auto` the client
 * may settle it without them, in `dontAsk` it is refused unseen. A client that sends no mode asks.
 * A non-interactive run (`-p`) that cannot ask refuses the call itself: still nothing runs silently.
 */
const ASKING_MODES = new Set(['default', 'acceptEdits', 'plan']);

/**
 * The project's explicit opt-in (stack.json `"bash_allow": ["run_in_background"]`): the Bash tool's
 * background flag is then not unmodelled by itself. The command is still analysed like any other;
 * what it does after it returned is caught by the checks after every call (frozen files restored,
 * records that go missing fail closed). A Monitor (no PostToolUse of its own) and a `&` job are not covered.
 */
export const BACKGROUND_ALLOW = 'run_in_background';

export function bashFacts(cycle: ActiveCycle, event: BashEvent, kind: 'bash' | 'monitor' = 'bash'): BashFacts {
  const disk = diskOf(cycle);
  let memo: CycleFacts | null = null;
  const mode = event.permission_mode;
  return {
    osWall: osWallOn(cycle.repo),
    canAsk: mode === undefined || ASKING_MODES.has(mode),
    background: (event.tool_input as { run_in_background?: unknown }).run_in_background === true && !(kind === 'bash' && (cycle.stack.config.bash_allow ?? []).some((e) => e.trim() === BACKGROUND_ALLOW)),
    cwd: event.cwd,
    agentType: event.agent_type,
    specId: cycle.state.spec_id,
    phase: cycle.state.phase,
    mode: cycle.state.mode,
    // SPEC drift is hashed only once, and only when a rule asks for it (a test or source target).
    cycle: () => (memo ??= cycleFacts(cycle, event.agent_type)),
    targets: (w, cwd) => writeTargets(disk, w, cwd),
    classesOf: (cwd, raw) => classesOf(disk, cwd, raw).classes,
    contentAfter: contentAfterWrite,
    outsideProject: (dir) => !insideRoot(cycle.repo.root, canonicalize(path.resolve(event.cwd, dir))),
    allExist: (paths, cwd) => paths.every((p) => existsSync(path.resolve(cwd, p))),
    frozenPart: (w, cwd, t) => {
      const file = partFileOf(cycle, t.real);
      if (file === null) return undefined;
      if (w.pkgKeys !== undefined) return frozenPartChange(cycle, file, t.real, null, w.pkgKeys);
      if (w.removes) return frozenPartChange(cycle, file, t.real, { text: null });
      const after = contentAfterWrite(w, cwd, t.real);
      return frozenPartChange(cycle, file, t.real, after === null ? null : { text: after });
    },
    display: (abs) => {
      const rel = path.relative(cycle.repo.root, abs);
      return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : abs;
    },
  };
}
