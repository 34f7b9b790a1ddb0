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

// Bash-only checks that run before the analysis, here so the Write path's part does not carry them.
export { hardenedBashCheck } from '../wall/sandboxGate.js';
export { gatePluginPrograms } from '../tamper/pluginPrograms.js';
export { isPlainRead } from './plainRead.js';

/**
 * Bash: analyse the command (pure) and gather what the rules ask of the disk. The scripts the
 * command runs (package.json scripts, shell and interpreter files, Makefiles) are read here and
 * handed to the analysis.
 */
export function bashCall(cycle: ActiveCycle, event: BashEvent, env: NodeJS.ProcessEnv): BashCall {
  const analysis = analyzeBash(event.tool_input.command, {
    cwd: event.cwd,
    home: cycle.home,
    root: cycle.repo.root,
    inherited: inheritedEnv(env),
    read: scriptReader(),
  });
  return { analysis, facts: bashFacts(cycle, event) };
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

export function bashFacts(cycle: ActiveCycle, event: BashEvent): BashFacts {
  const disk = diskOf(cycle);
  let memo: CycleFacts | null = null;
  return {
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
