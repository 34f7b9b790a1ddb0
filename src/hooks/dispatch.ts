import { deny, toHookOutput } from '../core/decision.js';
import { errorMessage } from '../io/errors.js';
import { preToolUse } from './preToolUse.js';
import type { HookResult } from './run.js';

/** Routes a parsed hook input to its event handler. Exceptions propagate to runHook's single catch. */
export function dispatch(eventName: string, input: unknown, parseError: unknown, env: NodeJS.ProcessEnv): HookResult {
  switch (eventName) {
    case 'PreToolUse': {
      const decision =
        parseError !== null
          ? deny('bad-input', `the hook input is not valid JSON (${errorMessage(parseError)}); the call is blocked to stay safe. Retry the tool call.`)
          : preToolUse(input, env);
      return { stdout: toHookOutput(decision), stderr: '', exitCode: 0 };
    }
    default:
      return { stdout: '', stderr: `tdd-gate: no handler for hook event ${eventName}\n`, exitCode: 0 };
  }
}
