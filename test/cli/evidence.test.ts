import { describe, expect, it } from 'vitest';
import { instrumentCommand } from '../../src/verify/evidence/instrument.js';
import { judgeGreen, judgeRed, parseCoverage, toCycleFile, type RunOutcome } from '../../src/verify/rules/judge.js';
import { parseJestJson, parseJunitXml, type RunFacts } from '../../src/verify/evidence/report.js';
import { textCounts, textFailingFiles } from '../../src/verify/evidence/textReport.js';

describe('textCounts reads the summary line of each runner', () => {
  it.each([
    ['vitest', ' Test Files  1 failed (1)\n      Tests  1 failed | 2 passed (3)\n', { total: 3, failed: 1, passed: 2 }],
    ['jest', 'Tests:       1 failed, 2 passed, 3 total\n', { total: 3, failed: 1, passed: 2 }],
    ['node:test spec', 'ℹ tests 2\nℹ suites 0\nℹ pass 1\nℹ fail 1\n', { total: 2, failed: 1, passed: 1 }],
    ['node:test TAP', '1..2\n# tests 2\n# pass 2\n# fail 0\n', { total: 2, failed: 0, passed: 2 }],
    ['pytest', '==================== 1 failed, 4 passed in 0.12s ====================\n', { total: 5, failed: 1, passed: 4 }],
    ['pytest -q', '1 failed, 4 passed, 1 skipped in 0.12s\n', { total: 5, failed: 1, passed: 4 }],
    ['cargo', 'test result: FAILED. 1 passed; 2 failed; 0 ignored\ntest result: ok. 3 passed; 0 failed; 0 ignored\n', { total: 6, failed: 2, passed: 4 }],
    ['go -v', '--- FAIL: TestAdd (0.00s)\n--- PASS: TestSub (0.00s)\n', { total: 2, failed: 1, passed: 1 }],
    ['mocha', '  2 passing (5ms)\n  1 failing\n', { total: 3, failed: 1, passed: 2 }],
  ])('%s', (_name, text, counts) => {
    expect(textCounts(text)).toEqual(counts);
  });

  it('returns null when no runner summary is recognised', () => {
    expect(textCounts('Segmentation fault\n')).toBeNull();
  });
});

describe('textFailingFiles', () => {
  it('takes node:test TAP locations of failing tests only', () => {
    const tap = "not ok 1 - adds\n  ---\n  location: '/r/test/a.test.js:4:1'\n  ...\nok 2 - ok\n  ---\n  location: '/r/test/b.test.js:1:1'\n  ...\n";
    expect(textFailingFiles(tap)).toEqual(['/r/test/a.test.js']);
  });
  it.each([
    ['node:test spec', 'test at test/a.test.js:4:1\n', 'test/a.test.js'],
    ['vitest', ' FAIL  tests/a.test.ts > adds\n', 'tests/a.test.ts'],
    ['pytest', 'FAILED tests/test_cart.py::test_total - assert 1 == 2\n', 'tests/test_cart.py'],
    ['go', '    cart_test.go:12: got 1 want 2\n', 'cart_test.go'],
    ['cargo', "thread 'it' panicked at tests/cart.rs:3:5:\n", 'tests/cart.rs'],
  ])('%s', (_n, text, file) => {
    expect(textFailingFiles(text)).toContain(file);
  });
});

