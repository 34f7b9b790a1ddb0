import { deny, type Decision } from '../gate/rules/decision.js';
import { decideCall } from '../gate/rules/decide.js';
import { DEFAULT_DEPS, gatherShellCall, recordVerdict, type GateDeps } from '../gate/facts.js';
import { preToolUse, type BashGate } from './preToolUse.js';

/**
 * PreSkillShellCommand (Claude Code 2.1.332 and later): a shell command that a skill or a slash
 * command embeds (`` !`…` ``), with its arguments filled in, just before it runs. It never passes
 * through PreToolUse, so without this a skill the model invokes with arguments runs shell code
 * the gate never sees.
 *
 * The command is judged as the Bash call it is: the input becomes a Bash PreToolUse input and
 * goes through the one gate (preToolUse.ts with the Bash part), with every rule, the control-set
 * check, the in-flight mark and the event log. Two things differ, both because of what the
 * client can do with the answer:
 * - it cannot ask the person ("a skill can't wait for" approval): where a Bash call would ask
 *   (`tdd-gate abort`, a `result` that resumes a halted loop), the command is denied, and the
 *   reason says who runs it instead;
 * - a PowerShell command cannot be read by the shell parser: during an active cycle it is
 *   denied; outside one it passes, as every call does (the quick check answers that before this
 *   module is loaded).
 */
export function preSkillShellCommand(input: unknown, env: NodeJS.ProcessEnv, bash: BashGate, deps: GateDeps = DEFAULT_DEPS): Decision {
  const fields = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : null;
  const toolInput = fields?.tool_input;
  const command = typeof toolInput === 'object' && toolInput !== null ? (toolInput as { command?: unknown }).command : undefined;
  const shell = fields?.tool_name;
  const where = skillOf(fields?.command_name);
  if (fields === null || typeof shell !== 'string' || shell === '' || typeof command !== 'string' || typeof fields.cwd !== 'string' || fields.cwd === '') {
    return judge(gatherShellCall(fields, typeof shell === 'string' ? shell : '', where, env, deps, true));
  }
  // PowerShell (or any shell but Bash): nothing to analyse it with, so during a cycle it does not run.
  if (shell !== 'Bash') return judge(gatherShellCall(fields, shell, where, env, deps, false));
  const asBash = { ...fields, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } };
  return preToolUse(
    asBash,
    env,
    bash,
    {
      label: `Bash in ${where}`,
      cannotAsk: (asked) =>
        deny(
          asked.ruleId,
          `${asked.reason} The shell command in ${where} needs that confirmation, and a command inside a skill or slash command cannot ask for it, so it was not run. Only the user decides this: they run the command themselves, or it goes as an ordinary Bash call, for which they are asked.`,
        ),
    },
    deps,
  );
}

function judge(call: ReturnType<typeof gatherShellCall>): Decision {
  const verdict = decideCall(call.facts);
  recordVerdict(call, verdict);
  return verdict.decision;
}

function skillOf(name: unknown): string {
  return typeof name === 'string' && name !== '' ? `/${name.startsWith('/') ? name.slice(1) : name}` : 'a skill';
}
