import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { instrumentCommand } from '../../src/verify/evidence/instrument.js';
import { judgeGreen, type RunOutcome } from '../../src/verify/rules/judge.js';
import { NODE_TEST_SOURCE, nodeTestCalls, nodeTestOptions, nodeTestReporterSupported, nodeTestSummary, npmrcNodeOptions, parseNodeTestReport } from '../../src/verify/evidence/nodeTest.js';
import { instrumentFor } from '../../src/verify/testRun.js';
import { newSealKey, openSeal } from '../../src/verify/evidence/seal.js';

const scripts: Record<string, string> = {
  test: 'node --test',
  pretest: 'tsc -p .',
  unit: 'node --test test/unit/',
  all: 'npm run build && npm run unit',
  build: 'tsc',
  dot: 'node --test --test-reporter=dot',
  pair: 'node --test --test-reporter=tap --test-reporter-destination=stdout',
  two: 'node --test --test-reporter=dot --test-reporter=tap',
  mixed: 'node --test a && node --test --test-reporter=dot b',
  env: 'NODE_OPTIONS=--x node --test',
  vitest: 'vitest run',
  loop: 'npm run loop',
  both: 'vitest run && node --test',
};
const script = (name: string) => scripts[name] ?? null;

describe('the node --test calls a command reaches', () => {
  it.each([
    ['node --test', ['node --test']],
    ['node --import tsx --test test/', ['node --import tsx --test test/']],
    ['c8 node --test', ['c8 node --test']],
    ['npm test', ['node --test']],
    ['npm t --silent', ['node --test']],
    ['npm run all', ['node --test test/unit/']],
    ['yarn unit', ['node --test test/unit/']],
    ['pnpm run unit', ['node --test test/unit/']],
    ['npm run vitest', []],
    ['npm run both', []],
    ['jest && node --test', []],
    ['node --test --test-reporter tap test/tap.test.js', ['node --test --test-reporter tap test/tap.test.js']],
    ['npm run loop', []],
    ['node --test-only x.js', []],
    ['node scripts/build.js', []],
  ])('%s', (command, calls) => {
    expect(nodeTestCalls(command, script)).toEqual(calls);
  });
});

describe('the reporter goes in through NODE_OPTIONS, with the reporter flags kept balanced', () => {
  const opts = (command: string) => nodeTestOptions(command, '/r/x.report', script);
  it.each([
    ['npm test', /^--test-reporter=spec --test-reporter-destination=stdout --test-reporter=data:text\/javascript;base64,\S+ --test-reporter-destination=stdout$/],
    ['npm run dot', /^--test-reporter-destination=stdout --test-reporter=data:\S+ --test-reporter-destination=stdout$/],
    ['npm run pair', /^--test-reporter=data:\S+ --test-reporter-destination=stdout$/],
  ])('%s', (command, want) => {
    expect(opts(command)).toMatch(want);
  });
  it.each(['npm run two', 'npm run mixed', 'npm run env', 'npm run vitest', 'jest'])('%s: nothing added', (command) => {
    expect(opts(command)).toBeNull();
  });
  it('instrumentCommand leaves the command as written and names the report', () => {
    const r = instrumentCommand('npm test --silent', '/r/x.report', script);
    expect(r).toMatchObject({ command: 'npm test --silent', kind: 'node-test' });
    expect(r.nodeOptions).toContain('--test-reporter=data:');
    // the report file is baked into the module, not passed on a command line
    const url = /--test-reporter=data:text\/javascript;base64,(\S+)/.exec(r.nodeOptions ?? '')?.[1] ?? '';
    expect(Buffer.from(url, 'base64').toString('utf8')).toContain('"/r/x.report"');
  });
});

type Ev = Record<string, unknown>;
const line = (events: Ev[]) => JSON.stringify({ tddGateNodeTest: 1, node: 'v20', events });
const F = '/r/test/a.test.js';
const start = (name: string, nesting = 0, file: string | null = F): Ev => ({ kind: 'start', name, nesting, file });
const pass = (name: string, nesting = 0, more: Ev = {}, file: string | null = F): Ev => ({ kind: 'pass', name, nesting, file, suite: false, skip: false, todo: false, ...more });
const fail = (name: string, nesting = 0, message = 'AssertionError: 1 !== 2\ncode: ERR_ASSERTION', more: Ev = {}): Ev => ({ kind: 'fail', name, nesting, file: F, suite: false, skip: false, todo: false, error: { message }, ...more });

