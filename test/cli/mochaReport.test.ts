import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { instrumentCommand } from '../../src/verify/evidence/instrument.js';
import { judgeGreen, judgeRed, type RunOutcome } from '../../src/verify/rules/judge.js';
import { MOCHA_REPORTER_NAME, MOCHA_SOURCE, mochaCommand, mochaReporterSource, parseMochaReport, unreachedMocha } from '../../src/verify/evidence/mocha.js';
import { textFacts } from '../../src/verify/evidence/textReport.js';
import { newSealKey, openSeal } from '../../src/verify/evidence/seal.js';

describe('mochaCommand: the gate’s reporter added to a plain mocha call', () => {
  it.each([
    ['mocha', 'mocha --reporter R'],
    ['npx mocha', 'npx mocha --reporter R'],
    ['npx mocha --recursive spec', 'npx mocha --recursive spec --reporter R'],
    // the last --reporter wins: ours comes after the project's
    ['npx mocha -R dot test/', 'npx mocha -R dot test/ --reporter R'],
    ['node_modules/.bin/_mocha test', 'node_modules/.bin/_mocha test --reporter R'],
    ['node node_modules/mocha/bin/mocha.js', 'node node_modules/mocha/bin/mocha.js --reporter R'],
    ['c8 mocha', 'c8 mocha --reporter R'],
    ['NODE_ENV=test npx --no-install mocha', 'NODE_ENV=test npx --no-install mocha --reporter R'],
    // after `--` mocha reads file names: the flag goes before it
    ['mocha -- test/a.js', 'mocha --reporter R -- test/a.js'],
  ])('%s', (cmd, want) => {
    expect(mochaCommand(cmd, 'R')).toBe(want);
  });
  it.each(['node scripts/run-mocha.js', 'npx vitest run', 'node --test test/mocha', 'mocha.opts', 'npx vitest run mocha', 'node -r ts-node/register mocha', 'npm exec -- mocha'])('not a mocha call: %s', (cmd) => {
    expect(mochaCommand(cmd, 'R')).toBeNull();
  });
});

describe('instrumentCommand for mocha', () => {
  it('a plain call: the reporter module travels with the plan, its path stands as a token in the command', () => {
    const plan = instrumentCommand('npx mocha', '/r/run.report');
    expect(plan.kind).toBe('mocha');
    expect(plan.jsModule?.name).toBe(MOCHA_REPORTER_NAME);
    expect(plan.command).toBe(`npx mocha --reporter ${plan.jsModule?.token ?? '?'}`);
    expect(plan.jsModule?.source).toContain(JSON.stringify('/r/run.report'));
    // a fresh token every run: a project cannot spell it in advance
    expect(instrumentCommand('npx mocha', '/r/run.report').jsModule?.token).not.toBe(plan.jsModule?.token);
  });
  const scripts: Record<string, string> = { test: 'mocha --recursive', compound: 'mocha && eslint .', nested: 'npm run test' };
  const script = (name: string) => scripts[name] ?? null;
  it.each([
    ['npm test', 'npm test -- --reporter T', 'mocha'],
    ['npm test --silent', 'npm test --silent -- --reporter T', 'mocha'],
    ['yarn test', 'yarn test --reporter T', 'mocha'],
    // mocha where the reporter cannot go: refused, never read from its text
    ['npm run compound', 'npm run compound', 'mocha-unreached'],
    ['npm run nested', 'npm run nested', 'mocha-unreached'],
    // inside a compound command: the mocha call itself
    ['npx mocha && echo done', 'npx mocha --reporter T && echo done', 'mocha'],
    ['npx jest --reporters=dot', "npx jest --reporters=dot --ci --testLocationInResults --reporters=T --no-cache --cacheDirectory='/r/x.cache'", 'jest-json'],
    ['node --test test/mocha', 'node --test test/mocha', 'node-test'],
  ])('%s', (cmd, want, kind) => {
    const plan = instrumentCommand(cmd, '/r/x', script);
    expect(plan.kind).toBe(kind);
    expect(plan.command).toBe(want.replace('T', plan.jsModule?.token ?? 'T'));
  });
});

const line = (o: Record<string, unknown>) => JSON.stringify(o);
const BEGIN = line({ tddGateMocha: 1, k: 'begin', only: false, dryRun: false });
const test = (n: number, title: string, status: string, message?: string) => line({ k: 'test', n, file: '/p/test/a.test.js', path: ['a', title], status, ...(message ? { message } : {}) });
const end = (passes: number, failures: number, pending = 0) => line({ k: 'end', stats: { passes, failures, pending, tests: passes + failures + pending } });

