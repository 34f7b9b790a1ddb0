import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { testRepo } from '../helpers/repo.js';
import { CARGO_STACK, cli, GO_STACK, ok, project, PYTEST_STACK, startRed } from './fixtures.js';
import { mochaProject } from './mochaFixture.js';

const has = (cmd: string, ...args: string[]) => spawnSync(cmd, args, { encoding: 'utf8' }).status === 0;

/** verify red refuses with `re`, then (after `fix`) holds. */
function refusedThenValid(repo: ReturnType<typeof testRepo>, re: RegExp, fix: () => void): void {
  const r = ok(cli(repo, 'verify', 'red'), 1);
  expect(r.stderr).toMatch(re);
  fix();
  const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as { valid: boolean };
  expect(red.valid).toBe(true);
}

describe('RED for the right reason: the failure is an assertion of the test, not an error of the stub', () => {
  it('vitest: a stub that throws a TypeError whose text matches red_confirm is not RED', { timeout: 120_000 }, () => {
    const repo = project('vitest');
    startRed(repo);
    repo.write('tests/add.test.ts', "import { expect, test } from 'vitest';\nimport { add } from '../src/add.js';\ntest('adds', () => { expect(add(1, 2)).toBe(3); });\n");
    repo.write('src/add.ts', "// STUB:TDD\nexport function add(_a: number, _b: number): number {\n  throw new TypeError('expected add to be written');\n}\n");
    refusedThenValid(repo, /tests\/add\.test\.ts::adds: it fails on an error raised in src\/add\.ts:3 \(TypeError: expected add to be written\)/, () =>
      repo.write('src/add.ts', '// STUB:TDD\nexport function add(_a: number, _b: number): number { return 0; }\n'),
    );
  });

  it('jest: a stub that throws an Error reading like a matcher is not RED', { timeout: 120_000 }, () => {
    const repo = project('jest');
    startRed(repo);
    repo.write('__tests__/add.test.js', "const { add } = require('../src/add');\ntest('adds', () => { expect(add(1, 2)).toBe(3); });\n");
    repo.write('src/add.js', "// STUB:TDD\nexports.add = () => {\n  throw new Error('Expected: 3, Received: nothing');\n};\n");
    refusedThenValid(repo, /it fails on an error raised in src\/add\.js:3/, () => repo.write('src/add.js', '// STUB:TDD\nexports.add = () => 0;\n'));
  });

  it('node:test: a stub that throws node:assert’s own AssertionError is not RED', { timeout: 120_000 }, () => {
    const repo = project('node-test');
    startRed(repo);
    repo.write('test/add.test.js', "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds', () => { assert.equal(add(1, 2), 3); });\n");
    repo.write('src/add.js', "// STUB:TDD\nimport assert from 'node:assert/strict';\nexport function add() {\n  assert.fail('not there yet');\n}\n");
    refusedThenValid(repo, /it fails on an error raised in src\/add\.js:4/, () => repo.write('src/add.js', '// STUB:TDD\nexport function add() { return 0; }\n'));
  });

  it('mocha: a stub that throws an AssertionError is not RED', { timeout: 120_000 }, () => {
    const repo = mochaProject();
    startRed(repo);
    repo.write('test/add.test.js', "const assert = require('node:assert/strict');\nconst { add } = require('../src/add');\nit('adds', () => { assert.equal(add(1, 2), 3); });\n");
    repo.write('src/add.js', "// STUB:TDD\nconst assert = require('node:assert/strict');\nexports.add = () => {\n  assert.fail('not there yet');\n};\n");
    refusedThenValid(repo, /it fails on an error raised in src\/add\.js:4/, () => repo.write('src/add.js', '// STUB:TDD\nexports.add = () => 0;\n'));
  });

  it.skipIf(!has('python3', '-m', 'pytest', '--version'))('pytest: a stub raising AssertionError, and a missing fixture file, are not RED', { timeout: 120_000 }, () => {
    const repo = testRepo({ stack: PYTEST_STACK, files: { 'src/__init__.py': '', 'tests/__init__.py': '' } });
    startRed(repo);
    repo.write('tests/test_calc.py', 'from src.calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n');
    repo.write('src/calc.py', '# STUB:TDD\ndef add(a, b):\n    raise AssertionError("assert add is written")\n');
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/it fails on AssertionError raised in src\/calc\.py:3/);
    repo.write('src/calc.py', '# STUB:TDD\ndef add(a, b):\n    return 0\n');
    repo.write('tests/test_calc.py', "import json, pathlib\nfrom src.calc import add\n\ndef test_add():\n    case = json.loads(pathlib.Path('tests/cases.jsn').read_text())\n    assert add(*case['in']) == case['out']\n");
    refusedThenValid(repo, /it fails on FileNotFoundError .*a file the test reads is missing/, () => repo.write('tests/cases.jsn', '{"in": [1, 2], "out": 3}\n'));
  });

  it.skipIf(!has('go', 'version'))('go: a t.Fatal on a mistyped testdata file is not RED', { timeout: 240_000 }, () => {
    const repo = testRepo({ stack: GO_STACK, files: { 'go.mod': 'module example.com/calc\n\ngo 1.19\n', 'calc.go': 'package calc\n' } });
    startRed(repo);
    repo.write('testdata/cases.txt', '1 2 3\n');
    repo.write('calc_test.go', 'package calc\n\nimport (\n\t"os"\n\t"testing"\n)\n\nfunc TestAdd(t *testing.T) {\n\tif _, err := os.ReadFile("testdata/cases.text"); err != nil {\n\t\tt.Fatal(err)\n\t}\n\tif Add(1, 2) != 3 {\n\t\tt.Errorf("Add(1, 2) = %d, want 3", Add(1, 2))\n\t}\n}\n');
    repo.write('calc.go', 'package calc\n\n// STUB:TDD\nfunc Add(a, b int) int { return 0 }\n');
    refusedThenValid(repo, /a file the test reads is missing/, () => repo.write('calc_test.go', readFileSync(repo.path('calc_test.go'), 'utf8').replace('cases.text', 'cases.txt')));
  });

  it.skipIf(!has('cargo', '--version'))('cargo: an unwrap() on the stub’s None, and a panic in the stub, are not RED', { timeout: 600_000 }, () => {
    const repo = testRepo({ stack: CARGO_STACK, files: { '.gitignore': 'target\n', 'Cargo.toml': '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n', 'src/lib.rs': 'pub fn one() -> i32 { 1 }\n' } });
    startRed(repo);
    repo.write('tests/parse.rs', '#[test]\nfn parses() { assert_eq!(calc::parse("3").unwrap(), 3); }\n');
    repo.write('src/lib.rs', 'pub fn one() -> i32 { 1 }\n\n// STUB:TDD\npub fn parse(_s: &str) -> Option<i32> { None }\n');
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/panics on called `Option::unwrap\(\)` on a `None`/);
    repo.write('src/lib.rs', 'pub fn one() -> i32 { 1 }\n\n// STUB:TDD\npub fn parse(_s: &str) -> Option<i32> { panic!("assertion failed: parse is written") }\n');
    refusedThenValid(repo, /panics in src\/lib\.rs:4/, () => repo.write('src/lib.rs', 'pub fn one() -> i32 { 1 }\n\n// STUB:TDD\npub fn parse(_s: &str) -> Option<i32> { Some(0) }\n'));
  });
});
