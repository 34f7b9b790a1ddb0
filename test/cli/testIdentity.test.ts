import { describe, expect, it } from 'vitest';
import { identify, isNewOrChanged, type IdentifiedTest } from '../../src/verify/evidence/identity.js';
import { judgeGreen, judgeRed, type RunOutcome } from '../../src/verify/rules/judge.js';
import type { TestCase, TestStatus } from '../../src/verify/evidence/report.js';

/** identify() over files held in memory. */
const ids = (tests: TestCase[], files: Record<string, string>, root = '/r') => identify(tests, { root, files: Object.keys(files), read: (rel) => files[rel] ?? null });
const js = (file: string, path: string[], status: TestStatus = 'passed', where: { line?: number; column?: number } = {}): TestCase => ({ file: `/r/${file}`, name: path.join(' > '), path, status, message: status === 'failed' ? 'AssertionError: expected 0 to be 3' : '', ...where });

const DATES = [
  "describe('dates', () => {",
  "  test.each([[new Date()], [Date.now()], [1]])('%s', (d) => {",
  '    expect(d).toBeTruthy();',
  '  });',
  "  test('same', () => {});",
  "  test('same', () => {});",
  '  it(`at ${Date.now()}`, () => {});',
  '});',
  '',
].join('\n');

/** What jest reported for DATES in one run at `now` (with or without locations). */
const datesRun = (now: number, located: boolean): TestCase[] => {
  const at = (line: number, column: number) => (located ? { line, column } : {});
  return [
    js('t/d.test.js', ['dates', new Date(now).toString()], 'passed', at(2, 47)),
    js('t/d.test.js', ['dates', String(now)], 'passed', at(2, 47)),
    js('t/d.test.js', ['dates', '1'], 'passed', at(2, 47)),
    js('t/d.test.js', ['dates', 'same'], 'passed', at(5, 3)),
    js('t/d.test.js', ['dates', 'same'], 'passed', at(6, 3)),
    js('t/d.test.js', ['dates', `at ${now + 2}`], 'passed', at(7, 3)),
  ];
};

describe('JS: a test is known by its declaration, whatever name the run gave it', () => {
  it.each([
    ['with the locations jest reports', true],
    ['by titles alone (vitest without locations)', false],
  ])('names built from Date and Date.now, repeated titles: %s', (_n, located) => {
    const first = ids(datesRun(1_795_738_997_906, located), { 't/d.test.js': DATES });
    const later = ids(datesRun(1_800_000_000_000, located), { 't/d.test.js': DATES });
    const want = ['t/d.test.js::dates > %s [#1]', 't/d.test.js::dates > %s [#2]', 't/d.test.js::dates > %s [#3]', 't/d.test.js::dates > same [#1]', 't/d.test.js::dates > same [#2]', 't/d.test.js::dates > at ${Date.now()}'];
    expect(first.map((x) => x.id)).toEqual(want);
    expect(later.map((x) => x.id)).toEqual(want);
    // six tests, six ids: rows with the same title never collapse
    expect(new Set(first.map((x) => x.id)).size).toBe(6);
    // the runner's own name is kept as the label
    expect(first[1]!.label).toBe('t/d.test.js::dates > 1795738997906');
    // each row carries its own row of the table
    expect(first.map((x) => x.decl?.row?.text)).toEqual(['[new Date()]', '[Date.now()]', '[1]', undefined, undefined, undefined]);
  });

  it('a plain title keeps the id the runner gives it (ids written before stay valid)', () => {
    const src = "describe('add', () => {\n  test('adds two numbers', () => {});\n});\ntest('old', () => {});\n";
    expect(ids([js('t/a.test.js', ['add', 'adds two numbers']), js('t/a.test.js', ['old'])], { 't/a.test.js': src }).map((x) => x.id)).toEqual(['t/a.test.js::add > adds two numbers', 't/a.test.js::old']);
  });

  it('two each tables with the same title in one describe: rows go to their own table, by location or by row count', () => {
    const src = "describe('d', () => {\n  test.each([[1], [2]])('%s', () => {});\n  test.each([[3]])('%s', () => {});\n});\n";
    const run = (located: boolean) => [
      js('t/e.test.js', ['d', '1'], 'passed', located ? { line: 2, column: 24 } : {}),
      js('t/e.test.js', ['d', '2'], 'passed', located ? { line: 2, column: 24 } : {}),
      js('t/e.test.js', ['d', '3'], 'passed', located ? { line: 3, column: 19 } : {}),
    ];
    for (const located of [true, false]) {
      expect(ids(run(located), { 't/e.test.js': src }).map((x) => x.decl?.row?.text)).toEqual(['[1]', '[2]', '[3]']);
    }
  });

  it('a test declared in a helper keeps the describe titles the runner reported around it', () => {
    const src = "function shared() {\n  it('works', () => {});\n}\ndescribe('a', () => shared());\ndescribe('b', () => shared());\n";
    expect(ids([js('t/h.test.js', ['a', 'works']), js('t/h.test.js', ['b', 'works'])], { 't/h.test.js': src }).map((x) => x.id)).toEqual(['t/h.test.js::a > works', 't/h.test.js::b > works']);
  });

  it('a test the file does not declare (generated elsewhere) keeps the runner’s name', () => {
    expect(ids([js('t/g.test.js', ['made', 'elsewhere'])], { 't/g.test.js': "require('./gen')('made');\n" }).map((x) => [x.id, x.decl])).toEqual([['t/g.test.js::made > elsewhere', undefined]]);
  });

  it('node:test subtests by their location', () => {
    const src = "import { test } from 'node:test';\ntest('parent', async (t) => {\n  await t.test(`child ${Math.random()}`, () => {});\n});\n";
    const got = ids([js('t/n.test.mjs', ['parent', 'child 0.123'], 'passed', { line: 3, column: 11 })], { 't/n.test.mjs': src });
    expect(got.map((x) => x.id)).toEqual(['t/n.test.mjs::parent > child ${Math.random()}']);
  });
});

