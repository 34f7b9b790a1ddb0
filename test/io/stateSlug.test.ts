import { describe, expect, it } from 'vitest';
import { stateSlug } from '../../src/state/rules/stateSlug.js';

// DESIGN §2: every character outside [A-Za-z0-9] as "-", cut to 80 — by code point, as the
// regular expression /[^A-Za-z0-9]/gu reads it.
const reference = (branch: string) => branch.replace(/[^A-Za-z0-9]/gu, '-').slice(0, 80);

describe('stateSlug', () => {
  it.each(['main', 'feat/login', 'HEAD', 'fix_bug-2', 'ünïcode/ветка', 'emoji-😀-x', 'a\u{1D49C}b', 'lone\uD800unit', 'x'.repeat(100), 'é'.repeat(90), ''])('%s', (branch) => {
    expect(stateSlug(branch)).toBe(reference(branch));
  });
  it('matches the DESIGN example', () => {
    expect(stateSlug('feat/login')).toBe('feat-login');
  });
});
