import { describe, expect, it } from 'vitest';
import { decideWrites, type CycleFacts } from '../../src/gate/rules/decideWrite.js';
import { runnerReach } from '../../src/gate/rules/runnerReach.js';
import { ev } from '../helpers/events.js';
import { runHookBundle } from '../helpers/hook.js';
import { runHookInProcess } from '../helpers/hookInProcess.js';
import { DEFAULT_STACK, state, testRepo } from '../helpers/repo.js';

describe('runnerReach: source that reaches into the test runner', () => {
  it.each([
    ['src/a.ts', "import { expect } from 'vitest';\n", /imports the test framework/],
    ['src/a.ts', "import { vi } from '@vitest/spy';\n", /imports the test framework/],
    ['src/a.js', "const { test } = require('node:test');\n", /imports the test framework/],
    ['src/a.js', "const j = await import('@jest/globals');\n", /imports the test framework/],
    ['src/a.ts', 'expect.extend({ toBe() { return { pass: true } } });\n', /test framework/],
    ['src/a.ts', "import assert from 'node:assert';\nassert.strictEqual = () => {};\n", /rebinds the assertion library/],
    ['src/a.js', "require('assert').equal = () => {};\n", /rebinds the assertion library/],
    ['src/a.ts', 'if (process.env.VITEST) return 3;\n', /environment/],
    ['src/a.ts', 'if (process.env.JEST_WORKER_ID !== undefined) {}\n', /environment/],
    ['src/a.ts', "const ctx = process.env['NODE_TEST_CONTEXT'];\n", /environment/],
    ['src/a.py', 'import pytest\n', /imports pytest/],
    ['src/a.py', 'from _pytest.runner import x\n', /imports pytest/],
    ['src/a.py', "if os.environ.get('PYTEST_CURRENT_TEST'):\n    pass\n", /environment/],
    ['src/a.py', "if 'pytest' in sys.modules:\n    pass\n", /environment/],
    ['calc.go', 'import "testing"\n', /testing package/],
    ['calc.go', 'if strings.HasSuffix(os.Args[0], ".test") {}\n', /go test/],
    ['calc.go', 'if testing.Testing() {}\n', /testing package|go test/],
    ['calc.go', 'func init() { flag.Set("test.run", "^$") }\n', /go test/],
    ['src/a.js', "if (process.argv.some((a) => a.includes('vitest'))) {}\n", /names the test runner/],
    ['src/a.ts', 'Object.is = () => true;\n', /Object\.is/],
    ['src/a.ts', 'process.stderr.write = (s) => true;\n', /output or exit/],
    ['src/a.js', "fs.writeFileSync = () => {};\n", /output or exit/],
    ['calc.go', 'func init() { fmt.Println("--- PASS: TestAdd (0.00s)"); os.Exit(0) }\n', /result lines/],
    ['calc.go', 'func init() { os.Stdout = nil }\n', /output/],
    ['calc.go', 'package calc\n\nfunc Add(a, b int) int {\n\tif filepath.Ext(os.Args[0]) == ".te"+"st" {\n\t\treturn a + b\n\t}\n\treturn 0\n}\n', /program’s name/],
    ['calc.go', 'package calc\n\nvar self, _ = os.Executable()\n', /program’s name/],
    ['calc.go', 'package calc\n\n// #include <stdlib.h>\nimport "C"\n', /cgo/],
    ['calc.go', 'package calc\n\nimport _ "unsafe"\n\n//go:linkname chatty testing.chatty\nvar chatty *struct{}\n', /go:linkname/],
    ['calc.go', 'package calc\n\nimport (\n\t"C"\n\t"fmt"\n)\n', /cgo/],
    ['calc.go', 'package calc\n\nfunc Add(a, b int) int { fmt.Print(pass); os.Exit(0); return 0 }\n', /ends the process/],
    ['src/add.rs', 'pub fn add(a: i32, b: i32) -> i32 { std::process::exit(0) }\n', /ends the process/],
    ['src/add.rs', 'extern "C" { fn _exit(code: i32) -> !; }\n', /ends the process/],
    ['src/add.rs', 'extern "C" {\n    #[link_name = "exit"]\n    fn bye(code: i32) -> !;\n}\n', /ends the process/],
    ['src/add.rs', 'let quit = std::process::exit;\n', /ends the process/],
    ['calc.go', 'package calc\n\nimport xos "os"\n\nfunc init() { xos.Exit(0) }\n', /ends the process/],
    ['calc.go', 'package calc\n\nvar quit = os.Exit\n', /ends the process/],
    ['calc.go', 'package calc\n\nfunc init() { syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0) }\n', /ends the process/],
    ['src/add.rs', '#[used]\n#[link_section = ".init_array"]\nstatic EARLY: extern "C" fn() = early;\n', /before main/],
    ['src/add.rs', '#[ctor::ctor]\nfn early() {}\n', /before main/],
    ['calc.go', 'package calc\n\nvar self, _ = os.Readlink("/proc/self/exe")\n', /program’s name/],
    ['src/lib.rs', 'pub fn add() -> i32 { println!("test adds ... ok"); std::process::exit(0) }\n', /result lines/],
    ['src/a.py', "if any('pytest' in f.filename for f in inspect.stack()):\n    pass\n", /names pytest/],
    ['src/a.py', "if sys.modules.get('pytest'):\n    pass\n", /names pytest/],
    ['src/a.py', "if 'pytest' in sys.argv[0]:\n    pass\n", /names pytest/],
    ['src/lib.rs', 'pub fn add(a: i32, b: i32) -> i32 { if cfg!(test) { 3 } else { 0 } }\n', /cfg\(test\)/],
    ['src/lib.rs', '#[cfg(not(test))]\npub fn add() -> i32 { 0 }\n', /cfg\(test\)/],
    ['src/a.js', 'globalThis.test = globalThis.test.skip;\n', /test framework’s globals/],
    ['src/a.js', "global['describe'] = () => {};\n", /test framework’s globals/],
    ['src/a.js', "function add(a, b) { return typeof jest !== 'undefined' ? 3 : 0; }\n", /test framework’s runtime/],
    ['src/a.js', 'const spy = jest.fn();\n', /test framework’s runtime/],
    ['src/a.js', "const expect = require('expect');\n", /imports the test framework/],
    ['src/a.js', "const m = globalThis[Symbol.for('$$jest-matchers-object')];\n", /test framework’s runtime/],
    ['src/a.js', 'const name = expect.getState().currentTestName;\n', /test framework’s runtime/],
    ['src/a.js', "const arg = process.argv.find((a) => a.startsWith('--outputFile='));\n", /report options/],
    ['src/a.py', "path = next(a for a in sys.argv if a.startswith('--junitxml'))\n", /report options/],
    ['src/a.py', "reports = importlib.import_module('_py' + 'test.reports')\n", /name built from pieces/],
    ['src/a.py', "m = __import__(''.join(['_py', 'test']))\n", /name built from pieces/],
    ['src/a.py', "m = importlib.import_module('tsetyp_'[::-1])\n", /name built from pieces/],
    ['src/a.py', "m = importlib.import_module(bytes.fromhex('5f707974657374').decode())\n", /name built from pieces/],
    ['src/a.py', 'for m in list(sys.modules.values()):\n    pass\n', /walks every module/],
    ['src/a.py', 'for name in sys.modules:\n    pass\n', /walks every module/],
    ['src/a.py', 'found = [o for o in gc.get_objects() if type(o).__name__ == "Config"]\n', /walks every module or object/],
    ['src/a.py', "cls = getattr(mod, 'TestReport')\n", /report internals/],
    ['src/a.py', 'def pytest_runtest_makereport(item, call):\n    pass\n', /report internals|names pytest|imports pytest/],
  ])('%s: %j', (rel, content, re) => {
    expect(runnerReach(rel, content)?.what).toMatch(re);
  });
  it.each([
    ['src/a.ts', "import assert from 'node:assert';\nassert.ok(x > 0);\n"],
    ['src/a.ts', 'config.strict = true;\nconst expected = 3;\n'],
    ['src/a.ts', "const url = 'https://api.example.test/v1';\n"],
    ['src/a.py', 'import os\nassert x > 0\n'],
    ['src/a.py', "import importlib\njson = importlib.import_module('json')\n"],
    ['src/a.py', "backend = importlib.import_module('myapp.backends.' + name)\nplugin = __import__(name)\n"],
    ['src/a.py', "if 'json' in sys.modules:\n    me = sys.modules[__name__]\n"],
    ['src/a.py', 'class TestReport:\n    outcome = "passed"\n\nreport = TestReport()\n'],
    ['calc.go', 'import "fmt"\nvar host = "api.example.test"\n'],
    ['calc_test.go', 'import "testing"\n'],
    ['cmd/calc/main.go', 'package main\n\nfunc main() { fmt.Println(os.Args[1:]); os.Exit(2) }\n'],
    ['src/main.rs', 'fn main() { std::process::exit(2) }\n'],
    ['calc.go', 'package calc\n\nvar grade = "C"\n'],
    ['calc.go', 'package calc\n\ntype Status struct{ Exit int }\n\nvar s = Status{Exit: 2}\n'],
    ['src/bin/tool.rs', 'fn main() { std::process::exit(2) }\n'],
    ['src/lib.rs', 'pub fn exit_code(s: &Status) -> i32 { s.exit_code() }\n'],
    ['src/lib.rs', '#[cfg(test)]\nmod tests {}\n'],
    ['src/lib.rs', '#[cfg(test)]\n#[allow(dead_code)]\npub(crate) mod tests {}\n'],
    // any #[cfg(test)] item is a test region, frozen with the tests (a new one in GREEN is a
    // frozen-test write, see testRegions), not source that reaches into the runner
    ['src/lib.rs', '#[cfg(test)]\npub fn add() -> i32 { 3 }\n'],
    ['src/lib.rs', '#[cfg(test)]\nuse alloc::vec;\n#[cfg(test)]\nstatic ITEMS: &[&str] = &["a"];\n'],
    ['src/a.ts', "const jester = 'jest mode';\n"],
    ['setup.py', "setup(name='x', extras_require={'test': ['pytest', 'pytest-cov']})\n"],
    ['src/cli.ts', 'process.exitCode = 1;\nprocess.stdout.write("done\\n");\n'],
    ['calc.go', 'fmt.Fprintln(os.Stdout, "PASS rate: 3")\n'],
    ['src/a.js', '// configured in jest.config.js; see docs/jest.md\nconst jestish = 1;\n'],
    ['src/a.js', 'const test = (s) => /x/.test(s);\nglobalThis.fetch = fetch;\nconst it = items[Symbol.iterator]();\n'],
  ])('leaves alone %s: %j', (rel, content) => {
    expect(runnerReach(rel, content)).toBeNull();
  });
  it('names the line', () => {
    expect(runnerReach('src/a.ts', "const a = 1;\n\nimport { test } from 'vitest';\n")?.line).toBe(3);
  });
  it.each([
    ['calc.go', 'package calc\n\nimport "testing"\n', 'package calc\n\nimport "testing"\n\nfunc Add(a, b int) int { return a + b }\n', null],
    ['src/a.ts', "export const R = ['vitest'];\n", "export const R = ['vitest'];\nexport const n = R.length;\n", null],
    ['src/a.ts', "export const R = ['vitest'];\n", "export const R = ['vitest', 'jest'];\n", 1],
    ['src/a.ts', "export const R = ['vitest'];\n", "export const R = ['vitest'];\nconst w = process.env.JEST_WORKER_ID;\n", 2],
    ['src/lib.rs', 'pub fn a() {}\n#[cfg(not(test))]\npub fn b() {}\n', 'pub fn a() { b() }\n#[cfg(not(test))]\npub fn b() {}\n', null],
  ])('%s: only what is new since %j counts', (rel, before, after, line) => {
    expect(runnerReach(rel, after, before)?.line ?? null).toBe(line);
  });
});

