import { describe, expect, it } from 'vitest';
import { newTestAwareness, testAwareness, type Construct } from '../../../src/verify/rules/testAware.js';
import { tokenize } from '../../../src/verify/rules/tokens.js';

type Lang = 'js' | 'py' | 'go' | 'rs';
const first = (text: string, lang: Lang, library = true): Construct | null => testAwareness(text, lang, { library })[0]?.construct ?? null;

describe('tokenize', () => {
  it('skips comments and keeps strings as their text, with lines', () => {
    const toks = tokenize("// process.env.NODE_ENV === 'test'\nconst a = \"x\"; /* y */ b\n", 'js');
    expect(toks.map((t) => `${t.k}:${t.v}@${t.line}`)).toEqual(['w:const@2', 'w:a@2', 'p:=@2', 's:x@2', 'p:;@2', 'w:b@2']);
    expect(tokenize("x = '''a\nb'''  # c\ny = r'\\d'\n", 'py').map((t) => `${t.k}:${t.v}@${t.line}`)).toEqual(['w:x@1', 'p:=@1', 's:a\nb@1', 'w:y@3', 'p:=@3', 's:\\d@3']);
  });
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
