import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { binaryProblem, cargoRunnerSource, parseCargoRun, parseRunnerReport } from '../../../src/verify/evidence/cargo.js';

/**
 * The runner script itself, run as cargo runs it (`sh <script> <binary> <args>`) on stand-ins for
 * test binaries: shell scripts under a `deps/` folder that answer `--list` and write the log as
 * libtest does, or misbehave.
 */
const unix = process.platform !== 'win32';
const dir = mkdtempSync(path.join(tmpdir(), 'tdd-gate-cargo-runner-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const deps = path.join(dir, 'target', 'debug', 'deps');
mkdirSync(deps, { recursive: true });
const script = path.join(dir, 'runner.sh');

/** A stand-in binary: `--list` prints two tests; a run writes `log` to its --logfile, prints `out`, then runs `end`. */
function binary(name: string, log: string, end: string, out = 'running 2 tests'): string {
  const file = path.join(deps, `${name}-0123456789abcdef`);
  const body = `#!/bin/sh
for a in "$@"; do [ "$a" = --list ] && { printf 'tests::a: test\\ntests::b: test\\n\\n2 tests, 0 benchmarks\\n'; exit 0; }; done
log=
while [ $# -gt 0 ]; do [ "$1" = --logfile ] && log=$2; shift; done
echo ${JSON.stringify(out)}
[ -n "$log" ] && printf ${JSON.stringify(log)} > "$log"
${end}
`;
  writeFileSync(file, body);
  writeFileSync(`${file}.d`, `${file}.d: tests/${name}.rs\n`);
  chmodSync(file, 0o755);
  return file;
}

function run(bin: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; report: string } {
  const report = path.join(dir, `report-${Math.random().toString(36).slice(2)}`);
  writeFileSync(script, cargoRunnerSource(report));
  const r = spawnSync('sh', [script, bin, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, CARGO_PKG_NAME: 'calc-lib', ...env } });
  let text = '';
  try {
    text = readFileSync(report, 'utf8');
  } catch {
    // no report: the script wrote none
  }
  return { status: r.status, stdout: r.stdout, report: text };
}

describe.skipIf(!unix)("the runner script, on stand-ins for cargo's test binaries", () => {
  it.each([
    ['a whole passing run', 'ok tests::a\\nok tests::b\\n', 'exit 0', 0, null],
    ['a whole run with a failure', 'ok tests::a\\nfailed tests::b\\n', 'exit 101', 101, null],
    ['fake lines then exit 0 before tests::b ended', 'ok tests::a\\n', 'echo "test tests::b ... ok"; echo "test result: ok. 2 passed"; exit 0', 0, /before the test harness reported 1 of its 2 tests \(tests::b\)/],
    ['killed by SIGKILL', 'ok tests::a\\n', 'kill -9 $$', 137, /ended with status 137 \(killed by signal 9/],
    ['aborted', '', 'kill -6 $$', 134, /ended with status 134 \(killed by signal 6/],
  ])('%s', (what, log, end, status, problem) => {
    const r = run(binary(what.replace(/\W+/g, '_'), log, end));
    expect(r.status).toBe(status);
    const [rec] = parseRunnerReport(r.report);
    expect(rec).toBeDefined();
    expect(rec?.exit).toBe(status);
    const why = rec ? binaryProblem(rec) : 'none';
    if (problem === null) expect(why).toBeNull();
    else expect(why).toMatch(problem);
  });

  it('passes what the binary printed on, and keeps it for the messages', () => {
    const r = run(binary('printer', 'ok tests::a\\nok tests::b\\n', 'exit 0', 'hello from the tests'));
    expect(r.stdout).toContain('hello from the tests');
    expect(parseCargoRun(r.report, r.stdout)).toMatchObject({ counts: { total: 2, passed: 2, failed: 0 }, tests: [{ file: 'tests/printer.rs', name: 'tests::a', crate: 'calc_lib' }, { name: 'tests::b' }] });
  });

  it('the binary does not see the variable that names the runner', () => {
    const r = run(binary('env_reader', 'ok tests::a\\nok tests::b\\n', 'exit 0', 'x'), [], { CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER: 'sh /the/runner', KEEP_ME: '1' });
    void r;
    const file = path.join(deps, 'env_dump-0123456789abcdef');
    writeFileSync(file, '#!/bin/sh\nfor a in "$@"; do [ "$a" = --list ] && { printf \'0 tests, 0 benchmarks\\n\'; exit 0; }; done\nenv | grep -E "^(CARGO_TARGET|KEEP_ME)" | sort\n');
    chmodSync(file, 0o755);
    expect(run(file, [], { CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER: 'sh /the/runner', KEEP_ME: '1' }).stdout).toBe('KEEP_ME=1\n');
  });

  it('a listing asked of the binary runs as asked, with no record (cargo nextest lists so)', () => {
    const r = run(binary('lister', '', 'exit 0'), ['--list', '--format', 'terse']);
    expect(r.stdout).toMatch(/^tests::a: test$/m);
    expect(r.report).toBe('');
  });

  it("rustdoc's doctest programs (outside deps/) run as they are, the merged binary told its own path", () => {
    const doc = path.join(dir, 'rustdoctest', 'rust_out');
    mkdirSync(path.dirname(doc), { recursive: true });
    writeFileSync(doc, '#!/bin/sh\necho "bin=$RUSTDOC_DOCTEST_BIN_PATH args=$*${CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER:-}"\n');
    chmodSync(doc, 0o755);
    expect(run(doc, ['x'], { CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER: 'sh /the/runner' })).toMatchObject({ status: 0, stdout: `bin=${doc} args=x\n`, report: '' });
    expect(run(doc, [], { RUSTDOC_DOCTEST_BIN_PATH: '/given' }).stdout).toBe('bin=/given args=\n');
  });
});
