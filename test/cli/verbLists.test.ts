// The CLI's verbs have one list the hook reads, src/state/rules/verbs.ts (names, whether each
// changes state, the person's confirmation, the OS wall); the registry holds their code. Here every
// registry verb is tied to its entry, and each list the gate and the wall use is checked against
// the table it is derived from: a verb added, renamed or made read-only in one place fails a test.
import { describe, expect, it } from 'vitest';
import { cliEffect, cliVerb } from '../../src/gate/rules/bash/cliCalls.js';
import type { Arg } from '../../src/gate/rules/bash/words.js';
import { VERBS } from '../../src/cli/registry.js';
import { readOnlyVerbs, startsTwoWordVerb, unsandboxedVerbs, VERB_TABLE, verbEntry, type VerbEntry } from '../../src/state/rules/verbs.js';

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

describe('the answers derived from the table', () => {
  it('read-only: exactly the verbs that change nothing', () => {
    expect(readOnlyVerbs().sort()).toEqual(TABLE.filter(([, v]) => !v.mutates).map(([n]) => n).sort());
    expect(readOnlyVerbs().sort()).toEqual(['context', 'doctor', 'log', 'spec check', 'stack check', 'status', 'statusline']);
  });

  it('each verb\'s entry, and none for a name the table does not have (not even an inherited key)', () => {
    for (const [n, v] of TABLE) expect(verbEntry(n)).toBe(v);
    for (const n of ['frobnicate', 'spec', 'toString', 'constructor', '__proto__', '']) expect(verbEntry(n), n).toBeUndefined();
  });

  it('confirmed by the person: the verbs that end a cycle or override its bounds, as docs/contracts.md lists them', () => {
    expect(Object.fromEntries(TABLE.filter(([, v]) => v.confirm !== undefined).map(([n, v]) => [n, v.confirm]))).toEqual({ init: '--force', abort: null, result: '--resume', recover: null });
  });

  it('verbs of two words: exactly the first words of the names that have two', () => {
    const firsts = new Set(TABLE.filter(([n]) => n.includes(' ')).map(([n]) => firstWord(n)));
    expect([...firsts].sort()).toEqual(['advance', 'spec', 'stack', 'verify']);
    for (const [n] of TABLE) expect(startsTwoWordVerb(firstWord(n)), n).toBe(firsts.has(firstWord(n)));
    for (const w of ['', 'adv', 'advancer', 'verify red', 'statu']) expect(startsTwoWordVerb(w), w).toBe(false);
  });

  it('outside the wall: the first words of the verbs that are, each once; verbs sharing a first word share their place', () => {
    const out = unsandboxedVerbs();
    expect(new Set(out).size).toBe(out.length);
    for (const [n, v] of TABLE) expect(out.includes(firstWord(n)), n).toBe(v.wall === 'out');
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

  it('`harden status` only reads (it proves the wall from inside the sandbox, where no ticket can be taken); on, off and auto change', () => {
    expect(NAMES).toContain('harden');
    for (const argv of [['harden', 'status'], ['harden', 'status', '--json'], ['harden', '--json', 'status']]) expect(cliEffect('harden', argv), argv.join(' ')).toBe('read');
    for (const argv of [['harden', 'on'], ['harden', 'off'], ['harden', 'auto'], ['harden'], ['harden', 'on', 'status'], ['status', 'harden', 'on']]) expect(cliEffect('harden', argv), argv.join(' ')).toBe('change');
  });

  it('a verb the table does not have is a change (fail closed)', () => {
    expect(cliEffect('frobnicate', [])).toBe('change');
    expect(cliEffect('spec', [])).toBe('change');
  });
});

describe('the hardened sandbox lets out exactly the verbs the table places outside the wall', () => {
  it('those that write .tdd/, in the order the sandbox section has always listed them', () => {
    expect(unsandboxedVerbs()).toEqual(['init', 'advance', 'verify', 'freeze', 'revert', 'done', 'abort', 'result', 'handoff', 'context', 'log']);
  });
});
