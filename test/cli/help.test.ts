// `--help` for every verb of the registry and every group of verbs sharing their first words, the
// verdict block `freeze --help` shows, and the README's and docs/cli.md's verb lists held to the
// registry, so a new verb cannot go undocumented and a renamed one cannot linger.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseResult } from '../../src/handoff/rules/block.js';
import { helpFor } from '../../src/cli/help.js';
import { main } from '../../src/cli/main.js';
import { VERBS } from '../../src/cli/registry.js';
import { runCli } from '../helpers/hook.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { cwd: ROOT, env: {}, stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } });
  return { code, stdout, stderr };
}

/** Every proper prefix of a multi-word verb name: "advance" for "advance red". */
const PREFIXES = [...new Set(VERBS.flatMap((v) => v.name.split(' ').slice(0, -1).map((_w, i, words) => words.slice(0, i + 1).join(' '))))];

describe('--help for every verb of the registry', () => {
  it.each(VERBS.map((v) => [v.name, v] as const))('%s: --help, -h and `help <verb>` print its usage and run nothing', async (name, verb) => {
    for (const argv of [[...name.split(' '), '--help'], [...name.split(' '), '-h'], ['help', ...name.split(' ')], [...name.split(' '), '--json', '--help']]) {
      const r = await cli(...argv);
      expect(r, argv.join(' ')).toMatchObject({ code: 0, stderr: '' });
      expect(r.stdout.split('\n')[0]).toBe(`usage: ${verb.usage}`);
      expect(r.stdout).toContain(verb.summary);
    }
  });

  it('the registry has groups to test (advance, verify, stack, spec)', () => {
    expect(PREFIXES).toEqual(expect.arrayContaining(['advance', 'verify', 'stack', 'spec']));
  });

  it.each(PREFIXES)('`%s --help` lists every verb of the group with its usage', async (prefix) => {
    const group = VERBS.filter((v) => v.name.startsWith(`${prefix} `));
    for (const argv of [[...prefix.split(' '), '--help'], [...prefix.split(' '), '-h'], ['help', ...prefix.split(' ')]]) {
      const r = await cli(...argv);
      expect(r, argv.join(' ')).toMatchObject({ code: 0, stderr: '' });
      for (const v of group) expect(r.stdout).toContain(`usage: ${v.usage}`);
      expect(r.stdout).not.toMatch(/unknown verb/u);
    }
  });

  it('an unknown verb or group with --help is still a usage error (exit 2), and a bare group still says which verbs it has', async () => {
    expect(await cli('frobnicate', '--help')).toMatchObject({ code: 2, stdout: '' });
    expect((await cli('help', 'frobnicate')).code).toBe(2);
    const bare = await cli('advance');
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/did you mean `advance red` or `advance refactor`/u);
  });

  it('the built CLI answers `advance --help` and `freeze --help` (exit 0)', () => {
    const advance = runCli(ROOT, ['advance', '--help']);
    expect(advance.status).toBe(0);
    expect(advance.stdout).toContain('usage: tdd-gate advance red --plan <path>');
    expect(advance.stdout).toContain('usage: tdd-gate advance refactor');
    expect(runCli(ROOT, ['freeze', '--help']).stdout).toContain('role: test-validator');
  });
});

describe('freeze --help shows the verdict it needs', () => {
  it('a fenced tdd-result block that the freeze parser reads as a test-validator PASS', async () => {
    const r = await cli('freeze', '--help');
    const block = /```tdd-result\n[\s\S]*?\n```/u.exec(r.stdout)?.[0];
    expect(block, r.stdout).toBeDefined();
    const parsed = parseResult(`The validator's message.\n\n${block}`, { role: 'test-validator' });
    expect(parsed.ok, JSON.stringify(parsed)).toBe(true);
    if (parsed.ok) expect(parsed.result).toMatchObject({ role: 'test-validator', status: 'ok', verdict: 'PASS' });
  });

  it('result --help shows a block the result parser accepts for its role', async () => {
    const r = await cli('result', '--help');
    const block = /```tdd-result\n[\s\S]*?\n```/u.exec(r.stdout)?.[0] ?? '';
    const parsed = parseResult(block.replace(/<[^>\n]+>/gu, 'x'), { role: 'implementer', ac: 'AC-1' });
    expect(parsed.ok, JSON.stringify(parsed)).toBe(true);
  });
});

