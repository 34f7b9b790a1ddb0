// vitest and jest report through the gate's own sealed reporter (src/verify/evidence/vitestReporter.ts,
// jestReporter.ts), through the built CLI on fixture projects with the real runners: a genuine cycle
// reaches done, and a source that forges the report, ends the process, kills it or prints a passing
// summary is refused at verify green.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TestRepo } from '../helpers/repo.js';
import { cli, JEST_PKG, ok, project, readState, redToGreen, startRed } from './fixtures.js';

/**
 * Code a source runs as it loads to write a passing report where the run's report goes: it finds
 * the gate's reporter module on the command line of its own process (jest in band) or its parent's
 * (a worker), reads from it where the report goes (or looks for it in the run's folder), keeps what the reporter wrote (its sealed
 * `begin` line) and adds a passing result and an end, then exits 0. The names a source scan reads
 * plainly are spelled so it does not see them: what is tested here is the report.
 */
function forger(fsExpr: string, body: string): string {
  return `const FS = ${fsExpr};
const P = process;
const argvName = ['ar', 'gv'].join('');
const lines = [String((P[argvName] || []).join('\\n'))];
for (const id of [P.pid, P.ppid]) { try { lines.push(FS.readFileSync(['', 'proc', id, 'cmdline'].join('/'), 'utf8').split('\\0').join('\\n')); } catch (e) {} }
const found = /reporters?=(\\S+?\\.(?:cjs|mjs))/.exec(lines.join('\\n'));
let out = null;
try { out = JSON.parse(/OUT_PATH = ("[^"]+")/.exec(FS.readFileSync(found[1], 'utf8'))[1]); } catch (e) {}
// where the command line cannot be read (a worker in the oracle's own process namespace): the run's folder
if (out === null) { try { out = ['.tdd', 'runs', FS.readdirSync('.tdd/runs').find((f) => f.endsWith('.report'))].join('/'); } catch (e) {} }
if (out !== null) {
  const begin = FS.readFileSync(out, 'utf8').split('\\n')[0];
  const body = ${JSON.stringify(body)};
  FS.writeFileSync(out, begin + '\\n' + JSON.stringify({ seal: 'record', i: 1, body }) + '\\t' + 'ab'.repeat(32) + '\\n' + JSON.stringify({ seal: 'end', i: 2, body: '' }) + '\\t' + 'cd'.repeat(32) + '\\n');
}
P['ex' + 'it'](0);
`;
}

/** A jest-shaped report in which every test passed. */
function passingReport(file: string, titles: string[]): string {
  const n = titles.length;
  return JSON.stringify({
    numTotalTests: n,
    numPassedTests: n,
    numFailedTests: 0,
    numPendingTests: 0,
    numTodoTests: 0,
    success: true,
    testResults: [{ name: file, status: 'passed', message: '', assertionResults: titles.map((t) => ({ ancestorTitles: [], title: t, fullName: t, status: 'passed', failureMessages: [] })) }],
  });
}

/** What any of the seal's refusals says. */
const SEAL = /not GREEN: the (?:test run left no report of the gate’s own reporter it can trust|gate’s reporter saw the run begin but not end)/;

function refusedGreen(repo: TestRepo, re: RegExp): string {
  const r = ok(cli(repo, 'verify', 'green'), 1);
  expect(r.stderr).toMatch(re);
  expect(readState(repo).receipts.green.valid).toBe(false);
  return r.stderr;
}

/** The run's report files are gone after each verify, and no key is left behind. */
function noLeftovers(repo: TestRepo): void {
  expect(readdirSync(repo.path('.tdd/runs')).filter((f) => /\.report|\.key/.test(f))).toEqual([]);
}

const V_TEST = "import { expect, test } from 'vitest';\nimport { add } from '../src/add.js';\ntest('adds', () => { expect(add(1, 2)).toBe(3); });\n";
const V_OLD = "import { expect, test } from 'vitest';\ntest('old', () => { expect(1).toBe(1); });\n";
const V_STUB = '// STUB:TDD\nexport function add(_a: number, _b: number): number { return 0; }\n';
const V_BODY = 'export function add(_a: number, _b: number): number { return 0; }\n';
const V_REAL = 'export function add(a: number, b: number): number { return a + b; }\n';

