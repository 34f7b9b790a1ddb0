import { readFileSync } from 'node:fs';
import { checkBaseState } from './schema/handChecks.js';
import type { BaseState } from './schema/state.js';
import { STATE_VERSION } from './schema/stateKeys.js';
import { GateError } from './rules/errors.js';

/** A state object: the DESIGN §2 keys plus whatever keys other parts keep (preserved as they are). */
export type StoredState = BaseState & Record<string, unknown>;

// The one reader of state files, for the hook and the CLI alike (the CLI's locked writes are in stateStore.ts).
const CORRUPT_FIX =
  'Run `tdd-gate status` for details; restore the file, or have the user end the cycle with `tdd-gate abort --reason "<why>"` (it keeps the file as a .corrupt copy). Do not edit it by hand.';

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
  const text = readStateText(statePath);
  return text === null ? null : parseState(text, statePath);
}

/** The state file's exact text (the anchor hashes it); null when there is none. */
export function readStateText(statePath: string): string | null {
  try {
    return readFileSync(statePath, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new GateError(`cannot read ${statePath}: ${(err as Error).message}`, 'state-unreadable', { cause: err });
  }
}

export function parseState(text: string, statePath: string): StoredState {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new GateError({ problem: `the state file ${statePath} is not valid JSON (${(err as Error).message}); it was left untouched`, fix: CORRUPT_FIX }, 'state-corrupt', { cause: err });
  }
  // By hand, not by baseStateSchema: the hook reads the state on every gated call (ADR 007).
  const checked = checkBaseState(migrateState(json, statePath));
  if (!checked.ok) {
    throw new GateError({ problem: `the state file ${statePath} is invalid: ${checked.issues}; it was left untouched`, fix: CORRUPT_FIX }, 'state-corrupt');
  }
  return checked.value;
}

