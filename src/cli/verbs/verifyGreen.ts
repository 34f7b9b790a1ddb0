import { RefusalError } from '../../state/rules/errors.js';
import { parseFlags } from '../args.js';
import { greenRun } from '../../verify/judgeRun.js';
import { loadStack, loadCheckedState, openSession, out, requirePhase, updateState } from '../session.js';
import { countsText, makeReceipt, recordReceiptEvent, reusedNote } from '../../verify/testRun.js';
import { scanTree } from '../../verify/tree.js';
import type { Verb } from '../verb.js';

const USAGE = 'tdd-gate verify green [--json]';

export const verifyGreen: Verb = {
  name: 'verify green',
  summary: 'run the tests, lint (and coverage) and record a GREEN receipt: all pass, frozen files and SPEC unchanged',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseFlags(args, { json: { type: 'boolean' } }, USAGE);
    const s = openSession(io);
    const state = requirePhase(loadCheckedState(s), ['tdd-green'], 'verify green');
    const stack = loadStack(s);
    const tree = scanTree(s.root, stack);
    // Nothing changed since the last GREEN run that held: that run stands (no second run of the same inputs).
    const judged = await greenRun(s, stack, state, tree, 'green', { checks: true, reuse: [state.receipts?.green] });
    const { run, verdict, coverage, isolation } = judged;
    const receipt = { ...makeReceipt(s, run, verdict, tree, coverage, judged), oracle: isolation };
    await updateState(s, (current) => {
      const now = requirePhase(current, ['tdd-green'], 'verify green');
      if (now.started_at !== state.started_at) throw new RefusalError('the cycle was restarted while the tests ran; run `tdd-gate verify green` again');
      return { ...now, receipts: { ...now.receipts, green: receipt } };
    });
    recordReceiptEvent(s, 'green', receipt);
    if (values.json) out(s, JSON.stringify({ kind: 'green', ...receipt }));
    if (!verdict.valid) throw new RefusalError(`not GREEN: ${verdict.reason ?? 'unknown'} (log: ${run.log})`);
    if (!values.json) {
      out(s, `tdd-gate: GREEN (${countsText(receipt)}${coverage !== undefined ? `, coverage ${coverage}%` : ''})${reusedNote(judged.reused)}. Log: ${run.log}`);
      out(s, 'next: `tdd-gate advance refactor` to clean up, or `tdd-gate done`');
    }
    return 0;
  },
};
