import { execFileSync } from 'node:child_process';
import { cargoTests } from './textReport.js';
import type { Counts, RunFacts, TestCase, TestStatus } from './report.js';

/**
 * cargo test by the harness's own word. cargo runs every test binary through a runner of
 * tdd-gate's own (`CARGO_TARGET_<triple>_RUNNER`, set for the run only: cargo does not fingerprint
 * it, nothing is rebuilt), a POSIX shell script written for the run into a fresh read-only folder
 * outside the project. For each binary cargo built for its tests it:
 *
 * - records which binary it runs and the crate root its dep-info names (written by rustc when it
 *   compiled the binary, not by the binary);
 * - asks the binary which tests it holds (`--list`, with the run's own filters and flags: no test
 *   runs);
 * - runs it with libtest's `--logfile`, a file of its own per binary (libtest truncates the file it
 *   opens): libtest writes one line per test there as each ends, from its own state, so text a test
 *   or the code under test writes to the process's stdout or stderr never lands in it;
 * - records how the binary ended (its exit status; a signal shows as 128 + its number), and what it
 *   printed (passed on to the console as it comes, for people).
 *
 * A binary counts only when it ended as libtest ends (0, or 101 when a test failed, agreeing with
 * its log) and its log has a result for every test it listed. A source that prints
 * `test … ok` lines and a `test result: ok.` and exits 0, a panic that aborts, a SIGKILL: the log
 * lacks the tests that never finished, and the run is refused whatever the output says. The
 * printed text is read only for each failing test's message (from the binary's own output), and
 * for doc tests, which rustdoc runs and reports (below).
 *
 * rustdoc runs doc tests itself. Since cargo 1.89 it passes cargo's runner to rustdoc too, which
 * runs each doctest program (or the merged doctest binary of edition 2024) through it; the script
 * hands those on unchanged, except that the merged binary is told its own path
 * (`RUSTDOC_DOCTEST_BIN_PATH`), as rustdoc does without a runner, so each doc test still runs in a
 * process of its own whose output the harness captures. Doc tests are read from the text rustdoc
 * prints, with every test binary's own output cut out of it first.
 */
export const CARGO_SOURCE = 'cargo';

/** The runner script's file name in its folder. */
export const CARGO_RUNNER_NAME = 'tdd-gate-cargo-runner.sh';

function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The runner as POSIX shell source; `out` is the run's report file it appends to. */
export function cargoRunnerSource(out: string): string {
  return `# tdd-gate's runner for cargo's test binaries (see cargo.ts in tdd-gate's sources).
r=${shQuote(out)}
b=$1
shift
# Every program run here runs without the variables that name this script (and so the report).
for v in $(env | sed -n 's/^\\(CARGO_TARGET_[A-Z0-9_]*_RUNNER\\)=.*/\\1/p'); do unset "$v"; done
case $b in
*/deps/*) ;;
*)
  if [ -z "\${RUSTDOC_DOCTEST_BIN_PATH:-}" ]; then RUSTDOC_DOCTEST_BIN_PATH=$b; export RUSTDOC_DOCTEST_BIN_PATH; fi
  exec "$b" "$@"
  ;;
esac
# A listing asked of the binary itself (cargo nextest lists tests so) runs as asked: no test runs in it.
for a in "$@"; do case $a in --list|--help|-h) exec "$b" "$@";; esac; done
d=$r.cache
mkdir -p "$d" || exit 97
f=$(mktemp "$d/b.XXXXXXXX") || exit 97
k=\${f##*/}
rec() { awk -v p="$1 $k" '{ print p " " $0 }'; }
printf 'B %s %s\\n' "$k" "$b" >>"$r"
printf 'P %s %s\\n' "$k" "\${CARGO_PKG_NAME:-}" >>"$r"
if [ -f "$b.d" ]; then sed -n 1p "$b.d" | rec D >>"$r"; fi
"$b" --list "$@" >"$f.list" 2>/dev/null
printf 'LE %s %s\\n' "$k" "$?" >>"$r"
rec L <"$f.list" >>"$r"
{ "$b" "$@" --logfile "$f.log" 2>&1; echo "$?" >"$f.st"; } | tee "$f.out"
s=$(cat "$f.st" 2>/dev/null)
if [ -f "$f.log" ]; then rec R <"$f.log" >>"$r"; fi
rec O <"$f.out" >>"$r"
printf 'E %s %s\\n' "$k" "\${s:-none}" >>"$r"
rm -f "$f" "$f.list" "$f.log" "$f.out" "$f.st"
case $s in ''|*[!0-9]*) exit 101;; esac
exit "$s"
`;
}

