// The control set (ADR 006): every file that changes what a later program does. During a cycle
// no tool writes it (Write, Edit, Bash writes the analysis sees), and it is checked by identity at
// every gated call against the record taken at `init`: a change made by a program the gate never
// saw is found at the next call, which is denied with a reason naming the file. Outside a cycle,
// and for reading, nothing changes; git's and npm's ordinary work writes none of it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { controlSet, controlWhat, type ControlFacts } from '../../src/tamper/rules/controlSet.js';
import { IMPL, ev, lab, toRed, type Lab } from './fixtures.js';

/** Each member of the set, by where it lies: the project, the git dir, the home. */
const TARGETS: [string, (l: Lab) => string][] = [
  ['CLAUDE.md', (l) => l.repo.path('CLAUDE.md')],
  ['CLAUDE.local.md', (l) => l.repo.path('CLAUDE.local.md')],
  ['a nested CLAUDE.md', (l) => l.repo.path('docs/CLAUDE.md')],
  ['.claude/rules/', (l) => l.repo.path('.claude/rules/style.md')],
  ['.claude/output-styles/', (l) => l.repo.path('.claude/output-styles/terse.md')],
  ['.claude/scheduled_tasks.json', (l) => l.repo.path('.claude/scheduled_tasks.json')],
  ['~/.claude/CLAUDE.md', (l) => path.join(l.home, '.claude', 'CLAUDE.md')],
  ['.gitattributes', (l) => l.repo.path('.gitattributes')],
  ['.npmrc', (l) => l.repo.path('.npmrc')],
  ['.git/config', (l) => l.repo.path('.git/config')],
  ['.git/hooks/', (l) => l.repo.path('.git/hooks/pre-commit')],
  ['.git/info/', (l) => l.repo.path('.git/info/attributes')],
  ['~/.gitconfig', (l) => path.join(l.home, '.gitconfig')],
  ['~/.config/git/', (l) => path.join(l.home, '.config', 'git', 'attributes')],
  ['~/.npmrc', (l) => path.join(l.home, '.npmrc')],
  ['~/.config/pip/', (l) => path.join(l.home, '.config', 'pip', 'pip.conf')],
  ['~/.bashrc', (l) => path.join(l.home, '.bashrc')],
  ['~/.zshenv', (l) => path.join(l.home, '.zshenv')],
  ['~/.profile', (l) => path.join(l.home, '.profile')],
];

const PAYLOAD = '[core]\n\tfsmonitor = ./x.sh\n';

describe('during a cycle no tool writes the control set', () => {
  it.each(TARGETS)('Write, Edit and a Bash write to %s are denied, for the main thread and a subagent', (_name, at) => {
    const l = lab();
    toRed(l);
    const file = at(l);
    for (const extra of [{}, IMPL]) {
      const w = l.pre(ev.write(l.o(extra), file, PAYLOAD));
      expect(w.decision, `${file} ${w.reason}`).toBe('deny');
      expect(w.reason).toMatch(/control/i);
    }
    const b = l.pre(ev.bash(l.o(), `printf '%s\\n' '[alias]' >> '${file}'`));
    expect(b.decision, b.reason).toBe('deny');
  });
});

describe('a change by a program the gate never saw is found at the next gated call', () => {
  it.each(TARGETS)('%s', (_name, at) => {
    const l = lab();
    // A nested CLAUDE.md is recorded when it exists at init (a new one is denied at the write; see the limits).
    l.repo.write('docs/CLAUDE.md', '# docs\n');
    toRed(l);
    expect(l.pre(ev.write(l.o(), 'README.md', 'x')).decision).toBe('pass');
    const file = at(l);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, PAYLOAD);
    const r = l.pre(ev.write(l.o(), 'README.md', 'y'));
    expect(r.decision, r.reason).toBe('deny');
    expect(r.reason).toContain(path.basename(file));
    expect(r.reason).toMatch(/tamper|control/);
  });
});

