import type * as Module from '../bashPreToolUse.js';

/** The gate with the shell parser and the Bash analysis, for Bash and Monitor calls: its own file in dist/hook/ (ADR 007). */
export function load(): Promise<typeof Module> {
  return import('../bashPreToolUse.js');
}
