import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Verdict } from '../verify/rules/judge.js';
import type { Session } from '../cli/session.js';
import type { Tree } from '../verify/tree.js';
import { parseSpec } from '../spec/rules/specParse.js';
import type { CompiledStack } from '../state/loadStack.js';
import type { CliState } from '../state/schema/cliState.js';
import { heldoutAmong } from './cycle.js';
import { keepsTwoSets } from './rules/defaults.js';
import { goTestNames, heldoutIdMatcher, judgeRedSets } from './rules/sets.js';

/** Which test ids of a run are held out, from the held-out files (read where they are: the tree, or `read`). */
function heldoutIdsOf(tests: readonly string[], heldoutRels: readonly string[], read: (rel: string) => string | null): string[] {
  const declared: Record<string, string[]> = {};
  for (const rel of heldoutRels) if (rel.endsWith('.go')) declared[rel] = goTestNames(read(rel) ?? '');
  const isHeld = heldoutIdMatcher(heldoutRels, declared);
  return tests.filter(isHeld).sort();
}

function readIn(root: string): (rel: string) => string | null {
  return (rel) => {
    try {
      return readFileSync(path.join(root, rel), 'utf8');
    } catch {
      return null;
    }
  };
}

function criteriaOf(s: Session, specPath: string): string[] {
  try {
    return parseSpec(readFileSync(path.resolve(s.root, specPath), 'utf8')).criteria.map((c) => c.id);
  } catch {
    return [];
  }
}

/**
 * RED with two sets (docs/heldout.md): a RED the judge found valid must also have a held-out test
 * failing on an assertion (per scenario when the tests name the SPEC's criteria). In light-inline
 * and prototype-inline there is one set and nothing changes. Returns the verdict, and the held-out
 * test ids of the run for the receipt.
 */
export function withRedSets(s: Session, stack: CompiledStack, state: CliState, tree: Tree, verdict: Verdict): { verdict: Verdict; heldoutTests: string[] } {
  if (!keepsTwoSets(state.mode)) return { verdict, heldoutTests: [] };
  const rels = heldoutAmong(stack, state.mode, Object.keys(tree.tests));
  const ids = Object.keys(verdict.tests ?? {});
  const heldoutTests = heldoutIdsOf(ids, rels, readIn(s.root));
  if (!verdict.valid || stack.config.heldout !== 'required') return { verdict, heldoutTests };
  const held = new Set(heldoutIdsOf(verdict.redTests ?? [], rels, readIn(s.root)));
  // A runner that names no tests: the failing files tell the sets apart.
  const redTests = verdict.redTests ?? verdict.failingFiles;
  const isHeldout = verdict.redTests ? (id: string) => held.has(id) : (rel: string) => rels.includes(rel);
  const sets = judgeRedSets({ redTests, isHeldout, criteria: criteriaOf(s, state.spec_path), heldoutFiles: rels });
  if (sets.ok) return { verdict, heldoutTests };
  return { verdict: { ...verdict, valid: false, reason: sets.reason }, heldoutTests };
}
