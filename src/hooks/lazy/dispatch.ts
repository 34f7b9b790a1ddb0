import type * as Module from '../dispatch.js';

/** The full gate, past the quick check: its own files in dist/hook/, loaded on first use (ADR 007). */
export function load(): Promise<typeof Module> {
  return import('../dispatch.js');
}
