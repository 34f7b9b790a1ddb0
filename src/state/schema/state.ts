import * as z from 'zod/mini';
import { MODES, PHASES, STATE_VERSION } from './stateKeys.js';
import './zod.js';

export { MODES };
export type { ActivePhase, Mode, Phase } from './stateKeys.js';

/**
 * The keys DESIGN §2 pins. The hook needs only these; the CLI keeps more keys of its own in the
 * same file (validated by the CLI's extended schema), so unknown keys are tolerated here. The
 * hook checks the same keys by hand (handChecks.ts), held to this schema by its tests.
 */
export const baseStateSchema = z.looseObject({
  version: z.literal(STATE_VERSION, { error: `version must be ${STATE_VERSION}` }),
  phase: z.enum(PHASES, { error: `phase must be one of ${PHASES.join(', ')}` }),
  mode: z.enum(MODES, { error: `mode must be one of ${MODES.join(', ')}` }),
  spec_id: z.string(),
  spec_path: z.string().check(z.minLength(1)),
  spec_hash: z.union([z.literal(''), z.string().check(z.regex(/^[0-9a-f]{64}$/))], {
    error: 'spec_hash must be "" or 64 lowercase hex digits',
  }),
  plan_artifact: z.string(),
  started_at: z.string().check(z.minLength(1)),
  phase_entered_at: z.string().check(z.minLength(1)),
});

export type BaseState = z.infer<typeof baseStateSchema>;
