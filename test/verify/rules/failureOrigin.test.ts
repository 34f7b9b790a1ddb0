import { describe, expect, it } from 'vitest';
import { firstProjectFrame, projectPath, wrongOrigin, type OriginContext } from '../../../src/verify/rules/failureOrigin.js';

const ROOT = '/tmp/proj';
const FILES: Record<string, string> = {
  'calc_test.go': 'package calc\n\nimport (\n\t"os"\n\t"testing"\n)\n\nfunc TestLoad(t *testing.T) {\n\tdata, err := os.ReadFile("testdata/cases.txt")\n\tif err != nil {\n\t\tt.Fatal(err)\n\t}\n\tif Parse(data) != 3 {\n\t\tt.Errorf("Parse = %d", Parse(data))\n\t}\n}\n',
  'calc.go': 'package calc\n\nfunc Add(a, b int) int { return 0 }\n',
  'helper.go': 'package calc\n\nimport "testing"\n\nfunc check(t *testing.T, ok bool) {\n\tif !ok {\n\t\tt.Error("bad")\n\t}\n}\n',
  'src/lib.rs': 'pub fn add(a: i32, b: i32) -> i32 { 0 }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(1, 2), 3);\n    }\n}\n',
};
const ctx: OriginContext = {
  roots: [ROOT, '/real/proj'],
  isTest: (rel) => rel.startsWith('tests/') || rel.endsWith('_test.go') || rel.endsWith('.test.ts') || rel.startsWith('test/'),
  read: (rel) => FILES[rel] ?? null,
  inTestRegion: (rel, line) => rel === 'src/lib.rs' && line >= 3,
};

describe('projectPath and the first project frame', () => {
  it.each([
    ['/tmp/proj/src/a.ts', 'src/a.ts'],
    ['file:///tmp/proj/tests/a.test.ts', 'tests/a.test.ts'],
    ['/real/proj/src/a.ts', 'src/a.ts'],
    ['/tmp/proj/node_modules/expect/build/index.js', null],
    ['node:internal/process/task_queues', null],
    ['/usr/lib/node/x.js', null],
    ['/tmp/projection/x.js', null],
    ['test/a.test.js', 'test/a.test.js'],
    ['../elsewhere/a.js', null],
  ])('%s → %s', (printed, rel) => expect(projectPath(printed, ctx.roots)).toBe(rel));

  it('skips the assertion library and node, and reads both frame spellings', () => {
    const stack = 'Error: x\n    at Object.toBe (/tmp/proj/node_modules/expect/build/index.js:1:1)\n    at node:internal/x:2:3\n    at /tmp/proj/tests/add.test.ts:3:40\n    at run (/tmp/proj/src/add.ts:1:1)';
    expect(firstProjectFrame(stack, ctx.roots)).toEqual({ rel: 'tests/add.test.ts', line: 3 });
  });
});

