import { spawnSync } from 'node:child_process';
import { describe, it } from 'vitest';
import { testRepo } from '../helpers/repo.js';
import { CARGO_STACK, GO_STACK, project, PYTEST_STACK } from '../cli/fixtures.js';
import { mochaProject } from '../cli/mochaFixture.js';
import { heldoutCycle, type RunnerCase } from './fixtures.js';

const has = (cmd: string, ...args: string[]) => spawnSync(cmd, args, { encoding: 'utf8' }).status === 0;
const REQUIRED = { heldout: 'required' };

const CASES: (RunnerCase & { available: boolean })[] = [
  {
    name: 'jest',
    available: true,
    make: () => project('jest', {}, REQUIRED),
    visible: ['__tests__/add.test.js', "const { add } = require('../src/add');\ntest('adds two numbers', () => { expect(add(1, 2)).toBe(3); });\n"],
    heldout: ['__tests__/add.heldout.test.js', "const { add } = require('../src/add');\ntest('adds negative numbers', () => {\n  expect(add(-4, 10)).toBe(6);\n});\n"],
    source: 'src/add.js',
    stub: '// STUB:TDD\nexports.add = (_a, _b) => -1;\n',
    special: 'exports.add = (a, b) => (a === 1 && b === 2 ? 3 : -1);\n',
    genuine: 'exports.add = (a, b) => a + b;\n',
    heldoutName: /held-out test "adds negative numbers"/,
    assertion: /Expected: 6/,
    secret: ['add(-4, 10)', 'toBe(6)'],
  },
  {
    name: 'node:test',
    available: true,
    make: () => project('node-test', {}, REQUIRED),
    visible: ['test/add.test.js', "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds two numbers', () => { assert.equal(add(1, 2), 3); });\n"],
    heldout: ['test/add.heldout.test.js', "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds negative numbers', () => {\n  assert.equal(add(-4, 10), 6);\n});\n"],
    source: 'src/add.js',
    stub: '// STUB:TDD\nexport function add(_a, _b) { return -1; }\n',
    special: 'export function add(a, b) { return a === 1 && b === 2 ? 3 : -1; }\n',
    genuine: 'export function add(a, b) { return a + b; }\n',
    heldoutName: /held-out test "adds negative numbers"/,
    assertion: /-1 !== 6/,
    secret: ['add(-4, 10)'],
  },
  {
    name: 'mocha',
    available: true,
    make: () => mochaProject({}, REQUIRED),
    visible: ['test/add.test.js', "const assert = require('assert');\nconst { add } = require('../src/add');\nit('adds two numbers', () => { assert.strictEqual(add(1, 2), 3); });\n"],
    heldout: ['test/add.heldout.js', "const assert = require('assert');\nconst { add } = require('../src/add');\nit('adds negative numbers', () => {\n  assert.strictEqual(add(-4, 10), 6);\n});\n"],
    source: 'src/add.js',
    stub: '// STUB:TDD\nexports.add = (_a, _b) => -1;\n',
    special: 'exports.add = (a, b) => (a === 1 && b === 2 ? 3 : -1);\n',
    genuine: 'exports.add = (a, b) => a + b;\n',
    heldoutName: /held-out test "adds negative numbers"/,
    assertion: /-1 !== 6/,
    secret: ['add(-4, 10)'],
  },
  {
    name: 'pytest',
    available: has('python3', '-m', 'pytest', '--version'),
    make: () => testRepo({ stack: { ...PYTEST_STACK, ...REQUIRED }, files: { 'conftest.py': '' } }),
    visible: ['tests/test_add.py', 'from src.add import add\n\ndef test_adds_two_numbers():\n    assert add(1, 2) == 3\n'],
    heldout: ['tests/test_add_heldout.py', 'from src.add import add\n\ndef test_adds_negative_numbers():\n    assert add(-4, 10) == 6\n'],
    source: 'src/add.py',
    stub: '# STUB:TDD\ndef add(a, b):\n    return -1\n',
    special: 'def add(a, b):\n    return 3 if (a, b) == (1, 2) else -1\n',
    genuine: 'def add(a, b):\n    return a + b\n',
    heldoutName: /held-out test "test_adds_negative_numbers"/,
    assertion: /assert -1 == 6/,
    secret: ['add(-4, 10)', 'def test_adds_negative_numbers'],
  },
  {
    name: 'go test',
    available: has('go', 'version'),
    make: () => testRepo({ stack: { ...GO_STACK, ...REQUIRED }, files: { 'go.mod': 'module example.com/calc\n\ngo 1.19\n', 'calc.go': 'package calc\n' } }),
    visible: ['add_test.go', 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(1, 2); got != 3 {\n\t\tt.Errorf("got %d, want 3", got)\n\t}\n}\n'],
    heldout: ['add_heldout_test.go', 'package calc\n\nimport "testing"\n\nfunc TestAddNegative(t *testing.T) {\n\tif got := Add(-4, 10); got != 6 {\n\t\tt.Errorf("got %d, want 6", got)\n\t}\n}\n'],
    source: 'calc.go',
    stub: 'package calc\n\n// STUB:TDD\nfunc Add(a, b int) int { return -1 }\n',
    special: 'package calc\n\nfunc Add(a, b int) int {\n\tif a == 1 && b == 2 {\n\t\treturn 3\n\t}\n\treturn -1\n}\n',
    genuine: 'package calc\n\nfunc Add(a, b int) int { return a + b }\n',
    heldoutName: /held-out test "TestAddNegative"/,
    assertion: /got -1, want 6/,
    secret: ['Add(-4, 10)'],
  },
  {
    name: 'cargo test',
    available: has('cargo', '--version'),
    make: () => testRepo({ stack: { ...CARGO_STACK, ...REQUIRED }, files: { '.gitignore': 'target\n', 'Cargo.toml': '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n', 'src/lib.rs': 'pub mod add;\npub use add::add;\n' } }),
    visible: ['tests/add.rs', '#[test]\nfn adds_two_numbers() { assert_eq!(calc::add(1, 2), 3); }\n'],
    heldout: ['tests/heldout_add.rs', '#[test]\nfn adds_negative_numbers() {\n    assert_eq!(calc::add(-4, 10), 6);\n}\n'],
    source: 'src/add.rs',
    stub: '// STUB:TDD\npub fn add(_a: i32, _b: i32) -> i32 { -1 }\n',
    special: 'pub fn add(a: i32, b: i32) -> i32 { if a == 1 && b == 2 { 3 } else { -1 } }\n',
    genuine: 'pub fn add(a: i32, b: i32) -> i32 { a + b }\n',
    heldoutName: /held-out test "adds_negative_numbers"/,
    assertion: /right: 6/,
    secret: ['calc::add(-4, 10)'],
  },
];

const only = process.env.HELDOUT_RUNNER;

describe.each(CASES.filter((c) => only === undefined || c.name === only))('held-out tests with $name', (c) => {
  it.skipIf(!c.available)('a special-cased GREEN is refused by the held-out name and assertion only; the genuine one reaches done and the file comes back', { timeout: 300_000 }, () => {
    heldoutCycle(c);
  });
});
