import type { Io } from '../state/context.js';
import type { VerbName } from '../state/rules/verbs.js';

/** The CLI's input and output (the state room's Io). */
export type CliIo = Io;

/**
 * One CLI verb. `run` returns the exit code: 0 ok, 1 refusal, 2 usage error. What the hook knows of
 * it (whether it changes state, the wall, the person's confirmation) is its entry in
 * src/state/rules/verbs.ts, under the same name.
 */
export interface Verb {
  name: VerbName;
  summary: string;
  usage: string;
  /** Shown by `--help` after the usage and the summary: what the verb needs that the usage line cannot say. */
  help?: string;
  run(args: string[], io: CliIo): Promise<number>;
}
