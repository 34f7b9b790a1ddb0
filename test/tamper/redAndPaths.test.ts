// RED sources and the paths of frozen files (ADR 006): the sources are snapshotted when RED begins
// and put back at the next gated call when they changed other than as a stub; a frozen file's
// directory chain is part of its identity; git commands that change what the index holds for
// frozen paths are writes to them; new files below the frozen test directories are quarantined.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ADD_TEST, IMPL, ev, lab, ok, toGreen, toRed, type Lab } from './fixtures.js';

const ORIGINAL = '// STUB:TDD\nexport function add() { return 0; }\n';

function redLab(): Lab {
  const l = lab();
  l.repo.write('src/add.js', ORIGINAL);
  toRed(l);
  expect(l.pre(ev.write(l.o(), 'README.md', 'x')).decision).toBe('pass');
  return l;
}

function outside(): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-outside-')));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('RED: a source changed by a program the gate never saw is put back unless it is a stub', () => {
  it.each<[string, string]>([
    ['a full implementation', 'export function add(a, b) { return a + b; }\n'],
    ['an implementation with the marker in a string', 'const m = "STUB:TDD";\nexport function add(a, b) { return a + b; }\n'],
    ['the marker far from any function', '// STUB:TDD\n\n\n\n\n\nconst impl = (a, b) => a + b;\nexport { impl as add };\n'.replace('=>', '+')],
  ])('%s', (_name, text) => {
    const l = redLab();
    writeFileSync(l.repo.path('src/add.js'), text);
    const r = l.pre(ev.write(l.o(), 'README.md', 'y'));
    expect(r.decision, r.reason).toBe('deny');
    expect(r.reason).toContain('src/add.js');
    expect(readFileSync(l.repo.path('src/add.js'), 'utf8')).toBe(ORIGINAL);
  });

  it('a stub change (the marker at the function) stays, and the next call passes', () => {
    const l = redLab();
    const stub = '// STUB:TDD\nexport function add(a, b) { throw new Error("not yet"); }\nexport function sub() { return 0; } // STUB:TDD\n';
    writeFileSync(l.repo.path('src/add.js'), stub);
    expect(l.pre(ev.write(l.o(), 'README.md', 'y')).decision).toBe('pass');
    expect(readFileSync(l.repo.path('src/add.js'), 'utf8')).toBe(stub);
  });
});

describe("a frozen file's directory chain is part of its identity", () => {
  it('moved aside and replaced by a link to it: the directory is moved back', () => {
    const l = lab();
    toGreen(l);
    expect(l.pre(ev.write(l.o(), 'README.md', 'x')).decision).toBe('pass');
    const away = path.join(outside(), 'tests-away');
    renameSync(l.repo.path('test'), away);
    symlinkSync(away, l.repo.path('test'));
    const r = l.pre(ev.write(l.o(), 'README.md', 'y'));
    expect(r.decision, r.reason).toBe('deny');
    expect(r.reason).toMatch(/moved back/);
    expect(readFileSync(l.repo.path('test/add.test.js'), 'utf8')).toBe(ADD_TEST);
    expect(l.pre(ev.write(l.o(), 'README.md', 'z')).decision).toBe('pass');
  });

  it.each<[string, (l: Lab) => void]>([
    ['replaced by a link to a copy outside the project (the same bytes)', (l) => {
      const copy = path.join(outside(), 'tests-copy');
      cpSync(l.repo.path('test'), copy, { recursive: true });
      rmSync(l.repo.path('test'), { recursive: true });
      symlinkSync(copy, l.repo.path('test'));
    }],
    ['moved aside and replaced by a copy', (l) => {
      renameSync(l.repo.path('test'), l.repo.path('test.bak'));
      cpSync(l.repo.path('test.bak'), l.repo.path('test'), { recursive: true });
    }],
  ])('%s: fails closed naming the directory; the person accepts it with recover', (_name, attack) => {
    const l = lab();
    toGreen(l);
    expect(l.pre(ev.write(l.o(), 'README.md', 'x')).decision).toBe('pass');
    attack(l);
    for (const input of [ev.write(l.o(), 'README.md', 'y'), ev.write(l.o(IMPL), 'src/add.js', 'x')]) {
      const r = l.pre(input);
      expect(r.decision, r.reason).toBe('deny');
      expect(r.reason).toMatch(/frozen test directory test/);
    }
    // The person accepts the directory as it is now (the frozen files in it were checked and put back).
    ok(l.cli('recover'));
    expect(l.pre(ev.write(l.o(), 'README.md', 'z')).decision).toBe('pass');
    expect(readFileSync(l.repo.path('test/add.test.js'), 'utf8')).toBe(ADD_TEST);
  });
});

describe('git commands that change what the index holds for frozen paths are writes to them', () => {
  it.each([
    'git rm --cached test/add.test.js',
    'git rm -r --cached test',
    'git update-index --force-remove test/add.test.js',
    'git update-index --assume-unchanged test/add.test.js',
    'git read-tree HEAD',
    'git checkout-index -a -f',
    'git checkout-index -f test/add.test.js',
    'git mv test/add.test.js test/old.test.js',
    'git stash',
  ])('GREEN: %s is denied', (command) => {
    const l = lab();
    toGreen(l);
    const r = l.pre(ev.bash(l.o(), command));
    expect(r.decision, r.reason).toBe('deny');
  });

  it.each(['git status', 'git diff', 'git add src/add.js', 'git log --oneline -3', 'git rm --cached README.md', 'git commit -qm wip'])('ordinary git work passes in GREEN: %s', (command) => {
    const l = lab();
    toGreen(l);
    const r = l.pre(ev.bash(l.o(), command));
    expect(r.decision, r.reason).toBe('pass');
  });
});

describe('new files below a frozen test directory are quarantined', () => {
  it('a test, a configuration or code in a new or existing subdirectory is moved out, with an event; run leftovers stay', () => {
    const l = lab();
    l.repo.write('test/helpers/util.js', 'export const x = 1;\n');
    toGreen(l);
    expect(l.pre(ev.write(l.o(), 'README.md', 'x')).decision).toBe('pass');
    mkdirSync(l.repo.path('test/extra'), { recursive: true });
    writeFileSync(l.repo.path('test/extra/more.test.js'), ADD_TEST);
    writeFileSync(l.repo.path('test/helpers/setup.js'), 'globalThis.cheat = 1;\n');
    writeFileSync(l.repo.path('test/extra/run.log'), 'log\n');
    const r = l.pre(ev.write(l.o(), 'README.md', 'y'));
    expect(r.decision, r.reason).toBe('deny');
    expect(r.reason).toMatch(/more\.test\.js|setup\.js/);
    expect(existsSync(l.repo.path('test/extra/more.test.js'))).toBe(false);
    expect(existsSync(l.repo.path('test/helpers/setup.js'))).toBe(false);
    expect(existsSync(l.repo.path('test/extra/run.log'))).toBe(true);
    expect(existsSync(l.repo.path('test/helpers/util.js'))).toBe(true);
    expect(readdirSync(path.join(l.repo.root, '.git', 'tdd-gate', 'quarantine')).length).toBeGreaterThanOrEqual(2);
    expect(readFileSync(l.repo.path('.tdd/events.jsonl'), 'utf8')).toMatch(/hook-restore.*more\.test\.js/);
    expect(l.pre(ev.write(l.o(), 'README.md', 'z')).decision).toBe('pass');
    // Ordinary: the frozen tests still run through the CLI.
    void execFileSync;
  });
});
