// The lists of CLI verbs kept outside the registry, held to it: the Bash gate's view (which words
// make a verb, which verbs are read-only, which confirm) and the hardened sandbox's list of verbs
// that run outside the wall. The hook cannot load the registry (it holds every verb's code), so
// these lists are derived from it here: a verb added, renamed or made read-only there fails a test.
import { describe, expect, it } from 'vitest';
import { cliEffect, cliVerb, READ_ONLY_VERBS, WRITES_ONLY_WITH } from '../../src/gate/rules/bash/cliCalls.js';
import type { Arg } from '../../src/gate/rules/bash/words.js';
import { UNSANDBOXED_VERBS } from '../../src/wall/rules/sandbox.js';
import { VERBS } from '../../src/cli/registry.js';

const args = (...words: string[]): Arg[] => words.map((w) => ({ text: w, glob: false, raw: w }));
const NAMES = VERBS.map((v) => v.name);
const firstWord = (name: string) => name.split(' ')[0] as string;

describe('the Bash gate reads every verb of the registry', () => {
  it.each(NAMES)('`%s` is parsed as that verb, with or without flags and operands after it', (name) => {
    expect(cliVerb(args(...name.split(' ')))).toBe(name);
    expect(cliVerb(args(...name.split(' '), '--json', 'x'))).toBe(name);
    expect(cliVerb(args(...name.split(' '), 'operand'))).toBe(name);
  });

  it('read-only to the gate exactly when the registry says the verb changes nothing', () => {
    const readOnly = VERBS.filter((v) => !v.mutates).map((v) => v.name).sort();
    expect([...READ_ONLY_VERBS].sort()).toEqual(readOnly);
    for (const v of VERBS) {
      const flag = WRITES_ONLY_WITH[v.name];
      // A verb that writes only with a flag reads without it and changes with it.
      if (flag !== undefined) {
        expect(v.mutates, v.name).toBe(true);
        expect(cliEffect(v.name, []), v.name).toBe('read');
        expect(cliEffect(v.name, [flag]), v.name).toBe('change');
      } else expect(cliEffect(v.name, []) === 'read', v.name).toBe(!v.mutates);
    }
  });

  it('names only verbs the registry has', () => {
    for (const name of [...READ_ONLY_VERBS, ...Object.keys(WRITES_ONLY_WITH)]) expect(NAMES).toContain(name);
  });

  it('`harden status` only reads (it proves the wall from inside the sandbox, where no ticket can be taken); on, off and auto change', () => {
    expect(NAMES).toContain('harden');
    for (const argv of [['harden', 'status'], ['harden', 'status', '--json'], ['harden', '--json', 'status']]) expect(cliEffect('harden', argv), argv.join(' ')).toBe('read');
    for (const argv of [['harden', 'on'], ['harden', 'off'], ['harden', 'auto'], ['harden'], ['harden', 'on', 'status'], ['status', 'harden', 'on']]) expect(cliEffect('harden', argv), argv.join(' ')).toBe('change');
  });

  it('a verb the registry does not have is a change (fail closed)', () => {
    expect(cliEffect('frobnicate', [])).toBe('change');
    expect(cliEffect('spec', [])).toBe('change');
  });
});

describe('the hardened sandbox lets verbs of the registry out', () => {
  it('each unsandboxed verb names verbs of the registry', () => {
    for (const verb of UNSANDBOXED_VERBS) expect(NAMES.some((n) => firstWord(n) === verb), verb).toBe(true);
  });

  // A new verb must be placed: outside the wall (it writes .tdd/, which the wall denies) or inside.
  const SANDBOXED = new Set(['stack', 'spec', 'status', 'harden', 'recover', 'doctor', 'statusline', 'audit']);
  it('every verb of the registry is either let out of the sandbox or known to stay in it', () => {
    for (const name of NAMES) {
      const first = firstWord(name);
      expect((UNSANDBOXED_VERBS as readonly string[]).includes(first) !== SANDBOXED.has(first), name).toBe(true);
    }
  });
});
