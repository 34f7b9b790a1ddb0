import { readLoop } from './loop.js';
import type { Cycle } from './loopState.js';

function cycleText(c: Cycle): string {
  return `cycle ${c.n}: red ${c.red}, green ${c.green}, refactor ${c.refactor}`;
}

/**
 * The double loop for `tdd-gate status`: one line per acceptance criterion (outer loop) with its
 * current inner cycle, then budgets in use and any halt. Empty when no hand-off was recorded yet.
 * Pure; takes the whole state object.
 */
export function describeLoop(state: Record<string, unknown>): string[] {
  if (state.loop === undefined) return [];
  let loop;
  try {
    loop = readLoop(state);
  } catch (err) {
    return [`loop: ${(err as Error).message}`];
  }
  const lines = [`loop: ${loop.cycles_total} of at most ${loop.limits.max_cycles} cycles${loop.current_ac ? `, current ${loop.current_ac}` : ''}`];
  for (const [ac, entry] of Object.entries(loop.acs)) {
    const done = entry.cycles.filter((c) => c.refactor === 'ok' || c.refactor === 'skipped').length;
    const last = entry.cycles[entry.cycles.length - 1];
    const same = entry.same_failure && entry.same_failure.count > 1 ? `; same failure ${entry.same_failure.count}×` : '';
    lines.push(`  ${ac} ${entry.status}, ${done} cycle${done === 1 ? '' : 's'} completed${last ? `; ${cycleText(last)}` : ''}${same}`);
  }
  for (const [key, used] of Object.entries(loop.budgets)) {
    if (used.semantic + used.format === 0) continue;
    lines.push(`  retries ${key}: ${used.semantic}/${loop.limits.semantic_retries} semantic, ${used.format}/${loop.limits.format_retries} format`);
  }
  if (loop.halted) lines.push(`  HALTED (${loop.halted.role} ${loop.halted.ac}): ${loop.halted.reason}`);
  return lines;
}
