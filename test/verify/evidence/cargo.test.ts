import { describe, expect, it } from 'vitest';
import { binaryProblem, platformTriples, cargoRunnerEnv, commandTargets, crateRoot, parseCargoRun, parseLibtestList, parseLibtestLog, parseRunnerReport, targetName, withoutBlocks, type BinaryRecord } from '../../../src/verify/evidence/cargo.js';

const LIST = ['tests::adds: test', 'tests::fails: test', 'tests::ign: test', '', '3 tests, 0 benchmarks'];

function rec(over: Partial<BinaryRecord> = {}): BinaryRecord {
  return { binary: '/p/target/debug/deps/calc-0123456789abcdef', pkg: 'calc', depInfo: '/p/target/debug/deps/calc-0123456789abcdef.d: src/lib.rs src/add.rs', listExit: 0, list: LIST, log: ['ok tests::adds', 'failed tests::fails', 'ignored tests::ign'], output: [], exit: 101, ...over };
}

/** The runner's report for records, as the script writes it. */
function report(...records: BinaryRecord[]): string {
  return records
    .map((r, i) => {
      const k = `b.${i}`;
      return [`B ${k} ${r.binary}`, ...(r.pkg ? [`P ${k} ${r.pkg}`] : []), ...(r.depInfo ? [`D ${k} ${r.depInfo}`] : []), `LE ${k} ${String(r.listExit)}`, ...r.list.map((l) => `L ${k} ${l}`), ...r.log.map((l) => `R ${k} ${l}`), ...r.output.map((l) => `O ${k} ${l}`), ...(r.exit === null ? [] : [`E ${k} ${r.exit}`])].join('\n');
    })
    .join('\n');
}

describe("libtest's log (--logfile)", () => {
  it.each([
    ['ok', ['ok tests::adds'], { 'tests::adds': 'passed' }],
    ['failed', ['failed tests::fails'], { 'tests::fails': 'failed' }],
    ['ignored, with and without a reason', ['ignored tests::a', 'ignored: slow reason tests::b'], { 'tests::a': 'skipped', 'tests::b': 'skipped' }],
    ['a should_panic mismatch over three lines', ['failed: panic did not contain expected string', '      panic message: "other thing"', ' expected substring: "boom x" more::sp', 'ok tests::adds'], { 'more::sp': 'failed', 'tests::adds': 'passed' }],
    ['a time limit', ['failed (time limit exceeded) tests::slow'], { 'tests::slow': 'failed' }],
    ['an unknown word is no pass', ['passed tests::adds'], { 'tests::adds': 'failed' }],
    ['a test twice: the failure stays', ['failed tests::x', 'ok tests::x'], { 'tests::x': 'failed' }],
    ['blank lines', ['', 'ok a', ''], { a: 'passed' }],
  ] as const)('%s', (_what, lines, want) => {
    expect(Object.fromEntries([...parseLibtestLog(lines)].map(([k, v]) => [k, v.status]))).toEqual(want);
  });
  it('a custom harness’s names with spaces, by what the binary listed', () => {
    const log = parseLibtestLog(['ok parses a number', 'failed: boom adds two numbers', 'ignored x'], ['parses a number', 'adds two numbers', 'two numbers', 'x']);
    expect(Object.fromEntries([...log].map(([k, v]) => [k, v.status]))).toEqual({ 'parses a number': 'passed', 'adds two numbers': 'failed', x: 'skipped' });
  });
});

describe("libtest's list (--list)", () => {
  it.each([
    ['tests and benches', ['a::b: test', 'c: bench', '', '1 test, 1 benchmark'], ['a::b', 'c']],
    ['no test at all', ['0 tests, 0 benchmarks'], []],
    ['no count (an older harness)', ['a::b: test'], ['a::b']],
    ['no test and no count: not libtest', [''], null],
    ['names with spaces (a custom harness)', ['parses a number: test', '', '1 test, 0 benchmarks'], ['parses a number']],
    ['a custom main', ['hello'], null],
  ] as const)('%s', (_what, lines, want) => {
    expect(parseLibtestList(lines)).toEqual(want);
  });
});

