import type * as Module from '../bashGate.js';

/** The shell parser and Bash analysis, for Bash calls only. Its own file in dist/hook/, loaded on first use (ADR 007). */
export function load(): Promise<typeof Module> {
  return import('../bashGate.js');
}