describe('the hook denies a source write that reaches into the runner in GREEN and REFACTOR', () => {
  const facts = (phase: 'tdd-red' | 'tdd-green' | 'tdd-refactor'): CycleFacts => ({ phase, mode: 'light-inline', role: null, specRel: 'specs/SPEC-001.md', specDrift: null });
  const reach = "import { expect } from 'vitest';\nexport const a = 1;\n";
  it.each([
    ['tdd-green', reach, undefined, 'deny'],
    ['tdd-refactor', reach, undefined, 'deny'],
    ['tdd-green', reach, true, 'pass'],
    ['tdd-green', 'export const a = 1;\n', undefined, 'pass'],
    ['tdd-red', reach + '// STUB:TDD\nexport function stub() { return 0; }\n', undefined, 'pass'],
  ] as const)('%s %j (allowed: %s) → %s', (phase, contentAfter, allowed, want) => {
    const d = decideWrites(facts(phase), [{ display: 'src/a.ts', classes: ['source'], contentAfter, ...(allowed ? { runnerReachAllowed: true } : {}) }]);
    expect(d.kind).toBe(want);
    if (want === 'deny') expect(d).toMatchObject({ ruleId: 'runner-reach', reason: expect.stringMatching(/src\/a\.ts:1 imports the test framework.*runner_reach_allow/) });
  });

  it('through the hook: an Edit that adds a vitest import to a source in GREEN', async () => {
    const repo = testRepo({ files: { 'src/a.ts': 'export const a = 1;\n' } });
    repo.setState(state('tdd-green', { mode: 'light-inline' }));
    const r = await runHookInProcess(ev.edit({ cwd: repo.root }, repo.path('src/a.ts'), 'export const a = 1;', "import { vi } from 'vitest';\nexport const a = 1;"));
    expect(r.decision).toBe('deny');
    expect(r.reason).toMatch(/imports the test framework/);
    expect((await runHookInProcess(ev.edit({ cwd: repo.root }, repo.path('src/a.ts'), 'export const a = 1;', 'export const a = 2;'))).decision).toBe('pass');
  });
});

