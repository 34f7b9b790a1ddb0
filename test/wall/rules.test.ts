import { describe, expect, it } from 'vitest';
import { hardeningFor, type HardeningFacts } from '../../src/wall/rules/sandbox.js';
import { coveringEntry, strayPlaceholders, wallCandidates, wallDenyList, type WallPathFacts } from '../../src/wall/rules/controlPaths.js';
import { explainStops, loopbackRefused, wallStops } from '../../src/wall/rules/explain.js';
import { longTmpLine, shortTmpFor, wallMode } from '../../src/wall/rules/mode.js';

const BASE: WallPathFacts = {
  root: '/p',
  home: '/h',
  xdgConfigHome: null,
  zdotdir: null,
  gitDir: '/p/.git',
  gitCommonDir: '/p/.git',
  frozen: false,
  specPath: 'specs/SPEC-001.md',
  frozenFiles: ['test/a.test.js', 'vitest.config.ts'],
  testDirs: ['test'],
  recordDirs: ['/h/.claude/plugins/data/tdd-gate'],
  runnerRoots: ['/p/node_modules/vitest'],
  pythonUserSites: ['/h/.local/lib/python3.12/site-packages'],
  nestedInstructionFiles: ['pkg/CLAUDE.md'],
};

const paths = (f: WallPathFacts) => wallCandidates(f).map((p) => p.path);

describe('the wall holds the whole control set in every phase', () => {
  const every = [
    '/p/.tdd', '/p/.git/tdd-gate', '/h/.claude/plugins/data/tdd-gate', '/p/.git/HEAD',
    '/p/.claude/settings.json', '/p/.claude/settings.local.json', '/p/.claude/rules', '/p/.claude/output-styles', '/p/.claude/scheduled_tasks.json', '/p/.claude/CLAUDE.md',
    '/p/CLAUDE.md', '/p/CLAUDE.local.md', '/p/pkg/CLAUDE.md', '/h/.claude/settings.json', '/h/.claude/CLAUDE.md', '/h/.claude.json',
    '/p/.git/config', '/p/.git/hooks', '/p/.git/info', '/h/.gitconfig', '/h/.config/git', '/p/.gitattributes',
    '/h/.npmrc', '/p/.npmrc', '/h/.config/pip', '/h/.local/lib/python3.12/site-packages',
    '/h/.bashrc', '/h/.bash_profile', '/h/.profile', '/h/.zshrc', '/h/.zshenv', '/p/specs/SPEC-001.md',
  ];
  it.each(['plan/red', 'green/refactor'])('%s', (phase) => {
    const got = paths({ ...BASE, frozen: phase === 'green/refactor' });
    expect(got).toEqual(expect.arrayContaining(every));
  });
  it('the frozen set, the test directories and the runner only from the freeze on', () => {
    const frozen = ['/p/test/a.test.js', '/p/vitest.config.ts', '/p/test', '/p/node_modules/vitest'];
    expect(paths({ ...BASE, frozen: true })).toEqual(expect.arrayContaining(frozen));
    for (const p of frozen) expect(paths(BASE)).not.toContain(p);
  });
  it('follows XDG_CONFIG_HOME, ZDOTDIR, a worktree\'s common git dir; a missing runner list is no runner', () => {
    const got = paths({ ...BASE, xdgConfigHome: '/x', zdotdir: '/z', gitDir: '/r/.git/worktrees/w', gitCommonDir: '/r/.git', runnerRoots: [], frozen: true });
    expect(got).toEqual(expect.arrayContaining(['/x/git', '/x/pip', '/x/npm', '/z/.zshrc', '/r/.git/worktrees/w/config', '/r/.git/config', '/r/.git/hooks', '/r/.git/tdd-gate', '/r/.git/worktrees/w/HEAD']));
    expect(got).not.toContain('/h/.config/git');
    expect(got.some((p) => p.includes('node_modules'))).toBe(false);
  });
  it('lists each path once', () => {
    const got = paths({ ...BASE, frozen: true, frozenFiles: ['specs/SPEC-001.md', 'test/a.test.js'] });
    expect(new Set(got).size).toBe(got.length);
  });
});

