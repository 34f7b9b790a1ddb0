/**
 * The audit's rules, pure: each takes what the repository holds (through readers) and a cycle
 * record, and returns findings that name what failed. The I/O (git, worktrees, the test runs)
 * is in src/audit/run.ts; the judge is the CLI's own (src/verify/rules/judge.ts).
 */
import { judgeGreen, judgeRed, notAnAssertion, type RunOutcome } from '../../verify/rules/judge.js';
import { BLOBS_DIR, RECORD_FORMAT, recordName, type CycleRecord, type TestStatus } from './record.js';
import { TDD_DIR } from '../../state/rules/tddDir.js';

/** One named check of the audit: a JUnit test case, a line of the summary. */
export interface Check {
  name: string;
  ok: boolean;
  /** Why it failed, or what it established. */
  detail: string;
}

const pass = (name: string, detail: string): Check => ({ name, ok: true, detail });
export const fail = (name: string, detail: string): Check => ({ name, ok: false, detail });

const list = (xs: readonly string[], n = 4) => `${xs.slice(0, n).join(', ')}${xs.length > n ? ` and ${xs.length - n} more` : ''}`;
const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const short = (h: string | null | undefined) => (h ? h.slice(0, 12) : 'absent');

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isHashMap = (v: unknown): boolean => isObj(v) && Object.values(v).every((h) => typeof h === 'string' && /^[0-9a-f]{64}$/.test(h));

/** A project path as records name them: relative, '/'-separated, no '.' or '..' part, outside .git and .tdd. */
export function isProjectPath(rel: string): boolean {
  if (rel === '' || rel.startsWith('/') || rel.includes('\\') || rel.includes('\0') || /^[A-Za-z]:/.test(rel)) return false;
  const parts = rel.split('/');
  return parts.every((p) => p !== '' && p !== '.' && p !== '..') && parts[0] !== '.git' && parts[0] !== TDD_DIR;
}

/** The record's shape, enough for the checks to read it; null when it is one. */
export function shapeProblem(v: unknown): string | null {
  if (!isObj(v)) return 'it is not a JSON object';
  if (v.format !== RECORD_FORMAT) return `its format is ${JSON.stringify(v.format)}, not ${RECORD_FORMAT}`;
  for (const k of ['spec_id', 'started_at', 'finished_at', 'mode']) if (typeof v[k] !== 'string') return `"${k}" is missing`;
  if (!isObj(v.spec) || typeof v.spec.path !== 'string' || typeof v.spec.hash !== 'string') return '"spec" is missing its path or hash';
  if (!isObj(v.frozen) || !isHashMap(v.frozen.files) || !isHashMap(v.frozen.parts ?? {})) return '"frozen" is missing or its hashes are malformed';
  if (!isObj(v.tests)) return '"tests" is missing';
  if (!isObj(v.red) || !isObj(v.red.counted) || typeof v.red.command !== 'string') return '"red" is missing its command or counted tests';
  if (!isObj(v.red_sources) || !Object.values(v.red_sources).every((h) => h === null || (typeof h === 'string' && /^[0-9a-f]{64}$/.test(h)))) return '"red_sources" is missing or malformed';
  if (!isObj(v.changed) || !isObj(v.changed.sources) || !isObj(v.changed.tests)) return '"changed" is missing';
  if (!isObj(v.runner) || typeof v.runner.command !== 'string') return '"runner" is missing';
  if (!isObj(v.final)) return '"final" is missing';
  const paths = [...Object.keys(v.frozen.files as object), ...Object.keys(v.red_sources), ...Object.keys(v.changed.sources), ...Object.keys(v.changed.tests), v.spec.path];
  const bad = paths.find((rel) => !isProjectPath(rel));
  if (bad !== undefined) return `it names ${JSON.stringify(bad)}, which is not a path inside the project`;
  return null;
}

