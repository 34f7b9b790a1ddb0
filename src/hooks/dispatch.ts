import { deny, toHookOutput } from '../core/decision.js';
import { errorMessage } from '../io/errors.js';
import { postToolUse } from './postToolUse.js';
import { preToolUse } from './preToolUse.js';
import type { HookResult } from './run.js';
import { sessionStart } from './sessionStart.js';
import { subagentStop } from './subagentStop.js';

/** Routes a parsed hook input to its event handler. Exceptions propagate to runHook's single catch. */
export function dispatch(eventName: string, input: unknown, parseError: unknown, env: NodeJS.ProcessEnv): HookResult {
  if (eventName === 'PreToolUse') {
    const decision =
      parseError !== null
        ? deny('bad-input', `the hook input is not valid JSON (${errorMessage(parseError)}); the call is blocked to stay safe. Retry the tool call.`)
        : preToolUse(input, env);
    return { stdout: toHookOutput(decision), stderr: '', exitCode: 0 };
  }
  if (parseError !== null) {
    return { stdout: '', stderr: `tdd-gate: the ${eventName} hook input is not valid JSON (${errorMessage(parseError)})\n`, exitCode: 1 };
  }
  switch (eventName) {
    case 'PostToolUse':
      return postToolUse(input, env);
    case 'SubagentStop':
      return subagentStop(input, env);
    case 'SessionStart':
      return sessionStart(input, env);
    default:
      return { stdout: '', stderr: `tdd-gate: no handler for hook event ${eventName}\n`, exitCode: 0 };
  }
}
