import { errorMessage } from '../io/errors.js';
import { load as loadDispatch } from './lazy/dispatch.js';
import { KILL_SWITCH, NOTHING, internalError, note, type HookResult } from './output.js';
import { quickCheck } from './quickCheck.js';

export { KILL_SWITCH, type HookResult } from './output.js';

/**
 * One entry for every hook event. The event comes from argv (hooks.json passes it), else from
 * the input. Every failure on the PreToolUse path becomes a deny: a crash would let the call run.
 */
export async function runHook(stdin: string, argvEvent: string | undefined, env: NodeJS.ProcessEnv): Promise<HookResult> {
  if (env[KILL_SWITCH] === '1') return note(`disabled by ${KILL_SWITCH}=1`);
  let input: unknown = undefined;
  let parseError: unknown = null;
  try {
    input = JSON.parse(stdin);
  } catch (err) {
    parseError = err;
  }
  const fromInput = (input as { hook_event_name?: unknown } | null)?.hook_event_name;
  const eventName = argvEvent ?? (typeof fromInput === 'string' ? fromInput : 'PreToolUse');
  if (parseError === null && quickCheck(eventName, input, env) === 'inactive') return NOTHING;
  try {
    // Loaded only past the quick check: the schemas and matchers are most of the start-up cost.
    const { dispatch } = await loadDispatch();
    return await dispatch(eventName, input, parseError, env);
  } catch (err) {
    return internalError(eventName, errorMessage(err));
  }
}