/** What the consistency check reads at the commit that added the record. */
export interface AtCommit {
  commit: string;
  /** Whether `.tdd/stack.json` at that commit calls a path a source file (not a test, not a test config). */
  isSource: (rel: string) => boolean;
  /** sha256 of a file's raw bytes at that commit; null when it is not there. */
  hash: (rel: string) => string | null;
  /** The normalized SPEC hash of a file at that commit; null when it is not there. */
  specHash: (rel: string) => string | null;
  /** The runner settings at that commit, computed as `freeze` computes them (part → sha256). */
  parts: Readonly<Record<string, string>>;
  /** The test command of `.tdd/stack.json` at that commit. */
  testCommand: string | null;
  /** The record's short name part for its SPEC id and start (sha256 of both, 8 hex). */
  shortFor: (specId: string, startedAt: string) => string;
}

/**
 * A record edited or written by hand proves nothing, but it can contradict itself and the
 * commit that added it: the files it names must hash to what it says, its counted tests must be
 * frozen tests that failed, its name must be the one its cycle gets, and the copies of the
 * sources at RED must be the bytes it names.
 */
export function consistency(path: string, r: CycleRecord, at: AtCommit): Check {
  const name = 'record-consistent';
  const problems: string[] = [];
  const file = path.slice(path.lastIndexOf('/') + 1);
  const expected = recordName(r.spec_id, r.finished_at, at.shortFor(r.spec_id, r.started_at));
  if (file !== expected) problems.push(`its name is not the one its cycle gets (${expected}): a record copied from another cycle or renamed`);
  const drifted = Object.entries(r.frozen.files).filter(([rel, h]) => at.hash(rel) !== h);
  if (drifted.length > 0) {
    const [rel, h] = drifted[0]!;
    problems.push(`frozen file ${rel} is ${short(at.hash(rel))}… at ${at.commit.slice(0, 12)}, the record says ${short(h)}…${drifted.length > 1 ? ` (and ${drifted.length - 1} more files)` : ''}: the record was edited by hand or the tests changed before it was committed`);
  }
  const parts = Object.entries(r.frozen.parts).filter(([part, h]) => at.parts[part] !== h).map(([part]) => part);
  if (parts.length > 0) problems.push(`the runner settings ${list(parts)} at ${at.commit.slice(0, 12)} are not the frozen ones`);
  if (r.spec.sha256 !== null && r.frozen.files[r.spec.path] !== r.spec.sha256) problems.push(`the SPEC's hash (${short(r.spec.sha256)}…) is not the frozen one`);
  const specNow = at.specHash(r.spec.path);
  if (specNow !== r.spec.hash) problems.push(`the SPEC ${r.spec.path} hashes to ${short(specNow)}… at ${at.commit.slice(0, 12)}, the record says ${short(r.spec.hash)}…`);
  for (const [id, t] of Object.entries(r.tests)) {
    if (t.file !== null && t.file_sha256 !== (r.frozen.files[t.file] ?? null)) {
      problems.push(`test ${id} names ${t.file} with hash ${short(t.file_sha256)}…, not the frozen ${short(r.frozen.files[t.file])}…`);
      break;
    }
  }
  const counted = Object.keys(r.red.counted);
  if (counted.length === 0 && Object.keys(r.tests).length > 0) problems.push('it counts no RED test although its runner names tests');
  const notFrozen = counted.filter((id) => Object.keys(r.tests).length > 0 && !(id in r.tests));
  if (notFrozen.length > 0) problems.push(`RED tests ${list(notFrozen)} are not among its frozen tests`);
  const notFailed = counted.filter((id) => (r.tests[id]?.red ?? r.red.tests?.[id]) !== undefined && (r.tests[id]?.red ?? r.red.tests?.[id]) !== 'failed');
  if (notFailed.length > 0) problems.push(`RED tests ${list(notFailed)} are not recorded as failing at RED`);
  const notSources = Object.keys(r.red_sources).filter((rel) => rel in r.frozen.files || !at.isSource(rel));
  if (notSources.length > 0) problems.push(`its sources at RED name ${list(notSources)}, which are not source files by .tdd/stack.json (a test swapped at RED)`);
  const badBlobs = Object.entries(r.red_sources).filter(([, h]) => h !== null && at.hash(`${BLOBS_DIR}/${h}`) !== h).map(([rel]) => rel);
  if (badBlobs.length > 0) problems.push(`the copies of ${list(badBlobs)} at RED are missing from ${BLOBS_DIR}/ or not the bytes named`);
  const sources = Object.entries(r.changed.sources).filter(([rel, h]) => at.hash(rel) !== h).map(([rel]) => rel);
  if (sources.length > 0) problems.push(`the sources ${list(sources)} at ${at.commit.slice(0, 12)} are not the ones the cycle ended with (the record was edited, or the sources changed outside a cycle before the record was committed)`);
  const tests = Object.entries(r.changed.tests).filter(([rel, h]) => rel in r.frozen.files && h !== r.frozen.files[rel]).map(([rel]) => rel);
  if (tests.length > 0) problems.push(`its changed tests ${list(tests)} do not hash to the frozen ones`);
  if (at.testCommand === null) problems.push(`.tdd/stack.json at ${at.commit.slice(0, 12)} cannot be read`);
  else if (r.runner.command !== at.testCommand || r.red.command !== at.testCommand) problems.push(`its test command (${r.red.command}) is not the test_command of .tdd/stack.json at ${at.commit.slice(0, 12)} (${at.testCommand})`);
  const frozenIds = Object.entries(r.tests).filter(([, t]) => t.red !== 'skipped').map(([id]) => id);
  const finalTests = r.final.tests;
  if (finalTests) {
    const notPassed = frozenIds.filter((id) => finalTests[id] !== 'passed');
    if (notPassed.length > 0) problems.push(`its final run does not show every frozen test passing (${list(notPassed)})`);
  }
  if (problems.length > 0) return fail(name, `record ${file}: ${problems.join('; ')}`);
  return pass(name, `${count(Object.keys(r.frozen.files).length, 'frozen file')} (the SPEC among them) and ${count(Object.keys(r.red_sources).length, 'copy', 'copies')} of the sources at RED match ${at.commit.slice(0, 12)}`);
}