describe('machine reports', () => {
  it('vitest/jest JSON: failing files, load errors, counts', () => {
    const json = JSON.stringify({
      numTotalTests: 2,
      numFailedTests: 1,
      numPassedTests: 1,
      testResults: [
        { name: '/r/tests/a.test.ts', status: 'failed', message: '', assertionResults: [{ status: 'failed', failureMessages: ['AssertionError: expected 0 to be 3'] }] },
        { name: '/r/tests/b.test.ts', status: 'failed', message: "Cannot find module '../src/b.js'", assertionResults: [] },
        { name: '/r/tests/c.test.ts', status: 'passed', message: '', assertionResults: [{ status: 'passed' }] },
      ],
    });
    const f = parseJestJson(json, 'vitest-json')!;
    expect(f.counts).toMatchObject({ total: 2, failed: 1, passed: 1 });
    expect(f.failingFiles).toEqual(['/r/tests/a.test.ts']);
    expect(f.loadErrorFiles).toEqual(['/r/tests/b.test.ts']);
    expect(f.messages[0]).toContain('AssertionError');
  });
  it('rejects a JSON that is not a jest-shaped report', () => {
    expect(parseJestJson('{"x":1}', 'jest-json')).toBeNull();
    expect(parseJestJson('not json', 'jest-json')).toBeNull();
  });
  it('pytest junit XML: classname to file candidates, collection errors are not tests', () => {
    const xml = `<?xml version="1.0"?><testsuites><testsuite tests="3">
<testcase classname="tests.test_cart.TestCart" name="test_total"><failure message="assert 1 == 2">AssertionError</failure></testcase>
<testcase classname="tests.test_cart" name="test_ok"/>
<testcase classname="" name="tests.test_bad"><error message="collection failure">ModuleNotFoundError: No module named 'x'</error></testcase>
</testsuite></testsuites>`;
    const f = parseJunitXml(xml, 'junit-xml')!;
    expect(f.counts).toMatchObject({ total: 2, failed: 1, passed: 1 });
    expect(f.failingFiles).toContain('tests/test_cart.py');
    expect(f.loadErrorFiles).toContain('tests/test_bad.py');
  });
});

const facts = (o: Partial<RunFacts> = {}): RunFacts => ({ counts: { total: 2, failed: 1, passed: 1 }, failingFiles: ['/r/tests/new.test.ts'], loadErrorFiles: [], messages: [], source: 'x', ...o });
const outcome = (o: Partial<RunOutcome> = {}): RunOutcome => ({ exitCode: 1, timedOut: false, timeoutSeconds: 600, output: 'AssertionError: expected 1 to be 2', facts: facts(), ...o });
const rules = { command: 'npx vitest run', redConfirm: /AssertionError/, buildError: /Cannot find module|SyntaxError/, changedTests: ['tests/new.test.ts'], root: '/r' };

describe('judgeRed: valid RED rules', () => {
  it('accepts an assertion failure in a test written this cycle', () => {
    expect(judgeRed(outcome(), rules)).toMatchObject({ valid: true, failingFiles: ['tests/new.test.ts'] });
  });
  it.each<[string, Partial<RunOutcome>, Partial<typeof rules>, RegExp]>([
    ['exit 0', { exitCode: 0 }, {}, /passed \(exit 0\)/],
    ['timeout', { timedOut: true, exitCode: null }, {}, /did not finish within 600s/],
    ['command not found', { exitCode: 127, output: 'sh: 1: vitestt: not found' }, {}, /not found/],
    ['build error', { output: "Error: Cannot find module '../src/add.js'" }, {}, /compile or import error/],
    ['load error in a new test file', { facts: facts({ loadErrorFiles: ['/r/tests/new.test.ts'], failingFiles: [] }) }, {}, /failed to load/],
    ['no test collected', { facts: facts({ counts: { total: 0, failed: 0, passed: 0 } }) }, {}, /no test was collected/],
    ['counts unknown', { facts: facts({ counts: null }) }, {}, /how many tests ran/],
    ['not an assertion', { output: 'TypeError: x is not a function' }, {}, /missing name/],
    ['no assertion in the output', { output: 'Error: boom' }, {}, /red_confirm/],
    ['no test changed', {}, { changedTests: [] }, /no test file was written or changed/],
    ['pre-existing failure only', { facts: facts({ failingFiles: ['/r/tests/old.test.ts'] }) }, {}, /not in a test file written or changed/],
  ])('refuses: %s', (_n, o, r, reason) => {
    const v = judgeRed(outcome(o), { ...rules, ...r });
    expect(v.valid).toBe(false);
    expect(v.reason).toMatch(reason);
  });
  it('falls back to the changed files the output names when the runner does not say', () => {
    const v = judgeRed(outcome({ facts: facts({ failingFiles: [] }), output: 'AssertionError at tests/new.test.ts:3' }), rules);
    expect(v).toMatchObject({ valid: true, failingFiles: ['tests/new.test.ts'] });
  });
});

describe('judgeGreen', () => {
  it('accepts exit 0 with tests run', () => {
    expect(judgeGreen(outcome({ exitCode: 0, facts: facts({ counts: { total: 2, failed: 0, passed: 2 } }) }), 'x').valid).toBe(true);
  });
  it('refuses failures, and a pass that ran nothing', () => {
    expect(judgeGreen(outcome(), 'x').reason).toMatch(/1 of 2 tests fail/);
    expect(judgeGreen(outcome({ exitCode: 0, facts: facts({ counts: { total: 0, failed: 0, passed: 0 } }) }), 'x').reason).toMatch(/ran no tests/);
  });
});