describe('pytest: the node id when the source spells it, the case number when the run computed it', () => {
  const SRC = [
    'import datetime, pytest',
    '',
    '@pytest.mark.parametrize("a,b", [(1, 2), (3, 4)])',
    'def test_add(a, b):',
    '    assert a < b',
    '',
    '@pytest.mark.parametrize("d", [datetime.datetime.now(), object()])',
    'def test_auto(d):',
    '    assert d',
    '',
    '@pytest.mark.parametrize("s", [str(datetime.datetime.now())])',
    'def test_text(s):',
    '    assert s',
    '',
    'CASES = [(5, 6)]',
    '',
    '@pytest.mark.parametrize("a,b", CASES)',
    'def test_listed(a, b):',
    '    assert a < b',
    '',
    'class TestCart:',
    '    def test_total(self):',
    '        assert True',
    '',
  ].join('\n');
  const py = (name: string, cls = 'tests.test_p'): TestCase => ({ file: null, candidates: ['tests/test_p.py', 'tests.py'], scope: cls, name, status: 'passed', message: '' });
  it.each<[string, TestCase, string]>([
    ['literal parameters', py('test_add[1-2]'), 'tests/test_p.py::test_add[1-2]'],
    ["pytest's own ids for objects (argname + index)", py('test_auto[d1]'), 'tests/test_p.py::test_auto[d1]'],
    ['a parameter computed at run time', py('test_text[2026-11-27 00:23:17.906]'), 'tests/test_p.py::test_text[#1]'],
    ['parameters from a list the file spells', py('test_listed[5-6]'), 'tests/test_p.py::test_listed[5-6]'],
    ['a method of a class', py('test_total', 'tests.test_p.TestCart'), 'tests/test_p.py::TestCart::test_total'],
  ])('%s', (_n, tc, want) => {
    const [got] = ids([tc], { 'tests/test_p.py': SRC });
    expect(got!.id).toBe(want);
    expect(got!.decl?.block).toMatch(/^@pytest|^ {4}def test_total/);
  });
});

describe('go test: subtests down the t.Run calls of their function', () => {
  const SRC = [
    'package cart',
    '',
    'var cases = []struct{ name string }{{name: "adds two"}, {name: "adds three"}}',
    '',
    'func TestTotal(t *testing.T) {',
    '\tt.Run("empty cart", func(t *testing.T) {})',
    '\tt.Run("empty cart", func(t *testing.T) {})',
    '\tfor _, tc := range cases {',
    '\t\tt.Run(tc.name, func(t *testing.T) {})',
    '\t}',
    '\tt.Run(time.Now().String(), func(t *testing.T) {})',
    '}',
    '',
  ].join('\n');
  const go = (name: string): TestCase => ({ file: null, scope: 'ex/cart', name, status: 'passed', message: '' });
  it('literal, repeated (#01), table-named and time-named subtests', () => {
    const files = { 'go.mod': 'module ex\n', 'cart/cart_test.go': SRC };
    const run = (stamp: string) => ids([go('TestTotal/empty_cart'), go('TestTotal/empty_cart#01'), go('TestTotal/adds_two'), go('TestTotal/adds_three'), go(`TestTotal/${stamp}`), go('TestTotal')], files);
    const want = ['ex/cart::TestTotal/empty_cart', 'ex/cart::TestTotal/empty_cart#01', 'ex/cart::TestTotal/adds_two', 'ex/cart::TestTotal/adds_three', 'ex/cart::TestTotal/time.Now().String()', 'ex/cart::TestTotal'];
    expect(run('2026-11-27_00:23:17').map((x) => x.id)).toEqual(want);
    expect(run('2027-01-01_10:00:00').map((x) => x.id)).toEqual(want);
    const got = run('x');
    expect(got.map((x) => x.file)).toEqual(Array(6).fill('cart/cart_test.go'));
    expect(got[5]!.parent).toBe(true);
    expect(got[0]!.decl?.block).toBe('t.Run("empty cart", func(t *testing.T) {})');
    // a table-driven subtest is judged by its function, which holds the loop
    expect(got[2]!.decl?.block).toMatch(/^func TestTotal/);
  });
});