/** The replayed RED as the CLI's judge reads it, held to the record test by test. */
export function redReplay(r: CycleRecord, outcome: RunOutcome, rules: { redConfirm: RegExp; buildError: RegExp | null; root: string }): Check {
  const name = 'red-replayed';
  const counted = new Set(Object.keys(r.red.counted));
  const changedTests = Object.keys(r.changed.tests).filter((rel) => r.changed.tests[rel] !== null);
  const verdict = judgeRed(outcome, { command: r.red.command, redConfirm: rules.redConfirm, buildError: rules.buildError, changedTests, root: rules.root, isNew: (t) => counted.has(t.id) });
  if (outcome.tests) {
    const byId = new Map(outcome.tests.map((t) => [t.id, t]));
    const passed: string[] = [];
    const missing: string[] = [];
    const other: string[] = [];
    for (const id of counted) {
      const t = byId.get(id);
      if (!t) missing.push(id);
      else if (t.status === 'passed') passed.push(id);
      else if (t.status === 'skipped') missing.push(id);
      else {
        const why = notAnAssertion(t, rules.redConfirm, rules.buildError, outcome.facts.source);
        if (why !== null) other.push(`${id} (${why.split(':')[0] ?? why})`);
      }
    }
    if (passed.length > 0) return fail(name, `RED could not fail: ${list(passed)} passed at the rebuilt RED (the recorded sources at RED already implement it)`);
    if (other.length > 0) return fail(name, `RED failed for another reason, not on an assertion: ${list(other, 2)}`);
    if (missing.length > 0) {
      if (!verdict.valid) return fail(name, `RED failed for another reason, not on an assertion: ${verdict.reason ?? 'unknown'} (RED tests that did not run: ${list(missing)})`);
      return fail(name, `RED tests did not run at the rebuilt RED: ${list(missing)}`);
    }
  }
  if (!verdict.valid) return fail(name, `the rebuilt RED is not a valid RED: ${verdict.reason ?? 'unknown'}`);
  const n = counted.size > 0 ? count(counted.size, 'RED test') : count(verdict.failingFiles.length, 'failing test file');
  return pass(name, `${n} ${counted.size === 1 || (counted.size === 0 && verdict.failingFiles.length === 1) ? 'fails' : 'fail'} on an assertion at the rebuilt RED (${verdict.counts.failed}/${verdict.counts.total} failing)`);
}