describe('helpers', () => {
  it('toCycleFile maps absolute, relative and suffix paths', () => {
    expect(toCycleFile('/r/tests/a.test.ts', '/r', ['tests/a.test.ts'])).toBe('tests/a.test.ts');
    expect(toCycleFile('./tests/a.test.ts', '/r', ['tests/a.test.ts'])).toBe('tests/a.test.ts');
    // go test names failing files by base name
    expect(toCycleFile('a.test.ts', '/r', ['tests/a.test.ts'])).toBe('tests/a.test.ts');
    expect(toCycleFile('b.test.ts', '/r', ['tests/a.test.ts'])).toBeNull();
    expect(toCycleFile('pkg/tests/a_test.go', '/r', ['tests/a_test.go'])).toBe('tests/a_test.go');
  });
  it('parseCoverage reads the first capture group', () => {
    expect(parseCoverage('All files |   87.5 |', /All files[^\d]*([\d.]+)/)).toBe(87.5);
    expect(parseCoverage('nothing', /All files[^\d]*([\d.]+)/)).toBeNull();
  });
  it.each([
    ['npx vitest run', 'vitest-json'],
    ['npx jest', 'jest-json'],
    ['python -m pytest -q', 'pytest'],
    ['python -m pytest -q --junitxml=out.xml', 'pytest'],
    ['python3 -I -m pytest -q', 'pytest-unreached'],
    ['python3 -E -m pytest', 'pytest-unreached'],
    ['node --test test/a && node --test test/b', 'node-test-unreached'],
    ['node --test', 'node-test'],
    ['npm test', 'none'],
    ['cargo test', 'cargo'],
    // a runner call inside a compound command is instrumented in place
    ['npx vitest run && echo hi', 'vitest-json'],
    ['cd web && npx jest', 'jest-json'],
    ['cd app; python -m pytest -q | tee log', 'pytest'],
    ['mkdir -p out && npx mocha test', 'mocha'],
    // two runner calls: one sealed report holds one run, so neither is instrumented
    ['npx vitest run && npx vitest run -c other.config.ts', 'none'],
    ['echo $(npx vitest run)', 'none'],
    // a command's own reporter stays, and the gate's goes beside it
    ['npx vitest run --reporter=dot', 'vitest-json'],
  ])('instrumentCommand(%s) → %s', (cmd, kind) => {
    expect(instrumentCommand(cmd, '/tmp/r.json').kind).toBe(kind);
  });
});

describe('a runner call inside a compound command', () => {
  it.each([
    ['cd web && npx vitest run', /^cd web && npx vitest run --reporter=default --reporter=T$/],
    ['cd web && npx vitest run > log 2>&1', /^cd web && npx vitest run --reporter=default --reporter=T > log 2>&1$/],
    ['python3 -m pytest tests | tee log', /^python3 -m pytest tests -p tdd_gate_pytest_outcomes \| tee log$/],
    ['npm run build && npx jest -- --foo', /^npm run build && npx jest --ci --testLocationInResults --reporters=default --reporters=T --no-cache --cacheDirectory='\/r\/x\.cache' -- --foo$/],
    ['CI=1 npx vitest run; echo done', /^CI=1 npx vitest run --reporter=default --reporter=T; echo done$/],
  ])('%s', (cmd, want) => {
    const plan = instrumentCommand(cmd, '/r/x', () => null);
    expect(plan.command.replace(/@tdd-gate-\w+-reporter-[0-9a-f]+@/g, 'T')).toMatch(want);
  });
});

