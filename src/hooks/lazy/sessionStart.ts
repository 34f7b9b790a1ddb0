import type * as Module from '../sessionStart.js';

/** The session-start reminder. Loaded on first use; the build embeds it as text compiled on demand (ADR 003). */
export function load(): Promise<typeof Module> {
  return import('../sessionStart.js');
}
