import { deny } from '../core/decision.js';
import { errorMessage } from '../io/errors.js';
import { load as loadPostToolUse } from './lazy/postToolUse.js';
import { load as loadSessionStart } from './lazy/sessionStart.js';
import { load as loadSubagentStop } from './lazy/subagentStop.js';
import { note, preToolUseOutput, type HookResult } from './output.js';
import { preToolUse } from './preToolUse.js';

/** Routes a parsed hook input to its event handler. Exceptions propagate to runHook's single catch. */
export async function dispatch(eventName: string, input: unknown, parseError: unknown, env: NodeJS.ProcessEnv): Promise<HookResult> {
  if (eventName === 'PreToolUse') {
    const decision =
      parseError !== null
        ? deny('bad-input', `the hook input is not valid JSON (${errorMessage(parseError)}); the call is blocked to stay safe. Retry the tool call.`)
        : await preToolUse(input, env);
    return preToolUseOutput(decision);
  }
  if (parseError !== null) return note(`the ${eventName} hook input is not valid JSON (${errorMessage(parseError)})`, 1);
  switch (eventName) {
    case 'PostToolUse':
    case 'PostToolUseFailure':
      return (await loadPostToolUse()).postToolUse(input, env, eventName);
    case 'SubagentStop':
      return (await loadSubagentStop()).subagentStop(input, env);
    case 'SessionStart':
      return (await loadSessionStart()).sessionStart(input, env);
    default:
      return note(`no handler for hook event ${eventName}`);
  }
}
