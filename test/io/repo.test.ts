// The `.git` file of a worktree or submodule, read by hand on every call there, held to the
// regular expression it replaces (docs/performance.md: no regular expression on the hot path).
import { describe, expect, it } from 'vitest';
import { gitdirLine } from '../../src/state/repo.js';

const byRegex = (text: string): string | null => /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1] ?? null;

describe('gitdirLine', () => {
  it.each([
    'gitdir: /repo/.git/worktrees/x\n',
    'gitdir: ../.git/modules/sub',
    'gitdir:/no/space\r\n',
    'gitdir:   spaced path/with  inner  \t\n',
    'gitdir:\n/on/the/next/line\n',
    'first line\ngitdir: /second\n',
    'gitdir: \ngitdir: /second\n',
    'GITDIR: /upper\n',
    ' gitdir: /indented\n',
    'nothing here\n',
    '',
    'gitdir:',
    'gitdir: /a\u2028more',
  ])('%j as the expression reads it', (text) => {
    expect(gitdirLine(text)).toBe(byRegex(text));
  });

  it('agrees with the expression on random files, but never takes white space for the path', () => {
    const parts = ['gitdir:', 'gitdir: /g', ' ', '\t', '\n', '\r', '\r\n', 'a', '/', '\u00a0', '\u2028'];
    let seed = 11;
    const next = () => (seed = (seed * 48271) % 2147483647); // Park–Miller: exact in doubles
    let found = 0;
    for (let n = 0; n < 5000; n++) {
      let text = '';
      const length = next() % 9;
      for (let i = 0; i < length; i++) text += parts[next() % parts.length];
      const want = byRegex(text);
      if (want !== null && want.trim() !== '') found++;
      expect(gitdirLine(text), JSON.stringify(text)).toBe(want === null || want.trim() === '' ? null : want);
    }
    expect(found).toBeGreaterThan(500);
  });

  it.each(['gitdir:  ', 'gitdir: \t\n', 'gitdir:\u00a0'])('%j: no path, where the expression took the blank for one', (text) => {
    expect(byRegex(text)?.trim()).toBe('');
    expect(gitdirLine(text)).toBeNull();
  });
});
