import { errorMessage } from '../io/errors.js';
import { load as loadDispatch } from './lazy/dispatch.js';
import { quickCheck } from './quickCheck.js';

export interface HookResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export const KILL_SWITCH = 'TDD_GATE_DISABLE';

const PASS_RESULT: HookResult = { stdout: '', stderr: '', exitCode: 0 };

/**
 * One entry for every hook event. The event comes from argv (hooks.json passes it), else from
 * the input. Every failure on the PreToolUse path becomes a deny: a crash would let the call run.
 */
export async function runHook(stdin: string, argvEvent: string | undefined, env: NodeJS.ProcessEnv): Promise<HookResult> {
  if (env[KILL_SWITCH] === '1') {
    return { stdout: '', stderr: `tdd-gate: disabled by ${KILL_SWITCH}=1\n`, exitCode: 0 };
  }
  let input: unknown = undefined;
  let parseError: unknown = null;
  try {
    input = JSON.parse(stdin);
  } catch (err) {
    parseError = err;
  }
  const fromInput = (input as { hook_event_name?: unknown } | null)?.hook_event_name;
  const eventName = argvEvent ?? (typeof fromInput === 'string' ? fromInput : 'PreToolUse');
  if (parseError === null && quickCheck(eventName, input, env) === 'inactive') return PASS_RESULT;
  try {
    // Loaded only past the quick check: the schemas and matchers are most of the start-up cost.
    const { dispatch } = await loadDispatch();
    return await dispatch(eventName, input, parseError, env);
  } catch (err) {
    return internalError(eventName, err);
  }
}

function internalError(eventName: string, err: unknown): HookResult {
  const message = errorMessage(err);
  if (eventName !== 'PreToolUse') {
    return { stdout: '', stderr: `tdd-gate: internal error in the ${eventName} hook: ${message}\n`, exitCode: 1 };
  }
  const reason = `tdd-gate [internal-error]: an internal error stopped the gate (${message}); the call is blocked because the gate fails closed. Retry once; if it persists, stop and report this message to the user (they can set ${KILL_SWITCH}=1 outside Claude Code to bypass the gate).`;
  return {
    stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } }),
    stderr: '',
    exitCode: 0,
  };
}
