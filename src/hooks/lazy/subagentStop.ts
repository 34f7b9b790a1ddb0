import type * as Module from '../subagentStop.js';

/** The tdd-result checks, for SubagentStop only. Loaded on first use; the build embeds it as text compiled on demand (ADR 003). */
export function load(): Promise<typeof Module> {
  return import('../subagentStop.js');
}
