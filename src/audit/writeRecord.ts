import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../state/hash.js';
import type { CompiledStack } from '../state/loadStack.js';
import { hashFile } from '../state/projectFiles.js';
import { COPY_SUFFIX, snapshotDir } from '../state/snapshots.js';
import type { CliState, Receipt } from '../state/schema/cliState.js';
import { readEvents } from '../state/events.js';
import { oracleParts } from '../verify/oracle/runnerParts.js';
import { cleanEnv } from '../verify/oracle/cleanEnv.js';
import type { Context } from '../state/context.js';
import { digestOf, readText, type Tree } from '../verify/tree.js';
import { VERSION } from '../state/version.js';
import {
  BLOBS_DIR,
  changedWithHashes,
  CYCLES_DIR,
  EVENTS_KEPT,
  RECORD_FORMAT,
  recordName,
  redSourceSet,
  reviewEvents,
  stableJson,
  testFile,
  type CycleRecord,
  type RecordRun,
} from './rules/record.js';
import { runnerVersion } from './runnerVersion.js';
import { TDD_DIR } from '../state/rules/tddDir.js';

/** The lines `.tdd/.gitignore` needs so the cycle records are committed with the work. */
const CYCLES_UNIGNORE = '!cycles/\n!cycles/**\n';

/** A `.tdd/.gitignore` written before cycle records existed gets the lines that let them through. */
export function unignoreCycles(root: string): void {
  const file = path.join(root, TDD_DIR, '.gitignore');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return; // no .gitignore of ours: nothing hides the records
  }
  if (/^!cycles\/$/m.test(text)) return;
  writeFileSync(file, `${text.endsWith('\n') || text === '' ? text : `${text}\n`}${CYCLES_UNIGNORE}`);
}

/** An event as the record keeps it: paths inside the project root-relative (the record travels to other machines). */
function withoutRoot<T>(v: T, root: string): T {
  if (typeof v === 'string') return v.split(`${root}/`).join('').split(root).join('.') as T;
  if (Array.isArray(v)) return v.map((x: unknown) => withoutRoot(x, root)) as T;
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withoutRoot(x, root)])) as T;
  return v;
}

function run(r: Receipt | undefined): RecordRun | null {
  if (!r) return null;
  return {
    at: r.at,
    command: r.command,
    exit_code: r.exit_code,
    counts: r.counts,
    ...(r.tests ? { tests: r.tests } : {}),
    ...(typeof r.oracle === 'string' ? { oracle: r.oracle } : {}),
  };
}

/**
 * Writes the cycle record `done` leaves for review (docs/evidence.md, "The cycle record") and
 * the copies of the sources at RED it names; returns the record's root-relative path (null when
 * the cycle has no RED receipt to record). Called by `done` after the final run held, before the
 * transition.
 */
export function writeCycleRecord(s: Context, state: CliState, stack: CompiledStack, tree: Tree, final: Receipt, finishedAt: string): string | null {
  const frozen = state.frozen;
  const red = state.receipts?.red;
  // A cycle frozen without a RED receipt (a state from an older release) has no RED to replay.
  if (!frozen || !red) return null;
  const files = frozen.files;
  const projectPartKeys = new Set(Object.keys(oracleParts((rel) => readText(s.root, rel), stack.config.test_command, Object.keys(tree.sources))));
  const parts: Record<string, string> = {};
  const localParts: Record<string, string> = {};
  for (const [k, h] of Object.entries(frozen.parts ?? {})) (projectPartKeys.has(k) ? parts : localParts)[k] = h;

  // The sources at RED: the freeze's copies (.tdd/snapshots/green-entry). They are the RED run's
  // sources when the digests agree, which they do unless a source changed between RED and the freeze.
  const atFreeze = state.green_entry?.files ?? {};
  const testsAtFreeze = Object.fromEntries(Object.entries(files).filter(([rel]) => rel !== state.spec_path));
  const redAt = red.tree_sha256 === digestOf(testsAtFreeze, atFreeze, frozen.parts ?? {}) || red.tree_sha256 === digestOf(files, atFreeze, frozen.parts ?? {}) ? 'red' : 'freeze';
  const baseline = state.baseline?.sources ?? {};
  const redSources = redSourceSet(baseline, atFreeze, tree.sources);
  const blobs = path.join(s.root, BLOBS_DIR);
  const copies = snapshotDir(s.root, 'green-entry');
  for (const [rel, h] of Object.entries(redSources)) {
    if (h === null) continue;
    const dest = path.join(blobs, h);
    if (hashFile(blobs, h) === h) continue;
    // A copy that is not the freeze's bytes is not written: the audit then says RED cannot be rebuilt.
    if (hashFile(copies, rel + COPY_SUFFIX) !== h) continue;
    mkdirSync(blobs, { recursive: true });
    copyFileSync(path.join(copies, rel + COPY_SUFFIX), dest);
  }

  const tests: CycleRecord['tests'] = {};
  for (const [id, status] of Object.entries(frozen.tests ?? red.tests ?? {})) {
    const file = testFile(id, files);
    tests[id] = { file, file_sha256: file === null ? null : (files[file] ?? null), red: status };
  }
  const counted: Record<string, string> = {};
  const messages = (red as { red_messages?: Record<string, string> }).red_messages ?? {};
  for (const id of frozen.red_tests ?? red.red_tests ?? []) counted[id] = withoutRoot(messages[id] ?? '', s.root);

  const events = reviewEvents(readEvents(s.root, state.started_at)).map((e) => withoutRoot(e, s.root));
  const validator = state.verdict;
  const roles = [...new Set(readEvents(s.root, state.started_at).filter((e) => e.type === 'result' && typeof e.role === 'string').map((e) => String(e.role)))].sort();
  const record: CycleRecord = {
    format: RECORD_FORMAT,
    written_by: `tdd-gate ${VERSION}`,
    spec_id: state.spec_id,
    spec: { path: state.spec_path, hash: frozen.spec_hash, sha256: files[state.spec_path] ?? null },
    mode: state.mode,
    started_at: state.started_at,
    finished_at: finishedAt,
    roles: {
      test_validator: validator ? { verdict: validator.verdict, agent: validator.agent ?? null, sha256: validator.sha256 } : null,
      results: roles,
    },
    runner: { command: stack.config.test_command, version: runnerVersion(s.root, stack.config.test_command, cleanEnv(s.io.env, s.root, stack.config.test_env_allow ?? [])) },
    frozen: { at: frozen.at, files, parts, local_parts: localParts, ...(frozen.links ? { links: frozen.links } : {}), ...(frozen.heldout && frozen.heldout.length > 0 ? { heldout: frozen.heldout } : {}) },
    tests,
    red: { ...run(red)!, counted },
    red_sources: redSources,
    red_sources_at: redAt,
    changed: {
      tests: changedWithHashes(state.baseline?.files ?? {}, tree.tests),
      sources: changedWithHashes(baseline, tree.sources),
    },
    green: run(state.receipts?.green),
    refactor: run(state.receipts?.refactor),
    final: run(final)!,
    events: events.slice(0, EVENTS_KEPT),
    events_total: events.length,
  };
  const short = sha256Hex(`${state.spec_id}\0${state.started_at}`).slice(0, 8);
  const rel = `${CYCLES_DIR}/${recordName(state.spec_id, finishedAt, short)}`;
  mkdirSync(path.join(s.root, CYCLES_DIR), { recursive: true });
  unignoreCycles(s.root);
  if (!existsSync(path.join(s.root, rel)) || readText(s.root, rel) !== stableJson(record)) writeFileSync(path.join(s.root, rel), stableJson(record));
  return rel;
}
