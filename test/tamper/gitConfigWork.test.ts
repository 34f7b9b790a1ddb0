// Ordinary git work writes the repository's configuration during a cycle (`git push -u`, `git remote
// add`, `git branch -u`, `git config user.email`): the Bash analysis lets those commands through and
// the integrity check accepts the change silently, keeping the new text as the last accepted one.
// A key that changes what git runs, written by a program the gate never saw, is found at the next
// gated call and put back to the last accepted text, naming the key. The built hook, real git, a
// local bare remote.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DANGEROUS } from './gitConfigRows.js';
import { ev, lab, toRed, type Lab } from './fixtures.js';

function bare(): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-remote-')));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync('git', ['init', '-q', '--bare', dir]);
  return dir;
}

function gitIn(l: Lab, ...args: string[]): string {
  return execFileSync('git', args, { cwd: l.repo.root, env: { ...process.env, HOME: l.home, GIT_CONFIG_NOSYSTEM: '1' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

const config = (l: Lab) => readFileSync(l.repo.path('.git/config'), 'utf8');

/** The hook allows the command, git runs it, and the next gated call passes with the change kept. */
function ordinary(l: Lab, command: string, args: string[], expectInConfig: string): void {
  const pre = l.pre(ev.bash(l.o(), command));
  expect(pre.decision, `${command}: ${pre.reason}`).toBe('pass');
  gitIn(l, ...args);
  const after = config(l);
  expect(after).toContain(expectInConfig);
  const next = l.pre(ev.write(l.o(), 'README.md', `after ${command}`));
  expect(next.decision, `after ${command}: ${next.reason}`).toBe('pass');
  expect(config(l), `${command}: nothing was put back`).toBe(after);
  const post = l.post('git status');
  expect(post.out?.decision, `${command}: ${post.out?.reason ?? ''}`).toBeUndefined();
  expect(config(l)).toBe(after);
}

describe("ordinary git work on the repository's configuration during a cycle", () => {
  it('remote add, push -u to a local bare remote, branch -u, remote set-url, config user.email: each passes and is kept', () => {
    const l = lab();
    toRed(l);
    const remote = bare();
    const other = bare();
    const branch = gitIn(l, 'rev-parse', '--abbrev-ref', 'HEAD').trim();
    ordinary(l, `git remote add up ${remote}`, ['remote', 'add', 'up', remote], `url = ${remote}`);
    ordinary(l, `git push -q -u up ${branch}`, ['push', '-q', '-u', 'up', branch], 'remote = up');
    ordinary(l, `git branch -u up/${branch}`, ['branch', '-u', `up/${branch}`], `merge = refs/heads/${branch}`);
    ordinary(l, `git branch --set-upstream-to=up/${branch}`, ['branch', `--set-upstream-to=up/${branch}`], `merge = refs/heads/${branch}`);
    ordinary(l, `git remote set-url up ${other}`, ['remote', 'set-url', 'up', other], `url = ${other}`);
    ordinary(l, 'git config user.email dev@example.com', ['config', 'user.email', 'dev@example.com'], 'email = dev@example.com');
    ordinary(l, 'git config --local user.name Dev', ['config', '--local', 'user.name', 'Dev'], 'name = Dev');
    ordinary(l, 'git remote rename up upstream', ['remote', 'rename', 'up', 'upstream'], '[remote "upstream"]');
    ordinary(l, 'git config remote.upstream.prune true', ['config', 'remote.upstream.prune', 'true'], 'prune = true');

    // Then a dangerous key, by a program the gate never saw: put back to the last accepted text.
    const accepted = config(l);
    appendFileSync(l.repo.path('.git/config'), '[core]\n\tfsmonitor = ./x.sh\n');
    const r = l.pre(ev.write(l.o(), 'README.md', 'y'));
    expect(r.decision, r.reason).toBe('deny');
    expect(r.reason).toContain('core.fsmonitor was added');
    expect(r.reason).toContain('.git/config');
    expect(config(l)).toBe(accepted);
    expect(l.pre(ev.write(l.o(), 'README.md', 'z')).decision).toBe('pass');
  });

  it('git submodule init copies the URL, the active flag and an update mode: kept', () => {
    const l = lab();
    const lib = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-lib-')));
    onTestFinished(() => rmSync(lib, { recursive: true, force: true }));
    execFileSync('git', ['init', '-q', lib]);
    execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '--allow-empty', '-m', 'lib'], { cwd: lib });
    gitIn(l, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'lib');
    gitIn(l, 'config', '-f', '.gitmodules', 'submodule.lib.update', 'rebase');
    gitIn(l, 'add', '.gitmodules');
    gitIn(l, '-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'lib');
    gitIn(l, 'submodule', 'deinit', '-q', '-f', 'lib');
    expect(config(l)).not.toContain('[submodule "lib"]');
    toRed(l);
    ordinary(l, 'git submodule init', ['submodule', 'init'], 'update = rebase');
    expect(config(l)).toContain(`url = ${lib}`);
  });

  it('every key that changes what git runs, written by a program the gate never saw, is found and put back', () => {
    const l = lab();
    toRed(l);
    // An accepted ordinary change first: what is put back is the last accepted text, not the recorded one.
    gitIn(l, 'config', 'user.email', 'dev@example.com');
    expect(l.pre(ev.write(l.o(), 'README.md', 'x')).decision).toBe('pass');
    const accepted = config(l);
    expect(accepted).toContain('dev@example.com');
    for (const [label, text, key] of DANGEROUS) {
      writeFileSync(l.repo.path('.git/config'), accepted + text);
      const r = l.pre(ev.write(l.o(), 'README.md', label));
      expect(r.decision, `${label}: ${r.reason}`).toBe('deny');
      expect(r.reason, label).toContain(`${key} was added`);
      expect(config(l), label).toBe(accepted);
    }
  });

  it('a dangerous key removed or changed, and text git cannot read, are put back too', () => {
    const l = lab();
    toRed(l);
    const recorded = config(l);
    for (const text of [recorded.replace(/bare = false/, 'bare = true'), recorded.replace(/\[core\][^[]*/, ''), `${recorded}[user]\n\tname = "open\n`]) {
      writeFileSync(l.repo.path('.git/config'), text);
      const r = l.pre(ev.write(l.o(), 'README.md', 'x'));
      expect(r.decision, r.reason).toBe('deny');
      expect(r.reason).toMatch(/\.git\/config/);
      expect(config(l)).toBe(recorded);
    }
  });
});

const PASSES = [
    'git config user.email a@b.c',
    'git config --local user.name "A B"',
    'git config --worktree user.name A',
    'git config set user.email a@b.c',
    'git config remote.up.url /srv/up.git',
    'git config --add remote.up.fetch "+refs/heads/x:refs/remotes/up/x"',
    'git config --unset branch.main.merge',
    'git config unset branch.main.remote',
    'git config branch.main.rebase true',
    'git config init.defaultBranch main',
    'git push -u origin feat',
    'git branch -u origin/x',
    'git branch --set-upstream-to=origin/x',
    'git branch --unset-upstream',
    'git remote add up /srv/up.git',
    'git remote set-url up /srv/other.git',
    'git remote rename up upstream',
    'git remote remove upstream',
    'git config --get user.email',
    'git config -l',
];

const DENIED = [
    'git config core.hooksPath .githooks',
    'git config core.fsmonitor ./x.sh',
    'git config --add include.path /tmp/x',
    'git config --global user.email a@b.c',
    'git config --system user.email a@b.c',
    'GIT_CONFIG=$HOME/.bashrc git config user.email a@b.c',
    'export GIT_CONFIG=~/.bashrc; git config user.email a@b.c',
    'GIT_DIR=.git git config user.email a@b.c',
    'git config --file .git/config user.email a@b.c',
    'git config -e',
    'git config --local --edit',
    'git config edit',
    'git config remote.up.url ext::sh',
    'git config remote.up.uploadpack ./x.sh',
    'git config url.https://evil/.insteadOf https://h/',
    'git config submodule.lib.update "!sh -c x"',
    'git config --rename-section remote.up core',
];

describe('the Bash analysis: git config of an ordinary key is ordinary work, the rest stays a control write', () => {
  it('ordinary remote, branch and user commands pass; a code-bearing key, another file, the editor stay denied', () => {
    const l = lab();
    toRed(l);
    for (const command of PASSES) {
      const r = l.pre(ev.bash(l.o(), command));
      expect(r.decision, `${command}: ${r.reason}`).toBe('pass');
    }
    for (const command of DENIED) {
      const r = l.pre(ev.bash(l.o(), command));
      expect(r.decision, command).toBe('deny');
      expect(r.reason, command).toMatch(/git/);
    }
  });
});
