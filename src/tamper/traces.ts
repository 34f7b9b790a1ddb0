import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AnchorPaths } from '../state/anchorPaths.js';
import { childPath } from '../state/childPath.js';
import { readOrNull } from '../state/readOrNull.js';
import type { Repo } from '../state/repo.js';
import { statCacheOf } from './openMarkers.js';
import { judgeTraces, type Trace, type TraceFacts, type TraceVerdict } from './rules/traces.js';

/** `.tdd/open-<slug>-<h6>` beside `.tdd/state-<slug>-<h6>.json`: the project's trace of an open cycle. */
function projectMarkerPath(statePath: string): string {
  const dir = path.dirname(statePath);
  const base = path.basename(statePath);
  return path.join(dir, `open-${base.slice('state-'.length, base.length - '.json'.length)}`);
}

/** The CLI, at every state change: the project's marker exists exactly while the cycle is open. */
export function markProject(statePath: string, open: boolean, now = Date.now()): void {
  const file = projectMarkerPath(statePath);
  try {
    if (!open) rmSync(file, { force: true });
    else if (!existsSync(file)) writeFileSync(file, JSON.stringify({ opened_at: now }) + '\n');
  } catch {
    // best effort: the anchor is the record; this is one trace among several
  }
}

function openedAtOf(file: string): number | null {
  const text = readOrNull(file);
  if (text === null) return null;
  try {
    const v = (JSON.parse(text) as { opened_at?: unknown }).opened_at;
    return typeof v === 'number' ? v : null;
  } catch {
    return null;
  }
}

/** The tail of a file (the last `bytes`), without reading what came before. */
function tail(file: string, bytes: number): string | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - bytes);
    const buf = Buffer.alloc(size - start);
    readSync(fd, buf, 0, buf.length, start);
    return buf.toString('utf8');
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The last state change the journal records for `branch`. */
export function journalTail(paths: AnchorPaths, branch: string): { active: boolean; seq: number; at: number; state_sha256: string | null } | null {
  const text = tail(childPath(paths.home, 'journal.jsonl'), 256 * 1024);
  if (text === null) return null;
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    try {
      const e = JSON.parse(line) as { branch?: unknown; phase?: unknown; seq?: unknown; at?: unknown; state_sha256?: unknown };
      if (e.branch !== branch || typeof e.phase !== 'string' || typeof e.seq !== 'number') continue;
      return { active: e.phase !== 'done' && e.phase !== 'none', seq: e.seq, at: typeof e.at === 'string' ? Date.parse(e.at) : 0, state_sha256: typeof e.state_sha256 === 'string' ? e.state_sha256 : null };
    } catch {
      continue; // a torn first line of the tail
    }
  }
  return null;
}

/** Every trace of an open cycle of the branch, apart from the anchor record itself. */
function gatherTraces(repo: Repo, statePath: string, paths: AnchorPaths, anchor: { active: boolean; at: string; seq: number } | null): TraceFacts {
  const traces: Trace[] = [];
  const marker = projectMarkerPath(statePath);
  if (existsSync(marker)) traces.push({ what: `the project marker ${path.relative(repo.root, marker)}`, openedAt: openedAtOf(marker) });
  const cache = statCacheOf(paths);
  if (existsSync(cache)) traces.push({ what: `the gate's stat cache of the cycle ${path.relative(repo.root, cache)}`, openedAt: null });
  for (const kind of ['frozen', 'green-entry', 'red-sources']) {
    const dir = path.join(repo.root, '.tdd', 'snapshots', kind);
    if (nonEmpty(dir)) traces.push({ what: `the cycle's snapshots .tdd/snapshots/${kind}`, openedAt: null, weak: true });
  }
  return {
    anchor: anchor === null ? null : { active: anchor.active, at: Date.parse(anchor.at), seq: anchor.seq },
    journal: journalTail(paths, repo.branch),
    traces,
  };
}

function nonEmpty(dir: string): boolean {
  try {
    return readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}

export function judgeCycleTraces(repo: Repo, statePath: string, paths: AnchorPaths, anchor: { active: boolean; at: string; seq: number } | null): TraceVerdict {
  return judgeTraces(gatherTraces(repo, statePath, paths, anchor));
}

/** After a proper close, what a crash or a late hook left behind goes, so the quick check is cheap again. */
export function clearMarkers(statePath: string, paths: AnchorPaths): void {
  for (const file of [projectMarkerPath(statePath), statCacheOf(paths)]) {
    try {
      rmSync(file, { force: true });
    } catch {
      // gone meanwhile
    }
  }
}