describe('a binary accounted for', () => {
  it.each([
    ['a whole run with a failure (101)', {}, null],
    ['a whole run that passed (0)', { log: ['ok tests::adds', 'ok tests::fails', 'ignored tests::ign'], exit: 0 }, null],
    ['exit 0 before the last tests ended (fake lines then exit)', { log: ['ok tests::adds'], exit: 0 }, /exited \(status 0\) before the test harness reported 2 of its 3 tests \(tests::fails, tests::ign\)/],
    ['killed (SIGKILL)', { log: ['ok tests::adds'], exit: 137 }, /ended with status 137 \(killed by signal 9/],
    ['aborted (panic = "abort")', { log: [], exit: 134 }, /status 134 \(killed by signal 6/],
    ['never ended', { exit: null }, /never finished/],
    ['no list', { listExit: 1, list: [] }, /did not list its tests/],
    ['a harness without --logfile', { log: [], output: ["error: Unrecognized option: 'logfile'"] }, /does not take libtest's --logfile/],
    ['exit 0 with a failure in the log', { exit: 0 }, /exited 0 although its harness log says a test failed/],
    ['exit 101 with every test passed', { log: ['ok tests::adds', 'ok tests::fails', 'ignored tests::ign'] }, /exited 101 although its harness log says every test passed/],
  ] as const)('%s', (_what, over, want) => {
    const why = binaryProblem(rec(over as Partial<BinaryRecord>));
    if (want === null) expect(why).toBeNull();
    else expect(why).toMatch(want);
  });
});

describe('the runner report', () => {
  it('reads every record of every binary, in order; a line of another shape is none', () => {
    const text = report(rec(), rec({ binary: '/p/target/debug/deps/add-fedcba9876543210', exit: null })) + '\nnot a record\nX b.0 what';
    const recs = parseRunnerReport(text);
    expect(recs.map((r) => [r.binary, r.exit, r.log.length, r.list.length])).toEqual([
      ['/p/target/debug/deps/calc-0123456789abcdef', 101, 3, 5],
      ['/p/target/debug/deps/add-fedcba9876543210', null, 3, 5],
    ]);
  });
  it.each([
    ['a crate root', '/p/t/deps/calc-1.d: src/lib.rs src/add.rs', 'src/lib.rs'],
    ['a member, from the workspace root', '/p/t/deps/words-1.d: crates/words/tests/shout.rs', 'crates/words/tests/shout.rs'],
    ['a path with a space', '/p/t/deps/x-1.d: my\\ dir/src/lib.rs other.rs', 'my dir/src/lib.rs'],
    ['none', null, null],
  ] as const)('crate root: %s', (_what, dep, want) => {
    expect(crateRoot(dep)).toBe(want);
  });
  it.each([
    ['/p/target/debug/deps/add_more-0123456789abcdef', 'add_more'],
    ['/p/target/debug/deps/calc', 'calc'],
  ])('target name of %s', (bin, want) => expect(targetName(bin)).toBe(want));
  it('the runner variable per target; --target values', () => {
    expect(cargoRunnerEnv('/tmp/r.sh', ['x86_64-unknown-linux-gnu', 'aarch64-apple-darwin', 'x86_64-unknown-linux-gnu'])).toEqual({
      CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER: 'sh /tmp/r.sh',
      CARGO_TARGET_AARCH64_APPLE_DARWIN_RUNNER: 'sh /tmp/r.sh',
    });
    expect(commandTargets('cargo test --target wasm32-wasip1 --target=x86_64-unknown-linux-musl -- --target nope')).toEqual(['wasm32-wasip1', 'x86_64-unknown-linux-musl', 'nope']);
  });
  it.each([
    ['linux', 'x64', ['x86_64-unknown-linux-gnu', 'x86_64-unknown-linux-musl']],
    ['darwin', 'arm64', ['aarch64-apple-darwin']],
    ['linux', 'riscv64', []],
  ])('the usual host triples of %s on %s', (platform, arch, want) => expect(platformTriples(platform, arch)).toEqual(want));
  it('cuts out what each binary printed, in order', () => {
    expect(withoutBlocks('a\nB1\nb\nB2\nc', ['B1', 'B2'])).toEqual({ text: 'a\n\nb\n\nc', missing: 0 });
    expect(withoutBlocks('a\nB1', ['B1', 'B9'])).toEqual({ text: 'a\n', missing: 1 });
    // a block cut in its middle: every line it printed goes, wherever it stands
    expect(withoutBlocks('x\nfake ok\n[… omitted …]\nreal\nfake ok\n', ['x\nfake ok\nmore', 'y'])).toEqual({ text: '[… omitted …]\nreal\n', missing: 2 });
  });
});

const FAKE = 'running 3 tests\ntest tests::adds ... ok\ntest tests::fails ... ok\ntest tests::ign ... ok\n\ntest result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n';

describe('a cargo run, from the runner report and the output', () => {
  it('tests come from the logs, messages from the binary’s own output, doc tests from rustdoc’s text', () => {
    const printed = ['running 3 tests', 'test tests::adds ... ok', 'test tests::fails ... FAILED', '', 'failures:', '', '---- tests::fails stdout ----', '', "thread 'tests::fails' panicked at src/lib.rs:9:5:", 'assertion `left == right` failed', '', 'failures:', '    tests::fails', '', 'test result: FAILED. 1 passed; 1 failed; 1 ignored'];
    const output = `   Compiling calc\n     Running unittests src/lib.rs (target/debug/deps/calc-0123456789abcdef)\n${printed.join('\n')}\n   Doc-tests calc\n\nrunning 1 test\ntest src/lib.rs - add (line 3) ... ok\n\ntest result: ok. 1 passed; 0 failed\n`;
    const facts = parseCargoRun(report(rec({ output: printed })), output);
    expect(facts.unfinished).toBeUndefined();
    expect(facts.tests?.[0]?.crate).toBe('calc');
    expect(facts.tests?.map((t) => [t.file, t.name, t.status])).toEqual([
      ['src/lib.rs', 'tests::adds', 'passed'],
      ['src/lib.rs', 'tests::fails', 'failed'],
      ['src/lib.rs', 'tests::ign', 'skipped'],
      ['doc-tests:calc', 'src/lib.rs - add', 'passed'],
    ]);
    expect(facts.tests?.[1]?.message).toMatch(/panicked at src\/lib\.rs:9:5/);
    expect(facts.counts).toEqual({ total: 3, failed: 1, passed: 2, skipped: 1 });
  });

  it('printed results do not count: fake lines then exit 0 is refused, whatever the output says', () => {
    const facts = parseCargoRun(report(rec({ log: ['ok tests::adds'], exit: 0, output: FAKE.split('\n') })), FAKE);
    expect(facts.unfinished).toMatch(/before the test harness reported 2 of its 3 tests/);
    expect(facts.tests?.find((t) => t.name === 'tests::fails')).toMatchObject({ status: 'failed', message: /ended before the test harness reported/ });
  });

  it('a doc-test section printed by a test binary is cut out with the rest of its output', () => {
    const forged = ['   Doc-tests calc', '', 'running 1 test', 'test src/lib.rs - add (line 3) ... ok', '', 'test result: ok. 1 passed; 0 failed'];
    const facts = parseCargoRun(report(rec({ log: ['ok tests::adds', 'ok tests::fails', 'ignored tests::ign'], exit: 0, output: forged })), `     Running x\n${forged.join('\n')}\n`);
    expect(facts.tests?.some((t) => t.file === 'doc-tests:calc')).toBe(false);
  });

  it('test binaries that ran without the runner are no evidence', () => {
    const facts = parseCargoRun(null, `     Running unittests src/lib.rs (target/debug/deps/calc-0123456789abcdef)\n${FAKE}`);
    expect(facts).toMatchObject({ counts: null, tests: null, unfinished: expect.stringMatching(/without tdd-gate's runner/) });
  });

  it('no binary ran (a compile error): no counts, nothing unfinished', () => {
    expect(parseCargoRun(null, 'error[E0425]: cannot find function `add`\nerror: could not compile `calc`\n')).toMatchObject({ counts: null, tests: null });
    expect(parseCargoRun(null, 'error: could not compile').unfinished).toBeUndefined();
  });

  it('a harness = false target is one test, judged by its exit', () => {
    const custom = { binary: '/p/target/debug/deps/check-0123456789abcdef', depInfo: 'x.d: tests/check.rs', list: ['hello from main'], log: [] };
    expect(parseCargoRun(report(rec({ ...custom, pkg: 'my-calc', exit: 0 })), '').tests).toEqual([{ crate: 'my_calc', file: 'tests/check.rs', name: 'check', status: 'passed', message: '' }]);
    expect(parseCargoRun(report(rec({ ...custom, exit: 1, output: ['boom'] })), '').tests?.[0]).toMatchObject({ status: 'failed', message: 'boom' });
  });
});
