import { renameSync } from 'node:fs';
import path from 'node:path';
import { journalStateChange, repairAnchor } from '../../state/anchor.js';
import { anchorPaths, anchorSaysActive } from '../../state/anchorPaths.js';
import { appendEvent } from '../../state/eventLog.js';
import { GateError, RefusalError } from '../../state/rules/errors.js';
import { parseFlags, requireFlag } from '../args.js';
import { requirePersonAsked } from '../personAsked.js';
import { loadState, openSession, out, transition } from '../session.js';
import { ACTIVE_PHASES } from '../../state/rules/phases.js';
import type { Verb } from '../verb.js';
import { syncHardening } from './harden.js';
import { heldoutFiles } from '../../heldout/cycle.js';
import { bringBack, storeDirs } from '../../heldout/store.js';
import { clearMarkers, judgeCycleTraces } from '../../tamper/traces.js';

const USAGE = 'tdd-gate abort --reason <text>';

export const abort: Verb = {
  name: 'abort',
  summary: 'end the cycle on purpose (recorded); a corrupt state file is kept aside as a copy',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseFlags(args, { reason: { type: 'string' } }, USAGE);
    const reason = requireFlag(values.reason, '--reason', USAGE).replace(/\s+/g, ' ').trim();
    const s = openSession(io);
    requirePersonAsked(s, 'abort');
    try {
      const current = loadState(s);
      const paths = anchorPaths(s.repo, io.env);
      const anchor = repairAnchor(paths);
      if ((current === null || current.phase === 'done') && anchor?.active !== true && !anchorSaysActive(s.repo, io.env, paths)) {
        const traces = judgeCycleTraces(s.repo, s.statePath, paths, anchor);
        if (traces.kind === 'open') {
          // The records are gone, traces remain: the close is journaled, and the traces are closed with it.
          journalStateChange(s.statePath, null, io.env, `abort: ${reason}`);
          clearMarkers(s.statePath, paths);
          appendEvent(s.root, { type: 'transition', from: 'missing', to: 'none', verb: 'abort', note: reason, traces: traces.traces.map((t) => t.what) });
          out(s, 'tdd-gate: the records of the cycle were gone, but traces of it remained; the cycle was ended and its traces closed. No cycle is active now.');
          return 0;
        }
      }
      if (current === null && (anchor?.active === true || anchorSaysActive(s.repo, io.env, paths))) {
        // The state file is gone but the anchor still holds the cycle: end it there.
        journalStateChange(s.statePath, null, io.env, `abort: ${reason}`);
        appendEvent(s.root, { type: 'transition', from: 'missing', to: 'none', verb: 'abort', note: reason });
        out(s, 'tdd-gate: the state file was missing; the cycle recorded in the anchor was ended. No cycle is active now.');
        return 0;
      }
    } catch (err) {
      if (!(err instanceof GateError && err.ruleId === 'state-corrupt')) throw err;
      const aside = `${s.statePath}.corrupt-${s.now().toISOString().replace(/[:.]/g, '-')}`;
      renameSync(s.statePath, aside);
      journalStateChange(s.statePath, null, io.env, `abort: ${reason}`);
      const rel = path.relative(s.root, aside);
      appendEvent(s.root, { type: 'transition', from: 'corrupt', to: 'none', verb: 'abort', note: reason, kept: rel });
      out(s, `tdd-gate: the corrupt state file was moved to ${rel}; no cycle is active now.`);
      await syncHardening(s);
      return 0;
    }
    const state = await transition(s, 'abort', ACTIVE_PHASES, 'done', (_c, at) => ({ aborted: { at, reason } }), reason).catch((err: unknown) => {
      if (err instanceof RefusalError && /no TDD cycle|but the cycle is in done/.test(err.message)) throw new RefusalError('there is no active cycle to abort');
      throw err;
    });
    // Held-out tests come back into the open with the cycle's end (docs/heldout.md).
    const heldout = heldoutFiles(state);
    let back = '';
    if (Object.keys(heldout).length > 0) {
      try {
        const returned = bringBack(s.root, storeDirs(s.repo, s.io.env), heldout);
        if (returned.length > 0) back = ` The ${returned.length} held-out test file(s) are back in the work tree.`;
      } catch (err) {
        back = ` ${err instanceof Error ? err.message : String(err)}.`;
      }
    }
    await syncHardening(s);
    out(s, `tdd-gate: cycle for ${state.spec_id} aborted (${reason}). The gate is off for this branch.${back}`);
    return 0;
  },
};