describe('report flags through a package manager', () => {
  const scripts: Record<string, string> = { test: 'vitest run', unit: 'jest --ci', jestplain: 'jest', py: 'python -m pytest -q', pyiso: 'python3 -I -m pytest', both: 'tsc && vitest run', dot: 'vitest run --reporter=dot', nt: 'node --test' };
  const script = (name: string) => scripts[name] ?? null;
  it.each([
    ['npm test', 'npm test -- --reporter=default --reporter=T', 'vitest-json'],
    ['npm test --silent', 'npm test --silent -- --reporter=default --reporter=T', 'vitest-json'],
    ['npm t', 'npm t -- --reporter=default --reporter=T', 'vitest-json'],
    ['npm run unit', "npm run unit -- --testLocationInResults --reporters=default --reporters=T --no-cache --cacheDirectory='/r/x.cache'", 'jest-json'],
    ['yarn unit', "yarn unit --testLocationInResults --reporters=default --reporters=T --no-cache --cacheDirectory='/r/x.cache'", 'jest-json'],
    ['npm run jestplain', "npm run jestplain -- --ci --testLocationInResults --reporters=default --reporters=T --no-cache --cacheDirectory='/r/x.cache'", 'jest-json'],
    ['pnpm run py', 'pnpm run py -p tdd_gate_pytest_outcomes', 'pytest'],
    ['npm run pyiso', 'npm run pyiso', 'pytest-unreached'],
    // a script whose last command is the runner call: npm appends the flags to it
    ['npm run both', 'npm run both -- --reporter=default --reporter=T', 'vitest-json'],
    ['npm run dot', 'npm run dot -- --reporter=T', 'vitest-json'],
    ['npm run missing', 'npm run missing', 'none'],
  ])('%s', (cmd, want, kind) => {
    const plan = instrumentCommand(cmd, '/r/x', script);
    expect(plan).toMatchObject({ command: want.replace('=T', `=${plan.jsModule?.token ?? 'T'}`), kind });
  });
});

describe('go test -json', () => {
  it('is asked for, and its events give the text, counts and failing files', async () => {
    const { parseGoJson } = await import('../../src/verify/evidence/goJson.js');
    expect(instrumentCommand('go test ./...', '/tmp/x')).toEqual({ command: 'go test -json ./...', kind: 'go-json' });
    // a command that asks for -json itself is read from its events too
    expect(instrumentCommand('go test -json ./...', '/tmp/x')).toEqual({ command: 'go test -json ./...', kind: 'go-json' });
    const lines = [
      { Action: 'run', Package: 'ex/cart', Test: 'TestTotal' },
      { Action: 'output', Package: 'ex/cart', Test: 'TestTotal', Output: '=== RUN   TestTotal\n' },
      { Action: 'output', Package: 'ex/cart', Test: 'TestTotal', Output: '    cart_test.go:9: got 0, want 3\n' },
      { Action: 'output', Package: 'ex/cart', Test: 'TestTotal', Output: '--- FAIL: TestTotal (0.00s)\n' },
      { Action: 'fail', Package: 'ex/cart', Test: 'TestTotal' },
      { Action: 'output', Package: 'ex/cart', Test: 'TestOld', Output: '    old_test.go:3: just a log\n' },
      { Action: 'pass', Package: 'ex/cart', Test: 'TestOld' },
      { Action: 'fail', Package: 'ex/cart' },
    ].map((e) => JSON.stringify(e));
    const { text, facts } = parseGoJson(['# a plain stderr line', ...lines].join('\n'));
    expect(text).toContain('--- FAIL: TestTotal');
    expect(text).toContain('# a plain stderr line');
    expect(facts.counts).toMatchObject({ total: 2, failed: 1, passed: 1 });
    expect(facts.failingFiles).toEqual(['cart_test.go']);
    expect(facts.loadErrorFiles).toEqual([]);
  });
  it('names a package whose tests did not build, as Go before 1.24 and after print it', async () => {
    const { parseGoJson } = await import('../../src/verify/evidence/goJson.js');
    const old = parseGoJson(['# ex/cart [ex/cart.test]', './cart_test.go:3:30: undefined: Total', 'FAIL\tex/cart [build failed]'].join('\n'));
    expect(old.facts).toMatchObject({ counts: null, loadErrorFiles: ['ex/cart'] });
    const now = parseGoJson([{ ImportPath: 'ex/cart [ex/cart.test]', Action: 'build-output', Output: './cart_test.go:3:30: undefined: Total\n' }, { Action: 'output', Package: 'ex/cart', Output: 'FAIL\tex/cart [build failed]\n' }, { Action: 'fail', Package: 'ex/cart', FailedBuild: 'ex/cart [ex/cart.test]' }].map((e) => JSON.stringify(e)).join('\n'));
    expect(now.facts.loadErrorFiles).toEqual(['ex/cart']);
  });
});
