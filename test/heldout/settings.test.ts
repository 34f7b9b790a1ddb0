import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hardeningFor, heldoutSection, type HardeningFacts } from '../../src/wall/rules/sandbox.js';
import { mergeHardening, removeHardening } from '../../src/wall/rules/sandboxMerge.js';
import { noWallCase, WALL } from '../hardened/wall.js';
import { cli, ok, project } from '../cli/fixtures.js';
import { filesUnder, toGreen, type RunnerCase } from './fixtures.js';
import type { TestRepo } from '../helpers/repo.js';

const HEADER = "import { expect, test } from 'vitest';\nimport { add } from '../src/add.js';\n";
const MINE = '{\n  // mine\n  "permissions": { "allow": ["Bash(ls)"] },\n}\n';
/** The cycle with the project's `os_wall` (absent: the default, up wherever the sandbox runs). */
function heldoutCase(osWall: 'off' | undefined): RunnerCase {
  return {
    name: 'vitest',
    make: () => project('vitest', { '.claude/settings.local.json': MINE }, { heldout: 'required', ...(osWall !== undefined ? { os_wall: osWall } : {}) }),
    visible: ['tests/add.test.ts', `${HEADER}test('adds two numbers', () => { expect(add(1, 2)).toBe(3); });\n`],
    heldout: ['tests/add.heldout.test.ts', `${HEADER}test('adds negative numbers', () => { expect(add(-4, 10)).toBe(6); });\n`],
    source: 'src/add.ts',
    stub: '// STUB:TDD\nexport function add(_a: number, _b: number): number { return -1; }\n',
    special: '',
    genuine: 'export function add(a: number, b: number): number { return a + b; }\n',
    heldoutName: /x/,
    assertion: /x/,
    secret: ['add(-4, 10)'],
  };
}

interface Settings {
  permissions: { allow: string[]; deny: string[] };
  sandbox?: { enabled?: boolean };
}

/** To GREEN past the freeze; the settings file as the freeze left it and the two Read rules it must hold. */
function frozen(c: RunnerCase): { repo: TestRepo; settings: Settings; readRules: string[] } {
  const repo = c.make();
  toGreen(repo, c);
  const store = filesUnder(`${repo.root}/.git/tdd-gate/heldout`)[0]!.split('/')[0]!;
  const settings = JSON.parse(readFileSync(repo.path('.claude/settings.local.json'), 'utf8')) as Settings;
  return { repo, settings, readRules: [`Read(/${repo.root}/.git/tdd-gate/heldout/${store}/**)`, `Read(/${repo.root}/tests/add.heldout.test.ts)`] };
}

/** The genuine implementation to done: the person's file comes back byte for byte. */
function doneRestores(repo: TestRepo, c: RunnerCase): void {
  repo.write(c.source, c.genuine);
  ok(cli(repo, 'verify', 'green'));
  ok(cli(repo, 'done'));
  expect(readFileSync(repo.path('.claude/settings.local.json'), 'utf8')).toBe(MINE);
}

describe('held-out tests in the client\u2019s own permission rules', () => {
  it('with the OS wall off (`"os_wall": "off"`), the freeze adds exactly the Read deny rules for the store and the files to .claude/settings.local.json; done puts the file back byte for byte', { timeout: 180_000 }, () => {
    const c = heldoutCase('off');
    const { repo, settings, readRules } = frozen(c);
    expect(settings.sandbox).toBeUndefined();
    expect(settings.permissions.allow).toEqual(['Bash(ls)']);
    expect(settings.permissions.deny).toEqual(readRules);
    doneRestores(repo, c);
  });

  noWallCase('held-out Read rules beside the OS wall');
  it.runIf(WALL.ok)('with the OS wall up (the default), the Read rules are among the wall\u2019s own deny rules; done puts the file back byte for byte', { timeout: 180_000 }, () => {
    const c = heldoutCase(undefined);
    const { repo, settings, readRules } = frozen(c);
    expect(settings.sandbox?.enabled).toBe(true);
    expect(settings.permissions.allow).toEqual(expect.arrayContaining(['Bash(ls)']));
    expect(settings.permissions.deny).toEqual(expect.arrayContaining(readRules));
    // The wall's own rules are there too: more than the two Read rules, Edit rules among them.
    expect(settings.permissions.deny.length).toBeGreaterThan(readRules.length);
    expect(settings.permissions.deny.some((r) => r.startsWith('Edit('))).toBe(true);
    doneRestores(repo, c);
  });
});

describe('the sections (pure)', () => {
  const facts: HardeningFacts = {
    root: '/repo', home: '/home/u', gitDir: '/repo/.git', gitCommonDir: '/repo/.git', phase: 'tdd-green', specPath: 'specs/S.md',
    frozenFiles: ['tests/a.test.ts'], testGlobs: ['tests/**'], cliCommand: 'node "/p/dist/cli.mjs"', language: 'typescript', extraDomains: [], tmpDirs: ['/tmp'],
    heldout: { stores: ['/repo/.git/tdd-gate/heldout/abc'], files: ['/repo/tests/a.heldout.test.ts'] },
  };
  it('hardened mode: the OS wall denies reading the store; the Read rules join the Edit rules', () => {
    const s = hardeningFor(facts)!;
    expect(s.sandbox.filesystem.denyRead).toEqual(['/repo/.git/tdd-gate/heldout/abc']);
    expect(s.deny).toEqual(expect.arrayContaining(['Read(//repo/.git/tdd-gate/heldout/abc/**)', 'Read(//repo/tests/a.heldout.test.ts)']));
    expect(hardeningFor({ ...facts, heldout: null })!.sandbox.filesystem.denyRead).toBeUndefined();
  });
  it('without hardened mode: permission rules only, merged and taken out again without touching the person\u2019s sandbox', () => {
    const section = heldoutSection(facts.heldout!);
    const mine = { sandbox: { enabled: false }, permissions: { deny: ['Read(./secrets/**)'] } };
    const merged = mergeHardening(mine, section);
    expect(merged).toEqual({ sandbox: { enabled: false }, permissions: { deny: ['Read(./secrets/**)', ...section.deny] } });
    expect(removeHardening(merged, mine, section)).toEqual(mine);
  });
});
