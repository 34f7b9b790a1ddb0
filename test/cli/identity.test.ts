import { devNull } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { identify, isNewOrChanged, testBlock, type IdentifiedTest } from '../../src/verify/evidence/identity.js';
import { judgeGreen, judgeRed, type FrozenTests, type RunOutcome } from '../../src/verify/rules/judge.js';
import { messageOnly, parseJestJson, type RunFacts } from '../../src/verify/evidence/report.js';
import { cargoTests, tapTests } from '../../src/verify/evidence/textReport.js';
import { cleanEnv } from '../../src/verify/oracle/cleanEnv.js';
import { onlyRustTestRegionsChange } from '../../src/verify/rules/testRegions.js';
import { reachedScripts, runnerPartTexts, rustTestRegions } from '../../src/verify/oracle/runnerParts.js';

const t = (id: string, status: IdentifiedTest['status'], message = '', file: string | null = 'tests/a.test.ts'): IdentifiedTest => ({ id, file, leaf: id.split('::').pop()!, status, message });
const facts = (o: Partial<RunFacts> = {}): RunFacts => ({ counts: { total: 2, failed: 0, passed: 2 }, failingFiles: [], loadErrorFiles: [], messages: [], source: 'vitest-json', ...o });
const green = (o: Partial<RunOutcome> = {}): RunOutcome => ({
  exitCode: 0,
  timedOut: false,
  timeoutSeconds: 600,
  output: '',
  facts: facts(),
  tests: [t('tests/a.test.ts::adds', 'passed'), t('tests/a.test.ts::old', 'passed')],
  ...o,
});
const FROZEN: FrozenTests = { tests: { 'tests/a.test.ts::adds': 'failed', 'tests/a.test.ts::old': 'passed', 'tests/a.test.ts::later': 'skipped' }, redTests: ['tests/a.test.ts::adds'], counts: { total: 2, failed: 1, passed: 1 } };

describe('judgeGreen holds every frozen test to run and pass', () => {
  it('accepts every frozen test passing (a test skipped at the freeze may stay skipped)', () => {
    expect(judgeGreen(green(), 'x', FROZEN)).toMatchObject({ valid: true, tests: { 'tests/a.test.ts::adds': 'passed' } });
  });
  it.each<[string, Partial<RunOutcome>, RegExp]>([
    ['the RED test skipped', { tests: [t('tests/a.test.ts::adds', 'skipped'), t('tests/a.test.ts::old', 'passed')], facts: facts({ counts: { total: 2, failed: 0, passed: 1 } }) }, /skipped instead of run: tests\/a\.test\.ts::adds/],
    ['the RED test missing (deselected)', { tests: [t('tests/a.test.ts::old', 'passed')], facts: facts({ counts: { total: 1, failed: 0, passed: 1 } }) }, /did not run: tests\/a\.test\.ts::adds/],
    ['an old frozen test missing', { tests: [t('tests/a.test.ts::adds', 'passed')], facts: facts({ counts: { total: 1, failed: 0, passed: 1 } }) }, /did not run: tests\/a\.test\.ts::old/],
    ['a count that cannot be read', { facts: facts({ counts: null }), tests: null }, /printed no runner summary/],
    ['zero tests', { facts: facts({ counts: { total: 0, failed: 0, passed: 0 } }), tests: [] }, /ran no tests/],
    ['a summary that counts a file, but no test by name', { facts: facts({ counts: { total: 1, failed: 0, passed: 1 } }), tests: [] }, /ran no tests/],
    ['no tests by name although RED had them', { tests: null }, /reported no tests by name/],
    ['a report rewritten while the summary says 2 failed', { summary: { total: 2, failed: 2, passed: 0 } }, /report .* and its printed summary .* disagree/],
    ['exit 1', { exitCode: 1, facts: facts({ counts: { total: 2, failed: 1, passed: 1 } }) }, /1 of 2 tests fail/],
  ])('refuses: %s', (_n, o, re) => {
    const v = judgeGreen(green(o), 'x', FROZEN);
    expect(v.valid).toBe(false);
    expect(v.reason).toMatch(re);
  });
  it('without names, holds the count to RED’s', () => {
    const v = judgeGreen(green({ tests: null, facts: facts({ source: 'text', counts: { total: 1, failed: 0, passed: 1 } }) }), 'x', { tests: null, redTests: [], counts: { total: 2, failed: 1, passed: 1 } });
    expect(v.reason).toMatch(/only 1 tests passed, but 2 ran in RED/);
  });
});