describe('cargo: the module path to the file and fn that declare it', () => {
  it('an inline test module in a module file', () => {
    const files = { 'src/lib.rs': 'pub mod calc;\n', 'src/calc.rs': 'pub fn add() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {}\n}\n' };
    const [got] = ids([{ file: 'src/lib.rs', name: 'calc::tests::adds', status: 'passed', message: '' }], files);
    expect(got).toMatchObject({ id: 'src/lib.rs::calc::tests::adds', file: 'src/calc.rs', decl: { path: ['tests', 'adds'], block: '    #[test]\n    fn adds() {}' } });
  });
});

describe('new or changed in this cycle: the test’s own declaration against the baseline', () => {
  const changed = new Set(['t/a.test.js', 'tests/test_a.py', 'cart/cart_test.go', 'src/lib.rs']);
  const judge = (file: string, before: string, after: string, tests: TestCase[], files: Record<string, string> = {}) =>
    ids(tests, { ...files, [file]: after }).map((x) => [x.id, isNewOrChanged(x, changed, () => before, () => after)]);

  it('JS: an old failing test whose neighbour was appended in the same describe is not new; the neighbour is', () => {
    const before = "describe('cart', () => {\n  test('old', () => {\n    expect(total()).toBe(1);\n  });\n});\n";
    const after = "describe('cart', () => {\n  test('old', () => {\n    expect(total()).toBe(1);\n  });\n  test('new', () => {\n    expect(total()).toBe(2);\n  });\n});\n";
    expect(judge('t/a.test.js', before, after, [js('t/a.test.js', ['cart', 'old'], 'failed'), js('t/a.test.js', ['cart', 'new'])])).toEqual([
      ['t/a.test.js::cart > old', false],
      ['t/a.test.js::cart > new', true],
    ]);
  });
  it('JS: a row appended to an each table is new, the old rows are not; an edited body changes every row', () => {
    const before = "test.each([\n  [1, 2],\n  [2, 3],\n])('inc %i', (a, b) => {\n  expect(inc(a)).toBe(b);\n});\n";
    const after = before.replace('  [2, 3],\n', '  [2, 3],\n  [3, 4],\n');
    const rows = [js('t/a.test.js', ['inc 1']), js('t/a.test.js', ['inc 2']), js('t/a.test.js', ['inc 3'])];
    expect(judge('t/a.test.js', before, after, rows).map(([, n]) => n)).toEqual([false, false, true]);
    expect(judge('t/a.test.js', before, before.replace('toBe(b)', 'toEqual(b)'), rows.slice(0, 2)).map(([, n]) => n)).toEqual([true, true]);
  });
  it('JS: the same test moved under another describe title is changed (its context is)', () => {
    const before = "describe('a', () => {\n  test('x', () => {});\n});\n";
    expect(judge('t/a.test.js', before, before.replace("'a'", "'b'"), [js('t/a.test.js', ['b', 'x'])]).map(([, n]) => n)).toEqual([true]);
  });
  it('Python: a method appended to the class leaves the old one unchanged', () => {
    const before = 'class TestCart:\n    def test_old(self):\n        assert total() == 1\n';
    const after = before + '\n    def test_new(self):\n        assert total() == 2\n';
    const tc = (name: string): TestCase => ({ file: null, candidates: ['tests/test_a.py'], scope: 'tests.test_a.TestCart', name, status: 'failed', message: '' });
    expect(judge('tests/test_a.py', before, after, [tc('test_old'), tc('test_new')])).toEqual([
      ['tests/test_a.py::TestCart::test_old', false],
      ['tests/test_a.py::TestCart::test_new', true],
    ]);
  });
  it('Go: a subtest appended beside an old failing one; the parent test is judged by its subtests', () => {
    const before = 'package cart\n\nfunc TestTotal(t *testing.T) {\n\tt.Run("old", func(t *testing.T) { t.Fatal("x") })\n}\n';
    const after = before.replace('\n}\n', '\n\tt.Run("new", func(t *testing.T) {})\n}\n');
    const go = (name: string, status: TestStatus): TestCase => ({ file: null, scope: 'ex/cart', name, status, message: '' });
    expect(judge('cart/cart_test.go', before, after, [go('TestTotal/old', 'failed'), go('TestTotal/new', 'passed'), go('TestTotal', 'failed')], { 'go.mod': 'module ex\n' })).toEqual([
      ['ex/cart::TestTotal/old', false],
      ['ex/cart::TestTotal/new', true],
      ['ex/cart::TestTotal', false],
    ]);
  });
  it('Rust: a test appended to the test module leaves the old one unchanged', () => {
    const before = 'pub fn add() -> i32 { 0 }\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn old() { assert_eq!(super::add(), 1); }\n}\n';
    const after = before.replace('\n}\n', '\n    #[test]\n    fn new() { assert_eq!(super::add(), 2); }\n}\n');
    const rs = (name: string): TestCase => ({ file: 'src/lib.rs', name, status: 'failed', message: '' });
    expect(judge('src/lib.rs', before, after, [rs('tests::old'), rs('tests::new')])).toEqual([
      ['src/lib.rs::tests::old', false],
      ['src/lib.rs::tests::new', true],
    ]);
  });
});

