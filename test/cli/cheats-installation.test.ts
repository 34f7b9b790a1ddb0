import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testRepo, type TestRepo } from '../helpers/repo.js';
import { cli, JEST_PKG, NODE_MODULES, ok, PYTEST_STACK, readState, redToGreen, startRed, JEST_STACK, VITEST_STACK, NODE_TEST_STACK } from './fixtures.js';
import { MOCHA_PKG, MOCHA_STACK, mochaModules } from './mochaFixture.js';

// The runner's installation is frozen with the tests: after the freeze, a write into it through a
// program the hook does not see (simulated here by the test writing the files itself) is refused
// by the next verify, naming the package and the file; an ordinary dependency added is not.

/** The project's own node_modules: a hard-linked copy of `from` (fast, and the original is never written: see patch). */
function ownModules(repo: TestRepo, from = NODE_MODULES): void {
  execFileSync('cp', ['-al', from, repo.path('node_modules')]);
}

/** What `sed -i` does: a new file renamed over the old one (so the hard-linked original stays as it was). */
function patch(file: string, edit: (text: string) => string): string {
  const before = readFileSync(file, 'utf8');
  writeFileSync(`${file}.tmp`, edit(before));
  renameSync(`${file}.tmp`, file);
  return before;
}

function putBack(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

/** `npm install --no-save <patched copy>`: the package folder replaced by a copy with one file changed and one added. */
function replacePackage(dir: string, file: string): () => void {
  const saved = `${dir}.frozen`;
  renameSync(dir, saved);
  execFileSync('cp', ['-r', saved, dir]);
  writeFileSync(path.join(dir, file), `${readFileSync(path.join(dir, file), 'utf8')}\n// patched\n`);
  writeFileSync(path.join(dir, 'extra.js'), 'module.exports = 1;\n');
  return () => {
    rmSync(dir, { recursive: true, force: true });
    renameSync(saved, dir);
  };
}

/** An ordinary dependency installed after the freeze: reached by nothing the runner loads. */
function ordinaryDependency(repo: TestRepo): void {
  mkdirSync(repo.path('node_modules/left-pad-lite'), { recursive: true });
  writeFileSync(repo.path('node_modules/left-pad-lite/package.json'), '{"name":"left-pad-lite","version":"1.0.0","main":"index.js"}\n');
  writeFileSync(repo.path('node_modules/left-pad-lite/index.js'), 'module.exports = (s) => s;\n');
}

const INSTALLATION = /the test runner's installation changed since the freeze/;

function refused(repo: TestRepo, re: RegExp): string {
  const r = ok(cli(repo, 'verify', 'green'), 1);
  expect(r.stderr).toMatch(re);
  return r.stderr;
}

function toDone(repo: TestRepo): void {
  ok(cli(repo, 'verify', 'green'));
  ok(cli(repo, 'done'));
  expect(readState(repo).phase).toBe('done');
}

describe('the runner installation frozen with the tests', () => {
  it('jest: a patched expect (in place, or a copy installed over it), a runner put into .bin are refused; an ordinary dependency is not; a genuine cycle reaches done', { timeout: 240_000 }, () => {
    const repo = testRepo({
      stack: { ...JEST_STACK, test_command: 'node node_modules/jest/bin/jest.js --ci' },
      files: { '.gitignore': 'node_modules\n', 'package.json': JEST_PKG() },
    });
    ownModules(repo);
    startRed(repo);
    repo.write('__tests__/add.test.js', "const { add } = require('../src/add');\ntest('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n");
    repo.write('src/add.js', '// STUB:TDD\nmodule.exports = { add: () => 0 };\n');
    redToGreen(repo);
    const state = readState(repo) as unknown as { runner_installation?: { packages: Record<string, { name: string }> } };
    const names = Object.values(state.runner_installation?.packages ?? {}).map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['jest', 'expect', 'jest-circus', '@jest/expect']));
    repo.write('src/add.js', 'module.exports = { add: () => 0 };\n');

    // sed -i on expect's matcher: refused, naming the package and the file
    const matchers = repo.path('node_modules/expect/build/index.js');
    const before = patch(matchers, (t) => t.replace('const pass = ', 'const pass = true || '));
    const why = refused(repo, INSTALLATION);
    expect(why).toMatch(/expect \(node_modules\/expect\): build\/index\.js changed/);
    putBack(matchers, before);

    // npm install --no-save of a patched expect: the folder replaced
    const restore = replacePackage(repo.path('node_modules/expect'), 'build/index.js');
    expect(refused(repo, INSTALLATION)).toMatch(/expect \(node_modules\/expect\): build\/index\.js changed; extra\.js added/);
    restore();

    // a runner put into node_modules/.bin where there was none
    writeFileSync(repo.path('node_modules/.bin/mocha'), '#!/bin/sh\necho "64 passing"\n', { mode: 0o755 });
    expect(refused(repo, INSTALLATION)).toMatch(/node_modules\/\.bin\/mocha appeared/);
    rmSync(repo.path('node_modules/.bin/mocha'));

    // the real implementation, with an ordinary dependency added meanwhile
    ordinaryDependency(repo);
    repo.write('src/add.js', 'module.exports = { add: (a, b) => a + b };\n');
    toDone(repo);
  });

  it('vitest: a patched @vitest/expect is refused by name; a genuine cycle reaches done', { timeout: 240_000 }, () => {
    const repo = testRepo({
      stack: { ...VITEST_STACK, test_command: 'node node_modules/vitest/vitest.mjs run' },
      files: { '.gitignore': 'node_modules\n', 'package.json': '{"type":"module","private":true}\n' },
    });
    ownModules(repo);
    startRed(repo);
    repo.write('tests/add.test.ts', "import { expect, it } from 'vitest';\nimport { add } from '../src/add';\nit('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n");
    repo.write('src/add.ts', '// STUB:TDD\nexport function add(_a: number, _b: number): number { return 0; }\n');
    redToGreen(repo);
    repo.write('src/add.ts', 'export function add(_a: number, _b: number): number { return 0; }\n');
    const dist = repo.path('node_modules/@vitest/expect/dist');
    const file = readdirSync(dist).find((f) => f === 'index.js') ?? readdirSync(dist).find((f) => f.endsWith('.js'))!;
    const before = patch(path.join(dist, file), (t) => `${t}\n// always pass\n`);
    expect(refused(repo, INSTALLATION)).toMatch(new RegExp(`@vitest/expect \\(node_modules/@vitest/expect\\): dist/${file.replace('.', '\\.')} changed`));
    putBack(path.join(dist, file), before);
    ordinaryDependency(repo);
    repo.write('src/add.ts', 'export function add(a: number, b: number): number { return a + b; }\n');
    toDone(repo);
  });

  it('mocha: a patched runner is refused; a source that prints "64 passing" and exits is not GREEN; a genuine cycle reaches done', { timeout: 240_000 }, () => {
    const repo = testRepo({ stack: MOCHA_STACK, files: { '.gitignore': 'node_modules\n', 'package.json': MOCHA_PKG() } });
    ownModules(repo, mochaModules());
    startRed(repo);
    repo.write('test/add.spec.js', "const assert = require('node:assert');\nconst { add } = require('../src/add');\nit('adds', () => {\n  assert.strictEqual(add(1, 2), 3);\n});\n");
    repo.write('src/add.js', '// STUB:TDD\nmodule.exports = { add: () => 0 };\n');
    redToGreen(repo);
    repo.write('src/add.js', 'module.exports = { add: () => 0 };\n');
    const runner = repo.path('node_modules/mocha/lib/runner.js');
    const before = patch(runner, (t) => `${t}\n// report every test passed\n`);
    expect(refused(repo, INSTALLATION)).toMatch(/mocha \(node_modules\/mocha\): lib\/runner\.js changed/);
    putBack(runner, before);
    repo.write('src/add.js', "console.log('  64 passing (3ms)');\nprocess.exit(0);\n");
    refused(repo, /mocha never began its run|never ended|saw the run begin but not end/);
    repo.write('src/add.js', 'module.exports = { add: (a, b) => a + b };\n');
    toDone(repo);
  });

  it('node:test: node itself is recorded; chai the tests compare with is frozen; a worker that dies is not GREEN; a genuine cycle reaches done', { timeout: 240_000 }, () => {
    const repo = testRepo({
      stack: NODE_TEST_STACK,
      files: { '.gitignore': 'node_modules\n', 'package.json': '{"type":"module","private":true,"devDependencies":{"chai":"*"}}\n' },
    });
    ownModules(repo);
    startRed(repo);
    repo.write('test/add.test.js', "import { test } from 'node:test';\nimport { expect } from 'chai';\nimport { add } from '../src/add.js';\ntest('adds', () => {\n  expect(add(1, 2)).to.equal(3);\n});\n");
    repo.write('src/add.js', '// STUB:TDD\nexport function add() { return 0; }\n');
    redToGreen(repo);
    const state = readState(repo) as unknown as { runner_installation?: { packages: Record<string, { name: string }> } };
    const names = Object.values(state.runner_installation?.packages ?? {}).map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['chai', 'node (its own node:test and node:assert)']));
    const chai = repo.path('node_modules/chai/index.js');
    const before = patch(chai, (t) => `${t}\n// equal is always true\n`);
    expect(refused(repo, INSTALLATION)).toMatch(/chai \(node_modules\/chai\): index\.js changed/);
    putBack(chai, before);
    // the test file's process ends before its test runs
    repo.write('src/add.js', "process.exit(0);\nexport function add() { return 0; }\n");
    refused(repo, /frozen tests did not run|ran no tests|printed no runner summary|failed to load|not pass/);
    repo.write('src/add.js', 'export function add(a, b) { return a + b; }\n');
    toDone(repo);
  });

  it('pytest: a plugin installed into site-packages, a module shadowing _pytest are refused; an ordinary package is not; a genuine cycle reaches done', { timeout: 240_000 }, () => {
    const repo = testRepo({ stack: { ...PYTEST_STACK, test_command: '.venv/bin/python -m pytest -q -p no:cacheprovider' }, files: { '.gitignore': '.venv\n' } });
    execFileSync('python3', ['-m', 'venv', '--without-pip', '--system-site-packages', repo.path('.venv')]);
    // The virtualenv's own site-packages (never the interpreter's shared one: the test writes there).
    const lib = readdirSync(repo.path('.venv/lib')).find((n) => n.startsWith('python'));
    const site = repo.path(`.venv/lib/${lib ?? 'python3'}/site-packages`);
    expect(existsSync(site) && site.startsWith(repo.root + path.sep)).toBe(true);
    startRed(repo);
    repo.write('tests/test_add.py', 'from src.add import add\n\ndef test_adds():\n    assert add(1, 2) == 3\n');
    repo.write('src/__init__.py', '');
    repo.write('src/add.py', '# STUB:TDD\ndef add(a, b):\n    return 0\n');
    redToGreen(repo);
    repo.write('src/add.py', 'def add(a, b):\n    return 0\n');

    // pip install of a pytest plugin: a distribution registering a pytest11 entry point
    const info = path.join(site, 'pass_all-1.0.dist-info');
    mkdirSync(info, { recursive: true });
    writeFileSync(path.join(info, 'METADATA'), 'Metadata-Version: 2.1\nName: pass-all\nVersion: 1.0\n\n');
    writeFileSync(path.join(info, 'entry_points.txt'), '[pytest11]\npass_all = pass_all\n');
    writeFileSync(path.join(info, 'RECORD'), 'pass_all.py,,\npass_all-1.0.dist-info/METADATA,,\npass_all-1.0.dist-info/entry_points.txt,,\npass_all-1.0.dist-info/RECORD,,\n');
    writeFileSync(path.join(site, 'pass_all.py'), 'def pytest_runtest_call(item):\n    pass\n');
    expect(refused(repo, INSTALLATION)).toMatch(/pass-all \(.*pass_all-1\.0\.dist-info\) joined it/);
    rmSync(info, { recursive: true });
    rmSync(path.join(site, 'pass_all.py'));

    // a _pytest package earlier on the path than the frozen one
    mkdirSync(path.join(site, '_pytest'));
    writeFileSync(path.join(site, '_pytest', '__init__.py'), '');
    expect(refused(repo, INSTALLATION)).toMatch(/_pytest appeared/);
    rmSync(path.join(site, '_pytest'), { recursive: true });

    // an ordinary package installed meanwhile
    const plain = path.join(site, 'plainpkg-1.0.dist-info');
    mkdirSync(plain);
    writeFileSync(path.join(plain, 'METADATA'), 'Metadata-Version: 2.1\nName: plainpkg\nVersion: 1.0\n\n');
    writeFileSync(path.join(plain, 'RECORD'), 'plainpkg.py,,\n');
    writeFileSync(path.join(site, 'plainpkg.py'), 'X = 1\n');
    repo.write('src/add.py', 'def add(a, b):\n    return a + b\n');
    toDone(repo);
    expect(existsSync(repo.path('.tdd/snapshots/runner-installation.json'))).toBe(true);
  });
});