describe('judgeRed judges each test by its own failure message', () => {
  const rules = { command: 'x', redConfirm: /AssertionError|expected .* to/, buildError: /Cannot find module/, changedTests: ['tests/a.test.ts'], root: '/r', isNew: (x: IdentifiedTest) => x.id.endsWith('::adds') };
  const red = (tests: IdentifiedTest[], output = '') => judgeRed({ exitCode: 1, timedOut: false, timeoutSeconds: 600, output, facts: facts({ counts: { total: tests.length, failed: 1, passed: tests.length - 1 } }), tests }, rules);
  it('accepts a new test failing on an assertion', () => {
    expect(red([t('tests/a.test.ts::adds', 'failed', 'AssertionError: expected 0 to be 3')])).toMatchObject({ valid: true, redTests: ['tests/a.test.ts::adds'] });
  });
  it.each([
    ['a missing function', 'TypeError: (0 , add) is not a function', /missing name .*is not a function.*STUB:TDD stub first/],
    ['a Python AttributeError', "AttributeError: 'Cart' object has no attribute 'total'", /missing name/],
    ['a Rust todo!() stub', "thread 'adds' panicked at src/lib.rs:1:1:\nnot yet implemented", /stub that throws \(not yet implemented\).*return a value/],
    ['a message that is not an assertion although the code frame would be', "TypeError: Cannot read properties of undefined (reading 'x')", /does not match red_confirm/],
  ])('refuses %s', (_n, message, re) => {
    // the run output quotes the test source (`expect(add(1, 2)).toBe(3)`) and an AssertionError elsewhere
    const v = red([t('tests/a.test.ts::adds', 'failed', message)], 'AssertionError in another file\n> expect(add(1, 2)).toBe(3)\n');
    expect(v.valid).toBe(false);
    expect(v.reason).toMatch(re);
  });
  it('refuses when only old tests fail and the new one passes', () => {
    const v = red([t('tests/a.test.ts::adds', 'passed'), t('tests/a.test.ts::old', 'failed', 'AssertionError: expected 1 to be 2')]);
    expect(v.reason).toMatch(/not written or changed in this cycle \(failing: tests\/a\.test\.ts::old\)/);
  });
  it('a Go test failing through a helper counts: the test is the assertion', () => {
    const v = judgeRed(
      { exitCode: 1, timedOut: false, timeoutSeconds: 600, output: '', facts: facts({ source: 'go-json', counts: { total: 1, failed: 1, passed: 0 } }), tests: [t('m::TestAdd', 'failed', 'helper_test.go:7: got 0, want 3\n--- FAIL: TestAdd (0.00s)', 'add_test.go')] },
      { ...rules, redConfirm: /--- FAIL/, isNew: () => true },
    );
    expect(v).toMatchObject({ valid: true, failingFiles: ['add_test.go'] });
  });
});

describe('a test is new or changed by its own declaration, not its file', () => {
  const before = "test('old', () => {\n  expect(setup()).toBe(1);\n});\n";
  const after = "const setup = () => 2;\ntest('old', () => {\n  expect(setup()).toBe(1);\n});\ntest('adds', () => { expect(1).toBe(1); });\n";
  const changed = new Set(['tests/a.test.ts']);
  it.each([
    ['an old test whose block did not change', 'old', false],
    ['a test the baseline does not declare', 'adds', true],
  ])('%s', (_n, leaf, want) => {
    expect(isNewOrChanged({ ...t(`tests/a.test.ts::${leaf}`, 'failed'), leaf }, changed, () => before, () => after)).toBe(want);
  });
  it('a test in an unchanged file is not new; in a new file it is', () => {
    expect(isNewOrChanged(t('tests/b.test.ts::x', 'failed', '', 'tests/b.test.ts'), changed, () => null, () => 'x')).toBe(false);
    expect(isNewOrChanged(t('tests/a.test.ts::x', 'failed'), changed, () => null, () => "test('x', () => {})")).toBe(true);
  });
  it('testBlock finds JS titles, Python, Go and Rust declarations', () => {
    expect(testBlock("it('a', () => 1);\nit('b', () => 2);\n", 'b')).toBe("it('b', () => 2);");
    expect(testBlock('def test_a():\n    assert 1\n\ndef test_b():\n    pass\n', 'test_a')).toBe('def test_a():\n    assert 1');
    expect(testBlock('func TestA(t *testing.T) {}\nfunc TestB(t *testing.T) {}\n', 'TestB')).toBe('func TestB(t *testing.T) {}');
    expect(testBlock('#[test]\nfn a() {}\n#[test]\nfn b() {}\n', 'a')).toBe('fn a() {}');
  });
});

