import type * as Module from '../bashGate.js';

/** The shell parser and Bash analysis, for Bash calls only. Loaded on first use; the build embeds it as text compiled on demand (ADR 003). */
export function load(): Promise<typeof Module> {
  return import('../bashGate.js');
}
