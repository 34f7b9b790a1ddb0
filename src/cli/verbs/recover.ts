import path from 'node:path';
import { journalNote, readAnchor } from '../../state/anchor.js';
import { anchorPaths } from '../../state/anchorPaths.js';
import { RefusalError } from '../../state/rules/errors.js';
import { appendEvent } from '../../state/eventLog.js';
import { sha256Hex } from '../../state/hash.js';
import { checkIntegrity } from '../../tamper/integrity.js';
import { readStateText } from '../../state/loadState.js';
import { restoreStateText, withStateLock } from '../../state/stateStore.js';
import { parseFlags } from '../args.js';
import { openSession, out } from '../session.js';
import type { Verb } from '../verb.js';

const USAGE = 'tdd-gate recover';

/**
 * Put the cycle back as the CLI last left it, from the anchor kept outside the work tree: the
 * state file, then every watched control file that has an intact copy (ADR 006). The person
 * confirms it (the hook asks). What cannot be restored is listed, and the gate stays closed.
 */
export const recover: Verb = {
  name: 'recover',
  summary: 'restore the state and the control files of the active cycle from the anchor outside the work tree',
  usage: USAGE,
  mutates: true,
  async run(args, io) {
    parseFlags(args, {}, USAGE);
    const s = openSession(io);
    const paths = anchorPaths(s.repo, io.env);
    const anchor = readAnchor(paths);
    if (anchor === null || !anchor.active || anchor.state_text === null) {
      throw new RefusalError('no anchored TDD cycle is active on this branch, so there is nothing to recover (a state written by hand has no anchor); `tdd-gate status` shows the state');
    }
    const stateRel = path.relative(s.root, s.statePath);
    const restoredState = await withStateLock(s.statePath, () => {
      let text: string | null = null;
      try {
        text = readStateText(s.statePath);
      } catch {
        text = null;
      }
      if (text !== null && sha256Hex(text) === anchor.state_sha256) return false;
      restoreStateText(s.statePath, anchor.state_text!);
      return true;
    });
    const report = checkIntegrity(paths, anchor);
    const restored = [...(restoredState ? [stateRel] : []), ...report.restored.map((f) => path.relative(s.root, f.path))];
    journalNote(paths, { seq: anchor.seq, note: 'recover', restored, broken: report.broken.map((f) => f.path) });
    appendEvent(s.root, { type: 'recover', restored, broken: report.broken.map((f) => f.path), phase: anchor.phase });
    out(s, restored.length > 0 ? `tdd-gate: restored ${restored.join(', ')} from the anchor (cycle ${anchor.phase}, ${anchor.branch}).` : 'tdd-gate: the state and the control files already match the anchor.');
    if (report.broken.length > 0) {
      for (const f of report.broken) out(s, `  still broken: ${f.what} ${f.change}; ${f.fix ?? 'repair it by hand'}`);
      throw new RefusalError('some control files could not be restored from the anchor; repair them as listed above, then run `tdd-gate recover` again');
    }
    return 0;
  },
};
