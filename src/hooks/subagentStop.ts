import type { HookResult } from './run.js';

/** SubagentStop handler. Placeholder until issue 5 (tdd-result block on the way out) lands: does nothing. */
export function subagentStop(_input: unknown, _env: NodeJS.ProcessEnv): HookResult {
  return { stdout: '', stderr: '', exitCode: 0 };
}
