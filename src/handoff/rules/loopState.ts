import * as z from 'zod/mini';
import '../../state/schema/zod.js';

/**
 * The `loop` key of the branch state (owned by the hand-off code, docs/handoff.md): the double
 * loop (outer over acceptance criteria, inner red → green → refactor cycles) and the retry budgets.
 */
const STEP_STATUSES = ['pending', 'ok', 'failed', 'skipped'] as const;
const AC_STATUSES = ['pending', 'failing', 'passing'] as const;
const MODES = ['A', 'B', 'C', 'D', 'E'] as const;
export type Mode = (typeof MODES)[number];

const count = () => z.number().check(z.int(), z.minimum(0));
const step = z.enum(STEP_STATUSES);

const DEFAULT_LIMITS = { semantic_retries: 2, format_retries: 1, same_failure: 3, max_cycles: 10 };

const limitsSchema = z.object({
  /** Retries for modes A/B/C/E, per role per acceptance criterion. */
  semantic_retries: count(),
  /** Retries for mode D (format), per role per acceptance criterion. */
  format_retries: count(),
  /** Halt when the same failure is seen this many times in a row on one criterion. */
  same_failure: z.number().check(z.int(), z.minimum(1)),
  /** Halt when more than this many inner cycles have been started in total. */
  max_cycles: z.number().check(z.int(), z.minimum(1)),
});

const cycleSchema = z.object({
  n: z.number().check(z.int(), z.minimum(1)),
  started_at: z.string(),
  red: step,
  green: step,
  refactor: step,
});

const acLoopSchema = z.object({
  status: z.enum(AC_STATUSES),
  cycles: z.array(cycleSchema),
  same_failure: z.nullable(z.object({ signature: z.string(), count: count() })),
  test_files: z.array(z.string()),
  source_files: z.array(z.string()),
});

const haltSchema = z.object({
  at: z.string(),
  mode: z.nullable(z.enum(MODES)),
  role: z.string(),
  ac: z.string(),
  reason: z.string(),
  report: z.string(),
});

export const loopStateSchema = z.object({
  limits: limitsSchema,
  cycles_total: count(),
  current_ac: z.nullable(z.string()),
  acs: z.record(z.string(), acLoopSchema),
  /** Keyed "<role> <ac>": retries used so far. */
  budgets: z.record(z.string(), z.object({ semantic: count(), format: count() })),
  halted: z.nullable(haltSchema),
  last: z.nullable(
    z.object({ at: z.string(), role: z.string(), ac: z.string(), action: z.string(), mode: z.nullable(z.enum(MODES)) }),
  ),
});

export type LoopState = z.infer<typeof loopStateSchema>;
export type AcLoop = z.infer<typeof acLoopSchema>;
export type Cycle = z.infer<typeof cycleSchema>;
export type Limits = LoopState['limits'];

export function emptyLoop(limits: Partial<Limits> = {}): LoopState {
  return { limits: { ...DEFAULT_LIMITS, ...limits }, cycles_total: 0, current_ac: null, acs: {}, budgets: {}, halted: null, last: null };
}
