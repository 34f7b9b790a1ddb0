// Merging the hardening section into the person's settings.local.json and restoring it exactly.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { hardeningFor, type HardeningFacts } from '../../src/wall/rules/sandbox.js';
import { carriesHardening, mergeHardening, removeHardening, type JsonObject } from '../../src/wall/rules/sandboxMerge.js';
import { applySection, parseSettings, readRecord, restoreSettings, SETTINGS_REL } from '../../src/wall/settingsMerge.js';

const facts = (phase: HardeningFacts['phase'], frozenFiles: string[] = []): HardeningFacts => ({
  root: '/p', home: '/h', gitDir: '/p/.git', gitCommonDir: '/p/.git', phase, specPath: 's.md', frozenFiles,
  testGlobs: ['tests/**'], cliCommand: 'node "/c/cli.mjs"', language: 'typescript', extraDomains: [], tmpDirs: ['/tmp'],
});
const RED = hardeningFor(facts('tdd-red'))!;
const GREEN = hardeningFor(facts('tdd-green', ['tests/a.test.ts']))!;

function dir(): { root: string; gitDir: string; file: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'tdd-gate-harden-'));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const gitDir = path.join(root, '.git');
  mkdirSync(gitDir);
  return { root, gitDir, file: path.join(root, SETTINGS_REL) };
}

const PERSON_SANDBOX = '{\n    "sandbox": { "enabled": false, "excludedCommands": ["docker *"], "filesystem": { "denyWrite": ["/secret"] } },\n    "permissions": { "allow": ["Bash(npm test)"], "deny": ["Read(.env)"] },\n    "model": "x"\n}\n';
const WITH_COMMENTS = '// my settings\n{\n  /* keep */ "permissions": { "allow": ["Bash(ls)",], },\n  "outputStyle": "terse"\n}\n';

describe('apply then restore gives the person\'s file back byte for byte', () => {
  it.each<[string, string | null]>([
    ['no file at all', null],
    ['an empty object', '{}'],
    ['the person\'s own sandbox keys', PERSON_SANDBOX],
    ['comments, odd spacing and trailing commas', WITH_COMMENTS],
    ['unknown keys and no final newline', '{"futureKey":{"a":[1,2]},"env":{"X":"1"}}'],
  ])('%s', (_name, original) => {
    const d = dir();
    if (original !== null) {
      mkdirSync(path.dirname(d.file), { recursive: true });
      writeFileSync(d.file, original);
    }
    expect(applySection(d.root, d.gitDir, RED, 'tdd-red').changed).toBe(true);
    const during = parseSettings(readFileSync(d.file, 'utf8'));
    expect(carriesHardening(during, RED)).toBe(true);
    // Phase change: the section moves with it; unchanged phase: nothing written.
    expect(applySection(d.root, d.gitDir, GREEN, 'tdd-green').changed).toBe(true);
    expect(applySection(d.root, d.gitDir, GREEN, 'tdd-green').changed).toBe(false);
    expect(carriesHardening(parseSettings(readFileSync(d.file, 'utf8')), GREEN)).toBe(true);
    expect(restoreSettings(d.root, d.gitDir)).toBe('byte-exact');
    if (original === null) {
      expect(existsSync(d.file)).toBe(false);
      expect(existsSync(path.dirname(d.file))).toBe(false);
    } else {
      expect(readFileSync(d.file, 'utf8')).toBe(original);
    }
    expect(readRecord(d.gitDir)).toMatchObject({ original: null, applied: null });
    expect(restoreSettings(d.root, d.gitDir)).toBe('nothing-applied');
  });
});

describe('while the section is in, the person\'s keys stay', () => {
  it('keeps unknown keys and their lists, forces the wall\'s scalars, and sets their excludedCommands aside', () => {
    const d = dir();
    mkdirSync(path.dirname(d.file), { recursive: true });
    writeFileSync(d.file, PERSON_SANDBOX);
    applySection(d.root, d.gitDir, RED, 'tdd-red');
    const s = parseSettings(readFileSync(d.file, 'utf8')) as { sandbox: JsonObject & { filesystem: JsonObject }; permissions: JsonObject; model: string };
    expect(s.model).toBe('x');
    expect(s.sandbox.enabled).toBe(true);
    expect(s.sandbox.excludedCommands).toEqual(RED.sandbox.excludedCommands);
    expect(s.sandbox.filesystem.denyWrite).toEqual(['/secret', ...RED.sandbox.filesystem.denyWrite]);
    expect(s.permissions.allow).toEqual(['Bash(npm test)']);
    expect(s.permissions.deny).toEqual(['Read(.env)', ...RED.deny]);
  });
});

describe('when the client or the person changed the file meanwhile', () => {
  it('restores their change and takes out only what tdd-gate added', () => {
    const d = dir();
    mkdirSync(path.dirname(d.file), { recursive: true });
    writeFileSync(d.file, PERSON_SANDBOX);
    applySection(d.root, d.gitDir, RED, 'tdd-red');
    // The client writes an "always allow" answer into the local settings during the cycle.
    const during = JSON.parse(readFileSync(d.file, 'utf8')) as { permissions: { allow: string[] } };
    during.permissions.allow.push('Bash(make build)');
    writeFileSync(d.file, JSON.stringify(during, null, 2));
    expect(restoreSettings(d.root, d.gitDir)).toBe('merged');
    const after = parseSettings(readFileSync(d.file, 'utf8'));
    const want = parseSettings(PERSON_SANDBOX) as { permissions: { allow: string[] } };
    want.permissions.allow.push('Bash(make build)');
    expect(after).toEqual(want);
  });

  it('goes back to the exact bytes when what is left equals the original (a reformat is not a change)', () => {
    const d = dir();
    mkdirSync(path.dirname(d.file), { recursive: true });
    writeFileSync(d.file, WITH_COMMENTS);
    applySection(d.root, d.gitDir, RED, 'tdd-red');
    writeFileSync(d.file, JSON.stringify(JSON.parse(readFileSync(d.file, 'utf8'))));
    expect(restoreSettings(d.root, d.gitDir)).toBe('byte-exact');
    expect(readFileSync(d.file, 'utf8')).toBe(WITH_COMMENTS);
  });

  it('refuses to merge into a file that is not JSON, and changes nothing', () => {
    const d = dir();
    mkdirSync(path.dirname(d.file), { recursive: true });
    writeFileSync(d.file, '{ not json');
    expect(() => applySection(d.root, d.gitDir, RED, 'tdd-red')).toThrow(/not valid JSON/);
    expect(readFileSync(d.file, 'utf8')).toBe('{ not json');
    expect(readRecord(d.gitDir).applied).toBeNull();
  });
});

describe('mergeHardening / removeHardening (pure)', () => {
  it.each<[string, JsonObject]>([
    ['empty', {}],
    ['own sandbox', { sandbox: { enabled: false, filesystem: { allowWrite: ['/x'] }, network: { allowedDomains: ['a.b'] } } }],
    ['own permissions', { permissions: { deny: ['Edit(//p/.tdd/**)', 'Bash(rm *)'], allow: [] } }],
    ['unrelated', { hooks: {}, env: { A: 'b' } }],
  ])('removing what was merged gives %s back', (_n, original) => {
    expect(removeHardening(mergeHardening(original, GREEN), original, GREEN)).toEqual(original);
  });
});
