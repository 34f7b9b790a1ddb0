import { existsSync } from 'node:fs';
import path from 'node:path';
import { analyzeBash } from '../core/bash/analyze.js';
import type { Decision } from '../core/decision.js';
import { decideBash, type BashFacts } from '../core/decideBash.js';
import type { CycleFacts } from '../core/decideWrite.js';
import type { BashEvent } from '../schema/event.js';
import { contentAfterWrite, insideRoot, writeTargets } from '../io/bashFacts.js';
import { classesOf } from '../io/targetClasses.js';
import { diskOf } from './fileGate.js';
import { scriptReader } from '../io/scriptFacts.js';
import { canonicalize } from '../io/canonicalPath.js';
import type { ActiveCycle } from './cycle.js';
import { cycleFacts } from './fileGate.js';
import { frozenPartChange, partFileOf } from './frozenParts.js';
import { osWallOn } from '../io/sandboxGate.js';

// Bash-only checks that run before the analysis, here so the Write path's part does not carry them.
export { hardenedBashCheck } from '../io/sandboxGate.js';
export { gatePluginPrograms } from './pluginPrograms.js';
export { isPlainRead } from './plainRead.js';

/**
 * Bash: analyse the command (pure), gather what the policy asks of the disk, decide (pure).
 * The scripts the command runs (package.json scripts, shell and interpreter files, Makefiles)
 * are read here and handed to the analysis.
 */
export function gateBash(cycle: ActiveCycle, event: BashEvent): Decision {
  const analysis = analyzeBash(event.tool_input.command, {
    cwd: event.cwd,
    home: cycle.home,
    root: cycle.repo.root,
    inherited: inheritedEnv(process.env),
    read: scriptReader(),
    exists: existsSync,
    allow: (cycle.stack.config.bash_allow ?? []).map(allowWords),
  });
  return decideBash(analysis, bashFacts(cycle, event));
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

export function bashFacts(cycle: ActiveCycle, event: BashEvent): BashFacts {
  const disk = diskOf(cycle);
  let memo: CycleFacts | null = null;
  const mode = event.permission_mode;
  return {
    osWall: osWallOn(cycle.repo),
    canAsk: mode === undefined || ASKING_MODES.has(mode),
    background: (event.tool_input as { run_in_background?: unknown }).run_in_background === true,
    cwd: event.cwd,
    agentType: event.agent_type,
    specId: cycle.state.spec_id,
    phase: cycle.state.phase,
    mode: cycle.state.mode,
    // SPEC drift is hashed only once, and only when some target is a test or source file.
    cycle: () => (memo ??= cycleFacts(cycle, event.agent_type, true)),
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
