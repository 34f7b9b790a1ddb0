import type * as Module from '../sessionStart.js';

/** The session-start reminder. Its own file in dist/hook/, loaded on first use (ADR 007). */
export function load(): Promise<typeof Module> {
  return import('../sessionStart.js');
}
