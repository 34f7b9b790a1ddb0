import { RefusalError } from '../../state/rules/errors.js';
import { gitHead, gitStashCount } from '../../state/git.js';
import { writeSnapshot } from '../../state/snapshots.js';
import { parseFlags } from '../args.js';
import { driftMessage, driftOf } from '../../verify/oracle/drift.js';
import { loadStack, loadCheckedState, openSession, out, requirePhase, transition } from '../session.js';
import { scanTree } from '../../verify/tree.js';
import type { Verb } from '../verb.js';
import { syncHardening } from './harden.js';

const USAGE = 'tdd-gate advance refactor';

export const advanceRefactor: Verb = {
  name: 'advance refactor',
  summary: 'tdd-green → tdd-refactor with a fresh GREEN receipt; snapshots sources, git HEAD and the stash count',
  usage: USAGE,
  async run(args, io) {
    parseFlags(args, {}, USAGE);
    const s = openSession(io);
    const state = requirePhase(loadCheckedState(s), ['tdd-green'], 'advance refactor');
    const green = state.receipts?.green;
    if (!green?.valid) throw new RefusalError('there is no valid GREEN receipt; run `tdd-gate verify green` first');
    const tree = scanTree(s.root, loadStack(s));
    const drift = driftMessage(driftOf(s.root, state, Object.keys(tree.tests), tree.parts, tree.toolchain));
    if (drift) throw new RefusalError(`the oracle moved: ${drift}`);
    if (green.tree_sha256 !== tree.treeDigest) throw new RefusalError('files changed since the last GREEN run; run `tdd-gate verify green` again');
    writeSnapshot(s.root, 'refactor', Object.keys(tree.sources));
    const head = gitHead(s.root);
    const stashCount = gitStashCount(s.root);
    await transition(s, 'advance refactor', ['tdd-green'], 'tdd-refactor', (_c, at) => ({ refactor_base: { at, head, stash_count: stashCount, files: tree.sources } }));
    out(s, `tdd-gate: tdd-green → tdd-refactor (snapshot of ${Object.keys(tree.sources).length} source files at ${head?.slice(0, 8) ?? 'no commit'}).`);
    await syncHardening(s);
    out(s, 'next: refactor the source, then `tdd-gate verify refactor` (add --revert to roll back a failing refactor)');
    return 0;
  },
};
