// The OS wall by default, inside the real client: no `harden on`, a cycle's `init` switches Claude
// Code's Bash sandbox on. In GREEN a program the Bash analysis does not model cannot touch the
// state, the anchor, ~/.bashrc or a frozen test; the model learns from the gate which rule stopped
// it; `npm install` of a local package folder works; no placeholder is left in the project.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { noWallCase, WALL } from '../hardened/wall.js';
import { ok, project, readState, writeVerdict } from '../cli/fixtures.js';
import { runCli } from '../helpers/hook.js';
import { clientAtLeast, describeE2E, E2E_TIMEOUT, lastUserText, resultOf, session, throwawayHome, type SessionResult } from './harness.js';

// As in hardened.test.ts: a person's PATH, without the node_modules/.bin entries `npm test` adds.
const USER_PATH = (process.env.PATH ?? '/usr/bin:/bin')
  .split(':')
  .filter((p) => p !== '' && !p.endsWith('/node_modules/.bin'))
  .join(':');

const TEST = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds', () => { assert.equal(add(1, 2), 3); });\n";

/**
 * A perl program (the Bash analysis models no perl script it cannot read) that finds the state
 * file, the anchor record, ~/.bashrc and the frozen test at run time and tries to change each.
 */
const WRITER = String.raw`use strict;
my @r;
sub try_write { my ($f) = @_; if (open(my $h, '>>', $f)) { print $h "x\n"; close $h; return 'wrote' } return "$!" }
my ($state) = glob('.t' . 'dd/state-*.json');
my ($anchor) = glob('.g' . 'it/tdd-gate/anchor-*.json');
push @r, 'state=' . try_write($state);
push @r, 'anchor=' . try_write($anchor);
push @r, 'bashrc=' . try_write("$ENV{HOME}/.bash" . 'rc');
push @r, 'test=' . try_write('test/' . 'add.test.js');
print 'WRITER ', join(' ', @r), "\n";
`;

function text(r: SessionResult, turn: number): string {
  return resultOf(r, turn).content;
}

