import { describe, expect, it } from 'vitest';
import { cli, ok, readState, redToGreen, startRed } from './fixtures.js';
import { MOCHA_PKG, mochaProject } from './mochaFixture.js';

const ADD_TEST = "const assert = require('node:assert/strict');\nconst { add } = require('../src/add');\n\ndescribe('add', () => {\n  it('adds', () => {\n    assert.equal(add(1, 2), 3);\n  });\n  it('adds negatives', () => {\n    assert.equal(add(-1, -2), -3);\n  });\n});\n";
const OLD_TEST = "const assert = require('node:assert/strict');\n\ndescribe('old', () => {\n  it('holds', () => {\n    assert.equal(1, 1);\n  });\n});\n";
const STUB = '// STUB:TDD\nexports.add = () => 0;\n';
const REAL = 'exports.add = (a, b) => a + b;\n';
const ADDS = 'test/add.test.js::add > adds';

/** A source that prints mocha's summary for a run that never happened, and ends the process as it loads. */
const PRINTS_PASSING = "process.stdout.write('\\n  64 passing (12ms)\\n\\n');\nprocess.exit(0);\nexports.add = () => 0;\n";

describe('cheats against a real mocha project in GREEN: judged by tdd-gate’s reporter, never by the text', () => {
  it('each way around the failing frozen tests is refused with a reason that names it; the real implementation reaches done', { timeout: 240_000 }, () => {
    const repo = mochaProject({ 'test/old.test.js': OLD_TEST });
    startRed(repo);
    repo.write('test/add.test.js', ADD_TEST);
    repo.write('src/add.js', STUB);
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as { red_tests: string[] };
    expect(red.red_tests).toEqual([ADDS, 'test/add.test.js::add > adds negatives']);
    redToGreen(repo);
    const refused = (re: RegExp) => expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(re);

    // "64 passing", exit 0, at require time: the gate's reporter saw the run begin, never end
    repo.write('src/add.js', PRINTS_PASSING);
    refused(/not GREEN: the gate’s reporter saw the run begin but not end/);

    // 70 passing `.only` tests registered through a computed global name: the frozen tests never run
    repo.write('src/add.js', "const g = globalThis;\nconst name = ['i', 't'].join('');\nfor (let n = 0; n < 70; n++) g[name].only('fine ' + n, () => {});\nexports.add = () => 0;\n");
    refused(/3 frozen tests did not run: test\/add\.test\.js::add > adds, test\/add\.test\.js::add > adds negatives, test\/old\.test\.js::old > holds \(the run was narrowed to tests marked `\.only`\)/);

    // the frozen tests turned into pending ones through a switch in the source (`it` without a body)
    repo.write('src/add.js', "const g = globalThis;\nconst name = 'i' + 't';\nconst real = g[name];\ng[name] = (title) => real(title);\nexports.add = () => 0;\n");
    refused(/2 frozen tests were skipped instead of run: test\/add\.test\.js::add > adds, test\/add\.test\.js::add > adds negatives/);

    // the process ends inside the first test, before the failures are reported
    repo.write('src/add.js', "exports.add = () => { process.stdout.write('\\n  3 passing\\n'); process.exit(0); };\n");
    refused(/the gate’s reporter saw the run begin but not end: a test process ended early or was killed/);

    // the exit code forced to 0 after the tests failed
    repo.write('src/add.js', "process.once('beforeExit', () => process.on('exit', () => { process.exitCode = 0; }));\nexports.add = () => 0;\n");
    refused(/2 tests fail although the command exited 0/);

    repo.write('src/add.js', REAL);
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });

  it('a frozen test skipped by a switch it reads from the source is refused by name, through `npm test`', { timeout: 120_000 }, () => {
    const repo = mochaProject({ 'test/old.test.js': OLD_TEST, 'package.json': MOCHA_PKG({ scripts: { test: 'mocha' } }) }, { test_command: 'npm test --silent' });
    startRed(repo);
    // the test takes a "slow" switch from the module it tests
    repo.write('test/add.test.js', "const assert = require('node:assert/strict');\nconst { add, SLOW } = require('../src/add');\n\ndescribe('add', () => {\n  it('adds', function () {\n    if (SLOW) this.skip();\n    assert.equal(add(1, 2), 3);\n  });\n});\n");
    repo.write('src/add.js', '// STUB:TDD\nexports.SLOW = false;\nexports.add = () => 0;\n');
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as { red_tests: string[]; tests: Record<string, string> };
    expect(red.red_tests).toEqual([ADDS]);
    expect(red.tests).toEqual({ [ADDS]: 'failed', 'test/old.test.js::old > holds': 'passed' });
    redToGreen(repo);
    repo.write('src/add.js', 'exports.SLOW = true;\nexports.add = () => 0;\n');
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/1 frozen tests were skipped instead of run: test\/add\.test\.js::add > adds/);
    repo.write('src/add.js', 'exports.SLOW = false;\n' + REAL);
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
  });

  it('in RED: a test file that prints a failing summary and exits is no RED; a run cut short is refused', { timeout: 120_000 }, () => {
    const repo = mochaProject({ 'test/old.test.js': OLD_TEST });
    startRed(repo);
    repo.write('test/add.test.js', ADD_TEST);
    repo.write('src/add.js', "process.stdout.write('\\n  0 passing\\n  2 failing\\n\\n  AssertionError: expected 0 to equal 3\\n');\nprocess.exit(1);\n// STUB:TDD\n");
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/invalid RED: the gate’s reporter saw the run begin but not end/);
    // the first test fails on its assertion, then the process ends before the others run
    repo.write('src/add.js', '// STUB:TDD\nexports.add = () => { setImmediate(() => process.exit(1)); return 0; };\n');
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/invalid RED: the gate’s reporter saw the run begin but not end: a test process ended early or was killed/);
    repo.write('src/add.js', STUB);
    ok(cli(repo, 'verify', 'red'));
  });
});