describe('a missing path: no placeholder in the project outside .claude/', () => {
  const candidates = wallCandidates(BASE);
  const writable = ['/p', '/h/.cache', '/tmp'];
  const cases: [string, boolean][] = [
    ['/p/CLAUDE.md', false], // the root's missing control files: the identity check covers their creation
    ['/p/.npmrc', false],
    ['/p/.gitattributes', false],
    ['/p/.claude/rules', false], // a placeholder there reads as a created instruction file to the identity check
    ['/p/.claude/settings.json', false],
    ['/h/.bashrc', true], // home is not writable: no placeholder, the sandbox refuses the creation
    ['/h/.gitconfig', true],
    ['/tmp/h/.bashrc', false], // a home inside a writable temp folder: a placeholder there breaks every shell and git
  ];
  it.each(cases)('%s missing -> listed: %s', (p, listed) => {
    const all = p.startsWith('/tmp/h/') ? wallCandidates({ ...BASE, home: '/tmp/h' }) : candidates;
    const exists = new Set(all.map((c) => c.path).filter((c) => c !== p));
    expect(wallDenyList(all, exists, writable, '/p').some((c) => c.path === p)).toBe(listed);
  });
  it('an existing one is always listed', () => {
    const exists = new Set(candidates.map((c) => c.path));
    expect(wallDenyList(candidates, exists, writable, '/p')).toHaveLength(candidates.length);
  });
});

describe('strays: leftover placeholders only', () => {
  const f = (rel: string, size = 0, kind: 'file' | 'dir' | 'other' = 'file', tracked = false) => ({ rel, size, kind, tracked });
  it.each([
    [[f('.bashrc')], [], ['.bashrc']],
    [[f('.bash_profile'), f('.claude/rules', 0, 'dir')], [], ['.bash_profile', '.claude/rules']],
    [[f('.bashrc', 12)], [], []], // has content: the person's
    [[f('.bashrc', 0, 'file', true)], [], []], // tracked
    [[f('.bashrc')], ['.bashrc'], []], // there before the wall
    [[f('.claude/rules', 2, 'dir')], [], []], // a folder with files
    [[f('notes.txt')], [], []], // not a placeholder name
    [[f('.npmrc', 0, 'other')], [], []], // a link or device
  ] as const)('%j (present at start %j) -> %j', (files, present, want) => {
    expect(strayPlaceholders(files, new Set(present))).toEqual(want);
  });
});

