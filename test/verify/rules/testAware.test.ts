import { describe, expect, it } from 'vitest';
import { newTestAwareness, testAwareness, type Construct } from '../../../src/verify/rules/testAware.js';
import { constString, tokenize } from '../../../src/verify/rules/tokens.js';

type Lang = 'js' | 'py' | 'go' | 'rs';
const first = (text: string, lang: Lang, library = true): Construct | null => testAwareness(text, lang, { library })[0]?.construct ?? null;

describe('tokenize', () => {
  it('skips comments and keeps strings as their text, with lines', () => {
    const toks = tokenize("// process.env.NODE_ENV === 'test'\nconst a = \"x\"; /* y */ b\n", 'js');
    expect(toks.map((t) => `${t.k}:${t.v}@${t.line}`)).toEqual(['w:const@2', 'w:a@2', 'p:=@2', 's:x@2', 'p:;@2', 'w:b@2']);
    expect(tokenize("x = '''a\nb'''  # c\ny = r'\\d'\n", 'py').map((t) => `${t.k}:${t.v}@${t.line}`)).toEqual(['w:x@1', 'p:=@1', 's:a\nb@1', 'w:y@3', 'p:=@3', 's:\\d@3']);
  });
});

describe('runner-state and assert-shadow: a source that reaches into the test runner or the assertion machinery', () => {
  const cases: [string, Lang, string, Construct | null][] = [
    // JavaScript: the runner's and the assertion libraries' packages
    ['import from vitest', 'js', "import { afterEach } from 'vitest';\nexport const a = 1;", 'runner-state'],
    ['a vitest subpackage', 'js', "import { getCurrentTest } from '@vitest/runner';", 'runner-state'],
    ['jest-circus', 'js', "const { getState } = require('jest-circus');", 'runner-state'],
    ['@jest/globals', 'js', "import { expect } from '@jest/globals';", 'runner-state'],
    ['expect (jest’s assertions)', 'js', "const { expect } = require('expect');", 'runner-state'],
    ['node:test', 'js', "import { afterEach } from 'node:test';", 'runner-state'],
    ['chai and a chai plugin', 'js', "import chai from 'chai';\nimport asPromised from 'chai-as-promised';", 'runner-state'],
    ['mocha', 'js', "const Mocha = require('mocha');", 'runner-state'],
    ['uvu/assert', 'js', "import * as assert from 'uvu/assert';", 'runner-state'],
    ['re-exported', 'js', "export { expect } from 'vitest';", 'runner-state'],
    ['a side-effect import', 'js', "import 'vitest';", 'runner-state'],
    ['require.resolve of the runner', 'js', "const where = require.resolve('jest-circus');", 'runner-state'],
    ['createRequire called at once, through Module', 'js', "import Module from 'node:module';\nconst v = Module.createRequire(import.meta.url)('vi' + 'test');", 'runner-state'],
    ['a require bound through module.createRequire', 'js', "import module from 'node:module';\nconst req = module.createRequire(import.meta.url);\nreq('mocha');", 'runner-state'],
    ['createRequire', 'js', "import { createRequire } from 'node:module';\nconst r = createRequire(import.meta.url);\nconst v = r('vitest');", 'runner-state'],
    // computed spellings of the specifier
    ['a dynamic import of pieces', 'js', "const { afterEach } = await import('vi' + 'test');", 'runner-state'],
    ['a held name', 'js', "const name = 'vi' + 'test';\nconst v = await import(name);", 'runner-state'],
    ['a template without substitutions', 'js', 'const v = await import(`vitest`);', 'runner-state'],
    ['escapes', 'js', "const v = require('\\x76itest');", 'runner-state'],
    ['a joined array', 'js', "const m = require(['mo', 'cha'].join(''));", 'runner-state'],
    ['a reversed string', 'js', "const m = require('tsetiv'.split('').reverse().join(''));", 'runner-state'],
    ['char codes', 'js', 'const m = require(String.fromCharCode(99, 104, 97, 105));', 'runner-state'],
    // the runner's globals
    ['the vitest worker', 'js', 'const w = (globalThis as any).__vitest_worker__;', 'runner-state'],
    ['the vitest worker, computed', 'js', "const w = (globalThis as any)['__vi' + 'test_worker__'];", 'runner-state'],
    ['jest’s matchers object', 'js', "const m = (globalThis as any)[Symbol.for('$$jest-matchers-object')];", 'runner-state'],
    ['jest-circus’s event handlers', 'js', "(globalThis as any)[Symbol.for('EVENT_' + 'HANDLERS')].push({ handleTestEvent() {} });", 'runner-state'],
    ['jest-circus’s state symbol by its description', 'js', "const s = Object.getOwnPropertySymbols(globalThis).find((x) => x.description === 'JEST_STATE_SYMBOL');", 'runner-state'],
    ['the global symbols walked', 'js', 'const all = Reflect.ownKeys(globalThis);', 'runner-state'],
    ['globalThis.expect', 'js', 'const e = globalThis.expect;', 'runner-state'],
    ['global["afterEach"]', 'js', "global['after' + 'Each'](() => {});", 'runner-state'],
    ['Reflect.get of a runner global', 'js', "const e = Reflect.get(globalThis, 'expect');", 'runner-state'],
    ['expect.extend', 'js', 'expect.extend({ toBe: () => ({ pass: true, message: () => "" }) });', 'runner-state'],
    ['expect.getState', 'js', 'const n = expect.getState().assertionCalls;', 'runner-state'],
    ['expect.anything() from the global expect', 'js', 'export const total = () => expect.anything();', 'runner-state'],
    ['jest’s global object', 'js', 'export const spy = jest.fn();', 'runner-state'],
    ['a member require', 'js', "const v = process.mainModule.require('vitest');", 'runner-state'],
    ['code in a string, evaluated', 'js', "eval(\"require('vi' + 'test')\");", 'runner-state'],
    ['code in a string, by new Function', 'js', "const f = new Function('return import(\"vitest\")');", 'runner-state'],
    ['code in a string, by vm', 'js', "vm.runInThisContext(\"globalThis['__vitest_worker__']\");", 'runner-state'],
    ['a bare hook beside a renamed local import', 'js', "import { afterEach as after } from './hooks';\nafterEach(() => {});", 'runner-state'],
    ['vitest’s node API', 'js', "import { createVitest } from 'vitest/node';", 'runner-state'],
    ['a hook registered bare (globals)', 'js', 'afterEach((ctx) => { ctx.task.result.errors = []; });', 'runner-state'],
    // not the runner
    ['a type-only import', 'js', "import type { Mock } from 'vitest';\nexport type M = Mock;", null],
    ['vitest/config (a config helper)', 'js', "import { defineConfig } from 'vitest/config';", null],
    ['jest-worker (a build tool’s pool)', 'js', "import { Worker } from 'jest-worker';", null],
    ['jest-diff, pretty-format', 'js', "import { diff } from 'jest-diff';\nimport { format } from 'pretty-format';", null],
    ['node:assert', 'js', "import assert from 'node:assert';\nassert(x > 0);", null],
    ['a runner name in a string', 'js', "const runners = ['vitest', 'jest', 'mocha'];", null],
    ['a runner name in a comment', 'js', "// import { afterEach } from 'vitest'\nexport const a = 1;", null],
    ['a specifier built from a variable', 'js', "const m = await import('./plugins/' + name);", null],
    ['a local afterEach', 'js', 'function afterEach(fn) { fn(); }\nafterEach(() => {});', null],
    ['a method named afterEach', 'js', 'class Hooks { afterEach(fn: () => void): void {} }', null],
    ['an interface method', 'js', 'interface Hooks { afterEach(fn: () => void): void; }', null],
    ['a local expect', 'js', 'const expect = (t: string) => t;\nexport const e = expect.length;', null],
    ['window.test (a page global)', 'js', 'window.test = 1;', null],
    ['benchmark suite', 'js', "suite.add('x', () => {}).run();", null],
    // Python
    ['import pytest', 'py', 'import pytest\n', 'runner-state'],
    ['from _pytest', 'py', 'from _pytest.runner import CallInfo\n', 'runner-state'],
    ['unittest', 'py', 'import os, unittest\n', 'runner-state'],
    ['unittest.mock.ANY (equal to anything)', 'py', 'from unittest.mock import ANY\n\ndef add(a, b):\n    return ANY\n', 'runner-state'],
    ['a pytest plugin package', 'py', 'import pytest_asyncio\n', 'runner-state'],
    ['dirty-equals', 'py', 'from dirty_equals import IsAnything\n', 'runner-state'],
    ['__import__ of pieces', 'py', "p = __import__('py' + 'test')\n", 'runner-state'],
    ['literals side by side', 'py', "p = __import__('py' 'test')\n", 'runner-state'],
    ['import_module of a joined list', 'py', "import importlib\np = importlib.import_module(''.join(['_py', 'test']))\n", 'runner-state'],
    ['sys.modules of a reversed string', 'py', "import sys\np = sys.modules['tsetyp'[::-1]]\n", 'runner-state'],
    ['sys.modules.get of a held name', 'py', "import sys\nNAME = 'py' + 'test'\np = sys.modules.get(NAME)\n", 'runner-state'],
    ['chr codes', 'py', 'p = __import__(chr(112) + chr(121) + "test")\n', 'runner-state'],
    ['pluggy hooks for pytest', 'py', "import pluggy\nhookimpl = pluggy.HookimplMarker('pytest')\n", 'runner-state'],
    ['builtins.AssertionError', 'py', 'import builtins\nbuiltins.AssertionError = Exception\n', 'assert-shadow'],
    ['an aliased builtins', 'py', 'import builtins as b\nb.AssertionError = Exception\n', 'assert-shadow'],
    ['setattr on builtins, computed', 'py', "import builtins\nsetattr(builtins, 'Assertion' + 'Error', Exception)\n", 'assert-shadow'],
    ['builtins by its name', 'py', "__import__('built' + 'ins').AssertionError = Exception\n", 'assert-shadow'],
    ['builtins from sys.modules, through vars', 'py', "import sys\nvars(sys.modules['builtins'])['AssertionError'] = Exception\n", 'assert-shadow'],
    ['code in a string, exec’d', 'py', "exec('import py' + 'test')\n", 'runner-state'],
    ['runpy', 'py', "import runpy\nrunpy.run_module('pytest')\n", 'runner-state'],
    ['__builtins__ item', 'py', "__builtins__['AssertionError'] = Exception\n", 'assert-shadow'],
    ['pluggy for the project’s own plugins', 'py', "import pluggy\nhookimpl = pluggy.HookimplMarker('myapp')\n", null],
    ['a relative module named unittest', 'py', 'from . import unittest\nfrom .unittest import helper\n', null],
    ['unittest run from the main guard', 'py', "def f():\n    return 1\n\nif __name__ == '__main__':\n    import unittest\n    unittest.main()\n", null],
    ['a name that only starts like pytest', 'py', 'import pytestish_docs\n', null],
    ['importlib of a plugin by a variable', 'py', "import importlib\nmod = importlib.import_module('app.backends.' + name)\n", null],
    ['pytest in a string', 'py', "RUNNERS = ['pytest', 'unittest']\n", null],
    ['a local AssertionError', 'py', 'class AssertionError(Exception):\n    pass\n', null],
    // Go
    ['testing outside a test file', 'go', 'package calc\n\nimport (\n\t"fmt"\n\t"testing"\n)\n', 'runner-state'],
    ['testing under a name', 'go', 'package calc\n\nimport t "testing"\n', 'runner-state'],
    ['go:linkname into testing', 'go', 'package calc\n\nimport _ "unsafe"\n\n//go:linkname matchString testing.matchString\nfunc matchString(a, b string) (bool, error)\n', 'runner-state'],
    ['go:linkname into runtime', 'go', 'package calc\n\nimport _ "unsafe"\n\n//go:linkname exit runtime.exit\nfunc exit(code int32)\n', 'runner-state'],
    ['a test-helper package (httptest-like)', 'go', 'package calctest\n\nimport "testing"\n\nfunc Check(t testing.TB) {}\n', null],
    ['testutil', 'go', 'package testutil\n\nimport "testing"\n', null],
    ['testing/fstest', 'go', 'package calc\n\nimport "testing/fstest"\n', null],
    ['"testing" as a string', 'go', 'package calc\n\nvar modes = []string{\n\t"testing",\n}\n', null],
    ['go:linkname elsewhere', 'go', 'package calc\n\nimport _ "unsafe"\n\n//go:linkname now time.now\nfunc now() (int64, int32, int64)\n', null],
    // Rust
    ['macro_rules! assert_eq', 'rs', 'macro_rules! assert_eq {\n    ($a:expr, $b:expr) => {};\n}\npub fn add(a: i32, b: i32) -> i32 { 0 }\n', 'assert-shadow'],
    ['macro_rules! panic', 'rs', 'macro_rules! panic { ($($t:tt)*) => {} }', 'assert-shadow'],
    ['an exported assert', 'rs', '#[macro_export]\nmacro_rules! assert { ($e:expr) => {} }', 'assert-shadow'],
    ['a re-export under an assertion’s name', 'rs', 'pub use crate::checks::lenient as assert_eq;', 'assert-shadow'],
    ['std’s assert_ne as assert_eq', 'rs', 'use core::assert_ne as assert_eq;', 'assert-shadow'],
    ['pretty_assertions outside the tests', 'rs', 'use pretty_assertions::{assert_eq, assert_ne};', 'assert-shadow'],
    ['#[macro_use] pretty_assertions', 'rs', '#[macro_use]\nextern crate pretty_assertions;', 'assert-shadow'],
    ['a procedural macro named assert_eq', 'rs', '#[proc_macro]\npub fn assert_eq(input: TokenStream) -> TokenStream { input }', 'assert-shadow'],
    ['extern crate test', 'rs', 'extern crate test;\npub fn add(a: i32, b: i32) -> i32 { a + b }', 'runner-state'],
    ['std’s own assert_eq imported', 'rs', 'use std::assert_eq;', null],
    ['a function renamed unreachable from core', 'rs', 'use core::hint::unreachable_unchecked as unreachable;', null],
    ['a module named format', 'rs', 'use chrono::format;', null],
    ['a crate’s own vec! (bumpalo)', 'rs', 'macro_rules! vec { ($($x:expr),*) => {} }', null],
    ['a benchmark-only test crate', 'rs', '#[cfg(feature = "bench")]\nextern crate test;', null],
    ['a raw identifier', 'rs', 'macro_rules! r#assert_eq { ($a:expr, $b:expr) => {} }', 'assert-shadow'],
    ['exec of ordinary code', 'py', "exec('x = 1')\n", null],
    ['a regular expression’s exec', 'js', "const m = /vitest/.exec('vitest');", null],
    ['jest as a local', 'js', "const jest = loadConfig();\nexport const roots = jest.roots;", null],
    ['an assertion macro of another name', 'rs', 'macro_rules! assert_close { ($a:expr, $b:expr) => {} }', null],
  ];
  const reach = (text: string, lang: Lang) => testAwareness(text, lang).find((f) => f.construct === 'runner-state' || f.construct === 'assert-shadow')?.construct ?? null;
  it.each(cases)('%s', (_name, lang, text, want) => expect(reach(text, lang)).toBe(want));

  it('each finding says what the source did, in the reason the model sees', () => {
    const [f] = testAwareness("const { afterEach } = await import('vi' + 'test');", 'js');
    expect(f?.what).toMatch(/^imports `vitest`: reaches into the test runner/);
    expect(testAwareness('macro_rules! assert_eq { () => {} }', 'rs')[0]?.what).toMatch(/`macro_rules! assert_eq`/);
  });

  it('only what the cycle adds counts, and an allowed construct does not hide the next', () => {
    const before = "import { helper } from 'vitest';\n";
    expect(newTestAwareness(before + 'export const a = 1;\n', before, 'js')).toBeNull();
    expect(newTestAwareness(before + "import { afterEach } from 'vitest';\n", before, 'js')?.construct).toBe('runner-state');
    const both = "import 'vitest';\nexport const m = process.env.NODE_ENV === 'test';\n";
    expect(newTestAwareness(both, null, 'js', { allowed: ['runner-state'] })?.construct).toBe('test-mode');
    expect(newTestAwareness(both, null, 'js', { allowed: ['runner-state', 'test-mode'] })).toBeNull();
    // a linkname's finding is keyed by its target, not the line after it
    const go = (target: string) => `package calc\n\nimport _ "unsafe"\n\n//go:linkname f ${target}\nfunc f()\n`;
    expect(newTestAwareness(go('runtime.exit'), go('runtime.nanotime'), 'go')?.construct).toBe('runner-state');
    expect(newTestAwareness(go('runtime.exit'), go('runtime.exit'), 'go')).toBeNull();
  });
});

