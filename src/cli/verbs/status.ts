import { anchorSaysActive } from '../../state/anchorPaths.js';
import { GateError } from '../../state/rules/errors.js';
import { describeLoop } from '../../handoff/rules/describe.js';
import type { CliState, Receipt } from '../../state/schema/cliState.js';
import { parseFlags } from '../args.js';
import { loadState, nextStepFor, openSession, out } from '../session.js';
import { outOfSight } from '../../heldout/cycle.js';
import { keepsTwoSets, setsNote } from '../../heldout/rules/defaults.js';
import type { Verb } from '../verb.js';
import { wallLine } from './harden.js';

const USAGE = 'tdd-gate status [--json]';

function ago(fromIso: string, now: Date): string {
  const s = Math.max(0, Math.round((now.getTime() - Date.parse(fromIso)) / 1000));
  if (s < 90) return `${s}s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

function receiptLine(kind: string, r: Receipt | undefined, now: Date): string | null {
  if (!r) return null;
  const what = r.valid ? 'valid' : `INVALID (${r.reason ?? 'see log'})`;
  return `  ${kind.padEnd(8)} ${what}; ${r.counts.failed}/${r.counts.total} failing; ${ago(r.at, now)} ago; log ${r.log}`;
}

/** The next step, sharpened by the receipts (a valid RED means the freeze is next, not another run). */
export function nextStep(state: CliState): string {
  const r = state.receipts ?? {};
  if (state.phase === 'tdd-red' && r.red?.valid) return 'get the test-validator verdict, then `tdd-gate freeze --verdict <file>`';
  if (state.phase === 'tdd-green' && r.green?.valid) return '`tdd-gate advance refactor`, or `tdd-gate done`';
  if (state.phase === 'tdd-refactor' && r.refactor?.valid) return 'refactor more and `tdd-gate verify refactor`, or `tdd-gate done`';
  return nextStepFor(state.phase);
}

function statusJson(state: CliState | null, stateRel: string, now: Date): Record<string, unknown> {
  if (state === null) return { active: false, state_file: stateRel, next: nextStepFor('done') };
  return {
    active: state.phase !== 'done',
    phase: state.phase,
    mode: state.mode,
    spec_id: state.spec_id,
    spec_path: state.spec_path,
    spec_hash: state.spec_hash,
    plan_artifact: state.plan_artifact,
    started_at: state.started_at,
    phase_entered_at: state.phase_entered_at,
    seconds_in_phase: Math.max(0, Math.round((now.getTime() - Date.parse(state.phase_entered_at)) / 1000)),
    receipts: state.receipts ?? {},
    frozen_files: state.frozen ? Object.keys(state.frozen.files).length : 0,
    heldout: { sets: keepsTwoSets(state.mode) ? 2 : 1, files: state.frozen?.heldout?.length ?? 0, out_of_sight: outOfSight(state) },
    ...(state.aborted ? { aborted: state.aborted } : {}),
    ...(state.loop !== undefined ? { loop: state.loop } : {}),
    next: nextStep(state),
    state_file: stateRel,
  };
}

export const status: Verb = {
  name: 'status',
  summary: 'show phase, mode, SPEC, time in phase, last receipts and the next legitimate step (read-only)',
  usage: USAGE,
  // eslint-disable-next-line @typescript-eslint/require-await
  async run(args, io) {
    const { values } = parseFlags(args, { json: { type: 'boolean' } }, USAGE);
    const s = openSession(io);
    const now = s.now();
    let state: CliState | null;
    try {
      state = loadState(s);
    } catch (err) {
      if (values.json && err instanceof GateError) out(s, JSON.stringify({ active: null, error: err.message, rule: err.ruleId, state_file: s.stateRel }));
      throw err;
    }
    if (state === null && anchorSaysActive(s.repo, io.env)) {
      // The state file is gone while the anchor holds an active cycle: the gate blocks every write.
      const message = `the state file ${s.stateRel} of branch ${s.repo.branch} is missing, but the anchor kept outside the work tree says a cycle is active: something other than the tdd-gate CLI deleted it, and the gate blocks every write until the user runs \`tdd-gate recover\` (or ends the cycle with \`tdd-gate abort --reason "<why>"\`)`;
      out(s, values.json ? JSON.stringify({ active: null, error: message, rule: 'state-tampered', state_file: s.stateRel }) : `tdd-gate: ${message}.`);
      return 1;
    }
    if (values.json) {
      out(s, JSON.stringify(statusJson(state, s.stateRel, now)));
      return 0;
    }
    if (state === null) {
      out(s, `tdd-gate: no TDD cycle on branch ${s.repo.branch}. Start one with \`tdd-gate init --spec <path>\`.`);
      out(s, wallLine(s, false));
      return 0;
    }
    const lines = [
      `tdd-gate: ${state.phase}${state.aborted ? ' (aborted)' : ''} for ${state.spec_id} (${state.spec_path}), mode ${state.mode}, branch ${s.repo.branch}`,
      `  in phase ${ago(state.phase_entered_at, now)} (cycle started ${ago(state.started_at, now)} ago)`,
      ...(state.plan_artifact ? [`  plan     ${state.plan_artifact}`] : []),
      ...(state.frozen ? [`  frozen   ${Object.keys(state.frozen.files).length} files, spec_hash ${state.spec_hash.slice(0, 12)}…`] : []),
      `  tests    ${setsNote(state.mode)}${outOfSight(state) ? `; ${state.frozen?.heldout?.length ?? 0} held-out files out of sight until \`done\`` : ''}`,
      receiptLine('red', state.receipts?.red, now),
      receiptLine('green', state.receipts?.green, now),
      receiptLine('refactor', state.receipts?.refactor, now),
      ...(state.aborted ? [`  aborted: ${state.aborted.reason}`] : []),
      ...describeLoop(state).map((l) => `  ${l}`),
      `  next: ${nextStep(state)}`,
      wallLine(s, state.phase !== 'done'),
    ].filter((l): l is string => l !== null);
    out(s, lines.join('\n'));
    return 0;
  },
};
