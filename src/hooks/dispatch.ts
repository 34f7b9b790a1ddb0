import { deny, toHookOutput } from '../core/decision.js';
import { errorMessage } from '../io/errors.js';
import { load as loadPostToolUse } from './lazy/postToolUse.js';
import { load as loadSessionStart } from './lazy/sessionStart.js';
import { load as loadSubagentStop } from './lazy/subagentStop.js';
import { preToolUse } from './preToolUse.js';
import type { HookResult } from './run.js';

/** Routes a parsed hook input to its event handler. Exceptions propagate to runHook's single catch. */
export async function dispatch(eventName: string, input: unknown, parseError: unknown, env: NodeJS.ProcessEnv): Promise<HookResult> {
  if (eventName === 'PreToolUse') {
    const decision =
      parseError !== null
        ? deny('bad-input', `the hook input is not valid JSON (${errorMessage(parseError)}); the call is blocked to stay safe. Retry the tool call.`)
        : await preToolUse(input, env);
    return { stdout: toHookOutput(decision), stderr: '', exitCode: 0 };
  }
  if (parseError !== null) {
    return { stdout: '', stderr: `tdd-gate: the ${eventName} hook input is not valid JSON (${errorMessage(parseError)})\n`, exitCode: 1 };
  }
  switch (eventName) {
    case 'PostToolUse':
      return (await loadPostToolUse()).postToolUse(input, env);
    case 'SubagentStop':
      return (await loadSubagentStop()).subagentStop(input, env);
    case 'SessionStart':
      return (await loadSessionStart()).sessionStart(input, env);
    default:
      return { stdout: '', stderr: `tdd-gate: no handler for hook event ${eventName}\n`, exitCode: 0 };
  }
}
