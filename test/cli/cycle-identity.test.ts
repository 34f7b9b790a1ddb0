import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli, ok, project, readState, redToGreen, startRed } from './fixtures.js';
import type { TestRepo } from '../helpers/repo.js';

/**
 * Test names that change every run, and titles written twice, in an old file nobody touches in
 * the cycle: every test is known by its declaration, so the freeze holds each of them and every
 * later run finds each of them again.
 */
const DYNAMIC = (imports: string) =>
  [
    imports,
    "describe('clock', () => {",
    '  test.each([[new Date()], [Date.now()], [1]])(\'%s\', (d) => {',
    '    expect(d).toBeTruthy();',
    '  });',
    "  test.each([['x'], ['x']])('same row %s', (v) => {",
    "    expect(v).toBe('x');",
    '  });',
    "  test('twice', () => {",
    '    expect(1).toBe(1);',
    '  });',
    "  test('twice', () => {",
    '    expect(2).toBe(2);',
    '  });',
    '  it(`at ${Date.now()} ms`, () => {',
    '    expect(true).toBe(true);',
    '  });',
    '});',
    '',
  ].join('\n');

const DYNAMIC_IDS = (file: string) => [
  `${file}::clock > %s [#1]`,
  `${file}::clock > %s [#2]`,
  `${file}::clock > %s [#3]`,
  `${file}::clock > same row %s [#1]`,
  `${file}::clock > same row %s [#2]`,
  `${file}::clock > twice [#1]`,
  `${file}::clock > twice [#2]`,
  `${file}::clock > at \${Date.now()} ms`,
];

interface Receiptish {
  counts: { total: number; failed: number; passed: number };
  tests: Record<string, string>;
  red_tests: string[];
}

/** RED → freeze → GREEN → REFACTOR → done on a project whose old file holds DYNAMIC. */
function cycle(repo: TestRepo, oldFile: string, add: { test: string; file: string; stub: string; real: string; src: string }): void {
  startRed(repo);
  repo.write(add.file, add.test);
  repo.write(add.src, add.stub);
  const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Receiptish;
  // every test the runner counted has its own id: 8 old ones and the new one
  expect(red.counts).toMatchObject({ total: 9, failed: 1 });
  expect(Object.keys(red.tests)).toHaveLength(9);
  expect(Object.keys(red.tests).filter((id) => id.startsWith(`${oldFile}::`)).sort()).toEqual(DYNAMIC_IDS(oldFile).sort());
  expect(red.red_tests).toEqual([`${add.file}::adds`]);

  redToGreen(repo);
  const frozen = readState(repo).frozen as unknown as { tests: Record<string, string> };
  expect(Object.keys(frozen.tests)).toHaveLength(9);

  repo.write(add.src, add.real);
  // a later run: every dynamic name has moved on, every frozen test is found again
  const green = JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout) as Receiptish;
  expect(green.counts).toMatchObject({ total: 9, passed: 9 });
  expect(Object.keys(green.tests).sort()).toEqual(Object.keys(frozen.tests).sort());
  ok(cli(repo, 'advance', 'refactor'));
  ok(cli(repo, 'verify', 'refactor'));
  ok(cli(repo, 'done'));
  expect(readState(repo).phase).toBe('done');
  const [evidenceFile] = readdirSync(repo.path('.tdd/evidence'));
  const evidence = JSON.parse(readFileSync(repo.path(`.tdd/evidence/${evidenceFile}`), 'utf8')) as { tests: { id: string; red: string | null; green: string | null }[] };
  // one line per test, each seen in RED and in the final run
  expect(evidence.tests).toHaveLength(9);
  for (const t of evidence.tests) expect([t.id, t.red !== null, t.green]).toEqual([t.id, true, 'passed']);
}

describe('test identity that survives the run, through the built CLI', () => {
  it('jest: test.each rows of Date and Date.now, repeated titles, a template title, in an old untouched file, to done', { timeout: 180_000 }, () => {
    const repo = project('jest', { '__tests__/clock.test.js': DYNAMIC('') });
    cycle(repo, '__tests__/clock.test.js', {
      file: '__tests__/add.test.js',
      test: "const { add } = require('../src/add');\ntest('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n",
      src: 'src/add.js',
      stub: '// STUB:TDD\nfunction add(_a, _b) {\n  return 0;\n}\nmodule.exports = { add };\n',
      real: 'function add(a, b) {\n  return a + b;\n}\nmodule.exports = { add };\n',
    });
  });

  it('vitest: the same file in TypeScript, to done', { timeout: 180_000 }, () => {
    const repo = project('vitest', { 'tests/clock.test.ts': DYNAMIC("import { describe, expect, it, test } from 'vitest';") });
    cycle(repo, 'tests/clock.test.ts', {
      file: 'tests/add.test.ts',
      test: "import { expect, test } from 'vitest';\nimport { add } from '../src/add.js';\ntest('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n",
      src: 'src/add.ts',
      stub: '// STUB:TDD\nexport function add(_a: number, _b: number): number {\n  return 0;\n}\n',
      real: 'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
    });
  });

  it('RED is not an old failing test whose neighbour was appended in the same describe; a new failing test beside it is', { timeout: 180_000 }, () => {
    const OLD = "import { describe, expect, test } from 'vitest';\nimport { total } from '../src/cart.js';\n\ndescribe('cart', () => {\n  test('totals one item', () => {\n    expect(total([2])).toBe(2);\n  });\n});\n";
    // the source is broken before the cycle starts: the old test already fails
    const repo = project('vitest', { 'tests/cart.test.ts': OLD, 'src/cart.ts': 'export function total(items: number[]): number {\n  return items.length - 1;\n}\n' });
    startRed(repo);
    // a new, passing test appended inside the same describe
    repo.write('tests/cart.test.ts', OLD.replace('\n});\n', "\n  test('totals nothing', () => {\n    expect(total([])).toBe(-1);\n  });\n});\n"));
    const refused = ok(cli(repo, 'verify', 'red'), 1).stderr;
    expect(refused).toMatch(/the failing tests were not written or changed in this cycle \(failing: tests\/cart\.test\.ts::cart > totals one item\)/);
    // a new test that fails on its assertion makes RED, and only it counts
    repo.write('tests/cart.test.ts', OLD.replace('\n});\n', "\n  test('totals two items', () => {\n    expect(total([2, 3])).toBe(5);\n  });\n});\n"));
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Receiptish;
    expect(red.red_tests).toEqual(['tests/cart.test.ts::cart > totals two items']);
    expect(red.tests).toMatchObject({ 'tests/cart.test.ts::cart > totals one item': 'failed', 'tests/cart.test.ts::cart > totals two items': 'failed' });
  });
});
