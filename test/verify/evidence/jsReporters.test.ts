// The command rewriting for vitest and jest (src/verify/evidence/instrument.ts), the reporter modules
// the run writes (vitestReporter.ts, jestReporter.ts), and how a sealed report is read (report.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { instrumentCommand, jestCommand, vitestCommand } from '../../../src/verify/evidence/instrument.js';
import { JEST_REPORTER_NAME } from '../../../src/verify/evidence/jestReporter.js';
import { sealedJestFacts } from '../../../src/verify/evidence/report.js';
import { newSealKey, openSeal } from '../../../src/verify/evidence/seal.js';
import { VITEST_REPORTER_NAME } from '../../../src/verify/evidence/vitestReporter.js';

const JEST_TAIL = "--reporters=T --no-cache --cacheDirectory='/r/x.cache'";

describe('vitest and jest commands get the gate’s reporter', () => {
  const scripts: Record<string, string> = {
    test: 'vitest run',
    jt: 'jest',
    jci: 'jest --ci --testLocationInResults',
    own: 'jest --reporters=jest-junit',
    vown: 'vitest run --reporter=dot',
    dashes: 'vitest run -- tests/a.test.ts',
    chained: 'tsc && vitest run',
    nested: 'npm run test',
  };
  const script = (name: string) => scripts[name] ?? null;
  it.each([
    // plain calls: the default reporter for people, the gate's for the verdict
    ['npx vitest run', 'npx vitest run --reporter=default --reporter=T', 'vitest-json'],
    ['node node_modules/vitest/vitest.mjs run tests', 'node node_modules/vitest/vitest.mjs run tests --reporter=default --reporter=T', 'vitest-json'],
    ['npx jest', `npx jest --ci --testLocationInResults --reporters=default ${JEST_TAIL}`, 'jest-json'],
    ['node node_modules/jest/bin/jest.js --ci', `node node_modules/jest/bin/jest.js --ci --testLocationInResults --reporters=default ${JEST_TAIL}`, 'jest-json'],
    ['npx jest --testLocationInResults', `npx jest --testLocationInResults --ci --reporters=default ${JEST_TAIL}`, 'jest-json'],
    // a command's own reporters stay, the gate's goes beside them
    ['npx vitest run --reporter=dot', 'npx vitest run --reporter=dot --reporter=T', 'vitest-json'],
    ['npx vitest run --reporter json --outputFile=out.json', 'npx vitest run --reporter json --outputFile=out.json --reporter=T', 'vitest-json'],
    ['npx jest --reporters=jest-junit', `npx jest --reporters=jest-junit --ci --testLocationInResults ${JEST_TAIL}`, 'jest-json'],
    // jest's own --json report is written if the command asks, and never read
    ['npx jest --json --outputFile=r.json', `npx jest --json --outputFile=r.json --ci --testLocationInResults --reporters=default ${JEST_TAIL}`, 'jest-json'],
    // before a `--` that ends the runner's options
    ['npx vitest run -- tests/a.test.ts', 'npx vitest run --reporter=default --reporter=T -- tests/a.test.ts', 'vitest-json'],
    // through a package manager
    ['npm test', 'npm test -- --reporter=default --reporter=T', 'vitest-json'],
    ['npm test --silent', 'npm test --silent -- --reporter=default --reporter=T', 'vitest-json'],
    ['yarn test', 'yarn test --reporter=default --reporter=T', 'vitest-json'],
    ['pnpm run jt', `pnpm run jt --ci --testLocationInResults --reporters=default ${JEST_TAIL}`, 'jest-json'],
    ['npm run jci', `npm run jci -- --reporters=default ${JEST_TAIL}`, 'jest-json'],
    ['npm run own', `npm run own -- --ci --testLocationInResults ${JEST_TAIL}`, 'jest-json'],
    ['npm run vown', 'npm run vown -- --reporter=T', 'vitest-json'],
    // where flags cannot be appended to the runner: read from the text as before
    ['npm run dashes', 'npm run dashes', 'none'],
    // a script whose last command is the runner call: npm appends the flags to it
    ['npm run chained', 'npm run chained -- --reporter=default --reporter=T', 'vitest-json'],
    ['npm run nested', 'npm run nested', 'none'],
    // inside a compound command: the runner call itself
    ['npx vitest run && echo done', 'npx vitest run --reporter=default --reporter=T && echo done', 'vitest-json'],
    ['npx jest | tee out.txt', `npx jest --ci --testLocationInResults --reporters=default ${JEST_TAIL} | tee out.txt`, 'jest-json'],
  ])('%s', (cmd, want, kind) => {
    const plan = instrumentCommand(cmd, '/r/x', script);
    expect(plan.kind).toBe(kind);
    const token = plan.jsModule?.token ?? '@none@';
    expect(plan.command).toBe(want.replace(/=T(?=\s|$)/, `=${token}`));
    if (kind === 'none') {
      expect(plan.seal).toBeUndefined();
      return;
    }
    // the report is sealed under a key of the run's own, beside the report
    expect(plan.seal).toEqual({ keyFile: '/r/x.key', report: 'main' });
    expect(plan.jsModule?.name).toBe(kind === 'vitest-json' ? VITEST_REPORTER_NAME : JEST_REPORTER_NAME);
    expect(plan.jsModule?.source).toContain('const KEY_PATH = "/r/x.key";');
    expect(plan.jsModule?.source).toContain('const OUT_PATH = "/r/x";');
    expect(plan.command.split(token)).toHaveLength(2);
  });

  it('a fresh token each run, which no command can spell in advance', () => {
    const a = vitestCommand('vitest run', '/r/x');
    const b = vitestCommand('vitest run', '/r/x');
    expect(a?.jsModule?.token).toMatch(/^@tdd-gate-vitest-reporter-[0-9a-f]{24}@$/);
    expect(a?.jsModule?.token).not.toBe(b?.jsModule?.token);
    expect(jestCommand('jest', '/r/x')?.jsModule?.token).toMatch(/^@tdd-gate-jest-reporter-[0-9a-f]{24}@$/);
    expect(vitestCommand('jest', '/r/x')).toBeNull();
    expect(jestCommand('vitest run', '/r/x')).toBeNull();
  });

  it('the assertion canary rides along, as for every JavaScript runner', () => {
    for (const cmd of ['npx vitest run', 'npx jest']) expect(instrumentCommand(cmd, '/r/x').canary).toBe('/r/x.canary');
  });
});

