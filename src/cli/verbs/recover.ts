import path from 'node:path';
import { rmSync } from 'node:fs';
import { journalNote, journalStateChange, readAnchor, repairAnchor, repinWatched, statCachePath, verifiedBlob, type AnchorRecord } from '../../state/anchor.js';
import { anchorPaths, type AnchorPaths } from '../../state/anchorPaths.js';
import { readOrNull } from '../../state/readOrNull.js';
import { journalTail, judgeCycleTraces } from '../../tamper/traces.js';
import { RefusalError } from '../../state/rules/errors.js';
import { appendEvent } from '../../state/eventLog.js';
import { sha256Hex } from '../../state/hash.js';
import { checkIntegrity } from '../../tamper/integrity.js';
import { readStateText } from '../../state/loadState.js';
import { restoreStateText, withStateLock } from '../../state/stateStore.js';
import { parseFlags } from '../args.js';
import { openSession, out, type Session } from '../session.js';
import type { Verb } from '../verb.js';

const USAGE = 'tdd-gate recover';

/**
 * Put the cycle back as the CLI last left it, from the anchor kept outside the work tree: the
 * state file, then every watched control file that has an intact copy (ADR 006). The person
 * confirms it (the hook asks). What cannot be restored is listed, and the gate stays closed.
 */
/**
 * The anchor record and its mirror are gone (or closed and rolled back) while traces of an open
 * cycle remain: the journal's last entry for the branch names the state by its hash, and the
 * anchor store keeps the state's copy by hash. The state is written back and anchored again.
 * Without both, nothing can be rebuilt, and ending the cycle is the way.
 */
async function rebuildFromTraces(s: Session, paths: AnchorPaths, anchor: AnchorRecord | null): Promise<AnchorRecord> {
  const traces = judgeCycleTraces(s.repo, s.statePath, paths, anchor);
  if (traces.kind !== 'open') {
    throw new RefusalError('no anchored TDD cycle is active on this branch, so there is nothing to recover (a state written by hand has no anchor); `tdd-gate status` shows the state');
  }
  const last = journalTail(paths, s.repo.branch);
  const blob = last !== null && last.active && last.state_sha256 !== null ? verifiedBlob(paths.home, last.state_sha256) : null;
  const text = blob === null ? null : readOrNull(blob);
  if (text === null) {
    throw new RefusalError(
      `the records of the cycle on branch ${s.repo.branch} are gone (the anchor, its mirror${last === null ? ' and the journal' : ' and the copy of the state the journal names'}), and traces of it remain (${traces.traces.map((t) => t.what).join('; ')}): there is nothing to rebuild the cycle from. End it with \`tdd-gate abort --reason "<why>"\`, then start again with \`tdd-gate init\`.`,
    );
  }
  await withStateLock(s.statePath, () => {
    restoreStateText(s.statePath, text);
    journalStateChange(s.statePath, text, s.io.env, 'recover: rebuilt from the journal');
  });
  const rebuilt = readAnchor(paths);
  if (rebuilt === null || !rebuilt.active) throw new RefusalError('the state was written back from the journal, but anchoring it failed; run `tdd-gate recover` again');
  out(s, `tdd-gate: the anchor was gone; the state of the cycle (phase ${rebuilt.phase}) was rebuilt from the journal and anchored again.`);
  return rebuilt;
}

export const recover: Verb = {
  name: 'recover',
  summary: 'restore the state and the control files of the active cycle from the anchor outside the work tree',
  usage: USAGE,
  async run(args, io) {
    parseFlags(args, {}, USAGE);
    const s = openSession(io);
    const paths = anchorPaths(s.repo, io.env);
    let anchor = repairAnchor(paths); // the lagging copy of the record, or a lost one, comes back too
    if (anchor === null || !anchor.active || anchor.state_text === null) {
      // No active record: rebuilt from what remains, when the traces say a cycle was open.
      anchor = await rebuildFromTraces(s, paths, anchor);
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
    let report = checkIntegrity(paths, anchor);
    // A frozen test directory replaced by another real one: the person accepts it as it is now (the frozen files in it were just checked).
    const dirs = anchor.protect.filter((p) => p.kind === 'dirchain' && report.broken.some((b) => b.path === p.path)).map((p) => p.path);
    if (dirs.length > 0 && repinWatched(s.repo, dirs, io.env, 'recover: accepted the directories as they are').length > 0) {
      // The person accepted them: what the checks remembered of the replaced directories goes.
      rmSync(statCachePath(paths), { force: true });
      const again = readAnchor(paths);
      if (again !== null) report = checkIntegrity(paths, again);
    }
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