describe('parseNodeTestReport', () => {
  it('names every leaf by file and suite path, counts as the runner does, and skips suites and parents', () => {
    const facts = parseNodeTestReport(
      line([
        start('cart'),
        start('adds', 1),
        pass('adds', 1),
        start('skips', 1),
        pass('skips', 1, { skip: true }),
        start('later', 1),
        pass('later', 1, { todo: true }),
        start('inner', 1),
        start('deep', 2),
        fail('deep', 2),
        fail('inner', 1, 'x', { suite: true }),
        fail('cart', 0, 'x', { suite: true }),
        start('top'),
        start('sub', 1),
        pass('sub', 1),
        pass('top'),
      ]),
    )!;
    expect(facts.tests).toEqual([
      { file: F, name: 'cart > adds', path: ['cart', 'adds'], status: 'passed', message: '' },
      { file: F, name: 'cart > skips', path: ['cart', 'skips'], status: 'skipped', message: '' },
      { file: F, name: 'cart > later', path: ['cart', 'later'], status: 'skipped', message: '' },
      { file: F, name: 'cart > inner > deep', path: ['cart', 'inner', 'deep'], status: 'failed', message: 'AssertionError: 1 !== 2\ncode: ERR_ASSERTION' },
      { file: F, name: 'top > sub', path: ['top', 'sub'], status: 'passed', message: '' },
    ]);
    // node's own summary for this file: tests 6, pass 3, fail 1, skipped 1, todo 1
    expect(facts.counts).toEqual({ total: 6, passed: 3, failed: 1, skipped: 2 });
    expect(facts.failingFiles).toEqual([F]);
  });
  it('a whole file reported as a failed test is a load error, not a test; each process is a line of its own', () => {
    const facts = parseNodeTestReport(
      [
        line([start('test/b.test.js', 0, '/r/test/b.test.js'), { ...fail('test/b.test.js', 0, 'test failed', { error: { message: 'test failed', exitCode: 1 } }), file: '/r/test/b.test.js' }]),
        line([start('old', 0, '/r/test/old.test.js'), pass('old', 0, {}, '/r/test/old.test.js'), start('/r/test/c.test.js', 0, '/r/test/c.test.js'), pass('/r/test/c.test.js', 0, {}, '/r/test/c.test.js')]),
        'not json',
        JSON.stringify({ events: [pass('forged')] }),
      ].join('\n'),
    )!;
    expect(facts.loadErrorFiles).toEqual(['/r/test/b.test.js']);
    expect(facts.tests?.map((t) => [t.file, t.name, t.status])).toEqual([['/r/test/old.test.js', 'old', 'passed']]);
    expect(facts.counts).toEqual({ total: 3, passed: 2, failed: 1, skipped: 0 });
  });
  it('without a file (an old node, a REPL) a test is known by its name alone', () => {
    const facts = parseNodeTestReport(line([start('a', 0, null), pass('a', 0, {}, null)]))!;
    expect(facts.tests).toEqual([{ file: null, name: 'a', status: 'passed', message: '', idByName: true }]);
  });
  it('no line of ours: no report', () => {
    expect(parseNodeTestReport('')).toBeNull();
    expect(parseNodeTestReport('{"tests":[]}\n')).toBeNull();
  });
});

it.each([
  ['v18.14.2', false],
  ['v18.15.0', true],
  ['v19.5.0', false],
  ['v19.6.0', true],
  ['v20.20.2', true],
  ['v24.21.0', true],
])('node %s takes the reporter: %s', (version, ok) => {
  expect(nodeTestReporterSupported(version)).toBe(ok);
});

describe('npmrcNodeOptions', () => {
  it.each([
    ['node-options=--max-old-space-size=4096\n', '--max-old-space-size=4096'],
    ['registry=x\nnode_options = "--a --b"\n', '--a --b'],
    ['registry=x\n', null],
    [null, null],
  ])('%j → %j', (text, want) => {
    expect(npmrcNodeOptions(text)).toBe(want);
  });
});

describe('nodeTestSummary', () => {
  it('sums the spec and TAP summaries of every process; cancelled counts as failed, todo as skipped', () => {
    const text = ['✔ a', 'ℹ tests 3', 'ℹ suites 1', 'ℹ pass 1', 'ℹ fail 1', 'ℹ cancelled 1', 'ℹ skipped 0', 'ℹ todo 0', '# tests 2', '# pass 1', '# fail 0', '# skipped 0', '# todo 1', '  ℹ tests 99'].join('\n');
    expect(nodeTestSummary(text)).toEqual({ total: 5, passed: 2, failed: 2, skipped: 1 });
    expect(nodeTestSummary('no summary')).toBeNull();
  });
});

