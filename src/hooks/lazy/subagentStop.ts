import type * as Module from '../subagentStop.js';

/** The tdd-result checks, for SubagentStop only. Its own file in dist/hook/, loaded on first use (ADR 007). */
export function load(): Promise<typeof Module> {
  return import('../subagentStop.js');
}