describe('the reporter modules, loaded by hand as the runners load them', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tdd-jsrep-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Loads the module in a node process with `env`, then runs `then` (a script with `R`, the module's export). */
  function load(kind: 'vitest' | 'jest', env: NodeJS.ProcessEnv, then: string): { key: string; report: string | null; keyLeft: boolean } {
    const plan = kind === 'vitest' ? vitestCommand('vitest run', path.join(dir, 'report')) : jestCommand('jest', path.join(dir, 'report'));
    const file = path.join(dir, plan!.jsModule!.name);
    writeFileSync(file, plan!.jsModule!.source);
    const key = newSealKey();
    writeFileSync(plan!.seal!.keyFile, key);
    rmSync(path.join(dir, 'report'), { force: true });
    const script =
      kind === 'vitest'
        ? `const R = (await import(${JSON.stringify(file)})).default;\n${then}`
        : `const R = require(${JSON.stringify(file)});\n${then}`;
    execFileSync(process.execPath, kind === 'vitest' ? ['--input-type=module', '-e', script] : ['-e', script], { env: { PATH: process.env.PATH, ...env } });
    const out = path.join(dir, 'report');
    return { key, report: existsSync(out) ? readFileSync(out, 'utf8') : null, keyLeft: existsSync(plan!.seal!.keyFile) };
  }

  const FILE = (state: string) => ({ type: 'suite', filepath: '/p/tests/a.test.ts', result: { state: 'pass' }, tasks: [{ type: 'suite', name: 'grp', tasks: [{ type: 'test', name: 'adds', mode: 'run', result: { state, errors: state === 'fail' ? [{ message: 'expected 0 to be 3', stack: 'AssertionError: expected 0 to be 3\n    at /p/tests/a.test.ts:3:1' }] : [] }, location: { line: 3, column: 1 } }] }, { type: 'test', name: 'top', mode: 'skip' }] });

  it('vitest 4 (onTestRunEnd): begins as it loads, records the run in jest’s shape, and ends', () => {
    const r = load('vitest', {}, `const rep = new R({});\nrep.onTestRunEnd([{ task: ${JSON.stringify(FILE('fail'))} }], [], 'failed');\nrep.onFinished([], []);`);
    expect(r.keyLeft).toBe(false);
    const opened = openSeal(r.report, r.key);
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    const facts = sealedJestFacts(opened.body, 'vitest-json');
    expect(facts.unfinished).toBeUndefined();
    expect(facts.counts).toEqual({ total: 2, failed: 1, passed: 0, skipped: 1 });
    expect(facts.tests).toEqual([
      expect.objectContaining({ file: '/p/tests/a.test.ts', name: 'grp > adds', status: 'failed', line: 3, column: 1, trace: expect.stringContaining('a.test.ts:3:1') as unknown }),
      expect.objectContaining({ name: 'top', status: 'skipped' }),
    ]);
  });

  it('vitest 1–2 (onFinished) the same; a file that failed to load is a load error', () => {
    const broken = { type: 'suite', filepath: '/p/tests/b.test.ts', result: { state: 'fail', errors: [{ message: 'Failed to load url ../src/b.js' }] }, tasks: [] };
    const r = load('vitest', {}, `new R({}).onFinished([${JSON.stringify(FILE('pass'))}, ${JSON.stringify(broken)}], []);`);
    const opened = openSeal(r.report, r.key);
    expect(opened.ok).toBe(true);
    const facts = sealedJestFacts(opened.ok ? opened.body : '', 'vitest-json');
    expect(facts.counts).toMatchObject({ total: 2, failed: 0, passed: 1 });
    expect(facts.loadErrorFiles).toEqual(['/p/tests/b.test.ts']);
    expect(facts.messages).toEqual(['Failed to load url ../src/b.js']);
  });

  it('in a worker it reads no key and writes nothing; a second reporter made from the module does nothing', () => {
    for (const [kind, env] of [['vitest', { VITEST_WORKER_ID: '1' }], ['vitest', { VITEST_POOL_ID: '1' }], ['jest', { JEST_WORKER_ID: '1' }]] as const) {
      const r = load(kind, env, kind === 'vitest' ? 'new R({}).onFinished([], []);' : 'new R({}).onRunComplete(new Set(), {});');
      expect(r.keyLeft).toBe(true);
      expect(r.report).toBeNull();
    }
    // the run's reporter is the first one made; one made by code that found the module records nothing
    const r = load('vitest', {}, `const run = new R({});\nconst late = new R({});\nlate.onFinished([${JSON.stringify(FILE('pass'))}], []);\nrun.onFinished([${JSON.stringify(FILE('fail'))}], []);`);
    const opened = openSeal(r.report, r.key);
    expect(sealedJestFacts(opened.ok ? opened.body : '', 'vitest-json').counts).toMatchObject({ failed: 1 });
    // and its methods cannot be swapped
    const j = load('jest', {}, "const rep = new R({});\ntry { rep.onRunComplete = () => {}; } catch {}\nrep.onRunComplete(new Set(), { numTotalTests: 0, testResults: [] });");
    expect(openSeal(j.report, j.key).ok).toBe(true);
  });

  it('jest without its own formatter to hand (not started as jest): the run is recorded as unreadable, never passed', () => {
    const r = load('jest', {}, 'new R({}).onRunComplete(new Set(), { numTotalTests: 1, numPassedTests: 1, numFailedTests: 0, testResults: [] });');
    const opened = openSeal(r.report, r.key);
    expect(opened.ok).toBe(true);
    const facts = sealedJestFacts(opened.ok ? opened.body : '', 'jest-json');
    expect(facts.counts).toBeNull();
    expect(facts.unfinished).toMatch(/could not record the run’s result: jest(?: was not started as a program|’s own @jest\/test-result could not be found)/);
  });

  it('a run that ends before the reporter records leaves no end: not evidence', () => {
    const r = load('vitest', {}, 'new R({});');
    expect(openSeal(r.report, r.key)).toMatchObject({ ok: false, problem: expect.stringMatching(/saw the run begin but not end/) as unknown });
  });
});

