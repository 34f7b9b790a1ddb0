import { readFileSync } from 'node:fs';
import { baseStateSchema, type BaseState } from '../schema/state.js';
import { formatIssues } from '../schema/format.js';
import { GateError } from './errors.js';

/** The branch's state, or null when the file does not exist (TDD not active). */
export function readStateFile(statePath: string): BaseState | null {
  let text: string;
  try {
    text = readFileSync(statePath, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new GateError(`cannot read the state file ${statePath} (${(err as Error).message}).`, 'state-unreadable', { cause: err });
  }
  return parseState(text, statePath);
}

export function parseState(text: string, statePath: string): BaseState {
  const fix = `Run \`tdd-gate status\` to see the problem, restore the file from a backup, or have the user end the cycle with \`tdd-gate abort --reason "<why>"\`; do not write the file by hand.`;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new GateError(`the state file ${statePath} is not valid JSON (${(err as Error).message}). ${fix}`, 'state-corrupt', { cause: err });
  }
  const parsed = baseStateSchema.safeParse(json);
  if (!parsed.success) {
    throw new GateError(`the state file ${statePath} is invalid: ${formatIssues(parsed.error)}. ${fix}`, 'state-corrupt', { cause: parsed.error });
  }
  return parsed.data;
}
