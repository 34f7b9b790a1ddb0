import { PASS, deny, type Decision } from '../gate/rules/decision.js';
import { ROLE, decideSpecWriterTool } from '../gate/rules/roles.js';
import { preToolUse, cyclesOf, record, type BashGate } from './preToolUse.js';

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
export function preSkillShellCommand(input: unknown, env: NodeJS.ProcessEnv, bash: BashGate): Decision {
  const fields = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : null;
  const toolInput = fields?.tool_input;
  const command = typeof toolInput === 'object' && toolInput !== null ? (toolInput as { command?: unknown }).command : undefined;
  const shell = fields?.tool_name;
  if (fields === null || typeof shell !== 'string' || shell === '' || typeof command !== 'string' || typeof fields.cwd !== 'string' || fields.cwd === '') {
    return deny(
      'bad-input',
      'the PreSkillShellCommand input could not be understood (it needs cwd, tool_name and tool_input.command), so the skill\'s shell command is blocked to stay safe. Run the skill again; if this repeats, stop and report it to the user.',
    );
  }
  const where = skillOf(fields.command_name);
  if (shell !== 'Bash') return unreadableShell(fields, shell, where, env);
  const asBash = { ...fields, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } };
  return preToolUse(asBash, env, bash, {
    label: `Bash in ${where}`,
    cannotAsk: (asked) =>
      deny(
        asked.ruleId,
        `${asked.reason} The shell command in ${where} needs that confirmation, and a command inside a skill or slash command cannot ask for it, so it was not run. Only the user decides this: they run the command themselves, or it goes as an ordinary Bash call, for which they are asked.`,
      ),
  });
}

function skillOf(name: unknown): string {
  return typeof name === 'string' && name !== '' ? `/${name.startsWith('/') ? name.slice(1) : name}` : 'a skill';
}

/** PowerShell (or any shell but Bash): nothing to analyse it with, so during a cycle it does not run. */
function unreadableShell(fields: Record<string, unknown>, shell: string, where: string, env: NodeJS.ProcessEnv): Decision {
  if (fields.agent_type === ROLE.specWriter) return decideSpecWriterTool(shell);
  const event = { cwd: fields.cwd as string, tool_name: shell, tool_input: fields.tool_input as object, ...(typeof fields.agent_type === 'string' ? { agent_type: fields.agent_type } : {}) };
  const cycles = cyclesOf(event, env, null);
  if (!Array.isArray(cycles)) return cycles.kind === 'ask' ? deny(cycles.ruleId, cycles.reason) : cycles;
  const cycle = cycles[0];
  if (cycle === undefined) return PASS;
  const decision = deny(
    'shell-unparsed',
    `Blocked the ${shell} command in ${where} (phase ${cycle.state.phase}): while a TDD cycle is active every shell command is judged by what it writes, and the gate can read only Bash, so it does not run. Do the step with the Write/Edit tools or an ordinary Bash call, or use the skill again after the cycle ends.`,
  );
  for (const c of cycles) record(c, decision, `${shell} in ${where}`, (fields.tool_input as { command: string }).command.slice(0, 500), event.agent_type);
  return decision;
}