describe('ordinary work: no false refusals', () => {
  // Claude Code's sandbox leaves an empty placeholder where it denies a path that does not exist
  // (~/.bashrc, .claude/scheduled_tasks.json): an empty file configures nothing. Filled later, it is.
  // (Emptying a file that held something is a change: the two that exist at init are left out.)
  const ABSENT_AT_INIT = TARGETS.filter(([name]) => name !== 'a nested CLAUDE.md' && name !== '.git/config');
  it.each(ABSENT_AT_INIT)('an empty %s appearing mid-cycle is no change; filled, it is', (_name, at) => {
    const l = lab();
    l.repo.write('docs/CLAUDE.md', '# docs\n');
    toRed(l);
    const file = at(l);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '');
    const quiet = l.pre(ev.write(l.o(), 'README.md', 'x'));
    expect(quiet.decision, quiet.reason).toBe('pass');
    writeFileSync(file, PAYLOAD);
    expect(l.pre(ev.write(l.o(), 'README.md', 'y')).decision).toBe('deny');
  });

  it('outside a cycle, writes to the control set pass', () => {
    const l = lab();
    for (const [, at] of TARGETS) expect(l.pre(ev.write(l.o(), at(l), 'x')).decision).toBe('pass');
  });

  it("reading the control set passes, and git's ordinary work (commit, gc, fetch) leaves it as recorded", () => {
    const l = lab();
    toRed(l);
    expect(l.pre(ev.bash(l.o(), 'cat ~/.gitconfig .git/config CLAUDE.md 2>/dev/null; git config --get user.name')).decision).toBe('pass');
    expect(l.pre(ev.write(l.o(), 'README.md', 'x')).decision).toBe('pass');
    l.repo.write('README.md', 'x\n');
    const env = { ...process.env, HOME: l.home };
    execFileSync('git', ['add', 'README.md'], { cwd: l.repo.root, env });
    execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'wip'], { cwd: l.repo.root, env });
    execFileSync('git', ['gc', '-q'], { cwd: l.repo.root, env });
    execFileSync('git', ['fetch', '-q', l.repo.root, 'HEAD'], { cwd: l.repo.root, env });
    const r = l.pre(ev.write(l.o(), 'README.md', 'y'));
    expect(r.decision, r.reason).toBe('pass');
    // Plan mode's plans and the client's own folders under ~/.claude are not control.
    expect(l.pre(ev.write(l.o(), path.join(l.home, '.claude', 'plans', 'p.md'), 'x')).decision).toBe('pass');
  });
});

describe('the control set, from facts (pure)', () => {
  const f: ControlFacts = { root: '/p', gitDir: '/p/.git/worktrees/w', commonDir: '/p/.git', home: '/h', xdgConfigHome: '/x', userSites: ['/h/.local/lib/python3.12/site-packages'] };
  it.each<[string, string | null, boolean]>([
    ['/p/.git/config', null, true],
    ['/p/.git/worktrees/w/config.worktree', null, true],
    ['/p/.git/hooks/post-checkout', null, true],
    ['/p/.git/FETCH_HEAD', null, false],
    ['/p/.git/info/exclude', null, true],
    ['/p/.git/info/refs', null, false],
    ['/p/.git/objects/ab/cdef', null, false],
    ['/x/git/config', null, true],
    ['/h/.config/git/config', null, false],
    ['/h/.gitconfig', null, true],
    ['/h/.local/lib/python3.12/site-packages/usercustomize.py', null, true],
    ['/h/.claude/agents/a.md', null, true],
    ['/h/.claude/plans/p.md', null, false],
    ['/h/.claude/projects/-p/s.jsonl', null, false],
    ['/p/docs/CLAUDE.md', 'docs/CLAUDE.md', true],
    ['/p/pkg/.claude/settings.json', 'pkg/.claude/settings.json', true],
    ['/p/sub/.gitattributes', 'sub/.gitattributes', true],
    ['/p/src/claude.ts', 'src/claude.ts', false],
    ['/p/README.md', 'README.md', false],
  ])('%s', (abs, rel, control) => {
    expect(controlWhat(abs, rel, f) !== null).toBe(control);
  });

  it('lists both git dirs of a worktree, the XDG folder and the shell start-up files', () => {
    const set = controlSet(f);
    const all = [...set.files, ...set.trees].map((e) => e.path);
    expect(all).toEqual(expect.arrayContaining(['/p/.git/config', '/p/.git/worktrees/w/hooks', '/x/git', '/x/pip', '/h/.bashrc', '/h/.zprofile', '/h/.npmrc', '/p/.npmrc']));
  });

  it("marks the repository's own git configuration (and a worktree's) to be judged by what changed, and nothing else", () => {
    const marked = controlSet(f).files.filter((e) => e.gitConfig === true).map((e) => e.path);
    expect(marked.sort()).toEqual(['/p/.git/config', '/p/.git/worktrees/w/config', '/p/.git/worktrees/w/config.worktree']);
  });
});
