import { runHook, type Clock, type Store } from '../../src/hooks/run.js';
import type { AnchorRecord } from '../../src/state/anchor.js';
import type { Repo } from '../../src/state/repo.js';
import { statePathFor } from '../../src/state/statePath.js';
import { DEFAULT_STACK } from './repo.js';
import type { HookRun } from './hook.js';

/**
 * The hook's whole decision in process: the same entry the built bundle runs (src/hooks/run.ts,
 * from the kill switch and the JSON parse through the quick check to the part that decides and
 * the one renderer), against the sources, with no build and no process. Its answer has the shape
 * of the bundle's (test/helpers/hook.ts), so a table reads the same either way; what only the
 * bundle can show (the boot, the code cache, exit on a crash, the wire through a pipe) stays in
 * the contract suite (test/integration/entry.test.ts and the e2e tests).
 */
export async function runHookInProcess(
  input: unknown,
  opts: { env?: NodeJS.ProcessEnv; event?: string; raw?: boolean; store?: Store | null; clock?: Clock } = {},
): Promise<HookRun> {
  const stdin = opts.raw ? String(input) : JSON.stringify(input);
  const env = { ...process.env, TDD_GATE_DISABLE: '', ...opts.env };
  const r = await runHook(stdin, opts.event, env, { clock: opts.clock ?? { now: () => Date.now() }, store: opts.store ?? null });
  return { status: r.exitCode, stdout: r.stdout, stderr: r.stderr, ...read(r.stdout) };
}

function read(stdout: string): Pick<HookRun, 'decision' | 'reason'> {
  if (stdout.trim() === '') return { decision: 'pass', reason: '' };
  try {
    const out = JSON.parse(stdout) as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
    const d = out.hookSpecificOutput?.permissionDecision;
    return { decision: d === 'deny' || d === 'ask' ? d : 'other', reason: out.hookSpecificOutput?.permissionDecisionReason ?? '' };
  } catch {
    return { decision: 'other', reason: '' };
  }
}

/** A clock that reads `at` (ms since the epoch, or an ISO date) until the test moves it. */
export function fixedClock(at: number | string): Clock & { set(at: number | string): void } {
  let now = typeof at === 'number' ? at : Date.parse(at);
  return {
    now: () => now,
    set(next) {
      now = typeof next === 'number' ? next : Date.parse(next);
    },
  };
}

/**
 * The records of one branch's cycle, held in memory instead of `.tdd/` and the anchor: a
 * table's state and stack config go straight to the gate. `null` is "none stored", a string is
 * stored as it is (a corrupt file), an object as JSON. The live facts (the files the call
 * touches, the SPEC, git) stay in the repository at `root`.
 */
export function memoryStore(records: { root: string; branch?: string; state?: object | string | null; stack?: object | string | null; anchor?: AnchorRecord | null }): Store {
  const branch = records.branch ?? 'main';
  const statePath = statePathFor({ root: records.root, branch } as Repo);
  const text = (v: object | string | null | undefined) => (v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v, null, 2));
  const stack = records.stack === undefined ? DEFAULT_STACK : records.stack;
  return {
    readStateText: (p) => (p === statePath ? text(records.state) : null),
    readStackText: (root) => (root === records.root ? text(stack) : null),
    readAnchor: () => records.anchor ?? null,
    hasLiveState(root, b) {
      if (root !== records.root || b !== branch) return false;
      if (records.anchor?.active === true) return true;
      const s = records.state;
      return s !== null && s !== undefined && (typeof s === 'string' || (s as { phase?: unknown }).phase !== 'done');
    },
  };
}
