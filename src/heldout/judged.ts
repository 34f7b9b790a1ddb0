import type { RunOutcome, Verdict } from '../verify/rules/judge.js';
import type { Session } from '../cli/session.js';
import type { RunResult } from '../verify/runner.js';
import type { CliState } from '../state/schema/cliState.js';
import { heldoutFiles, outOfSight } from './cycle.js';
import { assertionOnly, heldoutIdMatcher, heldoutRefusal, nameOfId } from './rules/sets.js';
import { keepRunLog, storeDirs } from './store.js';

/**
 * An oracle run with held-out tests out of sight (docs/heldout.md): the runner's own output, which
 * prints their code, goes to the store; the log left in the work tree lists each test with its
 * result, a held-out test by name with its assertion message only; and a refusal says the same.
 */
export function hideHeldout(s: Session, state: CliState, run: RunResult, outcome: RunOutcome, verdict: Verdict): { verdict: Verdict; run: RunResult } {
  if (!outOfSight(state)) return { verdict, run };
  const files = Object.keys(heldoutFiles(state));
  const ids = state.frozen?.heldout_tests ?? [];
  const matcher = heldoutIdMatcher(files, {});
  const isHeld = (id: string) => ids.includes(id) || matcher(id) || ids.some((h) => id.startsWith(`${h}/`));
  const hidden = files.flatMap((rel) => [rel, rel.slice(rel.lastIndexOf('/') + 1)]);
  const tests = outcome.tests ?? [];
  const lines = [`$ ${run.command}`, "(held-out tests are out of sight: the runner's own output is kept in the cycle's store until `done`; each test and its result follow)"];
  for (const t of tests) {
    if (isHeld(t.id)) lines.push(`${t.status}  held-out test "${nameOfId(t.id)}"${t.status === 'failed' ? `: ${assertionOnly(t.message, hidden)}` : ''}`);
    else lines.push(`${t.status}  ${t.id}${t.status === 'failed' && t.message !== '' ? `\n${t.message.split('\n').slice(0, 20).join('\n')}` : ''}`);
  }
  if (tests.length === 0) lines.push('(the runner named no tests: its summary only)', `counts: ${JSON.stringify(outcome.facts.counts)}`);
  lines.push(`[exit ${run.exitCode ?? 'none'}]`);
  const shown = lines.join('\n') + '\n';
  keepRunLog(s.root, storeDirs(s.repo, s.io.env), run.log, shown);
  // What the run's output is to everything after this (a hand-off's runner output, a refusal): the shown log.
  const shownRun = { ...run, output: lines.slice(1, -1).join('\n') };
  if (verdict.valid || verdict.reason === undefined) return { verdict, run: shownRun };
  const failures = tests.filter((t) => t.status === 'failed' && isHeld(t.id)).map((t) => ({ name: nameOfId(t.id), message: assertionOnly(t.message, hidden) }));
  const heldIds = [...new Set([...ids, ...tests.map((t) => t.id).filter(isHeld), ...tests.map((t) => t.label ?? '').filter((l) => l !== '' && isHeld(l))])];
  return { verdict: { ...verdict, reason: heldoutRefusal(verdict.reason, heldIds, files, failures) }, run: shownRun };
}
