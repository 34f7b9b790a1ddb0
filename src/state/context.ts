import type { Repo } from './repo.js';

/** Where a command's output goes, and the directory and environment it runs in. */
export interface Io {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

/**
 * Where a piece of work runs: the repository, its branch's state file, the clock and the output.
 * A plain value: the CLI opens one per command (cli/session.ts), a test builds its own; the wings
 * (verification, hand-offs, audit) take this, never the CLI itself.
 */
export interface Context {
  io: Io;
  repo: Repo;
  root: string;
  statePath: string;
  stateRel: string;
  now: () => Date;
}
