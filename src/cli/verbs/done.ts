import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RefusalError } from '../../state/rules/errors.js';
import { parseFlags } from '../args.js';
import { greenRun } from '../../verify/judgeRun.js';
import { checkDrift } from '../../verify/oracle/run.js';
import { makeReceipt, recordReceiptEvent } from '../../verify/testRun.js';
import type { Receipt } from '../../state/schema/cliState.js';
import { loadStack, loadCheckedState, openSession, out, requirePhase, transition } from '../session.js';
import { filesWithStubs, STUB_MARKER } from '../../verify/stubs.js';
import { changedFiles, scanTree } from '../../verify/tree.js';
import { countHookDenies } from '../../state/events.js';
import { readLoop } from '../../handoff/rules/loop.js';
import { criteriaEvidence } from '../../spec/spec.js';
import type { Verb } from '../verb.js';
import { heldoutFiles, outOfSight } from '../../heldout/cycle.js';
import { bringBack, storeDirs } from '../../heldout/store.js';
import { syncHardening } from './harden.js';
import { writeCycleRecord } from '../../audit/writeRecord.js';
import { TDD_DIR } from '../../state/rules/tddDir.js';

const USAGE = 'tdd-gate done [--json]';

export const done: Verb = {
  name: 'done',
  summary: 'finish the cycle: fresh GREEN receipt, no STUB:TDD left, no drift; writes the evidence record',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseFlags(args, { json: { type: 'boolean' } }, USAGE);
    const s = openSession(io);
    const state = requirePhase(loadCheckedState(s), ['tdd-green', 'tdd-refactor'], 'done');
    const stack = loadStack(s);
    const tree = scanTree(s.root, stack);
    checkDrift(s, state, stack, tree, '');
    const receipts = state.receipts ?? {};
    const candidates = state.phase === 'tdd-refactor' ? [receipts.refactor, receipts.green] : [receipts.green];
    const fresh = candidates.find((r) => r?.valid && r.tree_sha256 === tree.treeDigest);
    if (!fresh) {
      const verb = state.phase === 'tdd-refactor' ? 'verify refactor' : 'verify green';
      throw new RefusalError(`no GREEN receipt matches the files as they are now; run \`tdd-gate ${verb}\` and then \`tdd-gate done\``);
    }
    const stubs = filesWithStubs(s.root, Object.keys(tree.sources));
    if (stubs.length > 0) throw new RefusalError(`${STUB_MARKER} markers are left in ${stubs.join(', ')}; implement the stubs (GREEN) and verify again`);

    // The last word is the oracle's own: the frozen tests run out of reach, on exactly these inputs.
    // When the fresh receipt's run had these very inputs, that run is the last word (not run twice).
    const judged = await greenRun(s, stack, state, tree, 'done', { checks: false, reuse: [fresh] });
    const { run, verdict, isolation } = judged;
    const final = { ...makeReceipt(s, run, verdict, tree, undefined, judged), oracle: isolation };
    recordReceiptEvent(s, 'final', final);
    if (!verdict.valid) throw new RefusalError(`the final run of the frozen tests does not hold: ${verdict.reason ?? 'unknown'} (log: ${run.log})`);
    // Back in the open (docs/heldout.md): the held-out tests return to the tree as ordinary tests.
    const heldout = heldoutFiles(state);
    const returned = outOfSight(state) ? bringBack(s.root, storeDirs(s.repo, s.io.env), heldout) : [];
    const openTree = outOfSight(state) ? scanTree(s.root, stack) : tree;
    const heldoutTests = state.frozen?.heldout_tests ?? [];
    const red = receipts.red;
    const ids = [...new Set([...Object.keys(red?.tests ?? {}), ...Object.keys(final.tests ?? {})])].sort();
    const perTest = ids.map((id) => ({ id, red: red?.tests?.[id] ?? null, green: final.tests?.[id] ?? null, counted_red: red?.red_tests?.includes(id) ?? false, ...(heldoutTests.includes(id) ? { heldout: true } : {}) }));

    const at = s.now();
    const evidenceRel = `.tdd/evidence/${state.spec_id.replace(/[^A-Za-z0-9._-]/g, '-')}-${at.toISOString().replace(/[:.]/g, '-')}.json`;
    const evidence = {
      version: 1,
      spec_id: state.spec_id,
      spec_path: state.spec_path,
      spec_hash: state.spec_hash,
      mode: state.mode,
      started_at: state.started_at,
      finished_at: at.toISOString(),
      plan_artifact: state.plan_artifact,
      criteria: criteriaEvidence(s.root, state, readLoop(state).acs),
      validator: state.verdict ?? null,
      runs: { red: stripTests(receipts.red), green: stripTests(receipts.green), refactor: stripTests(receipts.refactor), final: stripTests(final) },
      tests: perTest,
      heldout: { files: Object.keys(heldout).sort(), tests: heldoutTests },
      files_changed: {
        tests: changedFiles(state.baseline?.files ?? {}, openTree.tests),
        sources: changedFiles(state.baseline?.sources ?? {}, tree.sources),
      },
      frozen: state.frozen ?? null,
      hook_denies: countHookDenies(s.root, state.started_at),
      history: state.history ?? [],
    };
    mkdirSync(path.join(s.root, TDD_DIR, 'evidence'), { recursive: true });
    writeFileSync(path.join(s.root, evidenceRel), JSON.stringify(evidence, null, 2) + '\n');
    // The record meant to be committed with the work, for `tdd-gate audit` (docs/evidence.md).
    const cycleRecord = writeCycleRecord(s, state, stack, openTree, final, at.toISOString());
    await transition(s, 'done', ['tdd-green', 'tdd-refactor'], 'done', () => ({}), `evidence ${evidenceRel}`);
    await syncHardening(s);
    if (values.json) {
      out(s, JSON.stringify({ evidence: evidenceRel, cycle_record: cycleRecord, ...evidence }));
      return 0;
    }
    const minutes = Math.round((at.getTime() - Date.parse(state.started_at)) / 60000);
    out(s, `tdd-gate: ${state.spec_id} done in ${minutes} min.`);
    const redIds = red?.red_tests ?? [];
    out(s, `  RED:   ${red ? `${red.counts.failed}/${red.counts.total} failing (${red.command})${redIds.length > 0 ? `; counted: ${redIds.slice(0, 3).join(', ')}${redIds.length > 3 ? ` and ${redIds.length - 3} more` : ''}` : ''}` : 'no receipt'}`);
    const held = redIds.filter((id) => final.tests?.[id] === 'passed').length;
    out(s, `  GREEN: ${final.counts.passed}/${final.counts.total} passing${redIds.length > 0 ? `; ${held}/${redIds.length} RED tests now pass` : ''}${fresh.coverage !== undefined ? `, coverage ${fresh.coverage}%` : ''} (run ${isolation === 'namespace' ? 'read-only against the frozen tests' : 'in a private copy of the frozen tests'})`);
    out(s, `  changed: ${evidence.files_changed.tests.length} test files, ${evidence.files_changed.sources.length} source files; hook denials: ${evidence.hook_denies}`);
    if (Object.keys(heldout).length > 0) out(s, `  held-out: ${heldoutTests.length} tests in ${Object.keys(heldout).length} files passed unseen; ${returned.length > 0 ? 'back in the work tree as ordinary tests (commit them with the work)' : 'already in the work tree'}`);
    out(s, `  evidence: ${evidenceRel}`);
    if (cycleRecord !== null) out(s, `  cycle record (commit it with the work; \`tdd-gate audit\` replays it): ${cycleRecord}`);
    return 0;
  },
};

/** The evidence lists the tests once, per test; the receipts keep their summaries. */
function stripTests(r: Receipt | undefined): Omit<Receipt, 'tests'> | null {
  if (!r) return null;
  const { tests: _tests, ...rest } = r;
  return rest;
}