/** What the head is held to, cycle by cycle in order: a later cycle's freeze replaces an earlier one's for the files it froze. */
interface HeadExpectations {
  files: Map<string, { hash: string; record: string }>;
  parts: Map<string, { hash: string; record: string }>;
  tests: Record<string, TestStatus>;
  redTests: string[];
  specs: Map<string, { hash: string; record: string }>;
}

export function headExpectations(cycles: readonly { path: string; record: CycleRecord }[]): HeadExpectations {
  const files = new Map<string, { hash: string; record: string }>();
  const parts = new Map<string, { hash: string; record: string }>();
  const specs = new Map<string, { hash: string; record: string }>();
  for (const { path, record } of cycles) {
    // A test a later cycle deleted (before its freeze, in view of its validator) is no longer held.
    for (const [rel, h] of Object.entries(record.changed.tests)) if (h === null && !(rel in record.frozen.files)) files.delete(rel);
    for (const [rel, hash] of Object.entries(record.frozen.files)) files.set(rel, { hash, record: path });
    for (const [part, hash] of Object.entries(record.frozen.parts)) parts.set(part, { hash, record: path });
    specs.set(record.spec.path, { hash: record.spec.hash, record: path });
  }
  const tests: Record<string, TestStatus> = {};
  const redTests: string[] = [];
  for (const { path, record } of cycles) {
    for (const [id, t] of Object.entries(record.tests)) {
      // A test in a file a later cycle froze again is that cycle's to vouch for.
      if (t.file !== null && files.get(t.file)?.record !== path) continue;
      tests[id] = t.red;
      if (id in record.red.counted) redTests.push(id);
    }
  }
  return { files, parts, tests, redTests, specs };
}

/** The frozen tests and configs at the head are the bytes frozen (the last freeze of each, in order). */
export function frozenAtHead(exp: HeadExpectations, hash: (rel: string) => string | null, isSpec: (rel: string) => boolean): Check {
  const changed: string[] = [];
  for (const [rel, want] of exp.files) {
    if (isSpec(rel)) continue;
    const now = hash(rel);
    if (now !== want.hash) changed.push(`${rel} (${now === null ? 'deleted' : 'edited'}; frozen by ${want.record.slice(want.record.lastIndexOf('/') + 1)})`);
  }
  if (changed.length > 0) return fail('frozen-tests-unchanged', `frozen test or runner configuration file edited after the freeze: ${list(changed, 3)}`);
  return pass('frozen-tests-unchanged', `${count(exp.files.size - exp.specs.size, 'frozen file')} as frozen`);
}

export function specAtHead(exp: HeadExpectations, specHash: (rel: string) => string | null): Check {
  const changed = [...exp.specs].filter(([rel, want]) => specHash(rel) !== want.hash).map(([rel]) => rel);
  if (changed.length > 0) return fail('spec-unchanged', `the SPEC changed after the freeze: ${list(changed)}`);
  return pass('spec-unchanged', `${count(exp.specs.size, 'SPEC')} as frozen`);
}

/**
 * The runner's settings (parts of editable files) as frozen, and no runner configuration file
 * (a test-config file, one frozen whole like conftest.py or .npmrc) that no freeze covered.
 */
export function partsAtHead(exp: HeadExpectations, now: Readonly<Record<string, string>>, configFiles: readonly string[]): Check {
  const changed = [...exp.parts].filter(([part, want]) => now[part] !== want.hash).map(([part]) => part);
  if (changed.length > 0) return fail('runner-config-unchanged', `the runner's configuration changed after the freeze: ${list(changed)}`);
  const added = configFiles.filter((rel) => !exp.files.has(rel));
  if (added.length > 0) return fail('runner-config-unchanged', `the runner's configuration changed after the freeze: ${list(added)} added, frozen by no cycle`);
  return pass('runner-config-unchanged', `${count(exp.parts.size, 'runner setting')} as frozen`);
}

export function stubsAtHead(files: readonly string[]): Check {
  if (files.length > 0) return fail('no-stubs', `STUB:TDD stub left in ${list(files)}`);
  return pass('no-stubs', 'no STUB:TDD marker in the sources');
}