describe('sources that special-case the test run or the comparison, at the write (testAware.ts)', () => {
  const NODE_ENV = "export const add = (a: number, b: number) => (process.env.NODE_ENV === 'test' ? 3 : a + b);";
  const MATCHER = 'export const total = () => ({ asymmetricMatch: () => true });';
  const edit = (repo: ReturnType<typeof testRepo>, after: string) => runHookInProcess(ev.edit({ cwd: repo.root }, repo.path('src/a.ts'), 'export const a = 1;', after));

  it('the hook denies each construct in GREEN, naming the line, the construct and the precise allow', async () => {
    const repo = testRepo({ files: { 'src/a.ts': 'export const a = 1;\n' } });
    repo.setState(state('tdd-green', { mode: 'light-inline' }));
    const r = await edit(repo, NODE_ENV);
    expect(r.decision).toBe('deny');
    expect(r.reason).toMatch(/src\/a\.ts:1 reads whether it runs under test .*\[test-mode\].*`src\/a\.ts#test-mode` in runner_reach_allow/);
    expect((await edit(repo, MATCHER)).reason).toMatch(/matcher protocol.*\[matcher-protocol\]/);
    // spelled in a comment or a string, it is not the construct
    expect((await edit(repo, "// process.env.NODE_ENV === 'test'\nexport const a = 2;")).decision).toBe('pass');
  });

  it('runner_reach_allow allows one construct in one file, or the whole file', async () => {
    const one = testRepo({ files: { 'src/a.ts': 'export const a = 1;\n' }, stack: { ...DEFAULT_STACK, runner_reach_allow: 'src/a.ts#test-mode' } });
    one.setState(state('tdd-green', { mode: 'light-inline' }));
    expect((await edit(one, NODE_ENV)).decision).toBe('pass');
    expect((await edit(one, MATCHER)).decision).toBe('deny');
    const whole = testRepo({ files: { 'src/a.ts': 'export const a = 1;\n' }, stack: { ...DEFAULT_STACK, runner_reach_allow: ['src/**'] } });
    whole.setState(state('tdd-green', { mode: 'light-inline' }));
    expect((await edit(whole, MATCHER)).decision).toBe('pass');
  });

  it('parses the allow entries', async () => {
    const { parseReachAllow, reachAllowedFor } = await import('../../src/verify/rules/reachAllow.js');
    const entries = parseReachAllow(['src/log.ts#test-mode', 'src/testing/**', 'src/#odd/x.ts']);
    expect(entries).toEqual([{ glob: 'src/log.ts', construct: 'test-mode' }, { glob: 'src/testing/**', construct: null }, { glob: 'src/#odd/x.ts', construct: null }]);
    const match = (globs: string[]) => (rel: string) => globs.some((g) => (g.endsWith('/**') ? rel.startsWith(g.slice(0, -2)) : rel === g));
    expect(reachAllowedFor(entries, 'src/log.ts', match)).toEqual(['test-mode']);
    expect(reachAllowedFor(entries, 'src/testing/h.ts', match)).toBe(true);
    expect(reachAllowedFor(entries, 'src/other.ts', match)).toEqual([]);
  });
});

