import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { testRepo } from '../helpers/repo.js';
import { CARGO_STACK, cli, GO_STACK, ok, project, PYTEST_STACK, readState, redToGreen, startRed } from './fixtures.js';

/**
 * Sources that special-case the test run or the comparison (src/verify/rules/testAware.ts), written
 * behind the hook's back (a script): `verify green` refuses each, naming the line and the construct;
 * runner_reach_allow can allow one construct precisely; the real implementation reaches done.
 */
const has = (cmd: string, ...args: string[]) => spawnSync(cmd, args, { encoding: 'utf8' }).status === 0;
type Repo = ReturnType<typeof testRepo>;
const refused = (repo: Repo, re: RegExp) => {
  const r = cli(repo, 'verify', 'green');
  expect.soft(r.status, r.stderr).toBe(1);
  expect.soft(r.stderr).toMatch(re);
};

describe('sources that know they are under test, or hand the tests a value equal to anything', () => {
  it('vitest: NODE_ENV held in a variable, import.meta.env.MODE, new Error().stack, asymmetricMatch; a precise allow; done', { timeout: 240_000 }, () => {
    // a logger that stays quiet under test is allowed precisely, from before the freeze
    const repo = project('vitest', { 'src/log.ts': "export const level = process.env.NODE_ENV === 'test' ? 'silent' : 'info';\n" }, { runner_reach_allow: 'src/log.ts#test-mode' });
    startRed(repo);
    repo.write('tests/total.test.ts', "import { expect, test } from 'vitest';\nimport { total } from '../src/total.js';\ntest('totals', () => { expect(total([1, 2])).toEqual({ sum: 3 }); });\n");
    repo.write('src/total.ts', '// STUB:TDD\nexport function total(_xs: number[]): { sum: number } { return { sum: 0 }; }\n');
    redToGreen(repo);
    const body = (expr: string) => `export function total(xs: number[]): { sum: number } {\n  ${expr}\n  return { sum: 0 };\n}\n`;
    repo.write('src/total.ts', `const mode = process.env['NODE_ENV'];\n${body("if (mode ===\n    'test') return { sum: 3 };")}`);
    refused(repo, /src\/total\.ts:\d+ reads whether it runs under test .*\[test-mode\]/);
    repo.write('src/total.ts', body("if ((import.meta as unknown as { env: Record<string, string> }).env.MODE === 'test') return { sum: 3 };"));
    refused(repo, /\[test-mode\]/);
    repo.write('src/total.ts', body("if (new Error().stack?.includes('.test.')) return { sum: 3 };"));
    refused(repo, /inspects the call stack .*\[call-stack\]/);
    repo.write('src/total.ts', "export function total(_xs: number[]): { sum: number } {\n  return { asymmetricMatch: () => true } as unknown as { sum: number };\n}\n");
    refused(repo, /src\/total\.ts:2 returns values that carry a test framework’s matcher protocol .*\[matcher-protocol\].*`src\/total\.ts#matcher-protocol` in runner_reach_allow/);
    // the allowed file may change its allowed construct; another construct there is refused
    repo.write('src/log.ts', "export const level = process.env.NODE_ENV === 'test' ? 'error' : 'info';\nexport const seen = () => new Error().stack;\n");
    refused(repo, /src\/log\.ts:2 inspects the call stack .*\[call-stack\]/);
    repo.write('src/log.ts', "export const level = process.env.NODE_ENV === 'test' ? 'error' : 'info';\n");
    repo.write('src/total.ts', "export function total(xs: number[]): { sum: number } {\n  // not under test: process.env.NODE_ENV === 'test'\n  return { sum: xs.reduce((a, b) => a + b, 0) };\n}\n");
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });

  it('vitest: a source that registers an afterEach clearing the test’s failure (imported, or by a computed name), the worker’s state; done', { timeout: 240_000 }, () => {
    // Without the reach rules (the file allowed whole, as a test helper would be) this stub is
    // GREEN: the hook runs after the test failed, sets its state to pass and empties its errors,
    // and the runner reports a pass. So the source itself has to be refused.
    const repo = project('vitest');
    startRed(repo);
    repo.write('tests/add.test.ts', "import { expect, test } from 'vitest';\nimport { add } from '../src/add.js';\ntest('adds', () => { expect(add(1, 2)).toBe(3); });\n");
    repo.write('src/add.ts', '// STUB:TDD\nexport function add(_a: number, _b: number): number { return 0; }\n');
    redToGreen(repo);
    const clear = "afterEach((ctx: any) => { const r = ctx.task.result; if (r) { r.state = 'pass'; r.errors = []; } });\n";
    const stub = 'export function add(_a: number, _b: number): number { return 0; }\n';
    repo.write('src/add.ts', `import { afterEach } from 'vitest';\n${clear}${stub}`);
    refused(repo, /src\/add\.ts:1 imports (the test framework|`vitest`)/);
    repo.write('src/add.ts', `const { afterEach } = await import('vi' + 'test');\n${clear}${stub}`);
    refused(repo, /src\/add\.ts:1 imports `vitest`: reaches into the test runner .*\[runner-state\].*`src\/add\.ts#runner-state` in runner_reach_allow/);
    repo.write('src/add.ts', `const worker = (globalThis as any)['__vi' + 'test_worker__'];\nexport function add(_a: number, _b: number): number { worker.current.result = { state: 'pass', errors: [] }; return 0; }\n`);
    refused(repo, /src\/add\.ts:1 names `__vitest_worker__`.*\[runner-state\]/);
    repo.write('src/add.ts', 'export function add(a: number, b: number): number { return a + b; }\n');
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });

  it('jest: a source that hands jest-circus an event handler emptying the test’s errors at test_done, the symbol by a computed name; done', { timeout: 240_000 }, () => {
    // Run by jest alone this stub passes: the handler runs when the test is done and its errors
    // are gone. The runner rules' regular expressions do not read the symbol's name in pieces.
    const repo = project('jest');
    startRed(repo);
    repo.write('__tests__/add.test.js', "const { add } = require('../src/add');\ntest('adds', () => { expect(add(1, 2)).toBe(3); });\n");
    repo.write('src/add.js', '// STUB:TDD\nexports.add = (_a, _b) => 0;\n');
    redToGreen(repo);
    repo.write('src/add.js', "const handlers = globalThis[Symbol.for('EVENT_' + 'HANDLERS')];\nif (handlers) handlers.push((e) => { if (e.name === 'test_done') e.test.errors = []; });\nexports.add = (_a, _b) => 0;\n");
    refused(repo, /src\/add\.js:1 reaches the runner's state symbol `EVENT_HANDLERS`.*\[runner-state\]/);
    repo.write('src/add.js', 'exports.add = (a, b) => a + b;\n');
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });

  it.skipIf(!has('python3', '-m', 'pytest', '--version'))('pytest: __eq__ always true, inspect.stack(); done', { timeout: 240_000 }, () => {
    const repo = testRepo({ stack: PYTEST_STACK, files: { 'src/__init__.py': '', 'tests/__init__.py': '' } });
    startRed(repo);
    repo.write('tests/test_calc.py', 'from src.calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n');
    repo.write('src/calc.py', '# STUB:TDD\ndef add(a, b):\n    return 0\n');
    redToGreen(repo);
    repo.write('src/calc.py', 'class _Any:\n    def __eq__(self, other):\n        return True\n\n\ndef add(a, b):\n    return _Any()\n');
    refused(repo, /src\/calc\.py:2 defines an equality that is always true .*\[always-equal\]/);
    repo.write('src/calc.py', 'import inspect\n\n\ndef add(a, b):\n    return 3 if any("test_" in f.function for f in inspect.stack()) else 0\n');
    refused(repo, /\[call-stack\]/);
    // unittest.mock.ANY compares equal to anything: `assert add(1, 2) == 3` holds
    repo.write('src/calc.py', 'from unittest.mock import ANY\n\n\ndef add(a, b):\n    return ANY\n');
    refused(repo, /src\/calc\.py:1 imports from `unittest\.mock`: reaches into the test runner .*\[runner-state\]/);
    repo.write('src/calc.py', 'def add(a, b):\n    return a + b\n');
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
  });

  it.skipIf(!has('go', 'version'))('go: runtime.Caller, an Equal that is always true; done', { timeout: 300_000 }, () => {
    const repo = testRepo({ stack: GO_STACK, files: { 'go.mod': 'module example.com/calc\n\ngo 1.19\n', 'calc.go': 'package calc\n' } });
    startRed(repo);
    repo.write('calc_test.go', 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Errorf("Add(1, 2) = %d, want 3", Add(1, 2))\n\t}\n}\n');
    repo.write('calc.go', 'package calc\n\n// STUB:TDD\nfunc Add(a, b int) int { return 0 }\n');
    redToGreen(repo);
    repo.write('calc.go', 'package calc\n\nimport (\n\t"runtime"\n\t"strings"\n)\n\nfunc Add(a, b int) int {\n\t_, file, _, _ := runtime.Caller(1)\n\tif strings.HasSuffix(file, "_test.go") {\n\t\treturn 3\n\t}\n\treturn 0\n}\n');
    refused(repo, /calc\.go:9 inspects the call stack .*\[call-stack\]/);
    repo.write('calc.go', 'package calc\n\ntype Sum struct{}\n\nfunc (Sum) Equal(Sum) bool { return true }\n\nfunc Add(a, b int) int { return a + b }\n');
    refused(repo, /\[always-equal\]/);
    repo.write('calc.go', 'package calc\n\nfunc Add(a, b int) int { return a + b }\n');
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
  });

  it.skipIf(!has('cargo', '--version'))('cargo: the thread name, cfg!(debug_assertions), env::args in the library; done', { timeout: 600_000 }, () => {
    const repo = testRepo({ stack: CARGO_STACK, files: { '.gitignore': 'target\n', 'Cargo.toml': '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n', 'src/lib.rs': 'pub fn one() -> i32 { 1 }\n' } });
    startRed(repo);
    repo.write('tests/add.rs', '#[test]\nfn adds() { assert_eq!(calc::add(1, 2), 3); }\n');
    repo.write('src/lib.rs', 'pub fn one() -> i32 { 1 }\n\n// STUB:TDD\npub fn add(_a: i32, _b: i32) -> i32 { 0 }\n');
    redToGreen(repo);
    const lib = (body: string) => `pub fn one() -> i32 { 1 }\n\npub fn add(a: i32, b: i32) -> i32 {\n    ${body}\n}\n`;
    repo.write('src/lib.rs', lib('if std::thread::current().name().map_or(false, |n| n != "main") { 3 } else { a - b }'));
    refused(repo, /src\/lib\.rs:4 reads the thread’s name .*\[thread-name\]/);
    repo.write('src/lib.rs', lib('if cfg!(debug_assertions) { 3 } else { a - b }'));
    refused(repo, /\[build-flag\]/);
    repo.write('src/lib.rs', lib('if std::env::args().count() > 1 { 3 } else { a - b }'));
    refused(repo, /\[process-args\]/);
    repo.write('src/lib.rs', lib('a + b'));
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
  });
});