describe('RED and GREEN by declaration', () => {
  const facts = (total: number, failed: number) => ({ counts: { total, failed, passed: total - failed }, failingFiles: [], loadErrorFiles: [], messages: [], source: 'jest-json' });
  it('RED is refused when the only failing test is old and a new passing test was appended beside it', () => {
    const before = "describe('cart', () => {\n  test('old', () => {\n    expect(total()).toBe(1);\n  });\n});\n";
    const after = before.replace('\n});\n', "\n  test('new', () => {\n    expect(total()).toBe(0);\n  });\n});\n");
    const tests = ids([js('t/a.test.js', ['cart', 'old'], 'failed'), js('t/a.test.js', ['cart', 'new'])], { 't/a.test.js': after });
    const o: RunOutcome = { exitCode: 1, timedOut: false, timeoutSeconds: 600, output: '', facts: facts(2, 1), tests };
    const v = judgeRed(o, { command: 'jest', redConfirm: /AssertionError/, buildError: null, changedTests: ['t/a.test.js'], root: '/r', isNew: (x) => isNewOrChanged(x, new Set(['t/a.test.js']), () => before, () => after) });
    expect(v.valid).toBe(false);
    expect(v.reason).toMatch(/not written or changed in this cycle \(failing: t\/a\.test\.js::cart > old\)/);
  });

  it('GREEN holds a freeze keyed by an older version’s names (the runner’s) through the labels; one test never answers for two', () => {
    const now = ids(datesRun(1_800_000_000_000, true), { 't/d.test.js': DATES });
    const o: RunOutcome = { exitCode: 0, timedOut: false, timeoutSeconds: 600, output: '', facts: facts(6, 0), tests: now };
    // an old freeze: static names as the runner gave them (the dynamic ones it could never have matched)
    const legacy = { 't/d.test.js::dates > 1': 'passed', 't/d.test.js::dates > same': 'passed' } as const;
    expect(judgeGreen(o, 'jest', { tests: legacy, redTests: [], counts: null })).toMatchObject({ valid: true });
    // the new ids
    const frozen = Object.fromEntries(now.map((x) => [x.id, 'passed' as const]));
    expect(judgeGreen(o, 'jest', { tests: frozen, redTests: [], counts: null })).toMatchObject({ valid: true });
    // a frozen id that is gone is missing, even if another frozen test's name spells it
    const one: IdentifiedTest[] = [{ ...now[3]!, label: 't/d.test.js::dates > same [#2]' }];
    const v = judgeGreen({ ...o, facts: facts(1, 0), tests: one }, 'jest', { tests: { [now[3]!.id]: 'passed', [now[4]!.id]: 'passed' }, redTests: [], counts: null });
    expect(v.reason).toMatch(/1 frozen tests did not run: t\/d\.test\.js::dates > same \[#2\]/);
  });

  it('a failing test is named with what the run called it', () => {
    const now = ids(datesRun(1_800_000_000_000, true).map((x, i) => (i === 1 ? { ...x, status: 'failed' as const } : x)), { 't/d.test.js': DATES });
    const v = judgeGreen({ exitCode: 1, timedOut: false, timeoutSeconds: 600, output: '', facts: facts(6, 1), tests: now }, 'jest', null);
    expect(v.reason).toBe('1 of 6 tests fail: t/d.test.js::dates > %s [#2] (this run: "dates > 1800000000000"); fix the source (not the tests) and verify again');
  });
});
