import { minimatch } from 'minimatch';
import { describe, expect, it } from 'vitest';
import { compileGlobs } from '../../src/state/rules/globs.js';

const PATTERNS = [
  'tests/**', 'tests/**/*.ts', '**/*.test.ts', '**/**/*.ts', 'a/**/**/b', '*a*b*', 'x**y.ts', '*.test.ts.*', '?', '??.ts', '**/*.test.*', '*.spec.ts', 'src/**', 'a/**/b', '**', '*', 'conftest.py',
  'vitest.config.*', '.mocharc*', 'test_*.py', '**/__tests__/**', 'src/*/index.ts', 'x?y.ts', 'lib/**/*_test.go', 'tésts/**',
  '**/*.тест.ts', 'a.b', 'tests/**/fixtures/**', 'src/**/*.{ts,tsx}', '[t]ests/**', '**/*.+(ts|js)',
];
const PATHS = [
  'tests', 'tests/a.ts', 'tests/a/b/c.ts', 'tests/.hidden/x.ts', 'a.test.ts', 'src/a.test.ts', 'src/deep/x.test.js', 'src/a.ts',
  'src/.dot.ts', 'a/b', 'a/x/y/b', 'ab', 'a/bb', 'conftest.py', 'pkg/conftest.py', 'vitest.config.ts', 'vitest.config.mts',
  '.mocharc.json', 'test_x.py', 'app/test_x.py', 'src/__tests__/a.ts', '__tests__/x', 'src/app/index.ts', 'src/a/b/index.ts',
  'xzy.ts', 'x/y.ts', 'lib/a_test.go', 'lib/x/y/a_test.go', 'tésts/ünï.ts', 'src/файл.тест.ts', 'a.b', 'aXb', 'tests/x/fixtures/d.json',
  'src/c.tsx', 'src/c.ts', 'tests/a.test.ts', 'x.ts', '.ts', 'a/.b', 'A.TEST.TS', 'TESTS/a.ts',
  'tests/', 'a//b', 'a/x//b', '', 'test_.py', 'test_a_b.py', 'Tésts/x', 'TÉSTS/x', 'ſrc/a.ts', 'x*y.ts', 'xyy.ts', 'ab.test.ts.test.ts',
];

describe('compileGlobs agrees with minimatch (dot: true), base-name rule included', () => {
  for (const nocase of [false, true]) {
    it.each(PATTERNS)(`${nocase ? 'nocase' : 'case'}: %s`, (pattern) => {
      const ours = compileGlobs([pattern], nocase);
      for (const p of PATHS) {
        const subject = pattern.includes('/') ? p : p.slice(p.lastIndexOf('/') + 1);
        const expected = minimatch(subject, pattern, { dot: true, nocase, nocomment: true, nonegate: true });
        expect({ pattern, path: p, match: ours(p) }).toEqual({ pattern, path: p, match: expected });
      }
    });
  }
});

describe('a list of globs matches what any one of them matches', () => {
  for (const nocase of [false, true]) {
    it(`${nocase ? 'nocase' : 'case'}: every pattern at once`, () => {
      const all = compileGlobs(PATTERNS, nocase);
      for (const p of PATHS) {
        const expected = PATTERNS.some((pattern) => compileGlobs([pattern], nocase)(p));
        expect({ path: p, match: all(p) }).toEqual({ path: p, match: expected });
      }
    });
  }
  it('reads ./ as the root and an empty list as matching nothing', () => {
    expect(compileGlobs(['./tests/**'], false)('tests/a.ts')).toBe(true);
    expect(compileGlobs([], false)('tests/a.ts')).toBe(false);
  });
});