describe('reports by test', () => {
  it('jest JSON: full names with describe blocks, pending as skipped, messages without the stack', () => {
    const json = JSON.stringify({
      numTotalTests: 3,
      numFailedTests: 1,
      numPassedTests: 1,
      numPendingTests: 1,
      testResults: [
        {
          name: '/r/tests/cart.test.js',
          status: 'failed',
          assertionResults: [
            { ancestorTitles: ['cart'], title: 'totals', fullName: 'cart totals', status: 'failed', failureMessages: ['Error: expect(received).toBe(expected)\n\nExpected: 3\nReceived: 0\n    at Object.<anonymous> (/r/tests/cart.test.js:4:19)'] },
            { ancestorTitles: ['cart'], title: 'empty', status: 'passed', failureMessages: [] },
            { ancestorTitles: [], title: 'later', status: 'pending', failureMessages: [] },
          ],
        },
      ],
    });
    const f = parseJestJson(json, 'jest-json')!;
    const ids = identify(f.tests!, { root: '/r', files: ['tests/cart.test.js'], read: () => null });
    expect(ids.map((x) => [x.id, x.status])).toEqual([
      ['tests/cart.test.js::cart > totals', 'failed'],
      ['tests/cart.test.js::cart > empty', 'passed'],
      ['tests/cart.test.js::later', 'skipped'],
    ]);
    expect(ids[0]!.message).toBe('Error: expect(received).toBe(expected)\n\nExpected: 3\nReceived: 0');
  });
  it('messageOnly stops at the first stack frame', () => {
    expect(messageOnly('AssertionError: x\n    at f (a.js:1:1)\n    at g')).toBe('AssertionError: x');
  });
  it('node:test TAP: leaves by nesting, files from failing locations, whole-file failures as load errors', () => {
    const tap = [
      'TAP version 13',
      '# Subtest: grp',
      '    # Subtest: adds',
      '    not ok 1 - adds',
      '      ---',
      "      location: '/r/test/a.test.js:3:25'",
      "      error: 'Expected values to be strictly equal'",
      "      name: 'AssertionError'",
      '      ...',
      '    # Subtest: later',
      '    ok 2 - later # SKIP',
      '    1..2',
      'not ok 1 - grp',
      '  ---',
      "  type: 'suite'",
      '  ...',
      '# Subtest: /r/test/b.test.js',
      'not ok 2 - /r/test/b.test.js',
      '  ---',
      "  location: '/r/test/b.test.js:1:1'",
      '  exitCode: 1',
      '  ...',
      '# Subtest: /r/test/c.test.js',
      'ok 3 - /r/test/c.test.js',
      '  ---',
      '  duration_ms: 141.2',
      '  ...',
    ].join('\n');
    const r = tapTests(tap)!;
    expect(r.tests.map((x) => [x.name, x.status, x.file])).toEqual([
      ['grp > adds', 'failed', '/r/test/a.test.js'],
      ['grp > later', 'skipped', null],
    ]);
    expect(r.tests[0]!.message).toMatch(/^AssertionError: Expected values/);
    expect(r.loadErrors).toEqual(['/r/test/b.test.js']);
  });
  it('cargo: tests per target, the failure section as the message (no backtrace)', () => {
    const out = [
      '     Running unittests src/lib.rs (target/debug/deps/calc-1)',
      'test tests::one ... ok',
      'test result: ok. 1 passed; 0 failed; 0 ignored',
      '     Running tests/add.rs (target/debug/deps/add-2)',
      'test adds ... FAILED',
      '---- adds stdout ----',
      "thread 'adds' panicked at tests/add.rs:2:5:",
      'assertion `left == right` failed',
      'stack backtrace:',
      '   0: rust_begin_unwind',
      '             at /rustc/x',
      'failures:',
      'test result: FAILED. 0 passed; 1 failed; 0 ignored',
    ].join('\n');
    const tests = cargoTests(out)!;
    expect(tests.map((x) => [x.file, x.name, x.status])).toEqual([
      ['src/lib.rs', 'tests::one', 'passed'],
      ['tests/add.rs', 'adds', 'failed'],
    ]);
    expect(tests[1]!.message).toBe("thread 'adds' panicked at tests/add.rs:2:5:\nassertion `left == right` failed");
  });
  it('cargo: doc-tests are named without their line, which moves as the source above changes', () => {
    const out = ['   Doc-tests calc', 'test src/lib.rs - add (line 3) ... ok', 'test result: ok. 1 passed; 0 failed'].join('\n');
    expect(cargoTests(out)!.map((x) => [x.file, x.name])).toEqual([['doc-tests:calc', 'src/lib.rs - add']]);
  });
  it('cargo: a test binary that ends before its summary proves nothing (a source that exits the process)', () => {
    const out = ['     Running tests/add.rs (target/debug/deps/add-2)', 'running 1 test', 'test adds ... ok', '     Running unittests src/lib.rs (target/debug/deps/calc-1)', 'test tests::one ... ok', 'test result: ok. 1 passed; 0 failed'].join('\n');
    expect(cargoTests(out)!.map((x) => [x.name, x.status])).toEqual([
      ['adds', 'failed'],
      ['tests::one', 'passed'],
    ]);
  });
});

