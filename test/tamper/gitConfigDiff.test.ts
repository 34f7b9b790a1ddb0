// A repository's git configuration during a cycle (src/tamper/rules/gitConfigDiff.ts): ordinary git
// work (push -u, remote add, branch -u, config user.email, submodule init) writes keys that only
// name places, branches and people; every other key can change what git runs. Parsed as git parses
// it, compared key by key. Pure tables.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { diffGitConfig, keyName, parseGitConfig } from '../../src/tamper/rules/gitConfigDiff.js';
import { DANGEROUS } from './gitConfigRows.js';

const BASE = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n';

describe('parsing as git parses', () => {
  it.each<[string, string, [string, string | null][]]>([
    ['a section and keys', '[core]\n\tbare = false\n\tfilemode\n', [['core.bare', 'false'], ['core.filemode', null]]],
    ['a quoted subsection keeps its case', '[remote "Up"]\n\turl = /x\n', [['remote.Up.url', '/x']]],
    ['escapes in a subsection', '[branch "a\\"b\\\\c"]\n\tremote = o\n', [['branch.a"b\\c.remote', 'o']]],
    ['the legacy dotted form is lower-cased', '[Remote.Origin]\n\tURL = /x\n', [['remote.origin.url', '/x']]],
    ['a key on the header line', '[core] fsmonitor = ./x.sh\n', [['core.fsmonitor', './x.sh']]],
    ['comments outside quotes, kept inside', '# c\n; c\n[user]\n\tname = "a # b" # c\n\temail = x ; y\n', [['user.name', 'a # b'], ['user.email', 'x']]],
    ['a continuation joins the next line into the value', '[user]\n\tname = a \\\n[core]\n', [['user.name', 'a [core]']]],
    ['escapes in a value', '[user]\n\tname = "a\\tb\\nc\\\\"\n', [['user.name', 'a\tb\nc\\']]],
    ['inner spaces kept, outer dropped', '[user]\n\tname =   a   b   \n', [['user.name', 'a   b']]],
    ['CRLF line ends and a byte order mark', '\uFEFF[user]\r\n\tname = a\r\n', [['user.name', 'a']]],
    ['no newline at the end', '[user]\n\temail = a@b', [['user.email', 'a@b']]],
  ])('%s', (_name, text, want) => {
    const p = parseGitConfig(text);
    expect(p.ok).toBe(true);
    if (p.ok) expect(p.entries.map((e) => [keyName(e), e.value])).toEqual(want);
  });

  it.each([
    ['an unclosed quote', '[user]\n\tname = "a\n'],
    ['an unknown escape', '[user]\n\tname = a\\q\n'],
    ['an unclosed header', '[core\n\tbare = x\n'],
    ['a key before any section', 'fsmonitor = x\n'],
    ['a line starting with a digit', '[core]\n\t1x = y\n'],
    ['an unquoted subsection', '[remote origin]\n\turl = x\n'],
    ['text after a subsection', '[remote "o" x]\n'],
    ['a key followed by junk', '[core]\n\tbare false\n'],
    ['a vertical tab, which git does not count as space', '[core]\n\v\tbare = x\n'],
  ])('rejects %s, as git does', (_name, text) => {
    expect(parseGitConfig(text).ok).toBe(false);
  });
});

describe('ordinary changes are safe', () => {
  it.each<[string, string]>([
    ['git remote add', '[remote "up"]\n\turl = /srv/up.git\n\tfetch = +refs/heads/*:refs/remotes/up/*\n'],
    ['git push -u (the upstream of a branch)', '[branch "feat"]\n\tremote = origin\n\tmerge = refs/heads/feat\n'],
    ['git branch -u with a rebase setting and a push remote', '[branch "feat/x"]\n\tremote = up\n\tmerge = refs/heads/x\n\trebase = true\n\tpushRemote = origin\n'],
    ['git branch --edit-description', '[branch "feat"]\n\tdescription = the feature\\n\n'],
    ['git config user.name, user.email, user.signingkey', '[user]\n\tname = A\n\temail = a@b\n\tsigningkey = ABCD\n'],
    ['author and committer', '[author]\n\tname = A\n[committer]\n\temail = c@d\n'],
    ['init.defaultBranch, gc.auto', '[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n'],
    ['push.default, push.autoSetupRemote, pull.rebase, pull.ff, fetch.prune', '[push]\n\tdefault = current\n\tautoSetupRemote = true\n[pull]\n\trebase = false\n\tff = only\n[fetch]\n\tprune = true\n'],
    ['a remote with pushurl, push, tagOpt, mirror, prune, pruneTags', '[remote "m"]\n\turl = https://h/x.git\n\tpushurl = ssh://git@h/x.git\n\tpush = refs/heads/*\n\ttagOpt = --no-tags\n\tmirror = true\n\tprune = true\n\tpruneTags = true\n'],
    ['git submodule init', '[submodule "lib"]\n\turl = https://h/lib.git\n\tactive = true\n\tupdate = rebase\n\tbranch = main\n'],
    ['the legacy dotted header', '[remote.up]\n\turl = /srv/up.git\n'],
  ])('%s', (_name, added) => {
    const v = diffGitConfig(BASE, BASE + added);
    expect(v).toMatchObject({ safe: true });
    expect(v.safe && v.changes.length).toBeGreaterThan(0);
  });

  it('git remote set-url, rename and remove change and drop ordinary keys only', () => {
    const origin = `${BASE}[remote "origin"]\n\turl = /a.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n`;
    expect(diffGitConfig(origin, origin.replace('/a.git', '/b.git'))).toMatchObject({ safe: true, changes: [{ key: 'remote.origin.url', change: 'changed' }] });
    expect(diffGitConfig(origin, origin.replaceAll('origin', 'up')).safe).toBe(true);
    expect(diffGitConfig(origin, BASE)).toMatchObject({ safe: true });
  });

  it('comments, blank lines, indentation and the order of sections are no change', () => {
    const a = `${BASE}[user]\n\tname = A\n`;
    const b = `[user]\n    name = A   # me\n\n; moved\n${BASE}`;
    expect(diffGitConfig(a, b)).toEqual({ safe: true, changes: [] });
  });
});


