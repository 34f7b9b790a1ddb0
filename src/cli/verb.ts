import type { Io } from '../state/context.js';

/** The CLI's input and output (the state room's Io). */
export type CliIo = Io;

/** One CLI verb. `run` returns the exit code: 0 ok, 1 refusal, 2 usage error. */
export interface Verb {
  name: string;
  summary: string;
  usage: string;
  /** Shown by `--help` after the usage and the summary: what the verb needs that the usage line cannot say. */
  help?: string;
  /** True when the verb changes state (the Bash gate keeps subagents away from these). */
  mutates: boolean;
  run(args: string[], io: CliIo): Promise<number>;
}