describe('sealedJestFacts', () => {
  const REPORT = JSON.stringify({ numTotalTests: 1, numPassedTests: 1, numFailedTests: 0, testResults: [{ name: '/p/a.test.js', status: 'passed', assertionResults: [{ title: 'a', ancestorTitles: [], status: 'passed' }] }] });
  it.each([
    ['a seal problem', REPORT, 'the gate’s reporter saw the run begin but not end', /saw the run begin but not end/],
    ['no body', '', undefined, /recorded no result/],
    ['the reporter’s own error', JSON.stringify({ tddGateError: 'boom' }), undefined, /could not record the run’s result: boom/],
    ['a body that is no report', '{"x":1}', undefined, /cannot be read as the runner’s report/],
  ])('%s: no counts, no tests, unfinished with why', (_what, text, problem, why) => {
    const facts = sealedJestFacts(text, 'jest-json', problem);
    expect(facts).toMatchObject({ counts: null, tests: [], source: 'jest-json' });
    expect(facts.unfinished).toMatch(why);
  });
  it('a sealed report is read by the one parser', () => {
    expect(sealedJestFacts(REPORT, 'jest-json')).toMatchObject({ counts: { total: 1, passed: 1, failed: 0 }, tests: [expect.objectContaining({ name: 'a', status: 'passed' })] });
  });
});