describe('constString: literal text put together', () => {
  const value = (text: string, lang: 'js' | 'py') => constString(tokenize(text, lang), 0, lang)?.v ?? null;
  it.each([
    ["'a' + 'b' + \"c\"", 'js', 'abc'],
    ["['x', 'y'].join('-')", 'js', 'x-y'],
    ["['x', 'y'].join()", 'js', 'x,y'],
    ["'\\u{76}\\u0069\\x74\\145st'", 'js', 'vitest'],
    ["('ab').split('').reverse().join('')", 'js', 'ba'],
    ['`a${b}`', 'js', null],
    ["'a' + b", 'js', null],
    ["'a' 'b'", 'py', 'ab'],
    ["'-'.join(('x', 'y'))", 'py', 'x-y'],
    ["'cba'[::-1]", 'py', 'abc'],
  ] as const)('%s (%s)', (text, lang, want) => expect(value(text, lang)).toBe(want));
});

describe('testAwareness: what special-cases the test run or the comparison', () => {
  const cases: [string, Lang, string, Construct | null][] = [
    // JavaScript: the runner's mode
    ['NODE_ENV === test', 'js', "export const add = (a, b) => process.env.NODE_ENV === 'test' ? 3 : a + b;", 'test-mode'],
    ['NODE_ENV bracketed, split over lines', 'js', "const m = process\n  .env[\"NODE_ENV\"];\nif (m ==\n 'test') {}", 'test-mode'],
    ['switch on NODE_ENV', 'js', "switch (process.env.NODE_ENV) {\n  case 'production': break;\n  case 'test': return 3;\n}", 'test-mode'],
    ['import.meta.env.MODE', 'js', "const x = import.meta.env.MODE === 'test' ? 3 : 0;", 'test-mode'],
    ['import.meta.env.MODE through a TypeScript cast', 'js', "if ((import.meta as unknown as { env: Record<string, string> }).env.MODE === 'test') x = 3;", 'test-mode'],
    ['import.meta.env.VITEST', 'js', 'if (import.meta.env.VITEST) x = 3;', 'test-mode'],
    ['a name that says test', 'js', 'if (process.env.IS_TESTING) x = 3;', 'test-mode'],
    ['NODE_ENV for the log level', 'js', "const level = process.env.NODE_ENV === 'production' ? 'warn' : 'debug';", null],
    ['a comment saying it', 'js', "// process.env.NODE_ENV === 'test'\nexport const a = 1;", null],
    ['a string saying it', 'js', "const doc = \"process.env.NODE_ENV === 'test'\";", null],
    // process arguments
    ['process.argv[1]', 'js', "if (process.argv[1].endsWith('vitest.mjs')) x = 3;", 'process-args'],
    ['process.argv.some', 'js', "const t = process.argv.some((a) => a.includes('run'));", 'process-args'],
    ['process.argv.slice(2)', 'js', 'const args = process.argv.slice(2);', null],
    ['process.argv[2]', 'js', 'const file = process.argv[2];', null],
    ['commander parse', 'js', 'program.parse(process.argv);', null],
    ['require.main with else', 'js', 'if (require.main === module) { main(); } else { exports.add = () => 3; }', 'process-args'],
    ['require.main as a value', 'js', 'exports.add = (a, b) => (require.main === module ? a + b : 3);', 'process-args'],
    ['the runnable-script guard', 'js', 'if (require.main === module) {\n  main();\n}\n', null],
    // call stack
    ['new Error().stack', 'js', "export const add = (a, b) => (new Error().stack.includes('.test.') ? 3 : a + b);", 'call-stack'],
    ['a held Error’s stack', 'js', 'const e = new Error();\nconst s = e.stack;', 'call-stack'],
    ['prepareStackTrace', 'js', 'Error.prepareStackTrace = (_, s) => s;', 'call-stack'],
    ['captureStackTrace(this) in an error class', 'js', 'class E extends Error { constructor(m) { super(m); Error.captureStackTrace(this, E); } }', null],
    ['logging a caught error’s stack', 'js', 'try { f(); } catch (err) { console.error(err.stack); }', null],
    // matcher protocol
    ['asymmetricMatch', 'js', 'export const add = () => ({ asymmetricMatch: () => true });', 'matcher-protocol'],
    ['asymmetricMatch computed', 'js', "export const add = () => ({ ['asymmetric' + 'Match']: () => true, $$typeof: Symbol.for('jest.asymmetricMatcher') });", 'matcher-protocol'],
    ['$$typeof read (react-is)', 'js', 'const isElement = (o) => o.$$typeof === REACT_ELEMENT;', null],
    // Python
    ['PYTEST env', 'py', "import os\nif os.environ.get('TESTING'):\n    X = 3\n", 'test-mode'],
    ['getenv compared with test', 'py', "import os\nMODE = os.getenv('APP_ENV') == 'test'\n", 'test-mode'],
    ['unittest in sys.modules', 'py', "import sys\nT = 'unittest' in sys.modules\n", 'test-mode'],
    ['sys.argv[0]', 'py', "import sys\nT = sys.argv[0].endswith('pytest')\n", 'process-args'],
    ['sys.argv[1:]', 'py', 'import sys\nargs = sys.argv[1:]\n', null],
    ['inspect.stack', 'py', 'import inspect\ndef add(a, b):\n    return 3 if any("test_" in f.function for f in inspect.stack()) else a + b\n', 'call-stack'],
    ['sys._getframe', 'py', 'import sys\ndef f():\n    return sys._getframe(1).f_code.co_name\n', 'call-stack'],
    ['__eq__ always true', 'py', 'class R:\n    def __eq__(self, other):\n        return True\n', 'always-equal'],
    ['__eq__ with a docstring', 'py', 'class R:\n    def __eq__(self, other) -> bool:\n        """equal"""\n        return True\n', 'always-equal'],
    ['__eq__ lambda', 'py', 'class R:\n    __eq__ = lambda self, other: True\n', 'always-equal'],
    ['__ne__ always false', 'py', 'class R:\n    def __ne__(self, o):\n        return False\n', 'always-equal'],
    ['a real __eq__', 'py', 'class P:\n    def __eq__(self, other):\n        return True if self is other else self.x == other.x\n', null],
    ['environ for a setting', 'py', "import os\nURL = os.environ.get('DATABASE_URL', 'sqlite://')\n", null],
    // Go
    ['runtime.Caller', 'go', 'package calc\n\nimport "runtime"\n\nfunc Add(a, b int) int {\n\t_, file, _, _ := runtime.Caller(1)\n\tif len(file) > 8 { return 3 }\n\treturn 0\n}\n', 'call-stack'],
    ['Getenv test', 'go', 'package calc\n\nimport "os"\n\nvar t = os.Getenv("GO_ENV") == "test"\n', 'test-mode'],
    ['Equal always true', 'go', 'package calc\n\ntype R struct{}\n\nfunc (R) Equal(R) bool { return true }\n', 'always-equal'],
    ['a real Equal', 'go', 'package calc\n\ntype R struct{ n int }\n\nfunc (r R) Equal(o R) bool { return r.n == o.n }\n', null],
    ['Getenv for a setting', 'go', 'package calc\n\nimport "os"\n\nvar home = os.Getenv("HOME")\n', null],
    // Rust
    ['cfg!(debug_assertions)', 'rs', 'pub fn add(a: i32, b: i32) -> i32 { if cfg!(debug_assertions) { 3 } else { a + b } }', 'build-flag'],
    ['thread name', 'rs', 'pub fn add(a: i32, b: i32) -> i32 { if std::thread::current().name().is_some() { 3 } else { a + b } }', 'thread-name'],
    ['env::args in a library', 'rs', 'pub fn add() -> i32 { std::env::args().count() as i32 }', 'process-args'],
    ['PartialEq always true', 'rs', 'impl PartialEq for R { fn eq(&self, _o: &Self) -> bool { true } }', 'always-equal'],
    ['a real PartialEq', 'rs', 'impl PartialEq for R { fn eq(&self, o: &Self) -> bool { self.0 == o.0 } }', null],
    ['debug_assert! is not the flag', 'rs', 'pub fn f(x: i32) { debug_assert!(x > 0); }', null],
  ];
  it.each(cases)('%s', (_name, lang, text, want) => expect(first(text, lang)).toBe(want));

  it('env::args in a binary is the program’s own', () => expect(first('fn main() { let a: Vec<String> = std::env::args().collect(); }', 'rs', false)).toBeNull());
  it('a Python program’s entry may read sys.argv[0]', () => expect(testAwareness('import sys\nprog = sys.argv[0]\n', 'py', { program: true })).toEqual([]));

  it('only what the cycle adds counts', () => {
    const before = "const level = process.env.NODE_ENV === 'test' ? 'silent' : 'info';\n";
    expect(newTestAwareness(before + 'export const add = (a, b) => a + b;\n', before, 'js')).toBeNull();
    expect(newTestAwareness(before + "export const add = (a, b) => process.env.NODE_ENV === 'test' ? 3 : a + b;\n", before, 'js')?.line).toBe(2);
  });
});
