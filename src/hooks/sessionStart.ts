import type { HookResult } from './run.js';

/** SessionStart handler. Placeholder until issue 6 (phase reminder for a resumed session) lands: does nothing. */
export function sessionStart(_input: unknown, _env: NodeJS.ProcessEnv): HookResult {
  return { stdout: '', stderr: '', exitCode: 0 };
}
