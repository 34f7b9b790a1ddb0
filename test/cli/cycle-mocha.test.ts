import { readFileSync, rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli, ok, readState, startRed, writeVerdict } from './fixtures.js';
import { MOCHA_PKG, mochaProject } from './mochaFixture.js';

const ADD_TEST = "const assert = require('node:assert/strict');\nconst { add } = require('../src/add');\n\ndescribe('add', () => {\n  it('adds', () => {\n    assert.equal(add(1, 2), 3);\n  });\n});\n";
const OLD_TEST = "const assert = require('node:assert/strict');\n\ndescribe('old', () => {\n  it('holds', () => {\n    assert.equal(1, 1);\n  });\n});\n";
const STUB = '// STUB:TDD\nexports.add = () => 0;\n';
const REAL = 'exports.add = (a, b) => a + b;\n';
const ADDS = 'test/add.test.js::add > adds';
const OLD = 'test/old.test.js::old > holds';

describe('CLI cycle with a real mocha project (tests by file and title path, through tdd-gate’s reporter)', () => {
  it('refuses an import error, accepts an assertion failure, then goes GREEN and done', { timeout: 120_000 }, () => {
    const repo = mochaProject({ 'test/old.test.js': OLD_TEST });
    startRed(repo);
    repo.write('test/add.test.js', ADD_TEST);
    // the test file cannot load: mocha never begins its run
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/mocha never began its run.*Cannot find module.*add a STUB:TDD stub/);

    repo.write('src/add.js', STUB);
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ kind: 'red', valid: true, counts: { total: 2, failed: 1, passed: 1 }, red_tests: [ADDS], tests: { [ADDS]: 'failed', [OLD]: 'passed' }, failing_files: ['test/add.test.js'] });
    expect((red.red_messages as Record<string, string>)[ADDS]).toMatch(/^AssertionError: Expected values to be strictly equal/);

    writeVerdict(repo);
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
    const fails = ok(cli(repo, 'verify', 'green'), 1);
    expect(fails.stderr).toMatch(/not GREEN: 1 of 2 tests fail: test\/add\.test\.js::add > adds/);
    repo.write('src/add.js', REAL);
    const green = JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout) as Record<string, unknown>;
    expect(green).toMatchObject({ kind: 'green', valid: true, counts: { total: 2, failed: 0, passed: 2 }, tests: { [ADDS]: 'passed', [OLD]: 'passed' } });
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });

  it('the person still sees each test and the counts: tdd-gate’s reporter prints them in place of the project’s', { timeout: 60_000 }, () => {
    // the project picks the dot reporter in its .mocharc: the gate's reporter takes its place for the run
    const repo = mochaProject({ 'test/old.test.js': OLD_TEST, '.mocharc.json': '{ "reporter": "dot" }\n' });
    startRed(repo);
    repo.write('test/add.test.js', ADD_TEST);
    repo.write('src/add.js', STUB);
    const r = ok(cli(repo, 'verify', 'red', '--json'));
    const receipt = JSON.parse(r.stdout) as { log: string; red_tests: string[] };
    expect(receipt.red_tests).toEqual([ADDS]);
    const log = readFileSync(repo.path(receipt.log), 'utf8');
    expect(log).toMatch(/✔ holds/);
    expect(log).toMatch(/1\) adds/);
    expect(log).toMatch(/1 passing[\s\S]*1 failing/);
    expect(log).toMatch(/1\) add > adds:\s+AssertionError: Expected values to be strictly equal/);
  });

  it('`npm test` whose script is mocha: the reporter goes through npm; an ES module project', { timeout: 120_000 }, () => {
    const esm = {
      'package.json': MOCHA_PKG({ type: 'module', scripts: { test: 'mocha --recursive spec' } }),
      'spec/old.spec.js': "import assert from 'node:assert/strict';\ndescribe('old', () => { it('holds', () => { assert.equal(1, 1); }); });\n",
    };
    const repo = mochaProject(esm, { test_command: 'npm test --silent', test_file_glob: 'spec/**' });
    startRed(repo);
    repo.write('spec/add.spec.js', "import assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ndescribe('add', () => {\n  it('adds', () => { assert.equal(add(1, 2), 3); });\n});\n");
    repo.write('src/add.js', '// STUB:TDD\nexport const add = () => 0;\n');
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, red_tests: ['spec/add.spec.js::add > adds'], tests: { 'spec/old.spec.js::old > holds': 'passed' } });
    writeVerdict(repo);
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
    repo.write('src/add.js', 'export const add = (a, b) => a + b;\n');
    expect(JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout)).toMatchObject({ valid: true, tests: { 'spec/add.spec.js::add > adds': 'passed', 'spec/old.spec.js::old > holds': 'passed' } });
    ok(cli(repo, 'done'));
  });

  it('mocha --parallel: the tests run in workers, the reporter in mocha’s own process, by identity all the same', { timeout: 60_000 }, () => {
    const repo = mochaProject({ 'test/old.test.js': OLD_TEST }, { test_command: 'npx mocha --parallel --jobs 2' });
    startRed(repo);
    repo.write('test/add.test.js', ADD_TEST);
    repo.write('src/add.js', STUB);
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as { red_tests: string[]; red_messages: Record<string, string>; tests: Record<string, string> };
    expect(red.red_tests).toEqual([ADDS]);
    expect(red.tests).toEqual({ [ADDS]: 'failed', [OLD]: 'passed' });
    // the error's name crosses from the worker through its stack
    expect(red.red_messages[ADDS]).toMatch(/^AssertionError: Expected values to be strictly equal/);
  });

  it('a test command that runs mocha behind `&&` is refused with what to change, not read from its text', { timeout: 60_000 }, () => {
    const repo = mochaProject({ 'test/old.test.js': OLD_TEST, 'package.json': MOCHA_PKG({ scripts: { test: 'mocha && echo linted' } }) }, { test_command: 'npm test' });
    startRed(repo);
    repo.write('test/add.test.js', ADD_TEST);
    repo.write('src/add.js', STUB);
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/runs mocha in a way tdd-gate cannot add its own reporter to.*make test_command a plain mocha call/);
  });

  it('`stack detect` proposes a stack for a mocha project that works as proposed', { timeout: 120_000 }, () => {
    const repo = mochaProject({ 'test/old.test.js': OLD_TEST, 'src/old.js': 'exports.one = () => 1;\n' }, null);
    rmSync(repo.path('.tdd/stack.json'), { force: true });
    const detected = JSON.parse(ok(cli(repo, 'stack', 'detect')).stdout) as Record<string, string>;
    expect(detected).toMatchObject({ language: 'javascript', test_command: 'npx mocha' });
    repo.write('.tdd/stack.json', JSON.stringify(detected, null, 2));
    startRed(repo);
    repo.write('test/add.test.js', ADD_TEST);
    repo.write('src/add.js', STUB);
    expect(JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout)).toMatchObject({ valid: true, red_tests: [ADDS], tests: { [OLD]: 'passed' } });
    writeVerdict(repo);
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
    repo.write('src/add.js', REAL);
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
  });
});