describe('wall mode', () => {
  it.each([
    [undefined, null, true, 'up', false],
    ['auto', null, true, 'up', false],
    ['off', null, true, 'off', false],
    ['on', null, true, 'up', true],
    [undefined, 'on', true, 'up', true],
    [undefined, 'off', true, 'off', false],
    ['on', 'off', true, 'off', false], // the person's choice for the worktree wins
    ['off', 'on', true, 'up', true],
    [undefined, null, false, 'unavailable', false],
    ['on', null, false, 'unavailable', true],
    [undefined, 'on', false, 'unavailable', true],
    ['off', null, false, 'off', false],
  ] as const)('stack %s, worktree %s, available %s -> %s (required %s)', (stack, worktree, available, kind, required) => {
    const m = wallMode({ stack, worktree, available, problem: 'bwrap missing' });
    expect(m.kind).toBe(kind);
    if (m.kind !== 'off') expect(m.required).toBe(required);
  });
  it('a temporary folder too long for the bridge socket gets a short one', () => {
    expect(shortTmpFor('/tmp')).toBeNull();
    expect(shortTmpFor(`/${'x'.repeat(71)}`)).toBeNull(); // 72 bytes + 35 = 107: fits
    expect(shortTmpFor(`/${'x'.repeat(72)}`)).toBe('/tmp');
    expect(longTmpLine('/tmp')).toBeNull();
    expect(longTmpLine(`/${'x'.repeat(80)}`)).toMatch(/too long for its sandbox's sockets .*TMPDIR=\/tmp claude/);
  });
});

describe('the explanation when the wall stops a write', () => {
  const list = wallCandidates({ ...BASE, frozen: true });
  const cases: [string, string, RegExp][] = [
    ['rm: cannot remove \'.tdd/state-main.json\': Read-only file system', '/p', /cycle's records/],
    ['bash: /h/.bashrc: Read-only file system', '/p', /shell start-up files/],
    ["Error: EROFS: read-only file system, open '/p/test/a.test.js'", '/p', /frozen for this cycle.*TEST_BUG/],
    ['touch: cannot touch \'../.git/hooks/pre-commit\': Read-only file system', '/p/sub', /git's configuration/],
    ['error: could not lock config file /p/.git/config: Read-only file system', '/p', /git -c key=value/],
    ['OSError: [Errno 30] Read-only file system: \'/h/.local/lib/python3.12/site-packages/usercustomize.py\'', '/p', /virtual environment/],
    ['mv: cannot move \'x\' to \'/p/node_modules/vitest/index.js\': Device or resource busy', '/p', /runner's installation/],
    ['sh: ~/.npmrc: Operation not permitted', '/p', /npm's user and project configuration/],
    ['cp: cannot create regular file \'.claude/settings.local.json\': Read-only file system', '/p', /Claude Code's settings/],
  ];
  it.each(cases)('%s', (out, cwd, want) => {
    const text = explainStops(wallStops(out, cwd, '/h', list));
    expect(text).toMatch(want);
    expect(text).toMatch(/^tdd-gate \[os-wall\]:/);
  });
  it.each([
    'touch: cannot touch \'/usr/x\': Read-only file system', // not the wall's
    'wrote /p/.tdd/plans/p.md', // no refusal
    'src/a.js: Read-only file system mentioned in a comment about /p/src/a.js', // a path the wall does not hold
  ])('says nothing for %s', (out) => {
    expect(explainStops(wallStops(out, '/p', '/h', list))).toBeNull();
  });
  it('the covering entry is the closest one', () => {
    expect(coveringEntry('/p/test/a.test.js', list)?.cls).toBe('frozen');
    expect(coveringEntry('/p/.git/hooks/x', list)?.path).toBe('/p/.git/hooks');
  });
});

describe('the section: registries, loopback, short TMPDIR, classes', () => {
  const facts: HardeningFacts = {
    root: '/p', home: '/h', gitDir: '/p/.git', gitCommonDir: '/p/.git', phase: 'tdd-green', specPath: 'specs/S.md', frozenFiles: ['test/a.test.js'], testGlobs: ['test/**'],
    cliCommand: 'node "/plug/dist/cli.mjs"', language: 'typescript', extraDomains: ['npm.example.test'], tmpDirs: ['/tmp'],
    clientTmp: `/${'t'.repeat(80)}`,
  };
  it('allows the configured registry, local binding, a short TMPDIR, and names each entry\'s class', () => {
    const s = hardeningFor(facts)!;
    expect(s.sandbox.network.allowedDomains).toEqual(expect.arrayContaining(['registry.npmjs.org', 'npm.example.test']));
    expect(s.sandbox.network.allowLocalBinding).toBe(true);
    expect(s.env).toEqual({ TMPDIR: '/tmp' });
    expect(s.classes?.['/p/test/a.test.js']).toBe('frozen');
    expect(s.sandbox.filesystem.allowWrite).toEqual(expect.arrayContaining(['/h/.npm', '/h/.cache', '/tmp']));
    expect(hardeningFor({ ...facts, clientTmp: '/tmp' })!.env).toBeUndefined();
  });
});

describe('a refused loopback connection', () => {
  it.each([
    ['ERR ECONNREFUSED', true],
    ['curl: (7) Failed to connect to localhost port 3000 after 0 ms: Couldn\'t connect to server', true],
    ['connect ECONNREFUSED 127.0.0.1:47321', true],
    ['all good', false],
    ['Connection refused by the remote host example.test', false],
  ] as const)('%s -> %s', (out, want) => {
    expect(loopbackRefused(out)).toBe(want);
  });
});