let hostMemo: string | null | undefined;

/** The host's target triple as rustc names it (`rustc -vV`), asked once per process; null when rustc cannot say. */
export function hostTriple(): string | null {
  if (hostMemo !== undefined) return hostMemo;
  try {
    const out = execFileSync('rustc', ['-vV'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 });
    hostMemo = /^host:\s*(\S+)\s*$/m.exec(out)?.[1] ?? null;
  } catch {
    hostMemo = null;
  }
  return hostMemo;
}

/**
 * The usual host triples of this platform, set beside rustc's answer: a variable for a target that
 * is not built is never read, and one that is keeps the runner when rustc cannot be asked.
 */
export function platformTriples(platform: string = process.platform, arch: string = process.arch): string[] {
  const cpu = arch === 'x64' ? 'x86_64' : arch === 'arm64' ? 'aarch64' : null;
  if (cpu === null) return [];
  if (platform === 'linux') return [`${cpu}-unknown-linux-gnu`, `${cpu}-unknown-linux-musl`];
  if (platform === 'darwin') return [`${cpu}-apple-darwin`];
  if (platform === 'freebsd') return [`${cpu}-unknown-freebsd`];
  return [];
}

/** The targets a cargo command builds for: its `--target` values (several may be given), else none (the host's). */
export function commandTargets(command: string): string[] {
  return [...command.matchAll(/(?:^|\s)--target(?:=|\s+)(['"]?)([\w.-]+)\1(?=\s|$)/g)].map((m) => m[2] ?? '').filter(Boolean);
}

/** The environment that sends every test binary of those targets through the runner at `runner`. */
export function cargoRunnerEnv(runner: string, triples: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const t of new Set(triples)) env[`CARGO_TARGET_${t.toUpperCase().replace(/[-.]/g, '_')}_RUNNER`] = `sh ${runner}`;
  return env;
}

/** One test's line (or lines) in libtest's log, by the name it ends with. */
export interface LogResult {
  status: TestStatus;
  /** What libtest wrote before the name (`failed: panic did not contain expected string …`). */
  detail: string;
}

/**
 * libtest's `--logfile`: `<result> <name>` per test as it ends, `ok`, `failed`, `failed: <why>`
 * (spread over lines that start with a space when `why` has several), `ignored`, `ignored: <why>`.
 * A record ends with its test's name: the longest of `names` (what the binary listed) it ends
 * with, else its last word (libtest's names are module paths, without spaces). A line that starts
 * no known record is not libtest's, and the record it belongs to is a failure.
 */
export function parseLibtestLog(lines: readonly string[], names: readonly string[] = []): Map<string, LogResult> {
  const spaced = names.filter((n) => /\s/.test(n)).sort((a, b) => b.length - a.length);
  const out = new Map<string, LogResult>();
  let record: string[] = [];
  const close = () => {
    if (record.length === 0) return;
    const text = record.join('\n');
    record = [];
    const trimmed = text.trimEnd();
    const name = spaced.find((n) => trimmed.endsWith(` ${n}`)) ?? /(\S+)$/.exec(trimmed)?.[1];
    if (name === undefined) return;
    const head = trimmed.slice(0, trimmed.length - name.length).trim();
    const status: TestStatus = /^ok$/.test(head) ? 'passed' : /^ignored(?::|$)/.test(head) ? 'skipped' : 'failed';
    // A test named twice in one log: a failure stays one.
    if (out.get(name)?.status === 'failed') return;
    out.set(name, { status, detail: head });
  };
  for (const line of lines) {
    if (line.trim() === '') continue;
    if (/^\s/.test(line) && record.length > 0) {
      record.push(line);
      continue;
    }
    close();
    record.push(line);
  }
  close();
  return out;
}

/**
 * libtest's `--list`: `<name>: test` (or `: bench`) lines, then `N tests, M benchmarks` (older
 * harnesses print no count); null when it lists nothing as libtest does.
 */
export function parseLibtestList(lines: readonly string[]): string[] | null {
  const names: string[] = [];
  let trailer = false;
  for (const line of lines) {
    const m = /^(\S.*): (?:test|bench)$/.exec(line);
    if (m?.[1]) names.push(m[1]);
    else if (/^\d+ tests?, \d+ benchmarks?$/.test(line)) trailer = true;
  }
  return trailer || names.length > 0 ? names : null;
}

/** One test binary as the runner recorded it. */
export interface BinaryRecord {
  binary: string;
  /** The package cargo ran it for (`CARGO_PKG_NAME`, which cargo gives the runner). */
  pkg: string | null;
  /** dep-info's first line (`<binary>.d: <crate root> …`), if the binary had one. */
  depInfo: string | null;
  listExit: number | null;
  list: string[];
  log: string[];
  output: string[];
  /** How it ended: its exit status, null when the runner never recorded an end. */
  exit: number | null;
}

/** The runner's report: one record per binary, in the order they ran. */
export function parseRunnerReport(text: string): BinaryRecord[] {
  const byKey = new Map<string, BinaryRecord>();
  const order: BinaryRecord[] = [];
  for (const line of text.split('\n')) {
    const m = /^(B|P|D|LE|L|R|O|E) (\S+)(?: (.*))?$/.exec(line);
    if (!m) continue;
    const [, tag, key, rest = ''] = m as unknown as [string, string, string, string | undefined];
    if (tag === 'B') {
      const rec: BinaryRecord = { binary: rest, pkg: null, depInfo: null, listExit: null, list: [], log: [], output: [], exit: null };
      byKey.set(key, rec);
      order.push(rec);
      continue;
    }
    const rec = byKey.get(key);
    if (!rec) continue;
    if (tag === 'P') rec.pkg = rest === '' ? null : rest;
    else if (tag === 'D') rec.depInfo = rest;
    else if (tag === 'LE') rec.listExit = /^\d+$/.test(rest) ? Number(rest) : null;
    else if (tag === 'L') rec.list.push(rest);
    else if (tag === 'R') rec.log.push(rest);
    else if (tag === 'O') rec.output.push(rest);
    else if (tag === 'E') rec.exit = /^\d+$/.test(rest) ? Number(rest) : -1;
  }
  return order;
}

/** The crate root of a test binary, from its dep-info (`…/deps/calc-1a2b.d: src/lib.rs src/add.rs`). */
export function crateRoot(depInfo: string | null): string | null {
  if (depInfo === null) return null;
  const at = depInfo.search(/(?<!\\):\s/);
  if (at === -1) return null;
  const first = /^\s*((?:\\.|[^\s\\])+)/.exec(depInfo.slice(at + 1));
  return first?.[1] ? first[1].replace(/\\(.)/g, '$1') : null;
}

/** A binary as a person knows it: the crate root it was built from, and its file's name. */
function shortBinary(binary: string, depInfo: string | null = null): string {
  const base = binary.slice(binary.lastIndexOf('/') + 1);
  const root = crateRoot(depInfo);
  return root === null ? base : `${base} (${root})`;
}

/**
 * The crate whose binary ran a test (dep-info names files from the folder cargo runs rustc in: the
 * workspace's root, which is the repository's only when the workspace is at its root).
 */
function crateOf(rec: BinaryRecord): { crate?: string } {
  return rec.pkg === null ? {} : { crate: rec.pkg.replace(/-/g, '_') };
}

/** The target's name, from its binary's (`…/deps/add_more-1a2b3c` → `add_more`). */
export function targetName(binary: string): string {
  const base = binary.slice(binary.lastIndexOf('/') + 1).replace(/\.exe$/, '');
  return base.replace(/-[0-9a-f]{16}$/, '');
}

/**
 * A binary with a main of its own (`harness = false`): it lists nothing as libtest does and writes
 * no libtest log. (libtest lists and logs even when it has no test; a libtest binary made to
 * look so still leaves its frozen tests unreported.)
 */
function customHarness(rec: BinaryRecord): boolean {
  return parseLibtestList(rec.list) === null && rec.log.length === 0 && !rec.list.some((l) => /^\S.*: (?:test|bench)$/.test(l));
}

/** Why one binary's record is not a whole libtest run, or null when it is. */
export function binaryProblem(rec: BinaryRecord): string | null {
  const name = shortBinary(rec.binary, rec.depInfo);
  const list = parseLibtestList(rec.list);
  if (rec.exit === null) return `the test binary ${name} never finished (the run stopped while it ran)`;
  if (rec.exit !== 0 && rec.exit !== 101) {
    const sig = rec.exit > 128 && rec.exit < 160 ? ` (killed by signal ${rec.exit - 128}, or exited so)` : '';
    return `the test binary ${name} ended with status ${rec.exit}${sig}, not as the test harness ends (0, or 101 when a test failed)`;
  }
  if (rec.listExit !== 0 || list === null) return `the test binary ${name} did not list its tests (\`--list\`) as the test harness does`;
  const log = parseLibtestLog(rec.log, list);
  const missing = list.filter((n) => !log.has(n));
  if (missing.length > 0 && rec.log.length === 0 && rec.output.some((l) => /unrecognized option.*logfile/i.test(l))) {
    return `the test binary ${name} does not take libtest's --logfile, which tdd-gate reads each test's result from: this toolchain's test harness dropped it; run the cycle with a toolchain that has it`;
  }
  if (missing.length > 0) {
    const shown = missing.slice(0, 3).join(', ') + (missing.length > 3 ? ` and ${missing.length - 3} more` : '');
    return `the test binary ${name} exited (status ${rec.exit}) before the test harness reported ${missing.length} of its ${list.length} tests (${shown}): a process that exits, aborts or is killed while the tests run looks like this, whatever it printed`;
  }
  const failed = [...log.values()].some((r) => r.status === 'failed');
  if (failed !== (rec.exit === 101)) return `the test binary ${name} exited ${rec.exit} although its harness log says ${failed ? 'a test failed' : 'every test passed'}`;
  return null;
}

/**
 * `text` without each of `blocks`, cut out in order (what the test binaries printed, from cargo's
 * whole output). A block the text does not hold whole (the output was cut short in its middle)
 * takes every line it printed with it, wherever that line stands: a doc test whose line a binary
 * also printed is then not reported, never reported from the binary's copy.
 */
export function withoutBlocks(text: string, blocks: readonly string[]): { text: string; missing: number } {
  let out = '';
  let at = 0;
  const lost = new Set<string>();
  let missing = 0;
  for (const block of blocks) {
    if (block.trim() === '') continue;
    const i = text.indexOf(block, at);
    if (i === -1) {
      missing++;
      for (const line of block.split('\n')) if (line.trim() !== '') lost.add(line);
      continue;
    }
    out += text.slice(at, i);
    at = i + block.length;
  }
  out += text.slice(at);
  if (lost.size > 0) out = out.split('\n').filter((line) => !lost.has(line)).join('\n');
  return { text: out, missing };
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007/g;

/**
 * The run's facts from the runner's report (null: the runner never wrote one) and cargo's whole
 * output: every test binary's tests from libtest's log, the doc tests from rustdoc's text.
 */
export function parseCargoRun(report: string | null, output: string): RunFacts {
  const text = output.replace(ANSI, '');
  const records = report === null ? [] : parseRunnerReport(report);
  const tests: TestCase[] = [];
  const problems: string[] = [];
  const failingFiles = new Set<string>();
  const blocks: string[] = [];
  for (const rec of records) {
    const printed = rec.output.join('\n').replace(ANSI, '');
    blocks.push(printed);
    const file = crateRoot(rec.depInfo);
    if (customHarness(rec)) {
      // A target with `harness = false` (frozen in Cargo.toml#runner): its own main is its one test, judged by how it exits, as cargo judges it.
      const passed = rec.exit === 0;
      tests.push({ ...crateOf(rec), file, name: targetName(rec.binary), status: passed ? 'passed' : 'failed', message: passed ? '' : printed.split('\n').slice(-20).join('\n').trim() || `exited ${String(rec.exit)}` });
      if (!passed && file !== null) failingFiles.add(file);
      if (rec.exit === null) problems.push(`the test binary ${shortBinary(rec.binary, rec.depInfo)} never finished (the run stopped while it ran)`);
      continue;
    }
    const list = parseLibtestList(rec.list) ?? [];
    const log = parseLibtestLog(rec.log, list);
    const problem = binaryProblem(rec);
    if (problem !== null) problems.push(problem);
    // Each failing test's message, from this binary's own output.
    const messages = new Map((cargoTests(printed) ?? []).filter((t) => t.status === 'failed').map((t) => [t.name, t.message]));
    const names = [...list, ...[...log.keys()].filter((n) => !list.includes(n))];
    for (const name of names) {
      const got = log.get(name);
      const status: TestStatus = got?.status ?? 'failed';
      const message = status !== 'failed' ? '' : got === undefined ? 'the test binary ended before the test harness reported this test' : (messages.get(name) ?? (got.detail === 'failed' ? '' : got.detail));
      tests.push({ file, name, status, message, ...crateOf(rec) });
      if (status === 'failed' && file !== null) failingFiles.add(file);
    }
  }
  // Test binaries ran (cargo names them) that the gate's runner never saw: nothing of theirs is evidence.
  if (records.length === 0 && /^\s*Running (?:unittests )?\S+ \(/m.test(text)) {
    problems.push("cargo ran the test binaries without tdd-gate's runner (a build target other than the host's, set outside the test command?), so no test harness reported them; run the tests for the host or pass the target with --target in test_command");
  }
  // Doc tests: rustdoc's text, once every test binary's own output is cut out of it.
  const rest = withoutBlocks(text, blocks);
  const doc = (cargoTests(rest.text) ?? []).filter((t) => t.file?.startsWith('doc-tests:'));
  tests.push(...doc);
  const counts: Counts | null = records.length === 0 && doc.length === 0 ? null : { total: 0, failed: 0, passed: 0, skipped: 0 };
  if (counts) {
    for (const t of tests) {
      if (t.status === 'skipped') counts.skipped = (counts.skipped ?? 0) + 1;
      else {
        counts.total++;
        if (t.status === 'failed') counts.failed++;
        else counts.passed++;
      }
    }
  }
  for (const t of doc) if (t.status === 'failed') failingFiles.add(t.file ?? '');
  const loadErrorFiles: string[] = [];
  return {
    counts,
    failingFiles: [...failingFiles].filter(Boolean),
    loadErrorFiles,
    messages: tests.filter((t) => t.status === 'failed' && t.message !== '').map((t) => t.message),
    source: CARGO_SOURCE,
    tests: counts === null ? null : tests,
    ...(problems.length > 0 ? { unfinished: `${problems.slice(0, 2).join('; ')}${problems.length > 2 ? ` (and ${problems.length - 2} more binaries)` : ''}` } : {}),
  };
}
