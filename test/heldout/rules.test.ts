import { describe, expect, it } from 'vitest';
import { heldoutPatterns, keepsTwoSets, runnersOf } from '../../src/heldout/rules/defaults.js';
import { assertionOnly, goTestNames, heldoutIdMatcher, heldoutRefusal, judgeRedSets } from '../../src/heldout/rules/sets.js';
import { callReaches, globNamesHeldout, pathReachesHeldout, shellTextReaches, textNamesHeldout, type HeldoutFacts } from '../../src/heldout/rules/reach.js';
import { compileGlobs } from '../../src/state/rules/globs.js';
import { splitGlobs } from '../../src/state/schema/stackGlobs.js';

describe('held-out defaults per runner (collected by the runner, told apart by name)', () => {
  it.each([
    ['npx vitest run', 'tests/add.heldout.test.ts', true],
    ['npx vitest run', 'tests/add.test.ts', false],
    ['node node_modules/jest/bin/jest.js --ci', '__tests__/add.heldout.test.js', true],
    ['node node_modules/jest/bin/jest.js --ci', 'src/add.heldout.spec.tsx', true],
    ['node --test', 'test/add.heldout.test.mjs', true],
    ['node --test', 'test/unit/add.heldout.js', true],
    ['npx mocha', 'test/add.heldout.js', true],
    ['python3 -m pytest -q', 'tests/test_add_heldout.py', true],
    ['python3 -m pytest -q', 'tests/add_heldout_test.py', true],
    ['python3 -m pytest -q', 'tests/test_add.py', false],
    ['go test ./...', 'calc/add_heldout_test.go', true],
    ['go test ./...', 'calc/add_test.go', false],
    ['cargo test --offline', 'tests/heldout_add.rs', true],
    ['cargo test --offline', 'tests/add.rs', false],
    ['make test', 'tests/test_add_heldout.py', true],
  ])('%s: %s held out = %s', (command, rel, held) => {
    expect(compileGlobs(heldoutPatterns({ test_command: command }, splitGlobs), false)(rel)).toBe(held);
  });

  it('stack.json heldout_glob replaces the default', () => {
    const m = compileGlobs(heldoutPatterns({ test_command: 'npx vitest run', heldout_glob: 'tests/hidden/**' }, splitGlobs), false);
    expect([m('tests/hidden/a.test.ts'), m('tests/a.heldout.test.ts')]).toEqual([true, false]);
  });

  it('names runners by their words', () => {
    expect(runnersOf('node /x/node_modules/vitest/vitest.mjs run')).toEqual(['vitest']);
    expect(runnersOf('.venv/bin/python -m pytest -q')).toEqual(['pytest']);
    expect(runnersOf('go test ./... && cargo test')).toEqual(['cargo', 'go']);
  });

  it.each([
    ['standard', true],
    ['light-dispatch', true],
    ['light-inline', false],
    ['prototype-inline', false],
  ])('mode %s keeps two sets: %s', (mode, two) => expect(keepsTwoSets(mode)).toBe(two));
});

