import { PASS, type Decision } from '../core/decision.js';
import type { BashEvent } from '../schema/event.js';
import type { ActiveCycle } from './cycle.js';

/** Placeholder until the Bash analysis lands: commands pass through. */
export function gateBash(_cycle: ActiveCycle, _event: BashEvent): Decision {
  return PASS;
}
