import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeAtomic } from '../../src/state/atomicWrite.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tdd-gate-atomic-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeAtomic', () => {
  it('creates the parent directories and replaces an existing file whole, leaving no temp file', () => {
    const file = path.join(dir, 'a/b/c.json');
    writeAtomic(file, 'first');
    writeAtomic(file, Buffer.from('second'));
    expect(readFileSync(file, 'utf8')).toBe('second');
    expect(readdirSync(path.dirname(file))).toEqual(['c.json']);
  });

  it.skipIf(process.platform === 'win32')('gives the file and a directory it creates the modes asked for, with fsync', () => {
    const file = path.join(dir, 'cache/entry');
    writeAtomic(file, 'x', { mode: 0o600, dirMode: 0o700, fsync: true });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, 'utf8')).toBe('x');
  });

  it('throws when the rename fails and removes its temp file', () => {
    const target = path.join(dir, 'taken');
    mkdirSync(target);
    writeFileSync(path.join(target, 'inside'), 'keep');
    expect(() => writeAtomic(target, 'x')).toThrow();
    expect(readdirSync(dir)).toEqual(['taken']);
    expect(readFileSync(path.join(target, 'inside'), 'utf8')).toBe('keep');
  });
});
