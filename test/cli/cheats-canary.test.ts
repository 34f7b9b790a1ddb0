import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { testRepo } from '../helpers/repo.js';
import { cli, ok, project, PYTEST_STACK, readState, redToGreen, startRed } from './fixtures.js';
import { mochaProject } from './mochaFixture.js';

/**
 * The assertion machinery checked where it runs (src/verify/canary.ts): rebinding it from a source,
 * however the rebinding is spelled, is refused; the genuine implementation still reaches done.
 */
const hasPytest = spawnSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).status === 0;
const refused = (repo: ReturnType<typeof testRepo>, re: RegExp) => {
  const r = cli(repo, 'verify', 'green');
  expect.soft(r.status, r.stderr).toBe(1);
  expect.soft(r.stderr).toMatch(re);
};

describe('the assertion machinery, checked in every test process', () => {
  it('node:test: node:assert and Object.is rebound through names the static scan does not read are refused; the real add reaches done', { timeout: 240_000 }, () => {
    const ADD_TEST = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds', () => { assert.equal(add(1, 2), 3); });\ntest('same', () => { assert.ok(Object.is(add(1, 1), 2)); });\n";
    const repo = project('node-test');
    startRed(repo);
    repo.write('test/add.test.js', ADD_TEST);
    repo.write('src/add.js', '// STUB:TDD\nexport function add() { return 0; }\n');
    redToGreen(repo);
    const stub = 'export function add() { return 0; }\n';
    // Object.assign on the module, Reflect.set with a computed key, createRequire and a loop, defineProperties
    repo.write('src/add.js', "import { createRequire } from 'node:module';\nconst a = createRequire(import.meta.url)('node:' + 'assert');\nObject.assign(a.strict, { equal() {} });\n" + stub);
    refused(repo, /not GREEN/);
    repo.write('src/add.js', "import { createRequire } from 'node:module';\nconst a = createRequire(import.meta.url)(['node', 'assert'].join(':'));\nfor (const k of ['equal', 'ok']) { try { Reflect.set(a.strict, k, () => {}); } catch {} }\nconst O = globalThis[['Obj', 'ect'].join('')];\ntry { Reflect.set(O, 'i' + 's', () => true); } catch {}\nexport function add() { return 0; }\n");
    refused(repo, /not GREEN: 2 of 2 tests fail/);
    repo.write('src/add.js', "import { createRequire } from 'node:module';\nconst a = createRequire(import.meta.url)('node:assert');\ntry { Object.defineProperties(a.strict, { equal: { value: () => {} } }); } catch {}\n" + stub);
    refused(repo, /not GREEN/);
    repo.write('src/add.js', 'export function add(a, b) { return a + b; }\n');
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });

  it('vitest: the matchers object and Object.is reached through computed names change nothing (Object.is is locked); the real add reaches done', { timeout: 240_000 }, () => {
    const repo = project('vitest');
    startRed(repo);
    repo.write('tests/add.test.ts', "import { expect, test } from 'vitest';\nimport { add } from '../src/add.js';\ntest('adds', () => { expect(add(1, 2)).toBe(3); });\n");
    repo.write('src/add.ts', '// STUB:TDD\nexport function add(_a: number, _b: number): number { return 0; }\n');
    redToGreen(repo);
    repo.write(
      'src/add.ts',
      "const g = globalThis as unknown as Record<symbol, { matchers: Record<string, unknown> }>;\nconst m = g[Symbol.for(['$$jest', 'matchers', 'object'].join('-'))];\nif (m) m.matchers['to' + 'Be'] = () => ({ pass: true, message: () => '' });\nexport function add(_a: number, _b: number): number { return 0; }\n",
    );
    refused(repo, /not GREEN/);
    repo.write('src/add.ts', "const O = (globalThis as Record<string, unknown>)[['Obj', 'ect'].join('')] as object;\ntry { Reflect.set(O, 'i' + 's', () => true); } catch {}\nexport function add(_a: number, _b: number): number { return 0; }\n");
    refused(repo, /not GREEN: 1 of 1 tests fail/);
    repo.write('src/add.ts', 'export function add(a: number, b: number): number { return a + b; }\n');
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
  });

  it('mocha: a frozen node:assert cannot be rebound; the real add reaches done', { timeout: 240_000 }, () => {
    const repo = mochaProject();
    startRed(repo);
    repo.write('test/add.test.js', "const assert = require('node:assert/strict');\nconst { add } = require('../src/add');\nit('adds', () => { assert.equal(add(1, 2), 3); });\n");
    repo.write('src/add.js', '// STUB:TDD\nexports.add = () => 0;\n');
    redToGreen(repo);
    repo.write('src/add.js', "const a = require(['node', 'assert'].join(':'));\ntry { Reflect.set(a.strict, 'equal', () => {}); } catch {}\nexports.add = () => 0;\n");
    refused(repo, /not GREEN/);
    repo.write('src/add.js', 'exports.add = (a, b) => a + b;\n');
    ok(cli(repo, 'verify', 'green'));
  });

  it.skipIf(!hasPytest)('pytest: unittest’s assertEqual rebound through a computed name is refused by the canary; the real add reaches done', { timeout: 240_000 }, () => {
    // The static reading refuses the source's `import unittest` itself ([runner-state]); allowed
    // here, so that the run-time check is what meets the rebinding.
    const repo = testRepo({ stack: { ...PYTEST_STACK, runner_reach_allow: 'src/calc.py#runner-state' }, files: { 'src/__init__.py': '', 'tests/__init__.py': '' } });
    startRed(repo);
    repo.write('tests/test_calc.py', 'import unittest\nfrom src.calc import add\n\nclass TestAdd(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n');
    repo.write('src/calc.py', '# STUB:TDD\ndef add(a, b):\n    return 0\n');
    redToGreen(repo);
    repo.write('src/calc.py', "import unittest as _u\nsetattr(_u.TestCase, 'assert' + 'Equal', lambda *a, **k: None)\n\ndef add(a, b):\n    return 0\n");
    refused(repo, /not GREEN: the assertion library was changed at run time: unittest\.TestCase\.assertEqual was replaced/);
    repo.write('src/calc.py', 'def add(a, b):\n    return a + b\n');
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
  });
});