describe('RED with two sets (decision table)', () => {
  const held = (id: string) => id.includes('.heldout.');
  it.each([
    { name: 'visible and held-out fail, tests name no criteria', red: ['t/a.test.ts::adds', 't/a.heldout.test.ts::negatives'], criteria: ['AC-1'], ok: true, rule: 'overall' },
    { name: 'no held-out test fails', red: ['t/a.test.ts::adds'], criteria: ['AC-1'], ok: false, rule: 'overall', reason: /no held-out test fails .*the rule overall/ },
    { name: 'only held-out tests fail', red: ['t/a.heldout.test.ts::negatives'], criteria: [], ok: false, rule: 'overall', reason: /no visible test fails/ },
    { name: 'per scenario, both covered', red: ['t/a.test.ts::AC-1 adds', 't/a.test.ts::AC-2 subtracts', 't/a.heldout.test.ts::AC-1 negatives', 't/a.heldout.test.ts::AC-2 zero'], criteria: ['AC-1', 'AC-2'], ok: true, rule: 'per-scenario' },
    { name: 'per scenario, AC-2 has no held-out test', red: ['t/a.test.ts::AC-1 adds', 't/a.test.ts::AC-2 subtracts', 't/a.heldout.test.ts::AC-1 negatives'], criteria: ['AC-1', 'AC-2'], ok: false, rule: 'per-scenario', reason: /scenarios without a failing held-out test: AC-2 \(the rule per scenario/ },
    { name: 'AC-1 is not AC-10', red: ['t/a.test.ts::AC-10 adds', 't/a.heldout.test.ts::AC-1 negatives'], criteria: ['AC-1', 'AC-10'], ok: false, rule: 'per-scenario', reason: /AC-10/ },
  ])('$name', ({ red, criteria, ok, rule, reason }) => {
    const v = judgeRedSets({ redTests: red, isHeldout: held, criteria, heldoutFiles: ['t/a.heldout.test.ts'] });
    expect(v.ok).toBe(ok);
    expect(v.rule).toBe(rule);
    if (!v.ok && reason) expect(v.reason).toMatch(reason);
  });
});

describe('what a refusal may show of a held-out test: its assertion, never its code', () => {
  it.each([
    ['vitest', 'AssertionError: expected -1 to be 6 // Object.is equality\n ❯ tests/add.heldout.test.ts:4:23\n  2| test("negatives", () => {\n  3|   expect(add(-4, 10)).toBe(6);\n   |                       ^', 'AssertionError: expected -1 to be 6 // Object.is equality'],
    ['jest', 'Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 6\nReceived: -1\n\n  2 | test("negatives", () => {\n> 3 |   expect(add(-4, 10)).toBe(6);\n    |                       ^\n    at Object.toBe (__tests__/add.heldout.test.js:3:23)', 'Error: expect(received).toBe(expected) // Object.is equality / Expected: 6 / Received: -1'],
    ['pytest', 'def test_negatives():\n>       assert add(-4, 10) == 6\nE       assert -1 == 6\nE        +  where -1 = add(-4, 10)\n\ntests/test_add_heldout.py:4: AssertionError', 'assert -1 == 6'],
    ['go', '    add_heldout_test.go:7: got -1, want 6', 'got -1, want 6'],
    ['cargo', "thread 'negatives' panicked at tests/heldout_add.rs:3:5:\nassertion `left == right` failed\n  left: -1\n right: 6", 'assertion `left == right` failed /   left: -1 /  right: 6'],
  ])('%s', (_runner, message, shown) => {
    expect(assertionOnly(message, ['tests/add.heldout.test.ts', 'add.heldout.test.ts'])).toBe(shown);
  });

  it('never shows a line naming a hidden file, and says so when nothing is left', () => {
    expect(assertionOnly('Error in tests/secret.heldout.test.ts', ['tests/secret.heldout.test.ts'])).toMatch(/printed no message that can be shown/);
  });

  it('the refusal replaces ids and files by names', () => {
    const r = heldoutRefusal('1 of 2 tests fail: tests/a.heldout.test.ts::negatives; tests/a.heldout.test.ts failed to load', ['tests/a.heldout.test.ts::negatives'], ['tests/a.heldout.test.ts'], [{ name: 'negatives', message: 'expected -1 to be 6' }]);
    expect(r).not.toContain('tests/a.heldout.test.ts');
    expect(r).toContain('held-out test "negatives": expected -1 to be 6');
  });
});

describe('held-out test ids', () => {
  it('by file, and for go by the test functions a held-out file declares', () => {
    const names = goTestNames('package calc\n\nfunc TestAddNegative(t *testing.T) {}\nfunc helper() {}\n');
    expect(names).toEqual(['TestAddNegative']);
    const m = heldoutIdMatcher(['calc/add_heldout_test.go', 'tests/a.heldout.test.ts'], { 'calc/add_heldout_test.go': names });
    expect(['tests/a.heldout.test.ts::x', 'tests/a.test.ts::x', 'example.com/calc::TestAddNegative', 'example.com/calc::TestAddNegative/sub', 'example.com/calc::TestAdd'].map(m)).toEqual([true, false, true, true, false]);
  });
});

describe('what reaches the held-out tests (decision table)', () => {
  const f: HeldoutFacts = {
    root: '/repo',
    files: ['tests/a.heldout.test.ts'],
    others: ['tests/a.test.ts', 'specs/SPEC-001.md'],
    stores: ['/repo/.git/tdd-gate/heldout/0123456789abcdef'],
    gitCommonDir: '/repo/.git',
    pluginData: '/data',
  };
  it.each([
    ['/repo/.git/tdd-gate/heldout/0123456789abcdef/files/tests/a.heldout.test.ts.gz', false, true],
    ['/repo/tests/a.heldout.test.ts', false, true],
    ['/repo/tests/a.test.ts', false, false],
    ['/repo/.git', true, true],
    ['/repo/.git', false, false],
    ['/repo', true, false],
    ['/repo/src', true, false],
  ])('path %s (walks %s): hidden %s', (p, walks, hidden) => expect(pathReachesHeldout(f, p, walks).hidden).toBe(hidden));

  it.each([
    ['*.heldout.test.ts', true],
    ['**/*.ts', false],
    ['tests/a.*', false],
  ])('glob %s: hidden %s', (g, hidden) => expect(globNamesHeldout(f, g).hidden).toBe(hidden));

  it.each([
    ['cat tests/a.heldout.test.ts', false, true],
    ['cat src/add.ts', false, false],
    ['ls .git/tdd-gate', false, true],
    ['cat "$(git rev-parse --git-dir)/x"', false, true],
    ['echo $CLAUDE_PLUGIN_DATA', false, true],
    ['cd .git', false, true],
    ['import zlib', true, true],
    ['import zlib', false, false],
    ['npx vitest run', false, false],
  ])('shell text %j (code %s): hidden %s', (t, code, hidden) => expect(shellTextReaches(f, t, code).hidden).toBe(hidden));

  it.each([
    [{ program: 'zcat', args: [null], paths: [], cwd: '/repo' }, true],
    [{ program: 'zcat', args: ['x.gz'], paths: ['/repo/x.gz'], cwd: '/repo' }, false],
    [{ program: 'zcat', args: [], paths: [], cwd: '/repo' }, true],
    [{ program: 'cp', args: ['-r', '.', '/tmp/x'], paths: ['/repo', '/tmp/x'], cwd: '/repo' }, true],
    [{ program: 'cp', args: ['src/a.ts', '/tmp/'], paths: ['/repo/src/a.ts', '/tmp'], cwd: '/repo' }, false],
    [{ program: 'find', args: ['.', '-name', '*.ts'], paths: ['/repo'], cwd: '/repo' }, false],
    [{ program: 'find', args: ['.', '-exec', 'cat', '{}', ';'], paths: ['/repo'], cwd: '/repo' }, true],
    [{ program: 'xargs', args: ['wc', '-l'], paths: [], cwd: '/repo' }, false],
    [{ program: 'xargs', args: ['zcat'], paths: [], cwd: '/repo' }, true],
    [{ program: null, args: [], paths: [], cwd: '/repo' }, true],
    [{ program: 'tar', args: ['czf', '/tmp/src.tgz', 'src'], paths: ['/repo/src'], cwd: '/repo' }, false],
  ])('call %j: hidden %s', (call, hidden) => expect(callReaches(f, call).hidden).toBe(hidden));

  it('an MCP or search text naming a held-out file', () => {
    expect(textNamesHeldout(f, 'A.HELDOUT.TEST.TS').hidden).toBe(true);
    expect(textNamesHeldout(f, 'tests/a.test.ts').hidden).toBe(false);
  });
});
