import type { ActivePhase, Mode } from '../state/schema/state.js';
import { errorMessage } from '../state/rules/errors.js';
import { hardeningNote } from '../wall/sandbox.js';
import { loadCycle } from '../state/cycle.js';
import { REAL_DEPS, type HookDeps } from '../state/store.js';
import { NOTHING, sessionContext, type HookResult } from './output.js';

/** What each phase allows and what moves it on; the same rules the gate and the CLI apply. */
const PHASE: Record<ActivePhase, { rules: string; writer: string; next: string }> = {
  'tdd-plan': {
    rules: 'only the test plan under .tdd/plans/ may be written; tests, sources, the SPEC and the rest of .tdd/ are denied',
    writer: 'tdd-gate:planner (or you, the orchestrator) writes the plan',
    next: 'finish the plan, then `tdd-gate advance red --plan <file>`',
  },
  'tdd-red': {
    rules: 'test files may be written; a source file only if it carries a STUB:TDD marker; the SPEC and .tdd/ are denied',
    writer: 'only tdd-gate:test-writer writes tests and stubs',
    next: '`tdd-gate verify red`, a tdd-gate:test-validator review, then `tdd-gate freeze --verdict <file>`',
  },
  'tdd-green': {
    rules: 'source files may be written; the tests, test configs and the SPEC are frozen (denied); .tdd/ is denied',
    writer: 'only tdd-gate:implementer writes sources',
    next: 'implement one acceptance criterion at a time, then `tdd-gate verify green`, then `tdd-gate advance refactor` or `tdd-gate done`',
  },
  'tdd-refactor': {
    rules: 'source files may be changed without changing behaviour; tests and the SPEC stay frozen; git HEAD and the stash must not move',
    writer: 'only tdd-gate:refactorer writes sources',
    next: '`tdd-gate verify refactor` (with `--revert` to undo a broken refactor), then `tdd-gate done`',
  },
};

/**
 * SessionStart: when a TDD cycle is active on the branch, tell the model where it stands (phase,
 * what the gate allows, the next step), so a resumed session does not fight the gate blindly.
 * Fails soft: a session start is never blocked, whatever goes wrong here.
 */
export function sessionStart(input: unknown, env: NodeJS.ProcessEnv, deps: HookDeps = REAL_DEPS): HookResult {
  try {
    const cwd = (input as { cwd?: unknown } | null)?.cwd;
    if (typeof cwd !== 'string' || cwd === '') return NOTHING;
    const lookup = loadCycle(cwd, env, deps.store);
    if (!lookup.active) return NOTHING;
    const { state, repo, stack } = lookup.cycle;
    const hardened = hardeningNote(repo, env, stack.config.os_wall);
    return context(phaseContext(state.phase, state.mode, state.spec_id, state.spec_path, repo.branch, cliCommand(env)) + (hardened ? `\n${hardened}` : ''));
  } catch (err) {
    // A broken state or stack.json: the gate will deny writes, so say why up front.
    return context(
      `tdd-gate: a TDD cycle state exists on this branch but cannot be read (${errorMessage(err)}). ` +
        `While it is broken the gate denies test and source writes. Run \`${cliCommand(env)} status\` to see the problem and tell the user; do not try to work around the gate.`,
    );
  }
}

/** How the model runs the CLI: the bundle inside the plugin (hooks get its root), else the package bin. */
export function cliCommand(env: NodeJS.ProcessEnv): string {
  const root = env.CLAUDE_PLUGIN_ROOT;
  return typeof root === 'string' && root !== '' ? `node "${root}/dist/cli.mjs"` : 'tdd-gate';
}

function phaseContext(phase: ActivePhase, mode: Mode, specId: string, specPath: string, branch: string, cli = 'tdd-gate'): string {
  const p = PHASE[phase];
  const roles =
    mode === 'standard'
      ? `Mode standard: ${p.writer}; the main thread and other agents cannot write tests or sources, and subagents cannot run state-changing tdd-gate verbs.`
      : `Mode ${mode}: the phase rules apply to everyone (no role separation).`;
  return [
    `tdd-gate: a TDD cycle is active on branch ${branch}: ${specId} (${specPath}), phase ${phase}.`,
    `In this phase ${p.rules}. ${roles}`,
    `Next step: ${p.next}. Run the CLI as \`${cli} <verb>\` (Bash); \`${cli} status\` shows the details. Continue with the /tdd skill.`,
    'The SPEC is append-only once frozen; never edit a frozen test. Branch switches, merges and resets are denied until `tdd-gate done`; only the user ends a cycle early (`tdd-gate abort`).',
  ].join('\n');
}

function context(text: string): HookResult {
  return sessionContext(text);
}
