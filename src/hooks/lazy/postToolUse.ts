import type * as Module from '../postToolUse.js';

/** The after-the-fact Bash check. Loaded on first use; the build embeds it as text compiled on demand (ADR 003). */
export function load(): Promise<typeof Module> {
  return import('../postToolUse.js');
}
