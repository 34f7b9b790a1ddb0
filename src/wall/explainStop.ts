import { homedir } from 'node:os';
import { readRecord } from './settingsMerge.js';
import type { Repo } from '../state/repo.js';
import type { WallClass, WallPath } from './rules/controlPaths.js';
import { explainStops, LOOPBACK_NOTE, loopbackRefused, wallStops } from './rules/explain.js';

/** The text a Bash call left (stdout, stderr, or the failure's error), as the client hands it to PostToolUse. */
function outputOf(input: Record<string, unknown>): string {
  const parts: string[] = [];
  const r = input.tool_response;
  if (typeof r === 'string') parts.push(r);
  else if (typeof r === 'object' && r !== null) {
    for (const k of ['stdout', 'stderr', 'output', 'error']) {
      const v = (r as Record<string, unknown>)[k];
      if (typeof v === 'string') parts.push(v);
    }
  }
  if (typeof input.error === 'string') parts.push(input.error);
  return parts.join('\n').slice(0, 200_000);
}

/**
 * When the OS wall stopped a write during the last Bash call: which rule, and what to do instead.
 * Null when the wall is not applied here or the output names no walled path.
 */
export function wallStopExplanation(repo: Repo, cwd: string, input: Record<string, unknown>, env: NodeJS.ProcessEnv): string | null {
  let applied;
  try {
    applied = readRecord(repo.gitDir).applied;
  } catch {
    return null;
  }
  // Held-out read rules alone (no wall): nothing the sandbox stopped.
  if (applied === null || applied.section.sandbox === undefined) return null;
  const output = outputOf(input);
  if (output === '') return null;
  const classes: Record<string, WallClass> = applied.section.classes ?? {};
  const list: WallPath[] = applied.section.sandbox.filesystem.denyWrite.map((p) => ({ path: p, dir: true, cls: classes[p] ?? 'records' }));
  const stops = explainStops(wallStops(output, cwd, env.HOME ?? homedir(), list));
  if (stops !== null) return stops;
  return process.platform === 'linux' && loopbackRefused(output) ? LOOPBACK_NOTE : null;
}
