import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isWordChar } from './rules/ascii.js';
import type { AnchorPaths } from './anchorPaths.js';

/**
 * Commands in flight (ADR 006). The PreToolUse gate marks every Bash and Monitor call it lets
 * run, with the agent that made it; PostToolUse (or PostToolUseFailure) clears the mark, a
 * subagent's stop clears its own. While a mark is there, the command may still be running, so:
 * - a SubagentStop that arrives then may have been forged by that command piping an event into
 *   the hook program: its tdd-result is not recorded (freeze then refuses; the validator is
 *   dispatched again);
 * - a state change while a subagent's command runs may be that subagent running the CLI by a
 *   spelling the static check missed: the state store refuses it.
 */
interface Inflight {
  id: string;
  agent_type: string | null;
  agent_id: string | null;
  tool: string;
  background: boolean;
  at: number;
  until: number;
  /** The rule of the gate's `ask` for this call (the person was asked to confirm it), or absent. */
  asked?: string;
}

const FOREGROUND_SLACK_MS = 30_000;
const DEFAULT_TIMEOUT_MS = 120_000;
const BACKGROUND_MS = 30 * 60_000;

function dir(paths: AnchorPaths): string {
  return path.join(paths.home, 'inflight');
}

/** A tool_use_id as a file name: by code unit, each outside [A-Za-z0-9_-] as "_", at most 100. */
export function markName(id: string): string {
  let name = '';
  for (let i = 0; i < id.length && name.length < 100; i++) {
    const ch = id.charAt(i);
    name += isWordChar(ch) || ch === '-' ? ch : '_';
  }
  return name;
}

function fileOf(paths: AnchorPaths, id: string): string {
  return path.join(dir(paths), `${markName(id)}.json`);
}

export function markInflight(
  paths: AnchorPaths,
  call: { id: string; agentType?: string | undefined; agentId?: string | undefined; tool: string; background: boolean; timeoutMs?: number | undefined; asked?: string | undefined },
  now = Date.now(),
): void {
  try {
    mkdirSync(dir(paths), { recursive: true });
    const until = now + (call.background ? BACKGROUND_MS : (call.timeoutMs ?? DEFAULT_TIMEOUT_MS) + FOREGROUND_SLACK_MS);
    const rec: Inflight = { id: call.id, agent_type: call.agentType ?? null, agent_id: call.agentId ?? null, tool: call.tool, background: call.background, at: now, until, ...(call.asked !== undefined ? { asked: call.asked } : {}) };
    writeFileSync(fileOf(paths, call.id), JSON.stringify(rec));
  } catch {
    // best effort: a missing mark weakens a second check, never the first
  }
}

export function clearInflight(paths: AnchorPaths, id: string): void {
  removeIfThere(fileOf(paths, id));
}

/** rmSync(file, { force: true }) without its option handling: this runs on every Bash call. */
function removeIfThere(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** The live marks (expired ones are removed). */
export function inflight(paths: AnchorPaths, now = Date.now()): Inflight[] {
  let names: string[];
  try {
    names = readdirSync(dir(paths));
  } catch {
    return [];
  }
  const out: Inflight[] = [];
  for (const name of names) {
    const file = path.join(dir(paths), name);
    try {
      const rec = JSON.parse(readFileSync(file, 'utf8')) as Inflight;
      if (typeof rec.until === 'number' && rec.until > now) out.push(rec);
      else removeIfThere(file);
    } catch {
      // a half-written mark counts as nothing
    }
  }
  return out;
}

/** A subagent that stopped runs nothing in the foreground any more; its background marks go too. */
export function clearAgent(paths: AnchorPaths, agentId: string): void {
  for (const rec of inflight(paths)) if (rec.agent_id === agentId) clearInflight(paths, rec.id);
}

/**
 * An agent makes one foreground call at a time (parallel calls of one turn start within moments
 * of each other): when it starts a new call, its foreground marks older than a few seconds
 * belong to calls that ended without a PostToolUse (declined, or denied by another hook).
 */
export function clearEnded(paths: AnchorPaths, agentId: string | null, now = Date.now(), graceMs = 5_000): void {
  for (const rec of inflight(paths, now)) {
    if (!rec.background && rec.agent_id === agentId && now - rec.at > graceMs) clearInflight(paths, rec.id);
  }
}