describe('helpFor: any registry, any depth (pure)', () => {
  const verb = (name: string) => ({ name, summary: `does ${name}`, usage: `tdd-gate ${name} [x]` });
  const registry = [verb('one'), verb('two a'), verb('two b'), verb('three x y'), verb('three x z'), verb('three w')];
  it.each([
    [['one'], 'usage: tdd-gate one [x]'],
    [['one', 'extra'], 'usage: tdd-gate one [x]'],
    [['two', 'a', '--flag'], 'usage: tdd-gate two a [x]'],
    [['two'], 'tdd-gate two: `two a`, `two b`'],
    [['three'], 'tdd-gate three: `three x y`, `three x z`, `three w`'],
    [['three', 'x'], 'tdd-gate three x: `three x y`, `three x z`'],
    [['three', 'x', 'q'], 'tdd-gate three x: `three x y`, `three x z`'],
    [['three', 'x', 'z'], 'usage: tdd-gate three x z [x]'],
  ])('%j', (args, first) => {
    expect(helpFor(args, registry)?.split('\n')[0]).toBe(first);
  });
  it.each([[[]], [['four']], [['--help']], [['tw']]])('%j has no help', (args) => {
    expect(helpFor(args, registry)).toBeNull();
  });
});

/** `a b|c` → `a b`, `a c`; `harden on|off` → `harden on`, `harden off`. */
function expand(item: string): string[] {
  const words = item.split(' ');
  const last = words.pop() ?? '';
  return last.split('|').map((alt) => [...words, alt].join(' '));
}

/** The verb names a list of backticked items covers: an item names a verb, or a verb with its argument. */
function covered(items: string[]): { names: Set<string>; strays: string[] } {
  const names = new Set<string>();
  const strays: string[] = [];
  for (const item of items.flatMap(expand)) {
    const verb = [...VERBS].sort((a, b) => b.name.length - a.name.length).find((v) => item === v.name || item.startsWith(`${v.name} `));
    if (verb) names.add(verb.name);
    else strays.push(item);
  }
  return { names, strays };
}

/** The words of a usage before its first argument or flag: `spec check <file> [--draft]` → `spec check`. */
function leadingWords(usage: string): string {
  const words = usage.split(' ');
  const end = words.findIndex((w) => /^[[<-]/u.test(w));
  return (end === -1 ? words : words.slice(0, end)).join(' ');
}

describe('the documented verb lists are the registry', () => {
  it("README's CLI list names every verb and nothing else", () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = /^## The CLI\n([\s\S]*?)^## /mu.exec(readme)?.[1] ?? '';
    const items = section
      .replace(/\n {2}(?=\S)/gu, ' ') // a bullet's continuation lines
      .split('\n')
      .filter((l) => l.startsWith('- '))
      .flatMap((l) => [...l.matchAll(/`([^`]+)`/gu)].map((m) => m[1]!));
    expect(items.length).toBeGreaterThan(0);
    const { names, strays } = covered(items);
    expect(strays).toEqual([]);
    expect([...names].sort()).toEqual(VERBS.map((v) => v.name).sort());
  });

  it('docs/cli.md has a row for every verb', () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
    const firstCells = doc
      .split('\n')
      .filter((l) => l.startsWith('| `tdd-gate '))
      .map((l) => l.split(/(?<!\\)\|/u)[1] ?? '');
    const items = firstCells.flatMap((c) => [...c.matchAll(/`tdd-gate ([^`]+)`/gu)].map((m) => leadingWords(m[1]!.replace(/\\\|/gu, '|'))));
    const { names, strays } = covered(items);
    expect(strays).toEqual([]);
    expect([...names].sort()).toEqual(VERBS.map((v) => v.name).sort());
  });
});
