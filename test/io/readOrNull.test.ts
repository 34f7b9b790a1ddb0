import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readOrNull } from '../../src/state/readOrNull.js';

const dir = mkdtempSync(path.join(tmpdir(), 'tdd-gate-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(path.join(dir, 'five'), 'abcde');
mkdirSync(path.join(dir, 'sub'));

describe('readOrNull', () => {
  it.each([
    ['a file', 'five', undefined, 'abcde'],
    ['a file within the limit', 'five', 5, 'abcde'],
    ['a file over the limit', 'five', 4, null],
    ['a missing file', 'none', undefined, null],
    ['a missing file, with a limit', 'none', 10, null],
    ['a directory', 'sub', undefined, null],
    ['a directory, with a limit', 'sub', 10, null],
  ])('%s', (_what, name, limit, expected) => {
    expect(readOrNull(path.join(dir, name), limit)).toBe(expected);
  });
});
