import { compileGlobs } from '../../state/rules/globs.js';
import { parseReachAllow, reachAllowedFor } from '../rules/reachAllow.js';
import { runnerReach, runnerReachReason } from '../../gate/rules/runnerReach.js';
import type { CompiledStack } from '../../state/loadStack.js';
import { splitGlobs } from '../../state/schema/stack.js';
import type { Verdict } from '../rules/judge.js';
import type { Context } from '../../state/context.js';
import { readText, type Tree } from '../tree.js';
import { baselineText } from '../baseline.js';

/** Source files that reach into the test runner (a Bash-written one the hook never saw included). */
function reachingSources(root: string, stack: CompiledStack, sources: readonly string[], before: (rel: string) => string | null = () => null): string[] {
  const entries = stack.config.runner_reach_allow ? parseReachAllow(splitGlobs(stack.config.runner_reach_allow)) : [];
  const out: string[] = [];
  for (const rel of sources) {
    const allowed = reachAllowedFor(entries, rel, (g) => compileGlobs(g, false));
    if (allowed === true) continue;
    const text = readText(root, rel);
    if (text === null) continue;
    const r = runnerReach(rel, text, before(rel), allowed);
    if (r) out.push(runnerReachReason(rel, r));
  }
  return out;
}

/**
 * No run counts while a source written or changed in this cycle reaches into the runner; that
 * is also the first thing to fix. Sources as they were when the cycle began (a Go test-helper
 * package importing "testing", a setup.py naming pytest) are the project's, not the cycle's, and
 * so is what a changed source already did then: only what the cycle added counts.
 */
export function reachVerdict(s: Context, stack: CompiledStack, tree: Tree, verdict: Verdict, baseline?: Record<string, string>): Verdict {
  const changed = Object.keys(tree.sources).filter((rel) => baseline?.[rel] !== tree.sources[rel]);
  const found = reachingSources(s.root, stack, changed, (rel) => (baseline ? (baselineText(s.root, baseline, rel) ?? null) : null));
  if (found.length === 0) return verdict;
  return { ...verdict, valid: false, reason: `${found[0]}${found.length > 1 ? ` (${found.length - 1} more source files do the same)` : ''}` };
}
