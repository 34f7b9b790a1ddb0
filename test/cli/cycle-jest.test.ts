import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, cliEnv, jestLiar, JEST_PKG, ok, project, readState, redToGreen, startRed, writeVerdict } from './fixtures.js';

const ADD_TEST = "const { add } = require('../src/add');\n\ndescribe('add', () => {\n  test('adds two numbers', () => {\n    expect(add(1, 2)).toBe(3);\n  });\n});\n";
const OLD_TEST = "test('old', () => {\n  expect(1 + 1).toBe(2);\n});\n";
const STUB = '// STUB:TDD\nfunction add(_a, _b) {\n  return 0;\n}\nmodule.exports = { add };\n';
const REAL = 'function add(a, b) {\n  return a + b;\n}\nmodule.exports = { add };\n';
const REFACTORED = 'const add = (a, b) => a + b;\nmodule.exports = { add };\n';
const ADDS = '__tests__/add.test.js::add > adds two numbers';
const OLD = '__tests__/old.test.js::old';

describe('CLI cycle with a real jest project (JSON report)', () => {
  it('node <jest bin>: RED judged per test from the failure message, then GREEN, REFACTOR and done with per-test evidence', { timeout: 120_000 }, () => {
    const repo = project('jest', { '__tests__/old.test.js': OLD_TEST });
    startRed(repo);

    // the new test cannot load its subject: a build error, not RED
    repo.write('__tests__/add.test.js', ADD_TEST);
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/__tests__\/add\.test\.js failed to load \(compile or import error\)/);
    // the module loads but has no `add`: a missing name, not an assertion
    repo.write('src/add.js', '// STUB:TDD\nmodule.exports = { sum: () => 0 };\n');
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/add > adds two numbers: it fails on a missing name \(TypeError: add is not a function\).*add a STUB:TDD stub first/);

    // a stub that returns the wrong value: jest's own assertion message makes it RED
    repo.write('src/add.js', STUB);
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, counts: { total: 2, failed: 1, passed: 1 }, red_tests: [ADDS], tests: { [ADDS]: 'failed', [OLD]: 'passed' }, failing_files: ['__tests__/add.test.js'] });
    redToGreen(repo);
    expect(Object.keys(readState(repo).frozen.files).sort()).toEqual(['__tests__/add.test.js', '__tests__/old.test.js', 'specs/SPEC-001.md']);

    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/not GREEN: 1 of 2 tests fail/);
    repo.write('src/add.js', REAL);
    const green = JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout) as Record<string, unknown>;
    expect(green).toMatchObject({ valid: true, counts: { total: 2, failed: 0, passed: 2 }, tests: { [ADDS]: 'passed', [OLD]: 'passed' } });

    ok(cli(repo, 'advance', 'refactor'));
    repo.write('src/add.js', 'const add = (a, b) => a - b;\nmodule.exports = { add };\n');
    expect(ok(cli(repo, 'verify', 'refactor', '--revert'), 1).stderr).toMatch(/refactor broke the suite/);
    repo.write('src/add.js', REFACTORED);
    ok(cli(repo, 'verify', 'refactor'));

    expect(ok(cli(repo, 'done')).stdout).toMatch(/SPEC-001 done[\s\S]*1\/1 RED tests now pass/);
    expect(readState(repo).phase).toBe('done');
    const [file] = readdirSync(repo.path('.tdd/evidence'));
    const evidence = JSON.parse(readFileSync(repo.path(`.tdd/evidence/${file}`), 'utf8')) as { tests: unknown[] };
    expect(evidence.tests).toEqual([
      { id: ADDS, red: 'failed', green: 'passed', counted_red: true },
      { id: OLD, red: 'passed', green: 'passed', counted_red: false },
    ]);
  });

  it('`npm test` whose script is `jest`: the report flags reach jest through npm, RED and GREEN per test', { timeout: 120_000 }, () => {
    const repo = project('jest', { '__tests__/old.test.js': OLD_TEST, 'package.json': JEST_PKG({ scripts: { test: 'jest --ci' } }) }, { test_command: 'npm test --silent' });
    startRed(repo);
    repo.write('__tests__/add.test.js', ADD_TEST);
    repo.write('src/add.js', STUB);
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, red_tests: [ADDS] });
    redToGreen(repo);
    // npm reads the caller's user config (HOME/.npmrc): its node-options must not reach jest
    const home = mkdtempSync(path.join(tmpdir(), 'tdd-gate-home-'));
    try {
      writeFileSync(path.join(home, 'lie.js'), jestLiar());
      writeFileSync(path.join(home, '.npmrc'), `node-options=--require ${path.join(home, 'lie.js')}\n`);
      expect(ok(cliEnv(repo, { HOME: home }, 'verify', 'green'), 1).stderr).toMatch(/not GREEN: 1 of 2 tests fail/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    repo.write('src/add.js', REAL);
    expect(JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout)).toMatchObject({ valid: true, tests: { [ADDS]: 'passed', [OLD]: 'passed' } });
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });

  it('`npx jest` with the oracle in a private copy (oracle_isolation: copy): jest runs from the frozen bytes and reaches done', { timeout: 120_000 }, () => {
    // (a `test.failing` passes with no expect() passing: that is what it is written for)
    const known = "test.failing('known bug', () => {\n  expect(1).toBe(2);\n});\n";
    const repo = project('jest', { '__tests__/old.test.js': OLD_TEST, '__tests__/known.test.js': known }, { oracle_isolation: 'copy', test_command: 'npx jest' });
    startRed(repo);
    repo.write('__tests__/add.test.js', ADD_TEST);
    repo.write('src/add.js', STUB);
    redToGreen(repo);
    repo.write('src/add.js', REAL);
    expect(JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout)).toMatchObject({ valid: true, oracle: 'copy', tests: { [ADDS]: 'passed', [OLD]: 'passed', '__tests__/known.test.js::known bug': 'passed' } });
    ok(cli(repo, 'done'));
  });

  it('`stack detect` proposes a stack for a jest project that works as proposed', { timeout: 120_000 }, () => {
    const pkg = JEST_PKG({ scripts: { test: 'jest' } });
    const repo = project('jest', { 'package.json': pkg, 'src/old.js': 'module.exports = { one: () => 1 };\n', 'src/old.test.js': "const { one } = require('./old');\ntest('one', () => { expect(one()).toBe(1); });\n" }, {});
    // detection starts from no stack.json
    rmSync(repo.path('.tdd/stack.json'));
    const detected = JSON.parse(ok(cli(repo, 'stack', 'detect')).stdout) as Record<string, string>;
    // the project's own `jest` script, so its flags and config apply; the report flags go through npm
    expect(detected).toMatchObject({ language: 'javascript', test_command: 'npm test --silent', source_file_glob: 'src/**|lib/**' });
    expect(detected.test_file_glob!.split('|')).toEqual(expect.arrayContaining(['**/*.test.*', '**/__tests__/**', '**/__mocks__/**']));
    repo.write('.tdd/stack.json', JSON.stringify(detected, null, 2));
    startRed(repo);
    repo.write('__tests__/add.test.js', ADD_TEST);
    repo.write('src/add.js', STUB);
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, red_tests: [ADDS], tests: { 'src/old.test.js::one': 'passed' } });
    writeVerdict(repo);
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
    repo.write('src/add.js', REAL);
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
  });
});
