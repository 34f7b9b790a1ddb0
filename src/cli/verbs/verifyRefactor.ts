import { RefusalError } from '../../state/rules/errors.js';
import { gitHead, gitStashCount } from '../../state/git.js';
import { restoreSnapshot, writeSnapshot } from '../../state/snapshots.js';
import { appendEvent } from '../../state/eventLog.js';
import { parseFlags } from '../args.js';
import { greenRun } from '../../verify/judgeRun.js';
import { checkDrift } from '../../verify/oracle/run.js';
import { loadStack, loadCheckedState, openSession, out, requirePhase, updateState } from '../session.js';
import { countsText, makeReceipt, recordReceiptEvent, reusedNote } from '../../verify/testRun.js';
import { scanTree } from '../../verify/tree.js';
import type { Verb } from '../verb.js';

const USAGE = 'tdd-gate verify refactor [--revert] [--json]';

export const verifyRefactor: Verb = {
  name: 'verify refactor',
  summary: 'tests still green, tests unchanged, HEAD not moved, no new stash; --revert rolls sources back when it fails',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseFlags(args, { revert: { type: 'boolean' }, json: { type: 'boolean' } }, USAGE);
    const s = openSession(io);
    const state = requirePhase(loadCheckedState(s), ['tdd-refactor'], 'verify refactor');
    const base = state.refactor_base;
    if (!base) throw new RefusalError('the refactor snapshot is missing from the state; go back with `tdd-gate abort` or restart the phase');
    const stack = loadStack(s);
    const tree = scanTree(s.root, stack);
    checkDrift(s, state, stack, tree, '');
    const head = gitHead(s.root);
    if (head !== base.head) throw new RefusalError(`git HEAD moved during REFACTOR (${base.head?.slice(0, 8) ?? 'none'} → ${head?.slice(0, 8) ?? 'none'}); move it back (\`git reset --soft ${base.head ?? ''}\`) before verifying`);
    const stashes = gitStashCount(s.root);
    if (stashes !== base.stash_count) throw new RefusalError(`the git stash changed during REFACTOR (${base.stash_count} → ${stashes} entries); restore it before verifying`);

    // A refactor step that changed nothing since the last verified run (GREEN's or a refactor's) is that run.
    const judged = await greenRun(s, stack, state, tree, 'refactor', { checks: true, reuse: [state.receipts?.refactor, state.receipts?.green] });
    const { run, verdict, isolation } = judged;
    const receipt = { ...makeReceipt(s, run, verdict, tree, undefined, judged), oracle: isolation };
    let reverted: { restored: string[]; deleted: string[] } | null = null;
    if (!verdict.valid && values.revert) reverted = restoreSnapshot(s.root, 'refactor', base.files, Object.keys(tree.sources));
    if (verdict.valid) writeSnapshot(s.root, 'refactor', Object.keys(tree.sources));
    await updateState(s, (current) => {
      const now = requirePhase(current, ['tdd-refactor'], 'verify refactor');
      const next = { ...now, receipts: { ...now.receipts, refactor: receipt } };
      // A verified refactor step becomes the point the next --revert returns to.
      if (verdict.valid) next.refactor_base = { ...base, at: receipt.at, files: tree.sources };
      return next;
    });
    recordReceiptEvent(s, 'refactor', receipt);
    if (reverted) appendEvent(s.root, { type: 'revert', verb: 'verify refactor', restored: reverted.restored, deleted: reverted.deleted });
    if (values.json) out(s, JSON.stringify({ kind: 'refactor', ...receipt, ...(reverted ? { reverted } : {}) }));
    if (!verdict.valid) {
      const undo = reverted
        ? `; reverted ${reverted.restored.length + reverted.deleted.length} source files to the last green point`
        : '; fix it or roll back with `tdd-gate verify refactor --revert`';
      throw new RefusalError(`refactor broke the suite: ${verdict.reason ?? 'unknown'}${undo} (log: ${run.log})`);
    }
    if (!values.json) {
      out(s, `tdd-gate: refactor verified (${countsText(receipt)})${reusedNote(judged.reused)}. Log: ${run.log}`);
      out(s, 'next: refactor more and verify again, or `tdd-gate done`');
    }
    return 0;
  },
};