/** Every frozen test passes at the head, by identity, as GREEN is judged. */
export function testsAtHead(exp: HeadExpectations, outcome: RunOutcome, command: string): Check {
  const counts = Object.keys(exp.tests).length > 0 ? null : { total: 0, failed: 0, passed: 0 };
  const v = judgeGreen(outcome, command, { tests: Object.keys(exp.tests).length > 0 ? exp.tests : null, redTests: exp.redTests, counts });
  if (!v.valid) return fail('frozen-tests-pass', `the frozen tests do not pass at the head: ${v.reason ?? 'unknown'}`);
  return pass('frozen-tests-pass', `${v.counts.passed}/${v.counts.total} tests pass at the head, every frozen test among them`);
}

/** A record is written once, by `done`, and added once: one changed or deleted afterwards was edited by hand. */
export function recordsAppendOnly(rewritten: readonly string[]): Check {
  if (rewritten.length > 0) return fail('records-append-only', `cycle record edited by hand after it was committed (changed or deleted in the range): ${list(rewritten)}`);
  return pass('records-append-only', 'no cycle record or copy was changed or deleted in the range');
}

type LockPackages = Record<string, { version?: unknown; integrity?: unknown }>;

/**
 * The installed dependencies are the lockfile's: npm's record of what it installed
 * (`node_modules/.package-lock.json`) against `package-lock.json`, package by package — a version
 * or integrity that differs, or a package installed that the lockfile does not name. (Packages
 * the lockfile names and the install skipped — other platforms', optional ones — are not
 * counted.) Null when there is nothing to compare: no lockfile, or an install that kept no record.
 */
export function lockfileDrift(lock: unknown, installed: unknown): Check | null {
  const pkgs = (v: unknown): LockPackages | null => (isObj(v) && isObj(v.packages) ? (v.packages as LockPackages) : null);
  const want = pkgs(lock);
  if (want === null) return null;
  const have = pkgs(installed);
  if (have === null) return fail('dependencies-match-lockfile', 'package-lock.json is there, but node_modules/.package-lock.json is not: install the dependencies with `npm ci` before the audit');
  const differ: string[] = [];
  for (const [key, got] of Object.entries(have)) {
    if (key === '') continue;
    const w = want[key];
    if (w === undefined) differ.push(`${key.replace(/^.*node_modules\//, '')} (not in the lockfile)`);
    else if (w.version !== got.version || (typeof w.integrity === 'string' && typeof got.integrity === 'string' && w.integrity !== got.integrity)) {
      differ.push(`${key.replace(/^.*node_modules\//, '')} (${String(got.version)} installed, ${String(w.version)} locked)`);
    }
  }
  if (differ.length > 0) return fail('dependencies-match-lockfile', `dependencies differ from the lockfile: ${list(differ, 3)}; install them with \`npm ci\` from package-lock.json`);
  return pass('dependencies-match-lockfile', `${count(Object.keys(have).length, 'installed package')}, as the lockfile names`);
}

/** --require-cycles: each test and test config changed in the range is one a cycle wrote (a test weakened before the cycle began is not). */
export function testsInCycles(changedTests: readonly string[], cycles: readonly CycleRecord[]): Check {
  const covered = new Set(cycles.flatMap((c) => Object.keys(c.changed.tests)));
  const outside = changedTests.filter((rel) => !covered.has(rel));
  if (outside.length > 0) return fail('tests-in-cycles', `test change outside any cycle: ${list(outside)}`);
  return pass('tests-in-cycles', `${count(changedTests.length, 'changed test')}, each in a cycle`);
}

/** --require-cycles: each source changed in the range is one a cycle changed. */
export function sourcesInCycles(changedSources: readonly string[], cycles: readonly CycleRecord[]): Check {
  const covered = new Set(cycles.flatMap((c) => Object.keys(c.changed.sources)));
  const outside = changedSources.filter((rel) => !covered.has(rel));
  if (outside.length > 0) return fail('sources-in-cycles', `source change outside any cycle: ${list(outside)}`);
  return pass('sources-in-cycles', `${count(changedSources.length, 'changed source')}, each in a cycle`);
}