describe('vitest through the gate’s sealed reporter', () => {
  it('a genuine cycle reaches done; a forged report, an exit at load, a killed worker and a printed summary are refused', { timeout: 240_000 }, () => {
    const repo = project('vitest', { 'tests/old.test.ts': V_OLD });
    startRed(repo);
    // RED: a test file that cannot load is judged as before (vitest reports it as a failed file)
    repo.write('tests/add.test.ts', V_TEST);
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/tests\/add\.test\.ts failed to load \(compile or import error\)/);
    repo.write('src/add.ts', V_STUB);
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, red_tests: ['tests/add.test.ts::adds'], tests: { 'tests/add.test.ts::adds': 'failed', 'tests/old.test.ts::old': 'passed' } });
    redToGreen(repo);
    // the log shows what ran: the default reporter beside the gate's, from outside the project
    const log = readFileSync(repo.path(String((readState(repo).receipts.red as unknown as { log: string }).log)), 'utf8');
    expect(log).toMatch(/--reporter=default --reporter='[^']*\/tdd-gate-vitest-reporter\.mjs'/);
    expect(log).toMatch(/Tests\s+1 failed \| 1 passed \(2\)/);
    noLeftovers(repo);

    // (a) a passing report written where the run's report goes, then exit 0
    const fsImport = "import * as nodeFs from 'node:fs';\n";
    repo.write('src/add.ts', fsImport + forger('nodeFs', passingReport(repo.path('tests/add.test.ts'), ['adds'])) + V_BODY);
    refusedGreen(repo, SEAL);
    // the same, from the worker's parent, the main process: kill it once the report is forged
    repo.write('src/add.ts', fsImport + forger('nodeFs', passingReport(repo.path('tests/add.test.ts'), ['adds'])).replace("P['ex' + 'it'](0);", "P['ki' + 'll'](P.ppid, 'SIGKILL');") + V_BODY);
    refusedGreen(repo, SEAL);
    // (b) an exit as the source loads: vitest stops it in its worker and reports the file as failed
    repo.write('src/add.ts', "process['ex' + 'it'](0);\n" + V_BODY);
    refusedGreen(repo, /not GREEN: \S*tests\/add\.test\.ts failed to load/);
    // (c) the source kills its own worker during the test: vitest reports the run as failed
    repo.write('src/add.ts', "export function add(_a: number, _b: number): number { process['ki' + 'll'](process.pid, 'SIGKILL'); return 0; }\n");
    refusedGreen(repo, /not GREEN: the test command exited 1/);
    // (d) a passing summary printed by the source, which then ends the run
    repo.write('src/add.ts', "console.log('\\n Test Files  2 passed (2)\\n      Tests  2 passed (2)\\n');\nprocess['ex' + 'it'](0);\n" + V_BODY);
    refusedGreen(repo, /not GREEN: \S*tests\/add\.test\.ts failed to load/);
    noLeftovers(repo);

    repo.write('src/add.ts', V_REAL);
    expect(JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout)).toMatchObject({ valid: true, tests: { 'tests/add.test.ts::adds': 'passed', 'tests/old.test.ts::old': 'passed' } });
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });
});

const J_TEST = "const { add } = require('../src/add');\n\ndescribe('add', () => {\n  test('adds two numbers', () => {\n    expect(add(1, 2)).toBe(3);\n  });\n});\n";
const J_STUB = '// STUB:TDD\nfunction add(_a, _b) {\n  return 0;\n}\nmodule.exports = { add };\n';
const J_BODY = 'function add(_a, _b) {\n  return 0;\n}\nmodule.exports = { add };\n';
const J_REAL = 'function add(a, b) {\n  return a + b;\n}\nmodule.exports = { add };\n';
const J_ADDS = '__tests__/add.test.js::add > adds two numbers';

