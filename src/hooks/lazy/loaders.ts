import type * as BashPreToolUse from '../bashPreToolUse.js';
import type * as PostToolUse from '../postToolUse.js';
import type * as PreToolUse from '../preToolUse.js';
import type * as SessionStart from '../sessionStart.js';
import type * as SubagentStop from '../subagentStop.js';

/**
 * The hook's parts, one loader each: every `import('../<part>.js')` here is one part, its own file
 * in dist/hook/ loaded past the quick check (ADR 007). scripts/build.mjs finds the parts by reading
 * this file, and turns each import into loadPart() of the part's bundle (./parts.ts, code-cached).
 * Plain functions, not an object of closures: nothing is created at load but the declarations.
 */

/** The gate for every tool call but Bash and Monitor. */
export function loadPreToolUse(): Promise<typeof PreToolUse> {
  return import('../preToolUse.js');
}

/** The gate with the shell parser and the Bash analysis, for Bash and Monitor calls and a skill's shell commands. */
export function loadBashPreToolUse(): Promise<typeof BashPreToolUse> {
  return import('../bashPreToolUse.js');
}

/** The after-the-fact Bash check. */
export function loadPostToolUse(): Promise<typeof PostToolUse> {
  return import('../postToolUse.js');
}

/** The tdd-result checks, for SubagentStop only. */
export function loadSubagentStop(): Promise<typeof SubagentStop> {
  return import('../subagentStop.js');
}

/** The session-start reminder. */
export function loadSessionStart(): Promise<typeof SessionStart> {
  return import('../sessionStart.js');
}
