// The hardening section as a spec table: what each phase protects, and what keeps ordinary work going.
import { describe, expect, it } from 'vitest';
import { unsandboxedVerbs } from '../../src/state/rules/verbs.js';
import { hardeningFor, isPlainCliCall, protectedPaths, wholeDirOf, writablePathEntries, type HardeningFacts } from '../../src/wall/rules/sandbox.js';
import type { Phase } from '../../src/state/schema/state.js';

const facts = (over: Partial<HardeningFacts> = {}): HardeningFacts => ({
  root: '/p',
  home: '/h',
  gitDir: '/p/.git',
  gitCommonDir: '/p/.git',
  phase: 'tdd-red',
  specPath: 'specs/S.md',
  frozenFiles: [],
  testGlobs: ['tests/**', '**/*.test.ts'],
  cliCommand: 'node "/plug/dist/cli.mjs"',
  language: 'typescript',
  extraDomains: [],
  tmpDirs: ['/tmp'],
  ...over,
});

const FROZEN = ['tests/a.test.ts', 'src/b.test.ts', 'vitest.config.ts', 'specs/S.md'];

describe('protectedPaths: what the phase keeps read-only for sandboxed commands', () => {
  const always = ['/p/.git/HEAD', '/p/.tdd', '/p/.claude/settings.json', '/p/.claude/settings.local.json', '/p/.git/tdd-gate', '/h/.claude/settings.json', '/h/.claude.json', '/p/specs/S.md'];
  it.each<[Phase, string[], string[]]>([
    ['tdd-plan', always, ['/p/tests', '/p/tests/a.test.ts']],
    ['tdd-red', always, ['/p/tests', '/p/tests/a.test.ts', '/p/vitest.config.ts']],
    ['tdd-green', [...always, '/p/tests/a.test.ts', '/p/src/b.test.ts', '/p/vitest.config.ts', '/p/tests'], []],
    ['tdd-refactor', [...always, '/p/tests/a.test.ts', '/p/vitest.config.ts', '/p/tests'], []],
  ])('%s protects the control files%s', (phase, present, absent) => {
    const paths = protectedPaths(facts({ phase, frozenFiles: FROZEN })).map((p) => p.path);
    for (const p of present) expect(paths).toContain(p);
    for (const p of absent) expect(paths).not.toContain(p);
  });

  it('never uses a * glob (bubblewrap ignores them on Linux) and lists each path once', () => {
    const paths = protectedPaths(facts({ phase: 'tdd-green', frozenFiles: FROZEN })).map((p) => p.path);
    expect(paths.filter((p) => /[*?[\]{}]/.test(p))).toEqual([]);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('leaves git itself writable (commits are ordinary work) but not the anchor of a linked worktree', () => {
    const paths = protectedPaths(facts({ gitDir: '/main/.git/worktrees/w', gitCommonDir: '/main/.git' })).map((p) => p.path);
    expect(paths).not.toContain('/p/.git');
    expect(paths).toEqual(expect.arrayContaining(['/main/.git/worktrees/w/tdd-gate', '/main/.git/tdd-gate']));
  });
});

describe('wholeDirOf: a test glob that is a whole directory becomes a directory wall', () => {
  it.each([
    ['tests/**', 'tests'],
    ['./test/**', 'test'],
    ['spec/unit/**', 'spec/unit'],
    ['tests/**/*', 'tests'],
    ['**/*.test.ts', null],
    ['test_*.py', null],
    ['tests/**/*.test.ts', null],
    ['../x/**', null],
    ['{a,b}/**', null],
  ])('%s → %s', (glob, dir) => expect(wholeDirOf(glob)).toBe(dir));
});

describe('hardeningFor', () => {
  it('is null when no cycle is active', () => {
    expect(hardeningFor(facts({ phase: 'done' }))).toBeNull();
  });

  it('switches the sandbox on, refuses to run without it, and ignores dangerouslyDisableSandbox', () => {
    const s = hardeningFor(facts())!.sandbox;
    expect(s).toMatchObject({ enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false });
  });

  it('takes exactly the CLI verbs that write .tdd/ out of the sandbox, by the command the skill types', () => {
    const s = hardeningFor(facts())!.sandbox;
    expect(s.excludedCommands).toEqual(unsandboxedVerbs().map((v) => `node "/plug/dist/cli.mjs" ${v} *`));
    expect(s.excludedCommands.some((c) => / (status|harden|stack) /.test(c))).toBe(false);
  });

  it('keeps no cache writable that holds a PATH entry (a planted `node` would run outside the wall)', () => {
    const s = hardeningFor(facts({ pathDirs: ['/usr/bin', '/h/.local/share/pnpm', '/h/.cargo/bin'] }))!.sandbox;
    expect(s.filesystem.allowWrite).not.toContain('/h/.local/share/pnpm');
    expect(s.filesystem.allowWrite).toContain('/h/.cargo/registry');
    expect(writablePathEntries(['/usr/bin', 'node_modules/.bin', '/p/bin', '/p2/bin'], '/p')).toEqual(['node_modules/.bin', '/p/bin']);
  });

  it('keeps package caches and temp writable and the stack registries reachable', () => {
    const s = hardeningFor(facts({ extraDomains: ['npm.example.org', 'bad host'] }))!.sandbox;
    expect(s.filesystem.allowWrite).toEqual(expect.arrayContaining(['/h/.npm', '/h/.cache', '/tmp']));
    expect(s.network.allowedDomains).toEqual(expect.arrayContaining(['registry.npmjs.org', 'npm.example.org']));
    expect(s.network.allowedDomains).not.toContain('bad host');
    expect(hardeningFor(facts({ language: 'python' }))!.sandbox.network.allowedDomains).toEqual(['pypi.org', 'files.pythonhosted.org']);
    expect(hardeningFor(facts({ language: 'cobol' }))!.sandbox.network.allowedDomains).toEqual([]);
  });

  it('denies the file tools the same paths with absolute Edit rules (directories with /**)', () => {
    const h = hardeningFor(facts({ phase: 'tdd-green', frozenFiles: FROZEN }))!;
    expect(h.deny).toEqual(expect.arrayContaining(['Edit(//p/.tdd/**)', 'Edit(//p/.claude/settings.local.json)', 'Edit(//h/.claude.json)', 'Edit(//p/specs/S.md)', 'Edit(//p/tests/a.test.ts)', 'Edit(//p/tests/**)']));
  });

  it('in tdd-plan leaves .tdd/plans/ to the planner\'s Write while covering the rest of .tdd/', () => {
    const h = hardeningFor(facts({ phase: 'tdd-plan' }))!;
    expect(h.deny).not.toContain('Edit(//p/.tdd/**)');
    expect(h.deny).toEqual(expect.arrayContaining(['Edit(//p/.tdd/stack.json)', 'Edit(//p/.tdd/snapshots/**)']));
    expect(h.deny.filter((r) => r.replace(/\/\*\*\)$/, ')').includes('*'))).toEqual([]);
    expect(h.sandbox.filesystem.denyWrite).toContain('/p/.tdd');
  });
});

describe('isPlainCliCall: only one plain CLI call leaves the sandbox', () => {
  const CLI = 'node "/plug/dist/cli.mjs"';
  it.each<[string, boolean]>([
    [`${CLI} status`, true],
    [`${CLI} verify green`, true],
    [`${CLI} init --spec specs/S.md --mode standard`, true],
    [`${CLI} abort --reason 'the user asked: "stop"'`, true],
    [`${CLI} freeze --verdict .tdd-verdict.md 2>&1`, true],
    [`  ${CLI} done --json  `, true],
    [`${CLI} result - --role implementer --ac AC-1 <<'TDD_RESULT_EOF'\nDone.\n\`\`\`tdd-result\nrole: implementer\n\`\`\`\nTDD_RESULT_EOF`, true],
    [`${CLI} verify green && rm -rf .tdd`, false],
    [`${CLI} verify green; ./evil.sh`, false],
    [`${CLI} verify green | tee x`, false],
    [`${CLI} verify green > .tdd/x`, false],
    [`${CLI} verify $(rm -rf .tdd)`, false],
    [`${CLI} verify "$(rm -rf .tdd)"`, false],
    [`${CLI} verify \`rm -rf .tdd\``, false],
    [`${CLI} verify green &`, false],
    [`${CLI} verify green\nrm -rf .tdd`, false],
    [`X=1 ${CLI} verify green`, false],
    [`NODE_OPTIONS=--require=./evil.js ${CLI} done`, false],
    [`cd /p && ${CLI} done`, false],
    [`${CLI} result - <<EOF\n$(rm -rf .tdd)\nEOF`, false],
    [`${CLI} result - <<'EOF'\nx\nEOF\nrm -rf .tdd`, false],
    [`${CLI} result - <<'EOF'\nEOF\nrm -rf .tdd\nEOF`, false],
    [`${CLI}x status`, false],
    [`node /plug/dist/cli.mjs status`, false],
  ])('%j → %s', (command, plain) => expect(isPlainCliCall(command, CLI)).toBe(plain));
});
