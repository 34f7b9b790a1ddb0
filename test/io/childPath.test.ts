import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { childPath, isNormalizedAbsolute } from '../../src/state/childPath.js';

describe.skipIf(path.sep !== '/')('childPath and isNormalizedAbsolute', () => {
  it.each([
    ['/', true],
    ['/a', true],
    ['/a/b.c/..d/.e', true],
    ['/a/', false],
    ['/a//b', false],
    ['/a/./b', false],
    ['/a/../b', false],
    ['/a/.', false],
    ['/a/..', false],
    ['a/b', false],
    ['', false],
    ['//a', false],
  ])('%j normalized and absolute: %s, as path.normalize says', (p, expected) => {
    expect(isNormalizedAbsolute(p)).toBe(expected);
    expect(isNormalizedAbsolute(p)).toBe(path.isAbsolute(p) && path.normalize(p) === p && !(p.length > 1 && p.endsWith('/')));
  });

  it('extends a normalized directory exactly as path.join does', () => {
    for (const dir of ['/', '/a', '/a/b.c']) {
      expect(isNormalizedAbsolute(dir)).toBe(true);
      expect(childPath(dir, 'x', 'y.json')).toBe(path.join(dir, 'x', 'y.json'));
    }
  });
});
