import { RefusalError } from '../../state/rules/errors.js';
import { parseFlags } from '../args.js';
import { loadStack, loadCheckedState, openSession, out, requirePhase, updateState } from '../session.js';
import { redRun } from '../../verify/judgeRun.js';
import { countsText, makeReceipt, recordReceiptEvent, reusedNote } from '../../verify/testRun.js';
import { scanTree } from '../../verify/tree.js';
import type { Verb } from '../verb.js';
import { withRedSets } from '../../heldout/red.js';
import { keepsTwoSets, setsNote } from '../../heldout/rules/defaults.js';

const USAGE = 'tdd-gate verify red [--json]';

export const verifyRed: Verb = {
  name: 'verify red',
  summary: 'run the tests and record a RED receipt: they must fail on an assertion in a test written this cycle',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseFlags(args, { json: { type: 'boolean' } }, USAGE);
    const s = openSession(io);
    const state = requirePhase(loadCheckedState(s), ['tdd-red'], 'verify red');
    const stack = loadStack(s);
    const tree = scanTree(s.root, stack);
    // Per test: its declaration block against the baseline (tests, and sources for inline test modules).
    const judged = await redRun(s, stack, state, tree, 'red', undefined, [state.receipts?.red]);
    const { run } = judged;
    // Two sets (docs/heldout.md): the held-out tests must fail for the right reason too.
    const { verdict, heldoutTests } = withRedSets(s, stack, state, tree, judged.verdict);
    // The toolchain the run resolved: `freeze` names what moved when it differs (another PATH).
    const receipt = { ...makeReceipt(s, run, verdict, tree, undefined, judged), toolchain: tree.toolchain, ...(heldoutTests.length > 0 ? { heldout_tests: heldoutTests } : {}) };
    // The run took time: record it only if the cycle is still where it was.
    await updateState(s, (current) => {
      const now = requirePhase(current, ['tdd-red'], 'verify red');
      if (now.started_at !== state.started_at) throw new RefusalError('the cycle was restarted while the tests ran; run `tdd-gate verify red` again');
      return { ...now, receipts: { ...now.receipts, red: receipt } };
    });
    recordReceiptEvent(s, 'red', receipt);
    if (values.json) out(s, JSON.stringify({ kind: 'red', ...receipt }));
    if (!verdict.valid) throw new RefusalError(`invalid RED: ${verdict.reason ?? 'unknown'} (log: ${run.log})`);
    if (!values.json) {
      const which = verdict.redTests ? `failing: ${verdict.redTests.slice(0, 5).join(', ')}${verdict.redTests.length > 5 ? ` and ${verdict.redTests.length - 5} more` : ''}` : `failing in ${verdict.failingFiles.join(', ')}`;
      out(s, `tdd-gate: valid RED (${countsText(receipt)}; ${which})${reusedNote(judged.reused)}. Log: ${run.log}`);
      if (keepsTwoSets(state.mode) && heldoutTests.length === 0) {
        // Not a refusal unless the project asks for it ("heldout": "required"): say plainly what is missing.
        out(s, 'held-out tests: none — nothing unseen will judge the implementation, so code that answers only the visible tests can pass. Have the test-writer add held-out tests (other inputs of the same behaviour, in files matching heldout_glob; docs/heldout.md) and run `verify red` again');
      } else if (keepsTwoSets(state.mode)) out(s, `held-out tests: ${heldoutTests.length} (they leave the work tree at the freeze; docs/heldout.md)`);
      else out(s, `held-out tests: none kept apart (${setsNote(state.mode)})`);
      out(s, 'next: have the test-validator review the tests, then `tdd-gate freeze --verdict <file>`');
    }
    return 0;
  },
};
