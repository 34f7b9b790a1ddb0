import { readFileSync } from 'node:fs';
import { isatty } from 'node:tty';
import { renderStatusLine, roleAtWork, STATUS_UNKNOWN, type StatusFacts } from '../../doctor/rules/statusLine.js';
import { readLoop } from '../../handoff/rules/loop.js';
import { KILL_SWITCH } from '../../hooks/output.js';
import { anchorMismatch } from '../../state/anchor.js';
import { inflight } from '../../state/anchorInflight.js';
import { anchorPaths } from '../../state/anchorPaths.js';
import { readStateText } from '../../state/loadState.js';
import { findRepo } from '../../state/repo.js';
import { statePathFor } from '../../state/statePath.js';
import type { CliState } from '../../state/schema/cliState.js';
import { settingsFiles, skipsSince } from '../../doctor/facts.js';
import { loadState, openSession } from '../session.js';
import type { CliIo, Verb } from '../verb.js';

const USAGE = 'tdd-gate statusline   (Claude Code runs it with its statusLine JSON on stdin)';

function readInput(): Record<string, unknown> {
  if (isatty(0)) return {};
  try {
    const v = JSON.parse(readFileSync(0, 'utf8')) as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The directory the session works in: the status line JSON's workspace, else its cwd, else ours. */
function workDirOf(input: Record<string, unknown>, fallback: string): string {
  const ws = input.workspace as { current_dir?: unknown; project_dir?: unknown } | undefined;
  for (const d of [ws?.current_dir, input.cwd, ws?.project_dir]) if (typeof d === 'string' && d !== '') return d;
  return fallback;
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The cheap part of `doctor`: is anything switching the gate off? */
function switchedOff(root: string, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  if (env[KILL_SWITCH] === '1') out.push(`${KILL_SWITCH}=1`);
  let enabled: unknown;
  for (const { file, shown } of settingsFiles(root, env.HOME ?? '')) {
    const s = readJson(file);
    if (s === null) continue;
    if (s.disableAllHooks === true) out.push(`disableAllHooks in ${shown}`);
    if ((s.env as Record<string, unknown> | undefined)?.[KILL_SWITCH] === '1') out.push(`${KILL_SWITCH} in ${shown}`);
    const plugins = s.enabledPlugins as Record<string, unknown> | undefined;
    if (enabled === undefined && typeof plugins === 'object' && plugins !== null) {
      const key = Object.keys(plugins).find((k) => k.startsWith('tdd-gate@'));
      if (key !== undefined) enabled = plugins[key] === false ? shown : true;
    }
  }
  if (typeof enabled === 'string') out.push(`plugin disabled in ${enabled}`);
  return out;
}

function factsFor(io: CliIo, dir: string): StatusFacts {
  const repo = findRepo(dir);
  const idle: StatusFacts = { phase: null, mode: null, role: null, retries: null, halted: false, gateProblems: [], skips: 0 };
  if (repo === null) return { ...idle, outsideRepo: true };
  const gateProblems = switchedOff(repo.root, io.env);
  const statePath = statePathFor(repo);
  let text: string | null;
  try {
    text = readStateText(statePath);
  } catch {
    text = null;
  }
  const mismatch = anchorMismatch(statePath, text, io.env);
  if (mismatch !== null) gateProblems.push('state ≠ anchor (tdd-gate recover)');
  let state: CliState | null = null;
  try {
    state = loadState(openSession({ ...io, cwd: repo.root }));
  } catch {
    gateProblems.push('state unreadable');
  }
  if (state === null || state.phase === 'done') return { ...idle, gateProblems };
  const running = inflight(anchorPaths(repo, io.env)).find((m) => m.agent_type !== null && m.agent_type.startsWith('tdd-gate:'));
  const role = running?.agent_type?.slice('tdd-gate:'.length) ?? roleAtWork(state.phase, state.mode, state.receipts?.red?.valid === true);
  const loop = state.loop === undefined ? null : readLoop(state);
  let retries: StatusFacts['retries'] = null;
  if (loop !== null && role !== null) {
    const used = loop.budgets[`${role} ${loop.current_ac ?? '-'}`]?.semantic ?? 0;
    retries = { left: Math.max(0, loop.limits.semantic_retries - used), limit: loop.limits.semantic_retries };
  }
  return { phase: state.phase, mode: state.mode, role, retries, halted: (loop?.halted ?? null) !== null, gateProblems, skips: skipsSince(repo.root, state.started_at).count };
}

export const statusline: Verb = {
  name: 'statusline',
  summary: "one short line for Claude Code's status bar: phase, mode, the role at work, retries left, whether the gate is live (read-only; never fails)",
  usage: USAGE,
  // eslint-disable-next-line @typescript-eslint/require-await
  async run(args, io) {
    let line = STATUS_UNKNOWN;
    try {
      if (args.length > 0) throw new Error('no flags');
      line = renderStatusLine(factsFor(io, workDirOf(readInput(), io.cwd)));
    } catch {
      line = STATUS_UNKNOWN;
    }
    io.stdout.write(`${line}\n`);
    return 0;
  },
};
