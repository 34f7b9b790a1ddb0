import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { baseStateSchema } from './schema/state.js';
import { formatIssues } from './schema/format.js';
import { GateError } from './rules/errors.js';
import { writeAtomic } from './atomicWrite.js';
import { anchorMismatch, journalStateChange, subagentCommandRunning } from './anchor.js';
import { parseState, readStateText, type StoredState } from './loadState.js';

export { migrateState, readState, type StoredState } from './loadState.js';

export class StateLockError extends Error {
  override name = 'StateLockError';
}

/**
 * Temp file + rename: a reader (the hook) sees the old file or the new one, never a torn one.
 * Every write is journaled in the anchor outside the work tree (ADR 006).
 */
function writeStateAtomic(statePath: string, state: StoredState): void {
  const validated = baseStateSchema.safeParse(state);
  if (!validated.success) throw new GateError(`refusing to write an invalid state: ${formatIssues(validated.error)}`, 'state-invalid');
  const text = JSON.stringify(state, null, 2) + '\n';
  writeAtomic(statePath, text);
  journalStateChange(statePath, text);
}

/** Lock the state file of `statePath` for `fn` (the same lock withState takes). */
export async function withStateLock<T>(statePath: string, fn: () => T | Promise<T>): Promise<T> {
  mkdirSync(path.dirname(statePath), { recursive: true });
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(statePath, { realpath: false, stale: 10_000, update: 2_000, retries: { retries: 50, factor: 1.3, minTimeout: 20, maxTimeout: 500 }, onCompromised: () => undefined });
  } catch (err) {
    throw new StateLockError(`could not lock ${statePath} (${(err as Error).message}); another tdd-gate command is running. Retry in a moment.`, { cause: err });
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}

/** Put a state file's exact text back (recover): the anchor already holds this very text. */
export function restoreStateText(statePath: string, text: string): void {
  writeAtomic(statePath, text);
}

/**
 * The one locked read-modify-write. `fn` gets the current state (null when none) and returns the
 * next one, or undefined to leave the file as it is. The lock is on the state file's directory
 * entry (proper-lockfile's `<file>.lock`), so concurrent CLI calls serialize.
 */
export async function withState<T extends StoredState | null | undefined>(
  statePath: string,
  fn: (current: StoredState | null) => T | Promise<T>,
): Promise<StoredState | null> {
  mkdirSync(path.dirname(statePath), { recursive: true });
  let compromised: Error | null = null;
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(statePath, {
      realpath: false,
      stale: 10_000,
      update: 2_000,
      retries: { retries: 50, factor: 1.3, minTimeout: 20, maxTimeout: 500 },
      onCompromised: (err) => {
        compromised = err;
      },
    });
  } catch (err) {
    throw new StateLockError(`could not lock ${statePath} (${(err as Error).message}); another tdd-gate command is running. Retry in a moment.`, { cause: err });
  }
  try {
    const text = readStateText(statePath);
    const current = text === null ? null : parseState(text, statePath);
    const next = await fn(current);
    if (compromised) throw new StateLockError(`the lock on ${statePath} was lost while updating; nothing was written. Retry.`, { cause: compromised });
    if (next === undefined) return current;
    // Ending a cycle on purpose is always possible; any other change needs the state the CLI last wrote.
    const ending = next === null || (next.phase === 'done' && 'aborted' in next);
    const mismatch = ending ? null : anchorMismatch(statePath, text);
    if (mismatch !== null) throw new GateError(mismatch, 'state-tampered');
    const subagent = ending ? null : subagentCommandRunning(statePath);
    if (subagent !== null) throw new GateError(subagent, 'subagent-cli');
    if (next === null) {
      rmSync(statePath, { force: true });
      journalStateChange(statePath, null);
      return null;
    }
    writeStateAtomic(statePath, next);
    return next;
  } finally {
    await release().catch(() => undefined);
  }
}