describe('the reporter with the real runner', () => {
  it('writes every test with its file and full name, as the runner counts them', { timeout: 30_000 }, () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tdd-gate-nodetest-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(path.join(dir, 'test'));
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', scripts: { test: 'node --test' } }));
    writeFileSync(
      path.join(dir, 'test', 'a.test.js'),
      "import { describe, it, test } from 'node:test';\nimport assert from 'node:assert/strict';\ndescribe('cart', () => {\n  it('adds', () => {});\n  it('skips', { skip: true }, () => {});\n  describe('inner', () => { it('deep', () => { assert.equal(1, 2); }); });\n});\ntest('top', async (t) => { await t.test('sub', () => {}); });\n",
    );
    writeFileSync(path.join(dir, 'test', 'broken.test.js'), "import { nothing } from '../src/missing.js';\n");
    // the test files' processes do not inherit the reporter (nor the report's path)
    writeFileSync(path.join(dir, 'test', 'env.test.js'), "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('no reporter here', () => { assert.doesNotMatch(process.env.NODE_OPTIONS ?? '', /test-reporter/); });\n");
    // npm replaces NODE_OPTIONS with the project's own node-options
    writeFileSync(path.join(dir, '.npmrc'), 'node-options=--no-warnings\n');
    const report = path.join(dir, 'run.report');
    const plan = instrumentFor(dir)('npm test --silent', report);
    expect(plan.env).toEqual({ npm_config_node_options: `--no-warnings ${plan.nodeOptions}` });
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', NODE_OPTIONS: plan.nodeOptions, ...plan.env };
    // the run's key: the reporter reads it and deletes it as it loads in the runner's process
    const key = newSealKey();
    expect(plan.seal).toEqual({ keyFile: `${report}.key`, report: 'main' });
    writeFileSync(`${report}.key`, key, { mode: 0o600 });
    const r = spawnSync('sh', ['-c', plan.command], { cwd: dir, env, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(existsSync(`${report}.key`)).toBe(false);
    const opened = openSeal(readFileSync(report, 'utf8'), key);
    if (!opened.ok) throw new Error(opened.problem);
    const facts = parseNodeTestReport(opened.body)!;
    const a = path.join(dir, 'test', 'a.test.js');
    expect(facts.tests?.map((t) => [t.file, t.name, t.status])).toEqual([
      [a, 'cart > adds', 'passed'],
      [a, 'cart > skips', 'skipped'],
      [a, 'cart > inner > deep', 'failed'],
      [a, 'top > sub', 'passed'],
      [path.join(dir, 'test', 'env.test.js'), 'no reporter here', 'passed'],
    ]);
    expect(facts.tests?.[2]?.message).toMatch(/^AssertionError: Expected values to be strictly equal/);
    // each test's place in its file (node's own line and column), to know it by its declaration
    expect(facts.tests?.slice(0, 4).map((t) => [t.line, t.column])).toEqual([
      [4, 3],
      [5, 3],
      [6, 29],
      [8, 36],
    ]);
    expect(facts.loadErrorFiles).toEqual([path.join(dir, 'test', 'broken.test.js')]);
    // the printed summary tells the same story
    expect(nodeTestSummary(r.stdout)).toEqual(facts.counts);
  });
});

describe('GREEN holds node:test to its printed summary, count for count', () => {
  const report = (counts: { total: number; passed: number; failed: number; skipped: number }): RunOutcome => ({
    exitCode: 0,
    timedOut: false,
    timeoutSeconds: 600,
    output: '',
    facts: { counts, failingFiles: [], loadErrorFiles: [], messages: [], source: NODE_TEST_SOURCE, tests: null },
    tests: [{ id: 'test/a.test.js::adds', file: 'test/a.test.js', leaf: 'adds', status: 'passed', message: '' }],
    summary: { total: 2, passed: 2, failed: 0, skipped: 0 },
  });
  it.each([
    ['the same counts', { total: 2, passed: 2, failed: 0, skipped: 0 }, true],
    ['a test skipped in the report, not in the summary', { total: 3, passed: 2, failed: 0, skipped: 1 }, false],
    ['more tests in the report', { total: 3, passed: 3, failed: 0, skipped: 0 }, false],
  ])('%s', (_what, counts, valid) => {
    const v = judgeGreen(report(counts), 'npm test');
    expect(v.valid).toBe(valid);
    if (!valid) expect(v.reason).toMatch(/report .* and its printed summary .* disagree/);
  });
});
