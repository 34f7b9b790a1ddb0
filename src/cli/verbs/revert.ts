import { RefusalError } from '../../state/rules/errors.js';
import { restoreSnapshot } from '../../state/snapshots.js';
import { parseFlags } from '../args.js';
import { loadStack, loadCheckedState, openSession, out, requirePhase, transition } from '../session.js';
import { scanTree } from '../../verify/tree.js';
import type { Verb } from '../verb.js';

const USAGE = 'tdd-gate revert';

export const revert: Verb = {
  name: 'revert',
  summary: 'in tdd-green, restore the source files to their state at GREEN entry (a fix loop that gave up)',
  usage: USAGE,
  async run(args, io) {
    parseFlags(args, {}, USAGE);
    const s = openSession(io);
    const state = requirePhase(loadCheckedState(s), ['tdd-green'], 'revert');
    if (!state.green_entry) throw new RefusalError('there is no GREEN-entry snapshot in the state (it is written by `tdd-gate freeze`)');
    const tree = scanTree(s.root, loadStack(s));
    const { restored, deleted } = restoreSnapshot(s.root, 'green-entry', state.green_entry.files, Object.keys(tree.sources));
    const note = `restored ${restored.length}, deleted ${deleted.length} source files`;
    await transition(s, 'revert', ['tdd-green'], 'tdd-green', () => ({}), note);
    out(s, `tdd-gate: sources back at GREEN entry (${note}${restored.length + deleted.length > 0 ? `: ${[...restored, ...deleted].slice(0, 8).join(', ')}` : ''}).`);
    return 0;
  },
};
