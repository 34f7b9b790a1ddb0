/**
 * The cycle record: what `done` commits beside the work (`.tdd/cycles/<spec-id>-<date>-<short>.json`)
 * so a reviewer's machine can rebuild the cycle and check it (docs/evidence.md, "The cycle
 * record"). The record states claims; `tdd-gate audit` proves them by replaying. Pure: the
 * caller reads the files and the clock.
 */

export const RECORD_FORMAT = 'tdd-gate-cycle/1';
/** Where records live, relative to the project root. */
export const CYCLES_DIR = '.tdd/cycles';
/** Content-addressed copies of what the sources held at RED: `<dir>/<sha256>`. */
export const BLOBS_DIR = `${CYCLES_DIR}/blobs`;

export type TestStatus = 'passed' | 'failed' | 'skipped';
type Counts = { total: number; failed: number; passed: number; skipped?: number };

export interface RecordRun {
  at: string;
  command: string;
  exit_code: number | null;
  counts: Counts;
  /** Each test's result in the run, by identity (absent when the runner names no tests). */
  tests?: Record<string, TestStatus>;
  /** GREEN, REFACTOR, final: where the frozen tests ran (`namespace` or `copy`). */
  oracle?: string;
}

export interface CycleRecord {
  format: typeof RECORD_FORMAT;
  /** The tool that wrote it (`tdd-gate <version>`). */
  written_by: string;
  spec_id: string;
  spec: { path: string; /** normalized SPEC hash (DESIGN §2) */ hash: string; /** sha256 of the raw bytes */ sha256: string | null };
  mode: string;
  started_at: string;
  finished_at: string;
  /** Who did what: the test-validator's verdict `freeze` accepted, and each role that returned a result. */
  roles: { test_validator: { verdict: string; agent: string | null; sha256: string } | null; results: string[] };
  runner: { command: string; version: string | null };
  frozen: {
    at: string;
    /** Every frozen file (tests, test configs, files frozen whole, the SPEC): path → sha256 of the raw bytes. */
    files: Record<string, string>;
    /** Runner settings inside editable files (`package.json#runner`, `.tdd/stack.json#oracle`, …): part → sha256. */
    parts: Record<string, string>;
    /** Parts that describe this machine (the toolchain's location): kept for the reviewer, not replayed. */
    local_parts: Record<string, string>;
    links?: Record<string, string>;
    /** The held-out test files among `files` (docs/heldout.md): out of the implementer's sight until `done`, replayed like the rest. */
    heldout?: string[];
  };
  /** Every frozen test by identity: its file (null when the runner names a package) with that file's hash, and its result at RED. */
  tests: Record<string, { file: string | null; file_sha256: string | null; red: TestStatus }>;
  red: RecordRun & {
    /** The tests that made RED valid, each with the first lines of its assertion message. */
    counted: Record<string, string>;
  };
  /**
   * What each source the cycle touched held at RED: path → sha256 of the copy in `.tdd/cycles/blobs/`,
   * or null when the file did not exist at RED. RED = the sources at the commit that added the
   * record, these files replaced, and the frozen tests.
   */
  red_sources: Record<string, string | null>;
  /** `red` when the copies are the sources the valid RED ran against; `freeze` when they changed between the RED run and the freeze (the copies are the freeze's). */
  red_sources_at: 'red' | 'freeze';
  /** Files written or changed in the cycle, with their hashes when `done` ran (null: deleted). */
  changed: { tests: Record<string, string | null>; sources: Record<string, string | null> };
  green: RecordRun | null;
  refactor: RecordRun | null;
  final: RecordRun;
  /** Events worth a reviewer's eye: hook denials and asks, restores, reverts, refusals, halts, aborts. */
  events: ReviewEvent[];
  /** How many such events there were (the list keeps the first EVENTS_KEPT). */
  events_total: number;
}

interface ReviewEvent {
  at: string;
  type: string;
  [key: string]: unknown;
}

export const EVENTS_KEPT = 200;

const REVIEW_TYPES = new Set(['hook-deny', 'hook-ask', 'hook-restore', 'gate-skipped', 'revert', 'refusal', 'isolation-violation', 'format-violation', 'recover', 'result-unverified']);

/** The events a reviewer should see: denials, restores, reverts, refusals, halts and resumes, aborts. */
export function reviewEvents(events: readonly ReviewEvent[]): ReviewEvent[] {
  return events.filter((e) => {
    if (REVIEW_TYPES.has(e.type)) return true;
    if (e.type === 'result') return e.action === 'halt' || e.action === 'resume';
    if (e.type === 'transition') return e.verb === 'abort' || e.to === 'none' || (typeof e.note === 'string' && /forced/.test(e.note));
    return false;
  });
}

/** `<spec-id>-<yyyymmdd>-<short>.json`: the short part is fixed by the cycle (SPEC id and start), so a copied record does not fit another cycle's name. */
export function recordName(specId: string, finishedAt: string, short: string): string {
  const id = specId.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[-.]+/, '') || 'cycle';
  const date = finishedAt.slice(0, 10).replace(/-/g, '');
  return `${id}-${date}-${short}.json`;
}

/** Pretty JSON with sorted keys and a final newline: stable bytes for the same content, line diffs that read well. */
export function stableJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2) + '\n';
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(o)
        .filter((k) => o[k] !== undefined)
        .sort()
        .map((k) => [k, sortKeys(o[k])]),
    );
  }
  return v;
}

/** The root-relative file a test id names (`<file>::<name>`), when that file is one of `files`. */
export function testFile(id: string, files: Readonly<Record<string, string>>): string | null {
  let i = id.indexOf('::');
  while (i !== -1) {
    const head = id.slice(0, i);
    if (head in files) return head;
    i = id.indexOf('::', i + 2);
  }
  return null;
}

/**
 * The sources whose RED content the record keeps: every source that differs between the
 * baseline (RED began), RED and the end of the cycle — the stubs, the files GREEN wrote, and the
 * files it deleted — each with its hash at RED (null: absent then).
 */
export function redSourceSet(baseline: Readonly<Record<string, string>>, atRed: Readonly<Record<string, string>>, atEnd: Readonly<Record<string, string>>): Record<string, string | null> {
  const rels = new Set<string>();
  for (const rel of new Set([...Object.keys(baseline), ...Object.keys(atRed), ...Object.keys(atEnd)])) {
    const b = baseline[rel];
    const r = atRed[rel];
    const e = atEnd[rel];
    if (b !== r || r !== e) rels.add(rel);
  }
  const out: Record<string, string | null> = {};
  for (const rel of [...rels].sort()) out[rel] = atRed[rel] ?? null;
  return out;
}

/** Files that differ between `before` and `after`, with their hash after (null: gone). */
export function changedWithHashes(before: Readonly<Record<string, string>>, after: Readonly<Record<string, string>>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const rel of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    if (before[rel] !== after[rel]) out[rel] = after[rel] ?? null;
  }
  return out;
}