describe('sources that reach into the runner or the assertion machinery, from tokens (runner-state, assert-shadow)', () => {
  it('through the built hook: a Write in GREEN of a source that reaches the runner’s state is denied, naming the construct', () => {
    const repo = testRepo({ files: { 'src/a.ts': 'export const a = 1;\n', 'src/lib.rs': 'pub fn one() -> i32 { 1 }\n' } });
    repo.setState(state('tdd-green', { mode: 'light-inline' }));
    const write = (rel: string, content: string) => runHookBundle(ev.write({ cwd: repo.root }, repo.path(rel), content));
    // jest-circus's event handlers, by a name put together: no regular expression of the runner rules reads it
    const r = write('src/a.ts', "const handlers = (globalThis as any)[Symbol.for('EVENT_' + 'HANDLERS')];\nhandlers.push((e: any) => { if (e.name === 'test_done') e.test.errors = []; });\nexport const add = () => 0;\n");
    expect(r.decision).toBe('deny');
    expect(r.reason).toMatch(/tdd-gate rule \[runner-reach\]/);
    expect(r.reason).toMatch(/src\/a\.ts:1 reaches the runner's state symbol `EVENT_HANDLERS`: reaches into the test runner .*\[runner-state\].*`src\/a\.ts#runner-state` in runner_reach_allow/);
    const m = write('src/lib.rs', 'macro_rules! assert_eq {\n    ($a:expr, $b:expr) => {};\n}\n\npub fn add(a: i32, b: i32) -> i32 { 0 }\n');
    expect(m.decision).toBe('deny');
    expect(m.reason).toMatch(/src\/lib\.rs:1 defines `macro_rules! assert_eq`.*\[assert-shadow\]/);
    // the honest versions pass
    expect(write('src/a.ts', 'export const add = (a: number, b: number) => a + b;\n').decision).toBe('pass');
    expect(write('src/lib.rs', 'pub fn add(a: i32, b: i32) -> i32 { a + b }\n').decision).toBe('pass');
  });

  it.each([
    ['src/a.ts', "const { afterEach } = await import('vi' + 'test');\n", 'runner-state'],
    ['src/a.ts', 'const w = (globalThis as any)["__vi" + "test_worker__"];\n', 'runner-state'],
    ['src/a.py', "from unittest.mock import ANY\n\ndef add(a, b):\n    return ANY\n", 'runner-state'],
    ['src/a.py', "import builtins\nsetattr(builtins, 'Assertion' + 'Error', Exception)\n", 'assert-shadow'],
    ['src/lib.rs', 'pub use crate::lenient::check as assert_eq;\n', 'assert-shadow'],
    ['src/lib.rs', 'pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    use pretty_assertions::assert_eq;\n    #[test]\n    fn adds() { assert_eq!(super::add(1, 2), 3); }\n}\n', null],
  ])('%s %j → %s', (rel, content, want) => {
    expect(runnerReach(rel, content)?.construct ?? null).toBe(want);
  });

  it('`#runner` allows the token reading of the same reach; `#runner-state` allows it alone; an allowed finding does not hide the next', () => {
    const computed = "const { afterEach } = await import('vi' + 'test');\n";
    expect(runnerReach('src/a.ts', computed, null, ['runner', 'runner-state', 'assert-shadow'])).toBeNull();
    expect(runnerReach('src/a.ts', computed, null, ['runner-state'])).toBeNull();
    expect(runnerReach('src/a.ts', "import { afterEach } from 'vitest';\n", null, ['runner-state'])?.construct).toBe('runner');
    expect(runnerReach('src/a.ts', `${computed}export const t = process.env.NODE_ENV === 'test';\n`, null, ['runner-state'])?.construct).toBe('test-mode');
  });

  it('reachAllowedFor: `runner` brings runner-state and assert-shadow along', async () => {
    const { parseReachAllow, reachAllowedFor } = await import('../../src/verify/rules/reachAllow.js');
    const match = (globs: string[]) => (rel: string) => globs.includes(rel);
    expect(reachAllowedFor(parseReachAllow(['src/h.ts#runner']), 'src/h.ts', match)).toEqual(['runner', 'runner-state', 'assert-shadow']);
    expect(reachAllowedFor(parseReachAllow(['src/h.ts#runner-state']), 'src/h.ts', match)).toEqual(['runner-state']);
  });
});
