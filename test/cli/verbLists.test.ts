// The CLI's verbs have one list the hook reads, src/state/rules/verbs.ts (names, whether each
// changes state, the person's confirmation, the OS wall); the registry holds their code. Here every
// registry verb is tied to its entry, and each list the gate and the wall use is checked against
// the table it is derived from: a verb added, renamed or made read-only in one place fails a test.
import { describe, expect, it } from 'vitest';
import { cliEffect, cliVerb } from '../../src/gate/rules/bash/cliCalls.js';
import type { Arg } from '../../src/gate/rules/bash/words.js';
import { VERBS } from '../../src/cli/registry.js';
import { CONFIRMED_VERBS, READ_ONLY_VERBS, TWO_WORD_VERBS, UNSANDBOXED_VERBS, VERB_TABLE, WRITES_ONLY_WITH, type VerbEntry } from '../../src/state/rules/verbs.js';

const args = (...words: string[]): Arg[] => words.map((w) => ({ text: w, glob: false, raw: w }));
const NAMES = VERBS.map((v) => v.name);
const TABLE = Object.entries(VERB_TABLE) as [string, VerbEntry][];
const firstWord = (name: string) => name.split(' ')[0] as string;

describe('the registry and the verb table are one list', () => {
  it('every registry verb has its entry, every entry its verb, each once', () => {
    expect(new Set(NAMES).size).toBe(NAMES.length);
    expect([...NAMES].sort()).toEqual(TABLE.map(([n]) => n).sort());
  });
});

describe('the lists derived from the table', () => {
  it('read-only: exactly the verbs that change nothing', () => {
    expect([...READ_ONLY_VERBS].sort()).toEqual(TABLE.filter(([, v]) => !v.mutates).map(([n]) => n).sort());
  });

  it('changes only with a flag, and confirmed by the person: exactly the entries that say so', () => {
    expect(WRITES_ONLY_WITH).toEqual(Object.fromEntries(TABLE.filter(([, v]) => v.writesOnlyWith !== undefined).map(([n, v]) => [n, v.writesOnlyWith])));
    expect(CONFIRMED_VERBS).toEqual(Object.fromEntries(TABLE.filter(([, v]) => v.confirm !== undefined).map(([n, v]) => [n, v.confirm])));
    // The verbs that end a cycle or override its bounds, as docs/contracts.md lists them.
    expect(CONFIRMED_VERBS).toEqual({ init: '--force', abort: null, result: '--resume', recover: null });
  });

  it('verbs of two words: exactly the first words of the names that have two', () => {
    expect([...TWO_WORD_VERBS].sort()).toEqual([...new Set(TABLE.filter(([n]) => n.includes(' ')).map(([n]) => firstWord(n)))].sort());
    for (const [n] of TABLE) expect(TWO_WORD_VERBS.has(firstWord(n)), n).toBe(n.includes(' '));
  });

  it('outside the wall: the first words of the verbs that are, each once; verbs sharing a first word share their place', () => {
    expect(new Set(UNSANDBOXED_VERBS).size).toBe(UNSANDBOXED_VERBS.length);
    for (const [n, v] of TABLE) expect(UNSANDBOXED_VERBS.includes(firstWord(n)), n).toBe(v.wall === 'out');
  });
});

describe('the Bash gate reads every verb of the table', () => {
  it.each(NAMES)('`%s` is parsed as that verb, with or without flags and operands after it', (name) => {
    expect(cliVerb(args(...name.split(' ')))).toBe(name);
    expect(cliVerb(args(...name.split(' '), '--json', 'x'))).toBe(name);
    expect(cliVerb(args(...name.split(' '), 'operand'))).toBe(name);
  });

  it.each(TABLE)('`%s`: read, a change, or the person\'s, as its entry says', (name, v) => {
    if (v.writesOnlyWith !== undefined) {
      expect(v.mutates).toBe(true);
      expect(cliEffect(name, [])).toBe('read');
      expect(cliEffect(name, [v.writesOnlyWith])).toBe('change');
    } else if (v.confirm === null) expect(cliEffect(name, [])).toBe('confirm');
    else if (v.confirm !== undefined) {
      expect(cliEffect(name, [])).toBe('change');
      expect(cliEffect(name, [v.confirm])).toBe('confirm');
    } else expect(cliEffect(name, [])).toBe(v.mutates ? 'change' : 'read');
    expect(cliEffect(name, ['--help'])).toBe('read');
  });

  it('a verb the table does not have is a change (fail closed)', () => {
    expect(cliEffect('frobnicate', [])).toBe('change');
    expect(cliEffect('spec', [])).toBe('change');
  });
});

describe('the hardened sandbox lets out exactly the verbs the table places outside the wall', () => {
  it('those that write .tdd/, in the order the sandbox section has always listed them', () => {
    expect(UNSANDBOXED_VERBS).toEqual(['init', 'advance', 'verify', 'freeze', 'revert', 'done', 'abort', 'result', 'handoff', 'context', 'log']);
  });
});
