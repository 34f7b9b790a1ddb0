// The quick check's path words, found by hand on every Bash call with no cycle, held to the
// regular expression they replace (docs/performance.md: no regular expression on the hot path).
import { describe, expect, it } from 'vitest';
import { pathWords } from '../../src/state/projectDirs.js';

const PATH_WORD = /(?:^|[\s'"=:(<>])((?:~|\/)[^\s'";|&<>()`$]*)/g;
function byRegex(command: string): string[] {
  const out = new Set<string>();
  for (const m of command.matchAll(PATH_WORD)) {
    if (m[1] !== undefined && m[1].length > 1) out.add(m[1]);
    if (out.size >= 32) break;
  }
  return [...out];
}

describe('pathWords', () => {
  it.each([
    'cat /repo/tests/a.test.ts > /tmp/x',
    'cd ~/proj && npx vitest run',
    "echo 'x' >>/repo/a.ts; cp \"/a b/c\" ~ ~/d",
    'A=/x:/y B=(/z) <(/w) >/v `ls /u` $(/t)',
    '/abs/start ~ ~/ // /./x /a/../b',
    'x=~user/y\u00a0/nbsp\u2028/ls\ufeff/bom\t/tab',
    'a/b c/d http://host/p file:///f',
    Array.from({ length: 40 }, (_v, i) => `/p${i}`).join(' '),
    '',
  ])('%j as the expression finds them', (command) => {
    expect(pathWords(command)).toEqual(byRegex(command));
  });

  it('agrees with the expression on random commands over the characters that matter', () => {
    const alphabet = ['/', '~', 'a', '.', ' ', '\t', '\n', '\u00a0', "'", '"', '=', ':', '(', ')', '<', '>', ';', '|', '&', '`', '$', '-'];
    let seed = 42;
    const next = () => (seed = (seed * 48271) % 2147483647); // Park–Miller: exact in doubles
    let words = 0;
    for (let n = 0; n < 3000; n++) {
      const length = next() % 40;
      let command = '';
      for (let i = 0; i < length; i++) command += alphabet[next() % alphabet.length];
      words += byRegex(command).length;
      expect(pathWords(command), JSON.stringify(command)).toEqual(byRegex(command));
    }
    expect(words).toBeGreaterThan(500);
  });
});
