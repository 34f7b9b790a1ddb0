import { describe, expect, it } from 'vitest';
import { normalizeSpec } from '../../src/state/rules/specHash.js';
import { specHash, stateFileName } from '../../src/state/hash.js';

describe('normalizeSpec (DESIGN §2)', () => {
  it.each([
    ['a\r\nb\r\n', 'a\nb'],
    ['a  \t\nb\t', 'a\nb'],
    ['a\n\n\n', 'a'],
    ['a\n  \n\t\n', 'a'],
    ['\n\na', '\n\na'],
    ['a\n\nb', 'a\n\nb'],
    ['', ''],
  ])('%j → %j', (input, expected) => {
    expect(normalizeSpec(input)).toBe(expected);
  });

  it('hashes to 64 lowercase hex characters, the same for equivalent texts', () => {
    expect(specHash('x\r\n')).toMatch(/^[0-9a-f]{64}$/);
    expect(specHash('x\r\n')).toBe(specHash('x  \n\n'));
    expect(specHash('x')).toBe('2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881');
  });
});

describe('stateFileName (DESIGN §2)', () => {
  it.each([
    ['main', /^state-main-[0-9a-f]{6}\.json$/],
    ['feat/login', /^state-feat-login-[0-9a-f]{6}\.json$/],
    ['HEAD', /^state-HEAD-[0-9a-f]{6}\.json$/],
    ['ünï/cødé', /^state--n--c-d--[0-9a-f]{6}\.json$/],
    ['a😀b', /^state-a-b-[0-9a-f]{6}\.json$/],
  ])('%s → %s', (branch, pattern) => {
    expect(stateFileName(branch)).toMatch(pattern);
  });

  it('cuts the slug to 80 characters and keeps the hash of the full name', () => {
    expect(stateFileName('x'.repeat(100))).toBe(`state-${'x'.repeat(80)}-09ecb6.json`);
  });

  it('uses the first 6 hex digits of sha256(branch), computed independently', () => {
    expect(stateFileName('feat/login')).toBe('state-feat-login-d668f0.json');
  });
});
