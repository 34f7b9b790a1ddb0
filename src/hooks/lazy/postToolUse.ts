import type * as Module from '../postToolUse.js';

/** The after-the-fact Bash check. Its own file in dist/hook/, loaded on first use (ADR 007). */
export function load(): Promise<typeof Module> {
  return import('../postToolUse.js');
}
