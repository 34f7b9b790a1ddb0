import { mkdirSync, readFileSync, renameSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { baseStateSchema, STATE_VERSION, type BaseState } from '../schema/state.js';
import { formatIssues } from '../schema/format.js';
import { GateError } from './errors.js';

/** A state object: the DESIGN §2 keys plus whatever keys other parts keep (preserved as they are). */
export type StoredState = BaseState & Record<string, unknown>;

export class StateLockError extends Error {
  override name = 'StateLockError';
}

const CORRUPT_FIX = 'Restore it, or end the cycle with `tdd-gate abort --reason "<why>"` (it keeps the file as a .corrupt copy).';

/**
 * One step per old version, each turning version n into n + 1. Empty while version 1 is the only
 * one; a state written by a newer tdd-gate is refused rather than guessed at.
 */
const MIGRATIONS: Record<number, (old: Record<string, unknown>) => Record<string, unknown>> = {};

export function migrateState(json: unknown, statePath: string): unknown {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return json;
  let state = json as Record<string, unknown>;
  const version = state.version;
  if (typeof version === 'number' && version > STATE_VERSION) {
    throw new GateError(`the state file ${statePath} has version ${version}, newer than this tdd-gate understands (${STATE_VERSION}); update the plugin`, 'state-newer');
  }
  for (let v = typeof version === 'number' ? version : STATE_VERSION; v < STATE_VERSION; v++) {
    const step = MIGRATIONS[v];
    if (!step) break;
    state = { ...step(state), version: v + 1 };
  }
  return state;
}

/** Read and validate; null when there is no state file. Never repairs or overwrites a corrupt file. */
export function readState(statePath: string): StoredState | null {
  let text: string;
  try {
    text = readFileSync(statePath, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new GateError(`cannot read ${statePath}: ${(err as Error).message}`, 'state-unreadable', { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new GateError(`the state file ${statePath} is not valid JSON (${(err as Error).message}); it was left untouched. ${CORRUPT_FIX}`, 'state-corrupt', { cause: err });
  }
  const parsed = baseStateSchema.safeParse(migrateState(json, statePath));
  if (!parsed.success) {
    throw new GateError(`the state file ${statePath} is invalid: ${formatIssues(parsed.error)}; it was left untouched. ${CORRUPT_FIX}`, 'state-corrupt', { cause: parsed.error });
  }
  return parsed.data;
}

/** Temp file + rename: a reader (the hook) sees the old file or the new one, never a torn one. */
export function writeStateAtomic(statePath: string, state: StoredState): void {
  mkdirSync(path.dirname(statePath), { recursive: true });
  const validated = baseStateSchema.safeParse(state);
  if (!validated.success) throw new GateError(`refusing to write an invalid state: ${formatIssues(validated.error)}`, 'state-invalid');
  const tmp = `${statePath}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify(state, null, 2) + '\n');
    renameSync(tmp, statePath);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
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
    const current = readState(statePath);
    const next = await fn(current);
    if (compromised) throw new StateLockError(`the lock on ${statePath} was lost while updating; nothing was written. Retry.`, { cause: compromised });
    if (next === undefined) return current;
    if (next === null) {
      rmSync(statePath, { force: true });
      return null;
    }
    writeStateAtomic(statePath, next);
    return next;
  } finally {
    await release().catch(() => undefined);
  }
}
