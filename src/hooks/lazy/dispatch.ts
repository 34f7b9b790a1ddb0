import type * as Module from '../dispatch.js';

/** The full gate, past the quick check. Loaded on first use; the build embeds it as text compiled on demand (ADR 003). */
export function load(): Promise<typeof Module> {
  return import('../dispatch.js');
}