describe('jest through the gate’s sealed reporter', () => {
  it('in band (one test file, `npm test`): a genuine cycle reaches done; a forged report, an exit at load, a killed process and a printed summary are refused', { timeout: 240_000 }, () => {
    const repo = project('jest', { 'package.json': JEST_PKG({ scripts: { test: 'jest' } }) }, { test_command: 'npm test --silent' });
    startRed(repo);
    repo.write('__tests__/add.test.js', J_TEST);
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/__tests__\/add\.test\.js failed to load \(compile or import error\)/);
    // RED whose run never ended: not evidence either
    repo.write('src/add.js', "// STUB:TDD\nprocess['ex' + 'it'](1);\n" + J_BODY);
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/saw the run begin but not end/);
    repo.write('src/add.js', J_STUB);
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, red_tests: [J_ADDS], tests: { [J_ADDS]: 'failed' } });
    redToGreen(repo);
    const log = readFileSync(repo.path(String((readState(repo).receipts.red as unknown as { log: string }).log)), 'utf8');
    expect(log).toMatch(/npm test --silent -- --ci --testLocationInResults --reporters=default --reporters='[^']*\/tdd-gate-jest-reporter\.cjs' --no-cache/);
    expect(log).toMatch(/Tests:\s+1 failed, 1 total/);
    noLeftovers(repo);

    // (a) a passing report written where the run's report goes (the path found on jest's own command line), then exit 0
    repo.write('src/add.js', forger("require('fs')", passingReport(repo.path('__tests__/add.test.js'), ['adds two numbers'])) + J_BODY);
    refusedGreen(repo, SEAL);
    // (b) an exit as the source loads
    repo.write('src/add.js', "process['ex' + 'it'](0);\n" + J_BODY);
    refusedGreen(repo, SEAL);
    // (c) the source kills its process (jest's own, in band) during the test
    repo.write('src/add.js', "function add(_a, _b) {\n  process['ki' + 'll'](process.pid, 'SIGKILL');\n  return 0;\n}\nmodule.exports = { add };\n");
    refusedGreen(repo, SEAL);
    // (d) a passing summary printed by the source, which then ends the run
    repo.write('src/add.js', "process.stderr.write('Test Suites: 1 passed, 1 total\\nTests:       1 passed, 1 total\\n');\nprocess['ex' + 'it'](0);\n" + J_BODY);
    refusedGreen(repo, SEAL);
    noLeftovers(repo);

    repo.write('src/add.js', J_REAL);
    expect(JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout)).toMatchObject({ valid: true, tests: { [J_ADDS]: 'passed' } });
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });

  it('in workers (two test files, two workers): a forged report and a killed worker are refused; the real implementation is GREEN', { timeout: 240_000 }, () => {
    const pkg = JSON.stringify({ private: true, jest: { testEnvironment: 'node', watchman: false, transform: {}, maxWorkers: 2 } }, null, 2) + '\n';
    const repo = project('jest', { 'package.json': pkg, '__tests__/old.test.js': "test('old', () => {\n  expect(1 + 1).toBe(2);\n});\n" });
    startRed(repo);
    repo.write('__tests__/add.test.js', J_TEST);
    repo.write('src/add.js', J_STUB);
    redToGreen(repo);
    repo.write('src/add.js', forger("require('fs')", passingReport(repo.path('__tests__/add.test.js'), ['adds two numbers'])) + J_BODY);
    refusedGreen(repo, SEAL);
    // the killed worker: jest reports its file as failed
    repo.write('src/add.js', "function add(_a, _b) {\n  process['ki' + 'll'](process.pid, 'SIGKILL');\n  return 0;\n}\nmodule.exports = { add };\n");
    refusedGreen(repo, /not GREEN: \S*__tests__\/add\.test\.js failed to load/);
    repo.write('src/add.js', J_REAL);
    expect(JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout)).toMatchObject({ valid: true, tests: { [J_ADDS]: 'passed', '__tests__/old.test.js::old': 'passed' } });
  });
});