describe('a key that changes what git runs is dangerous, named', () => {
  it.each(DANGEROUS)('%s added', (_label, added, key) => {
    expect(diffGitConfig(BASE, BASE + added)).toMatchObject({ safe: false, dangerous: [{ key, change: 'added' }], reason: `${key} was added` });
  });

  it('among ordinary keys, only the dangerous one is named', () => {
    const v = diffGitConfig(BASE, `${BASE}[user]\n\temail = a@b\n[core]\n\tfsmonitor = ./x.sh\n`);
    expect(v).toEqual({ safe: false, dangerous: [{ key: 'core.fsmonitor', change: 'added' }], reason: 'core.fsmonitor was added' });
  });

  it('changing or removing a key that was recorded is dangerous too', () => {
    expect(diffGitConfig(BASE, BASE.replace('bare = false', 'bare = true'))).toMatchObject({ safe: false, reason: 'core.bare was changed' });
    const withHook = `${BASE}[core]\n\thooksPath = .githooks\n`;
    expect(diffGitConfig(withHook, BASE)).toMatchObject({ safe: false, reason: 'core.hookspath was removed' });
  });

  it('a safe key turned into a command (an update mode, an ext:: url) is dangerous', () => {
    const sub = `${BASE}[submodule "lib"]\n\tupdate = checkout\n`;
    expect(diffGitConfig(sub, sub.replace('checkout', '!./x.sh'))).toMatchObject({ safe: false, reason: 'submodule.lib.update was changed' });
  });

  it('text git would not read is dangerous, with the reason', () => {
    const v = diffGitConfig(BASE, `${BASE}[user]\n\tname = "a\n`);
    expect(v.safe).toBe(false);
    if (!v.safe) expect(v.reason).toMatch(/can no longer be read as git configuration/);
  });
});

describe('the parser agrees with git itself', () => {
  // Each text read by `git config --file … --list -z` and by the parser: the same keys and values,
  // or both refuse it. (git also takes a key before any section, which names nothing it runs; the
  // parser refuses it, so such a text is judged dangerous.)
  const TEXTS = [
    '[core]\n\tbare = false\n\tfilemode\n',
    '[remote "Up"]\n\turl = /x\n',
    '[branch "a\\"b\\\\c"]\n\tremote = o\n',
    '[Remote.Origin]\n\tURL = /x\n',
    '[core] fsmonitor = ./x.sh\n',
    '# c\n; c\n[user]\n\tname = "a # b" # c\n\temail = x ; y\n',
    '[user]\n\tname = a \\\n[core]\n',
    '[user]\n\tname =   a   b   \n',
    '\uFEFF[user]\r\n\tname = a\r\n',
    '[user]\n\temail = a@b',
    '[a.b.c]\n\tx = 1\n',
    '[remote  "o"]url=x\n[user]name\n',
    '[user]\n\tname = a"  "b  \n',
    '[x "a\\qb"]\n\tk = v\n',
    '[core]\n\v\tbare = x\n',
    '[user]\n\tname = "a\n',
    '[a "b" ]\n',
    '[core]\n\tbare false\n',
    '[user]\n\tname = a\\\r\nb\n',
    '[user]\n\tname = a\rb\n',
  ];
  it('for every text of the table', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tdd-gate-gitcfg-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'config');
    for (const text of TEXTS) {
      writeFileSync(file, text);
      let git: [string, string | null][] | 'refused';
      try {
        const out = execFileSync('git', ['config', '--file', file, '--list', '-z'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
        git = out.split('\0').filter((l) => l !== '').map((l) => (l.includes('\n') ? [l.slice(0, l.indexOf('\n')), l.slice(l.indexOf('\n') + 1)] : [l, null]));
      } catch {
        git = 'refused';
      }
      const p = parseGitConfig(text);
      expect(p.ok ? p.entries.map((e) => [keyName(e), e.value]) : 'refused', JSON.stringify(text)).toEqual(git);
    }
  });
});