describe('parseMochaReport: the report or nothing, never the text', () => {
  it('a whole run: each test by file and title path, counts from what the reporter saw', () => {
    const f = parseMochaReport([BEGIN, test(1, 'adds', 'failed', 'AssertionError: expected 0 to equal 3'), test(2, 'holds', 'passed'), test(3, 'later', 'skipped'), end(1, 1, 1)].join('\n'));
    expect(f.unfinished).toBeUndefined();
    expect(f.source).toBe(MOCHA_SOURCE);
    expect(f.counts).toEqual({ total: 3, passed: 1, failed: 1, skipped: 1 });
    expect(f.tests).toEqual([
      { file: '/p/test/a.test.js', name: 'a > adds', path: ['a', 'adds'], status: 'failed', message: 'AssertionError: expected 0 to equal 3' },
      { file: '/p/test/a.test.js', name: 'a > holds', path: ['a', 'holds'], status: 'passed', message: '' },
      { file: '/p/test/a.test.js', name: 'a > later', path: ['a', 'later'], status: 'skipped', message: '' },
    ]);
    expect(f.failingFiles).toEqual(['/p/test/a.test.js']);
  });
  it('no report at all (the process ended as it loaded), whatever it printed', () => {
    const f = parseMochaReport(null);
    expect(f.counts).toBeNull();
    expect(f.tests).toEqual([]);
    expect(f.unfinished).toMatch(/mocha never began its run/);
    // the same text read the old way would say 64 passed
    expect(textFacts('\n  64 passing (5ms)\n').counts).toMatchObject({ passed: 64 });
  });
  it('a run that began and never ended; one whose counts disagree with mocha’s own; a dry run', () => {
    expect(parseMochaReport([BEGIN, test(1, 'adds', 'passed')].join('\n')).unfinished).toMatch(/began but never ended.*after 1 tests reported/);
    expect(parseMochaReport([BEGIN, test(1, 'adds', 'passed'), end(5, 0)].join('\n')).unfinished).toMatch(/mocha's own count \(5 passing, 0 failing, 0 pending\) and the tests tdd-gate's reporter saw \(1 passing/);
    expect(parseMochaReport([line({ tddGateMocha: 1, k: 'begin', dryRun: true }), test(1, 'adds', 'passed'), end(1, 0)].join('\n')).unfinished).toMatch(/--dry-run/);
    expect(parseMochaReport([BEGIN, end(0, 0), BEGIN, end(0, 0)].join('\n')).unfinished).toMatch(/more than one run/);
  });
  it('a test that failed after it passed is failed, once; a failing hook is a failure, not a test', () => {
    const hook = line({ k: 'hook', n: 2, file: '/p/test/a.test.js', path: ['a', '"before each" hook for "b"'], status: 'failed', message: 'Error: boom' });
    const f = parseMochaReport([BEGIN, test(1, 'adds', 'passed'), test(1, 'adds', 'failed', 'Error: done() called multiple times'), hook, end(1, 2)].join('\n'));
    expect(f.unfinished).toBeUndefined();
    expect(f.tests).toHaveLength(1);
    expect(f.tests?.[0]).toMatchObject({ status: 'failed', message: 'Error: done() called multiple times' });
    expect(f.counts).toEqual({ total: 1, passed: 0, failed: 2, skipped: 0 });
    expect(f.messages).toContain('a > "before each" hook for "b": Error: boom');
  });
  it('`.only` in the run is named', () => {
    expect(parseMochaReport([line({ tddGateMocha: 1, k: 'begin', only: true }), test(1, 'x', 'passed'), end(1, 0)].join('\n')).narrowed).toMatch(/\.only/);
  });
});

const outcome = (o: Partial<RunOutcome>): RunOutcome => ({ exitCode: 0, timedOut: false, timeoutSeconds: 60, output: '', facts: parseMochaReport(null), tests: [], ...o });

describe('a sealed report that does not hold, judged in RED and GREEN (every sealed runner alike)', () => {
  const SEAL = 'the gate’s reporter saw the run begin but not end: a test process ended early or was killed';
  const rules = { command: 'npx mocha', redConfirm: /AssertionError/, buildError: /Cannot find module|SyntaxError/, changedTests: ['test/a.test.js'], root: '/p', isNew: () => true };
  const failing = [{ id: 'test/a.test.js::a > adds', file: 'test/a.test.js', leaf: 'adds', status: 'failed' as const, message: 'AssertionError: x' }];
  it.each([
    ['a test that failed on its assertion before the process ended', { output: 'AssertionError: x', tests: failing }, new RegExp(`^${SEAL}.*then verify red again`)],
    ['a process killed before anything ran', { output: '' }, new RegExp(`^${SEAL}`)],
    ['a missing module (the test never loaded): still "add a stub"', { output: "Error: Cannot find module '../src/add'" }, /missing name \(Error: Cannot find module '\.\.\/src\/add'\); add a STUB:TDD stub first/],
    ['a compile error: still "add a stub"', { output: 'SyntaxError: Unexpected token' }, /compile or import error \(SyntaxError: Unexpected token\); add a STUB:TDD stub/],
  ])('RED: %s', (_n, o, want) => {
    const v = judgeRed(outcome({ exitCode: 1, sealProblem: SEAL, ...o }), rules);
    expect(v.valid).toBe(false);
    expect(v.reason).toMatch(want);
  });
  it('GREEN refuses it before anything else the run says', () => {
    const passing = [{ id: 'test/a.test.js::a > adds', file: 'test/a.test.js', leaf: 'adds', status: 'passed' as const, message: '' }];
    const v = judgeGreen(outcome({ exitCode: 0, sealProblem: SEAL, output: '  1 passing\n', tests: passing }), 'npx mocha');
    expect(v.reason).toMatch(new RegExp(`^${SEAL}; remove what ends the test process`));
  });
});

describe('judging an unfinished mocha run', () => {
  it('a mocha run the reporter could not reach is refused with what to change, whatever it printed', () => {
    const v = judgeGreen(outcome({ facts: unreachedMocha(), output: '  3 passing\n' }), 'npm run compound');
    expect(v.valid).toBe(false);
    expect(v.reason).toMatch(/runs mocha in a way tdd-gate cannot add its own reporter to.*make test_command a plain mocha call/);
  });
  it('GREEN refuses it, whatever the exit code and the text say', () => {
    expect(judgeGreen(outcome({ output: '  64 passing\n' }), 'npx mocha').reason).toMatch(/^mocha never began its run/);
    const cut = parseMochaReport([BEGIN, test(1, 'adds', 'passed')].join('\n'));
    expect(judgeGreen(outcome({ facts: cut, tests: [{ id: 'test/a.test.js::a > adds', file: 'test/a.test.js', leaf: 'adds', status: 'passed', message: '' }] }), 'npx mocha').reason).toMatch(/began but never ended/);
  });
  it('RED: a run that never began is "add a stub" when the output shows an import error; one cut short is refused', () => {
    const rules = { command: 'npx mocha', redConfirm: /AssertionError/, buildError: /Cannot find module/, changedTests: ['test/a.test.js'], root: '/p', isNew: () => true };
    expect(judgeRed(outcome({ exitCode: 1, output: "Error: Cannot find module '../src/add'" }), rules).reason).toMatch(/mocha never began its run.*Cannot find module.*add a STUB:TDD stub/);
    const cut = parseMochaReport([BEGIN, test(1, 'adds', 'failed', 'AssertionError: x')].join('\n'));
    expect(judgeRed(outcome({ exitCode: 1, facts: cut, tests: [{ id: 'test/a.test.js::a > adds', file: 'test/a.test.js', leaf: 'adds', status: 'failed', message: 'AssertionError: x' }] }), rules).reason).toMatch(/began but never ended/);
  });
});

describe('the reporter module itself, on mocha’s runner events', () => {
  it('writes begin, each test and end, and prints what a person reads', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tdd-gate-mocha-unit-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const out = path.join(dir, 'report');
    const file = path.join(dir, MOCHA_REPORTER_NAME);
    writeFileSync(file, mochaReporterSource(out));
    const key = newSealKey();
    writeFileSync(`${out}.key`, key, { mode: 0o600 });
    // mocha's runner as a bare event emitter, in a process of its own (the report ends as it exits)
    const script = `const { EventEmitter } = require('node:events');
const Reporter = require(${JSON.stringify(file)});
const root = { root: true, title: '', hasOnly: () => false };
const suite = { title: 'sum', parent: root };
const runner = Object.assign(new EventEmitter(), { suite: root, stats: { passes: 1, failures: 1, pending: 0, tests: 2 } });
new Reporter(runner, {});
const t1 = { type: 'test', title: 'adds', file: '/p/test/sum.test.js', parent: suite, titlePath: () => ['sum', 'adds'] };
const t2 = { type: 'test', title: 'subtracts', file: '/p/test/sum.test.js', parent: suite };
const err = Object.assign(new Error('expected 0 to equal 3'), { name: 'AssertionError' });
err.stack = 'AssertionError: expected 0 to equal 3\\n    at Context.<anonymous> (/p/test/sum.test.js:7:12)';
runner.emit('start');
runner.emit('suite', suite);
runner.emit('pass', t1);
runner.emit('fail', t2, err);
runner.emit('suite end', suite);
runner.emit('end');
`;
    const printed = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(printed).toMatch(/✔ adds/);
    expect(existsSync(`${out}.key`)).toBe(false);
    const opened = openSeal(readFileSync(out, 'utf8'), key);
    if (!opened.ok) throw new Error(opened.problem);
    const text = opened.body;
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ tddGateMocha: 1, k: 'begin', only: false, dryRun: false });
    expect(lines[2]).toMatchObject({ k: 'test', file: '/p/test/sum.test.js', path: ['sum', 'subtracts'], status: 'failed', message: 'AssertionError: expected 0 to equal 3', line: 7, column: 12 });
    const f = parseMochaReport(text);
    expect(f.unfinished).toBeUndefined();
    expect(f.counts).toEqual({ total: 2, passed: 1, failed: 1, skipped: 0 });
  });
});
