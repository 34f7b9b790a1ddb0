import { describe, expect, it } from 'vitest';
import { analyzeBash } from '../../src/gate/rules/bash/analyze.js';
import { CORPUS } from './corpus.js';

/** Mutated corpus commands (a fixed seed, so failures reproduce): the analysis never throws, and stays fast. */
describe('Bash analysis on mangled input', () => {
  it('neither throws nor takes long on 3,000 mutations of corpus commands', () => {
    const ctx = { cwd: '/r', home: '/h', root: '/r' };
    const alphabet = ' \'"`$(){}[]<>|&;\\\n*?~=-!#%019az/.,:@^+';
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)] as T;
    let slowest = 0;
    for (let i = 0; i < 3000; i++) {
      let s = pick(CORPUS).cmd;
      for (let j = 0, k = 1 + Math.floor(rnd() * 4); j < k; j++) {
        const at = Math.floor(rnd() * (s.length + 1));
        const r = rnd();
        s = r < 0.4 ? s.slice(0, at) + pick([...alphabet]) + s.slice(at) : r < 0.7 ? s.slice(0, at) + s.slice(at + 1) : s.slice(0, at) + s.slice(Math.floor(rnd() * s.length));
      }
      const started = performance.now();
      expect(() => analyzeBash(s, ctx), s).not.toThrow();
      slowest = Math.max(slowest, performance.now() - started);
    }
    expect(slowest).toBeLessThan(1000);
  });
});
