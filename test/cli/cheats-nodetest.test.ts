import { describe, expect, it } from 'vitest';
import { cli, ok, project, readState, redToGreen, startRed } from './fixtures.js';

const ADD_TEST = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds', () => { assert.equal(add(1, 2), 3); });\n";
const OLD_TEST = "import { test } from 'node:test';\ntest('old', () => {});\n";
const STUB = '// STUB:TDD\nexport function add() { return 0; }\n';
const REAL = 'export function add(a, b) { return a + b; }\n';
const PKG = (test: string) => JSON.stringify({ type: 'module', private: true, scripts: { test, lint: 'true' } }, null, 2) + '\n';

describe('cheats against a real node:test project in GREEN', () => {
  it('each way around a failing frozen test is refused; the real implementation reaches done', { timeout: 180_000 }, () => {
    const repo = project('node-test', { 'test/old.test.js': OLD_TEST, 'package.json': PKG('node --test') }, { test_command: 'npm test --silent' });
    startRed(repo);
    repo.write('test/add.test.js', ADD_TEST);
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/failed to load|missing name/);
    repo.write('src/add.js', STUB.replace('export function add() { return 0; }', 'export const other = 1;'));
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/failed to load|missing name|does not provide an export named/);
    repo.write('src/add.js', STUB);
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, red_tests: ['test/add.test.js::adds'] });
    redToGreen(repo);
    const refused = (re: RegExp) => expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(re);

    // the test file's process exits 0 at import, before its tests register
    repo.write('src/add.js', 'process.exit(0);\n' + STUB);
    refused(/frozen tests did not run: test\/add\.test\.js::adds|ran no tests|no runner summary/);
    // node:assert rebound from the source
    repo.write('src/add.js', "import assert from 'node:assert/strict';\nassert.equal = () => {};\n" + STUB.replace('// STUB:TDD\n', ''));
    refused(/rebinds the assertion library/);
    repo.write('src/add.js', 'export function add(a, b) { return process.env.NODE_TEST_CONTEXT ? 3 : 0; }\n');
    refused(/reads the test runner’s environment/);
    // the script `npm test` runs is part of the oracle (and so is the lint script's neighbour pretest)
    repo.write('src/add.js', STUB);
    repo.write('package.json', PKG('node --test test/old.test.js'));
    refused(/runner's settings changed: package\.json#runner/);
    repo.write('package.json', JSON.stringify({ type: 'module', private: true, scripts: { test: 'node --test', pretest: 'exit 0', lint: 'true' } }, null, 2));
    refused(/runner's settings changed: package\.json#runner/);
    // other scripts stay editable
    repo.write('package.json', PKG('node --test').replace('"lint": "true"', '"lint": "echo lint"'));
    refused(/not GREEN/);

    repo.write('src/add.js', REAL);
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });
});

describe('npm test: the frozen tests by file and name, whatever node runs them', () => {
  it('a frozen test skipped through a source switch, its count made up by a source the runner collects, is refused by name', { timeout: 120_000 }, () => {
    const repo = project('node-test', { 'test/old.test.js': OLD_TEST, 'package.json': PKG('node --test') }, { test_command: 'npm test --silent' });
    startRed(repo);
    // the test takes an option from the module it tests (a "slow" switch)
    repo.write('test/add.test.js', ADD_TEST.replace("import { add }", 'import { add, SLOW }').replace("test('adds', ", "test('adds', { skip: SLOW }, "));
    repo.write('src/add.js', '// STUB:TDD\nexport const SLOW = false;\nexport function add() { return 0; }\n');
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as { red_tests: string[]; tests: Record<string, string> };
    expect(red.red_tests).toEqual(['test/add.test.js::adds']);
    expect(red.tests).toEqual({ 'test/add.test.js::adds': 'failed', 'test/old.test.js::old': 'passed' });
    redToGreen(repo);
    // the switch skips the frozen test; a source named like a test file is collected by
    // `node --test` and passes, so as many tests pass as ran in RED
    repo.write('src/add.js', 'export const SLOW = true;\nexport function add() { return 0; }\n');
    repo.write('src/pad.test.js', 'export const pad = 1;\n');
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/1 frozen tests were skipped instead of run: test\/add\.test\.js::adds/);
    repo.write('src/add.js', 'export const SLOW = false;\n' + REAL);
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });
});

describe('the oracle in a private copy (oracle_isolation: copy, the fallback where no mount namespace is allowed)', () => {
  it('runs the frozen bytes, catches a source that writes to a test, and reaches done with the real implementation', { timeout: 120_000 }, () => {
    const repo = project('node-test', { 'test/old.test.js': OLD_TEST }, { oracle_isolation: 'copy' });
    startRed(repo);
    repo.write('test/add.test.js', ADD_TEST);
    repo.write('src/add.js', STUB);
    redToGreen(repo);
    // the source rewrites the frozen test while it runs, into one that passes
    repo.write(
      'src/add.js',
      "import { writeFileSync } from 'node:fs';\nwriteFileSync(new URL('../test/add.test.js', import.meta.url), \"import { test } from 'node:test';\\ntest('adds', () => {});\\n\");\nexport function add() { return 0; }\n",
    );
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/frozen files changed while the tests ran: test\/add\.test\.js|frozen tests fail|1 of 2 tests fail/);
    repo.write('src/add.js', REAL);
    expect(JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout)).toMatchObject({ valid: true, oracle: 'copy' });
    ok(cli(repo, 'done'));
  });
});