describe('the runner’s configuration', () => {
  it('package.json: the scripts the test command reaches, their lifecycle scripts, the runner keys', () => {
    const pkg = { scripts: { test: 'npm run unit && npm run e2e', pretest: 'tsc', unit: 'vitest run', e2e: 'node e2e.js', build: 'tsc' } };
    expect(Object.keys(reachedScripts(pkg, 'npm test'))).toEqual(['pretest', 'test', 'posttest', 'preunit', 'unit', 'postunit', 'pree2e', 'e2e', 'poste2e']);
    const parts = runnerPartTexts((rel) => (rel === 'package.json' ? JSON.stringify({ ...pkg, type: 'module', dependencies: { a: '1' } }) : null), 'npm test');
    expect(parts['package.json#runner']).toContain('"type":"module"');
    expect(parts['package.json#runner']).not.toContain('dependencies');
    expect(parts['pyproject.toml#pytest']).toBeNull();
  });
  it('pyproject.toml and setup.cfg: the pytest sections and any line naming pytest', () => {
    const py = '[project]\nname = "x"\ndependencies = ["requests"]\n\n[tool.pytest.ini_options]\naddopts = "-q"\n\n[tool.other]\nplugins = ["pytest-x"]\n';
    const parts = runnerPartTexts((rel) => (rel === 'pyproject.toml' ? py : null), 'pytest');
    expect(parts['pyproject.toml#pytest']).toBe('[tool.pytest.ini_options]\naddopts = "-q"\n\nplugins = ["pytest-x"]');
  });
  it('Rust inline test modules', () => {
    const src = 'pub fn a() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() { if true { } }\n}\npub fn b() {}\n';
    expect(rustTestRegions(src)).toBe('#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() { if true { } }\n}');
    expect(rustTestRegions('pub fn a() {}\n')).toBeNull();
    expect(onlyRustTestRegionsChange(src, src.replace('if true { }', 'assert!(false);'))).toBe(true);
    expect(onlyRustTestRegionsChange(src, src.replace('pub fn b() {}', 'pub fn b() { 1; }'))).toBe(false);
    expect(onlyRustTestRegionsChange(src, src)).toBe(false);
  });
  it('the test environment keeps toolchain homes and drops what steers the runner', () => {
    const env = cleanEnv({ PATH: '/usr/bin:/r/bin:/r/node_modules/.bin', HOME: '/h', NODE_OPTIONS: '--require x', PYTEST_ADDOPTS: '-k x', GOFLAGS: '-run=x', npm_config_node_options: 'x', LD_PRELOAD: 'x', LC_ALL: 'C', CARGO_HOME: '/c', MY_TOKEN: 't' }, '/r', ['MY_TOKEN']);
    expect(env).toEqual({ PATH: '/usr/bin:/r/node_modules/.bin', HOME: '/h', LC_ALL: 'C', CARGO_HOME: '/c', MY_TOKEN: 't', NO_COLOR: '1', GOENV: 'off', CARGO_TERM_COLOR: 'never', PYTHONNOUSERSITE: '1', PYTHONPYCACHEPREFIX: path.join(devNull, 'pycache'), npm_config_userconfig: devNull, npm_config_globalconfig: path.join(devNull, 'npmrc'), GIT_CONFIG_GLOBAL: devNull, GIT_CONFIG_NOSYSTEM: '1', GIT_ATTR_NOSYSTEM: '1', PIP_CONFIG_FILE: devNull });
  });
});
