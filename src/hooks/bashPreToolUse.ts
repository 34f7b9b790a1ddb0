import type { Decision } from '../core/decision.js';
import * as bashGate from './bashGate.js';
import { preToolUse as gate } from './preToolUse.js';

/**
 * The PreToolUse gate with the Bash gate built in: the part the hook loads for Bash and Monitor
 * calls. Every other call loads the gate alone and never pays for the shell parser (ADR 007).
 */
export function preToolUse(input: unknown, env: NodeJS.ProcessEnv): Decision {
  return gate(input, env, bashGate);
}
