import type { Decision } from '../gate/rules/decision.js';
import * as bashGate from '../gate/bashGate.js';
import { preToolUse as gate } from './preToolUse.js';
import { preSkillShellCommand as skillShellGate } from './skillShell.js';

/**
 * The PreToolUse gate with the Bash gate built in: the part the hook loads for Bash and Monitor
 * calls, and for the shell commands skills embed (PreSkillShellCommand). Every other call loads
 * the gate alone and never pays for the shell parser (ADR 007).
 */
export function preToolUse(input: unknown, env: NodeJS.ProcessEnv): Decision {
  return gate(input, env, bashGate);
}

/** A shell command a skill or slash command embeds, judged as the Bash call it is (skillShell.ts). */
export function preSkillShellCommand(input: unknown, env: NodeJS.ProcessEnv): Decision {
  return skillShellGate(input, env, bashGate);
}
