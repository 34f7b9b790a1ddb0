import type { HookResult } from './run.js';

/** PostToolUse handler. Placeholder until issue 3 (Bash after-the-fact check) lands: does nothing. */
export function postToolUse(_input: unknown, _env: NodeJS.ProcessEnv): HookResult {
  return { stdout: '', stderr: '', exitCode: 0 };
}