describeE2E('the OS wall by default', (bin) => {
  noWallCase('the OS wall end-to-end suite');
  if (!WALL.ok) return;

  it('GREEN: an unmodelled program cannot touch the state, the anchor, ~/.bashrc or a frozen test; the gate explains; installs work; no placeholder stays', async () => {
    const home = throwawayHome();
    // The person's own start-up file: the wall holds it read-only.
    writeFileSync(path.join(home, '.bashrc'), '# mine\n');
    const cli = (...args: string[]) => runCli(repo.root, args, { HOME: home, PATH: USER_PATH });
    const repo = project('node-test', { 'test/old.test.js': "import { test } from 'node:test';\ntest('old', () => {});\n" });
    // No `harden on`: the cycle's init puts the wall up by itself.
    const init = cli('init', '--spec', 'specs/SPEC-001.md', '--mode', 'light-inline');
    ok(init);
    expect(JSON.parse(readFileSync(repo.path('.claude/settings.local.json'), 'utf8'))).toMatchObject({ sandbox: { enabled: true, failIfUnavailable: true } });
    repo.write('.tdd/plans/p.md', '# Plan\n');
    ok(cli('advance', 'red', '--plan', '.tdd/plans/p.md'));
    repo.write('test/add.test.js', TEST);
    repo.write('src/add.js', '// STUB:TDD\nexport function add() { return 0; }\n');
    ok(cli('verify', 'red'));
    writeVerdict(repo);
    repo.write('vendor/dep/package.json', '{"name":"dep","version":"1.0.0","type":"module","main":"index.js"}\n');
    repo.write('vendor/dep/index.js', 'export default 42;\n');
    ok(cli('freeze', '--verdict', 'verdict.md'));
    expect(readState(repo).phase).toBe('tdd-green');
    const before = readdirSync(repo.root).sort();
    const stateFile = readdirSync(repo.path('.tdd')).find((f) => f.startsWith('state-'))!;
    const stateBytes = readFileSync(repo.path(`.tdd/${stateFile}`));

    const r = await session(bin, repo, {
      home,
      env: { PATH: USER_PATH },
      script: {
        main: [
          { tools: [{ name: 'Write', input: { file_path: repo.path('tools/w.pl'), content: WRITER } }] },
          { tools: [{ name: 'Bash', input: { command: 'perl tools/w.pl', description: 'Run the tool' } }] },
          { tools: [{ name: 'Bash', input: { command: `perl -MPOSIX -e 'for my $f (glob(".t" . "dd/state-*")) { open(my $h, ">>", $f) or print "cannot $f: ", strerror(errno()), "\\n" }'`, description: 'Touch the state' } }] },
          { tools: [{ name: 'Bash', input: { command: "printf 'export function add(a, b) { return a + b; }\\n' > src/add.js && node --test 2>&1 | grep -E '^# (pass|fail)' && git add src && git commit -qm green && git log --oneline | head -1", description: 'Implement, test, commit' } }] },
          { tools: [{ name: 'Bash', input: { command: "npm install --no-audit --no-fund --loglevel=error ./vendor/dep && node -e \"import('dep').then((m) => console.log('DEP', m.default))\"", description: 'Install a package' } }] },
          { text: 'Done.' },
        ],
      },
    });
    // Every write refused by the OS (read-only file system, or busy for a file bound in place).
    expect(text(r, 1)).toMatch(/WRITER state=(Read-only file system|Device or resource busy) anchor=(Read-only file system|Device or resource busy) bashrc=(Read-only file system|Device or resource busy) test=(Read-only file system|Device or resource busy)/);
    expect(readFileSync(repo.path(`.tdd/${stateFile}`))).toEqual(stateBytes);
    expect(readFileSync(repo.path('test/add.test.js'), 'utf8')).toBe(TEST);
    expect(readFileSync(path.join(home, '.bashrc'), 'utf8')).toBe('# mine\n');
    // The model was told which rule stopped the write, not only "Read-only file system".
    expect(text(r, 2)).toMatch(/cannot \.tdd\/state-[^:]+: Read-only file system/);
    expect(lastUserText(r, 'main', 3)).toMatch(/tdd-gate \[os-wall\]: the OS wall .*`\.tdd\/state-[^`]+` is the TDD cycle's records/s);
    // Ordinary work.
    expect(text(r, 3)).toMatch(/# pass 2\n# fail 0/);
    expect(text(r, 3)).toMatch(/[0-9a-f]{7} green/);
    expect(text(r, 4)).toMatch(/DEP 42/);
    // No placeholder the sandbox made stays in the project.
    const added = readdirSync(repo.root).filter((f) => !before.includes(f)).sort();
    expect(added).toEqual(['node_modules', 'package-lock.json', 'tools'].filter((f) => existsSync(repo.path(f))));
    ok(cli('abort', '--reason', 'end of the test'));
    expect(readdirSync(repo.root).filter((f) => f.startsWith('.bash') || f === '.profile' || f === '.zshrc' || f === '.gitconfig')).toEqual([]);
    expect(existsSync(repo.path('.claude/settings.local.json'))).toBe(false);
  }, E2E_TIMEOUT);

  it('a server started by one Bash call: reachable from the next only where the client shares the network (macOS); on Linux each sandboxed command has its own network, and the gate says so', async () => {
    const home = throwawayHome();
    const repo = project('node-test');
    ok(runCli(repo.root, ['init', '--spec', 'specs/SPEC-001.md', '--mode', 'light-inline'], { HOME: home, PATH: USER_PATH }));
    // Ends by itself: newer clients wait for a session's background tasks before they exit.
    const server = "node -e \"const v = require('http').createServer((q, s) => s.end('PONG')).listen(47321, '127.0.0.1', () => console.log('LISTENING')); setTimeout(() => v.close(), 8000)\"";
    const r = await session(bin, repo, {
      home,
      env: { PATH: USER_PATH },
      script: {
        main: [
          { tools: [{ name: 'Bash', input: { command: server, description: 'Serve', run_in_background: true } }] },
          { tools: [{ name: 'Bash', input: { command: "sleep 2; node -e \"fetch('http://127.0.0.1:47321').then((r) => r.text()).then((t) => console.log('GOT', t), (e) => console.log('ERR', e.cause?.code ?? e.message))\"", description: 'Ask it' } }] },
          { tools: [{ name: 'Bash', input: { command: `${server} & sleep 1; node -e "fetch('http://127.0.0.1:47321').then((r) => r.text()).then((t) => console.log('GOT', t))"; kill %1`, description: 'Serve and ask in one call' } }] },
          { text: 'Done.' },
          { text: 'Noted.' },
        ],
      },
      partial: ['main'],
    });
    if (process.platform === 'linux') {
      expect(text(r, 1)).toMatch(/ERR (ECONNREFUSED|ENETUNREACH)/);
      expect(lastUserText(r, 'main', 2)).toMatch(/tdd-gate \[os-wall-network\]: .*own network/s);
    } else {
      expect(text(r, 1)).toMatch(/GOT PONG/);
    }
    expect(text(r, 2)).toMatch(/GOT PONG/);
  }, E2E_TIMEOUT);

  it('a temporary folder too long for the bridge sockets: the section gives the client a short TMPDIR (older clients take it), SessionStart says to restart with one (newer ones do not)', async () => {
    const home = throwawayHome();
    const repo = project('node-test');
    const longTmp = path.join(home, 't'.repeat(Math.max(1, 80 - home.length)));
    mkdirSync(longTmp, { recursive: true });
    expect(longTmp.length).toBeGreaterThan(72);
    ok(runCli(repo.root, ['init', '--spec', 'specs/SPEC-001.md', '--mode', 'light-inline'], { HOME: home, PATH: USER_PATH, TMPDIR: longTmp }));
    expect(JSON.parse(readFileSync(repo.path('.claude/settings.local.json'), 'utf8'))).toMatchObject({ env: { TMPDIR: '/tmp' } });
    const r = await session(bin, repo, {
      home,
      env: { PATH: USER_PATH, TMPDIR: longTmp },
      script: { main: [{ tools: [{ name: 'Bash', input: { command: 'echo SANDBOXED-OK', description: 'Say ok' } }] }, { text: 'Done.' }] },
    });
    if (clientAtLeast(bin, '2.1.332')) {
      // Measured: newer clients start their bridge from the environment they were started with,
      // and a settings `env` does not reach it. SessionStart tells the model to have the user restart.
      expect(text(r, 0)).toMatch(/bridge sockets/);
      expect(lastUserText(r, 'main', 0)).toMatch(/too long for its sandbox's sockets/);
    } else {
      expect(text(r, 0)).toContain('SANDBOXED-OK');
    }
  }, E2E_TIMEOUT);
});

