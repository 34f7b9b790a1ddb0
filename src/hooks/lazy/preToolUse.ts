import type * as Module from '../preToolUse.js';

/** The gate for every tool call but Bash and Monitor: its own file in dist/hook/, loaded past the quick check (ADR 007). */
export function load(): Promise<typeof Module> {
  return import('../preToolUse.js');
}