describe('wrongOrigin: RED fails in the test, on the value', () => {
  const cases: [string, string, { file: string | null; message: string; trace?: string }, RegExp | null][] = [
    // JavaScript: an assertion thrown from the test file counts
    ['jest assertion', 'jest-json', { file: 'tests/add.test.ts', message: 'expect(received).toBe(expected)', trace: 'Error: expect(received).toBe(expected)\n    at Object.toBe (/tmp/proj/node_modules/expect/build/index.js:9:9)\n    at Object.<anonymous> (/tmp/proj/tests/add.test.ts:4:20)' }, null],
    ['vitest assertion', 'vitest-json', { file: 'tests/add.test.ts', message: 'AssertionError: expected 0 to be 3', trace: 'AssertionError: expected 0 to be 3\n    at /tmp/proj/tests/add.test.ts:3:40' }, null],
    ['stub throws TypeError("Expected …")', 'vitest-json', { file: 'tests/add.test.ts', message: 'TypeError: Expected a number', trace: 'TypeError: Expected a number\n    at add (/tmp/proj/src/add.ts:2:9)\n    at /tmp/proj/tests/add.test.ts:3:40' }, /raised in src\/add\.ts:2 \(TypeError: Expected a number\)/],
    ['stub throws an AssertionError', 'node-test-report', { file: 'test/add.test.js', message: 'AssertionError: x', trace: 'AssertionError: x\n    at add (file:///real/proj/src/add.js:3:9)\n    at TestContext.<anonymous> (file:///real/proj/test/add.test.js:5:3)' }, /src\/add\.js:3/],
    ['mocha relative frames', 'mocha-report', { file: 'test/add.test.js', message: 'AssertionError', trace: 'AssertionError\n    at add (src/add.js:3:9)\n    at Context.<anonymous> (test/add.test.js:5:3)' }, /src\/add\.js:3/],
    ['no frames: nothing to tell by', 'jest-json', { file: 'tests/add.test.ts', message: 'expect(received)' }, null],
    // pytest: the crash location of the long report
    ['pytest assert in the test', 'junit-xml', { file: 'tests/test_a.py', message: 'assert 0 == 3', trace: 'def test_a():\n>       assert add(1, 2) == 3\nE       assert 0 == 3\n\ntests/test_a.py:4: AssertionError' }, null],
    ['pytest: the stub raises', 'junit-xml', { file: 'tests/test_a.py', message: 'AssertionError: Expected', trace: '    def test_a():\n>       assert add(1, 2) == 3\n\ntests/test_a.py:4: \n_ _ _\n\n    def add(a, b):\n>       raise AssertionError("Expected")\nE       AssertionError: Expected\n\nsrc/calc.py:2: AssertionError' }, /raised in src\/calc\.py:2/],
    ['pytest: a missing fixture file', 'junit-xml', { file: 'tests/test_a.py', message: "FileNotFoundError: [Errno 2] No such file or directory: 'data.json'", trace: "tests/test_a.py:5: FileNotFoundError" }, /missing \(a fixture\)/],
    ['pytest: unittest assertEqual (its frames hidden)', 'junit-xml', { file: 'tests/test_a.py', message: 'AssertionError: 0 != 3', trace: '/usr/lib/python3.11/unittest/case.py:873: \ntests/test_a.py:7: AssertionError' }, null],
    // go: the call site line
    ['go t.Errorf in the test', 'go-json', { file: 'calc_test.go', message: '    calc_test.go:14: Parse = 0' }, null],
    ['go t.Fatal after os.ReadFile', 'go-json', { file: 'calc_test.go', message: '    calc_test.go:11: read failed' }, /file-system call/],
    ['go: open error text', 'go-json', { file: 'calc_test.go', message: '    calc_test.go:11: open testdata/cses.txt: no such file or directory' }, /fixture/],
    ['go: reported from a source file', 'go-json', { file: 'calc_test.go', message: '    calc.go:3: bad' }, /calc\.go:3, which is not a test file/],
    ['go: reported from a test helper kept in a non-test file', 'go-json', { file: 'calc_test.go', message: '    helper.go:3: bad' }, null],
    // cargo: the panic's location
    ['rust assert in tests/', 'cargo', { file: 'tests/add.rs', message: "thread 'adds' panicked at tests/add.rs:4:5:\nassertion `left == right` failed\n  left: 0\n right: 3" }, null],
    ['rust assert in an inline test module', 'cargo', { file: 'src/lib.rs', message: "thread 'tests::adds' panicked at src/lib.rs:7:9:\nassertion `left == right` failed" }, null],
    ['rust panic in the stub', 'cargo', { file: 'tests/add.rs', message: "thread 'adds' panicked at src/lib.rs:1:40:\nExpected a number" }, /panics in src\/lib\.rs:1 \(Expected a number\)/],
    ['rust unwrap of None', 'cargo', { file: 'tests/add.rs', message: "thread 'adds' panicked at tests/add.rs:4:30:\ncalled `Option::unwrap()` on a `None` value" }, /unwrap/],
    ['rust old panic format in the stub', 'cargo', { file: 'tests/add.rs', message: "thread 'adds' panicked at 'boom', src/lib.rs:1:40" }, /src\/lib\.rs:1/],
    ['text runner: nothing to tell by', 'text', { file: null, message: 'x' }, null],
  ];
  it.each(cases)('%s', (_name, runner, t, want) => {
    const why = wrongOrigin(runner, t, ctx);
    if (want === null) expect(why).toBeNull();
    else expect(why).toMatch(want);
  });
});
