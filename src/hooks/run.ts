import { errorMessage } from '../state/rules/errors.js';
import { noteProbe } from '../tamper/heartbeat.js';
import { loadBashPreToolUse, loadPostToolUse, loadPreToolUse, loadSessionStart, loadSubagentStop } from './lazy/loaders.js';
import { KILL_SWITCH, NOTHING, badJson, internalError, note, preToolUseOutput, type HookResult } from './output.js';
import { quickCheck } from './quickCheck.js';
import { REAL_DEPS, type HookDeps } from '../state/store.js';
export type { Clock, Store } from '../state/store.js';

/** Tools whose PreToolUse needs the shell parser (a Monitor runs a shell command). */
const BASH_TOOLS = new Set(['Bash', 'Monitor']);

/**
 * One entry for every hook event. The event comes from argv (hooks.json passes it), else from
 * the input. Past the quick check, each event (and Bash apart from the other tools) loads its own
 * part of the hook (ADR 007). Every failure on the PreToolUse and PreSkillShellCommand paths
 * becomes a deny: a crash would let the call or the command run.
 *
 * `deps` are the clock and the store of cycle records (src/state/store.ts): the entry passes the
 * real ones; the in-process tests pass a table's (test/helpers/hookInProcess.ts).
 */
export async function runHook(stdin: string, argvEvent: string | undefined, env: NodeJS.ProcessEnv, deps: HookDeps = REAL_DEPS): Promise<HookResult> {
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
  if (parseError !== null) return badJson(eventName, errorMessage(parseError));
  if (eventName === 'PreToolUse' || eventName === 'PostToolUse') noteProbe(eventName, input, env, deps.clock); // `tdd-gate doctor --probe` only
  if (quickCheck(eventName, input, env, deps.store) === 'inactive') return NOTHING;
  try {
    return await handle(eventName, input, env, deps);
  } catch (err) {
    return internalError(eventName, errorMessage(err));
  }
}

async function handle(eventName: string, input: unknown, env: NodeJS.ProcessEnv, deps: HookDeps): Promise<HookResult> {
  switch (eventName) {
    case 'PreToolUse': {
      const toolName = (input as { tool_name?: unknown } | null)?.tool_name;
      if (typeof toolName === 'string' && BASH_TOOLS.has(toolName)) return preToolUseOutput((await loadBashPreToolUse()).preToolUse(input, env, deps));
      const gate = await loadPreToolUse();
      return preToolUseOutput(gate.preToolUse(input, env, null, null, gate.gateDeps(deps)));
    }
    case 'PreSkillShellCommand':
      // A shell command a skill or slash command embeds: judged as the Bash call it is (skillShell.ts).
      return preToolUseOutput((await loadBashPreToolUse()).preSkillShellCommand(input, env, deps), 'PreSkillShellCommand');
    case 'PostToolUse':
    case 'PostToolUseFailure':
      return (await loadPostToolUse()).postToolUse(input, env, eventName, deps);
    case 'SubagentStop':
      return (await loadSubagentStop()).subagentStop(input, env, deps);
    case 'SessionStart':
      return (await loadSessionStart()).sessionStart(input, env, deps);
    default:
      return note(`no handler for hook event ${eventName}`);
  }
}
