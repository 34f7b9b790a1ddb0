import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NATIVE_FROM_BYTES, sha256Hex, sha256Js } from '../../src/state/sha256.js';

const native = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

describe('sha256Js matches node:crypto', () => {
  // Padding edges: a block holds 55 bytes of message with its length; 56..64 spill into a second block.
  const lengths = [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 1000, 4096, NATIVE_FROM_BYTES - 1, NATIVE_FROM_BYTES + 1];
  it.each(lengths)('%i random bytes', (n) => {
    const bytes = randomBytes(n);
    expect(sha256Js(bytes)).toBe(native(bytes));
  });

  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    ['abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq', '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1'],
  ])('the FIPS 180-4 example %j', (text, digest) => {
    expect(sha256Hex(text)).toBe(digest);
  });
});

describe('sha256Hex', () => {
  it.each([
    ['ASCII', 'feat/login'],
    ['multi-byte UTF-8 and an astral character', 'spec: naïve café 日本語 🚀\r\n'],
    ['a lone surrogate (encoded as U+FFFD, like node:crypto)', 'a\ud800b'],
    ['a string past the native threshold', 'requirement text, one line of many\n'.repeat(2000)],
  ])('hashes %s as node:crypto does', (_name, text) => {
    expect(sha256Hex(text)).toBe(native(text));
  });

  it('hashes bytes as node:crypto does, below and above the native threshold', () => {
    for (const n of [10, NATIVE_FROM_BYTES * 2]) {
      const bytes = new Uint8Array(randomBytes(n));
      expect(sha256Hex(bytes)).toBe(native(bytes));
    }
  });
});
