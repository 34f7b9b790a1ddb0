// `tdd-gate harden` and the phase sync on a real node:test project, with the real bubblewrap.
import { linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { noWallCase, WALL } from './wall.js';
import { cliAsync, events, ok, project, readState, writeVerdict, type CliRun } from '../cli/fixtures.js';
import { readAnchor } from '../../src/state/anchor.js';
import { anchorPaths } from '../../src/state/anchorPaths.js';
import { checkIntegrity } from '../../src/tamper/integrity.js';
import { findRepo } from '../../src/state/repo.js';

const ADD_TEST = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds', () => { assert.equal(add(1, 2), 3); });\n";
const PERSON = '// mine\n{\n  "permissions": { "allow": ["Bash(npm test)"] },\n  "sandbox": { "excludedCommands": ["docker *"] }\n}\n';

let HOME_DIR: string | undefined;
const run = (root: string, ...args: string[]): Promise<CliRun> => cliAsync(root, args, HOME_DIR ? { HOME: HOME_DIR } : {});

describe('harden without the sandbox', () => {
  it('refuses to turn on and says what to install (bubblewrap missing from PATH)', async () => {
    const repo = project('node-test');
    const bin = mkdtempSync(path.join(tmpdir(), 'tdd-gate-nobwrap-'));
    onTestFinished(() => rmSync(bin, { recursive: true, force: true }));
    symlinkSync(process.execPath, path.join(bin, 'node'));
    symlinkSync('/usr/bin/git', path.join(bin, 'git'));
    const r = await cliAsync(repo.root, ['harden', 'on'], { PATH: bin });
    ok(r, 1);
    expect(r.stderr).toMatch(/bubblewrap and socat are not installed; install bubblewrap and socat \(Debian\/Ubuntu: `sudo apt-get install bubblewrap socat`/);
    expect(ok(await run(repo.root, 'harden', 'status')).stdout).toMatch(/the OS wall is on by default/);
  });
});

noWallCase('harden on a real project');

describe.runIf(WALL.ok)('harden on a real project (bubblewrap works here)', () => {
  it('keeps the section in step with the phase, walls the test run, gives frozen files fresh inodes, and restores the person\'s file byte for byte', { timeout: 120_000 }, async () => {
    const repo = project('node-test', { 'test/old.test.js': "import { test } from 'node:test';\ntest('old', () => {});\n" });
    HOME_DIR = mkdtempSync(path.join(tmpdir(), 'tdd-gate-home-'));
    onTestFinished(() => {
      rmSync(HOME_DIR!, { recursive: true, force: true });
      HOME_DIR = undefined;
    });
    repo.write('.claude/settings.local.json', PERSON);
    const settings = () => readFileSync(repo.path('.claude/settings.local.json'), 'utf8');
    const section = () => JSON.parse(settings()) as { sandbox: { enabled: boolean; excludedCommands: string[]; filesystem: { denyWrite: string[] } }; permissions: { allow: string[]; deny: string[] } };

    expect(ok(await run(repo.root, 'harden', 'on')).stdout).toMatch(/OS wall required for this worktree: it goes up when a cycle starts/);
    expect(settings()).toBe(PERSON);

    ok(await run(repo.root, 'init', '--spec', 'specs/SPEC-001.md', '--mode', 'light-inline'));
    const plan = section();
    expect(plan.sandbox.enabled).toBe(true);
    expect(plan.permissions.allow).toEqual(['Bash(npm test)']);
    expect(plan.sandbox.excludedCommands.every((c) => c.includes('/dist/cli.mjs" '))).toBe(true);
    expect(plan.sandbox.filesystem.denyWrite).toEqual(expect.arrayContaining([repo.path('.tdd'), repo.path('specs/SPEC-001.md'), repo.path('.claude/settings.local.json')]));
    expect(plan.sandbox.filesystem.denyWrite).not.toContain(repo.path('test'));
    // The section went in after the state change was anchored: the anchor records it as tdd-gate's own write.
    expect(tampering(repo.root)).toEqual([]);
    // While a sandboxed command runs, the client leaves empty mount points at denied paths that do not exist.
    writeFileSync(repo.path('.claude/settings.json'), '');
    mkdirSync(path.join(HOME_DIR, '.claude'), { recursive: true });
    writeFileSync(path.join(HOME_DIR, '.claude', 'settings.json'), '');
    expect(tampering(repo.root)).toEqual([]);
    rmSync(repo.path('.claude/settings.json'));
    rmSync(path.join(HOME_DIR, '.claude', 'settings.json'));

    repo.write('.tdd/plans/p.md', '# Plan\n');
    ok(await run(repo.root, 'advance', 'red', '--plan', '.tdd/plans/p.md'));
    repo.write('test/add.test.js', ADD_TEST);
    repo.write('src/add.js', '// STUB:TDD\nexport function add() { return 0; }\n');
    ok(await run(repo.root, 'verify', 'red'));
    writeVerdict(repo);
    // A hard link made in RED: after the freeze it must not be a second name of the frozen test.
    mkdirSync(repo.path('tmp'), { recursive: true });
    linkSync(repo.path('test/add.test.js'), repo.path('tmp/alias.js'));
    const before = statSync(repo.path('test/add.test.js')).ino;
    const frozen = await run(repo.root, 'freeze', '--verdict', 'verdict.md');
    ok(frozen);
    expect(frozen.stderr).toMatch(/OS wall: Claude Code's sandbox now holds \d+ paths read-only for tdd-green \(\d+ frozen files given fresh inodes\)/);
    expect(statSync(repo.path('test/add.test.js')).ino).not.toBe(before);
    expect(statSync(repo.path('tmp/alias.js')).nlink).toBe(1);
    const green = section();
    expect(green.sandbox.filesystem.denyWrite).toEqual(expect.arrayContaining([repo.path('test/add.test.js'), repo.path('test'), repo.path('test/old.test.js')]));
    // Not rolled back to RED's section by the next hook call.
    expect(tampering(repo.root)).toEqual([]);
    expect(section().sandbox.filesystem.denyWrite).toEqual(green.sandbox.filesystem.denyWrite);

    // GREEN: a source that tries, when the tests import it, to delete the state and rewrite a frozen
    // test. The CLI runs the tests behind the wall: both writes fail, the files stay as they were.
    const stateBefore = readFileSync(repo.path(`.tdd/${readdirState(repo.root)}`), 'utf8');
    repo.write(
      'src/add.js',
      "import fs from 'node:fs';\nconst tried = [];\nfor (const f of [() => fs.rmSync('.tdd', { recursive: true }), () => fs.writeFileSync('test/add.test.js', 'cheat'), () => fs.appendFileSync('.git/config', '[core]\\n\\tfsmonitor = ./evil.sh\\n'), () => fs.writeFileSync('/var/tmp/tdd-gate-wall-' + process.pid, 'x'), () => fs.writeFileSync('build.txt', 'ok')]) { try { f(); tried.push('wrote'); } catch (e) { tried.push(e.code); } }\nconsole.log('WALL', tried.join(','));\nexport function add(a, b) { return a + b; }\n",
    );
    const g = await run(repo.root, 'verify', 'green');
    ok(g);
    expect(readFileSync(repo.path('test/add.test.js'), 'utf8')).toBe(ADD_TEST);
    expect(readFileSync(repo.path(`.tdd/${readdirState(repo.root)}`), 'utf8').length).toBeGreaterThanOrEqual(stateBefore.length);
    const log = readFileSync(repo.path(readState(repo).receipts.green.log), 'utf8');
    // The oracle run (verify green) goes through the oracle's own read-only namespace rather than the
    // hardened wall: the state, the frozen test and the git config (what git run later by the CLI
    // would execute) stay read-only; the rest of the file system is the oracle's business, not the wall's.
    expect(log).toMatch(/WALL (EROFS|EBUSY|EPERM),EROFS,EROFS,(EROFS|wrote),wrote/);

    ok(await run(repo.root, 'done'));
    expect(settings()).toBe(PERSON);
    expect(events(repo).filter((e) => e.type === 'hardening').map((e) => e.action)).toEqual(['on', 'apply', 'apply', 'apply', 'restore']);
    expect(ok(await run(repo.root, 'harden', 'status')).stdout).toMatch(/the OS wall is required for this worktree \(`tdd-gate harden on`\); it is not needed \(no active cycle\)/);
    expect(ok(await run(repo.root, 'harden', 'off')).stdout).toMatch(/OS wall off for this worktree/);
    expect(settings()).toBe(PERSON);
  });

  it('refuses to turn on while the shared project settings take commands out of the sandbox', async () => {
    const repo = project('node-test', { '.claude/settings.json': '{ "sandbox": { "excludedCommands": ["npm *"] } }\n' });
    const r = await run(repo.root, 'harden', 'on');
    ok(r, 1);
    expect(r.stderr).toMatch(/other settings would open the wall, so nothing was changed: .*\.claude\/settings\.json sets sandbox\.excludedCommands \(npm \*\): those commands run outside the wall/);
    expect(ok(await run(repo.root, 'harden', 'status')).stdout).toMatch(/the OS wall is on by default/);
  });

  it('abort restores the file; harden off mid-cycle is refused inside Claude Code and works from a terminal', { timeout: 60_000 }, async () => {
    const repo = project('node-test');
    ok(await run(repo.root, 'harden', 'on'));
    ok(await run(repo.root, 'init', '--spec', 'specs/SPEC-001.md', '--mode', 'light-inline'));
    const status = JSON.parse(ok(await run(repo.root, 'harden', 'status', '--json')).stdout) as Record<string, unknown>;
    expect(status).toMatchObject({ on: true, active: true, applied: true, probed: null });
    const inside = await cliAsync(repo.root, ['harden', 'off'], { CLAUDECODE: '1' });
    ok(inside, 1);
    // Inside Claude Code the CLI first needs the hook's ticket for this very call (a direct run has none).
    expect(inside.stderr).toMatch(/not as a Bash call that the tdd-gate hook saw and allowed for this verb/);
    expect(readState(repo).phase).toBe('tdd-plan');
    ok(await run(repo.root, 'abort', '--reason', 'test'));
    expect(() => statSync(repo.path('.claude/settings.local.json'))).toThrow();
    expect(() => statSync(repo.path('.claude'))).toThrow();
    ok(await run(repo.root, 'init', '--spec', 'specs/SPEC-001.md', '--mode', 'light-inline', '--force'));
    expect(statSync(repo.path('.claude/settings.local.json')).isFile()).toBe(true);
    ok(await run(repo.root, 'harden', 'off'));
    expect(() => statSync(repo.path('.claude'))).toThrow();
    // The person's `harden off` mid-cycle is not undone by the next hook call.
    expect(tampering(repo.root)).toEqual([]);
    expect(() => statSync(repo.path('.claude/settings.local.json'))).toThrow();
    expect(readState(repo).phase).toBe('tdd-plan');
  });
});

function readdirState(root: string): string {
  return readdirSync(path.join(root, '.tdd')).find((f) => /^state-.*\.json$/.test(f))!;
}

/** What the hook's integrity check finds (and would restore) now: tdd-gate's own writes are not tampering. */
function tampering(root: string): string[] {
  const paths = anchorPaths(findRepo(root)!, {});
  const report = checkIntegrity(paths, readAnchor(paths));
  return [...report.restored, ...report.broken].map((f) => `${f.what} ${f.change}`);
}
