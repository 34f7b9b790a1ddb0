import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { withState } from '../../src/state/stateStore.js';
import { stateFileFor, state as makeState, testRepo } from '../helpers/repo.js';
import { cli, events, git, ok, project, readState, startRed, stateText } from './fixtures.js';

describe('usage errors exit 2', () => {
  it.each([
    [['frobnicate'], /unknown verb "frobnicate"/],
    [['verify'], /unknown verb "verify"; did you mean `verify red` or `verify green` or `verify refactor`/],
    [['init', '--spec'], /argument missing|requires|--spec/],
    [['init'], /--spec is required/],
    [['init', '--spec', 'x', '--bogus'], /Unknown option '--bogus'/],
    [['init', '--spec', 'x', '--mode', 'turbo'], /--mode must be one of/],
    [['status', 'extra'], /unexpected argument "extra"/],
    [['abort'], /--reason is required/],
  ])('%j', (args, message) => {
    const repo = testRepo();
    const r = cli(repo, ...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('prints help with every verb', () => {
    const r = cli(testRepo(), '--help');
    expect(r.status).toBe(0);
    for (const verb of ['init', 'advance red', 'verify red', 'freeze', 'verify green', 'done', 'status', 'abort', 'log']) expect(r.stdout).toContain(verb);
  });
});

describe('refusals exit 1 with one line and leave the state as it was', () => {
  it('init: missing SPEC, SPEC without a scenario, SPEC not active, missing stack.json', () => {
    const repo = testRepo();
    expect(ok(cli(repo, 'init', '--spec', 'specs/nope.md'), 1).stderr).toMatch(/cannot read the SPEC specs\/nope\.md \(ENOENT\)/);
    repo.write('specs/empty.md', '# nothing\n');
    expect(ok(cli(repo, 'init', '--spec', 'specs/empty.md'), 1).stderr).toMatch(/no `#### Scenario` heading/);
    repo.write('specs/draft.md', '---\nstatus: draft\n---\n#### Scenario: a\n');
    expect(ok(cli(repo, 'init', '--spec', 'specs/draft.md'), 1).stderr).toMatch(/status "draft"/);
    rmSync(repo.path('.tdd/stack.json'));
    expect(ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md'), 1).stderr).toMatch(/there is no \.tdd\/stack\.json in this project.*stack detect --write/);
    expect(readdirSync(repo.path('.tdd')).filter((f) => f.startsWith('state-'))).toEqual([]);
  });

  it('init refuses over an active cycle; --force starts over and is recorded', () => {
    const repo = testRepo();
    ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md'));
    const before = stateText(repo);
    expect(ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md'), 1).stderr).toMatch(/a cycle for SPEC-001 is active \(tdd-plan\).*--force/);
    expect(stateText(repo)).toBe(before);
    ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md', '--force', '--spec-id', 'S-2'));
    expect(readState(repo).history[0]!.note).toMatch(/forced over an active tdd-plan cycle of SPEC-001/);
    expect(events(repo).some((e) => e.type === 'transition' && e.forced === true)).toBe(true);
  });

  it('a verb in the wrong phase names the next legitimate step', () => {
    const repo = testRepo();
    ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md'));
    const r = ok(cli(repo, 'verify', 'green'), 1);
    expect(r.stderr).toMatch(/needs phase tdd-green, but the cycle is in tdd-plan; next: `tdd-gate advance red --plan <file>`/);
    expect(ok(cli(repo, 'advance', 'red', '--plan', '.tdd/plans/none.md'), 1).stderr).toMatch(/does not exist/);
    expect(events(repo).filter((e) => e.type === 'refusal')).toHaveLength(2);
  });

  it('a corrupt state file is reported, never overwritten, and abort keeps a copy', () => {
    const repo = testRepo();
    const file = repo.setState(null);
    repo.write(path.relative(repo.root, file), '{"version": 1, "phase": "tdd-gr');
    for (const args of [['status'], ['verify', 'red'], ['advance', 'refactor'], ['init', '--spec', 'specs/SPEC-001.md']]) {
      const r = ok(cli(repo, ...args), 1);
      expect(r.stderr).toMatch(/not valid JSON|invalid/);
      expect(readFileSync(file, 'utf8')).toBe('{"version": 1, "phase": "tdd-gr');
    }
    const st = JSON.parse(ok(cli(repo, 'status', '--json'), 1).stdout);
    expect(st).toMatchObject({ active: null, rule: 'state-corrupt' });
    expect(ok(cli(repo, 'abort', '--reason', 'state was corrupt')).stdout).toMatch(/moved to \.tdd\/state-main-.*\.corrupt-/);
    const kept = readdirSync(repo.path('.tdd')).filter((f) => f.includes('.corrupt-'));
    expect(kept).toHaveLength(1);
    expect(readFileSync(repo.path(`.tdd/${kept[0]}`), 'utf8')).toBe('{"version": 1, "phase": "tdd-gr');
  });

  it('a state with a malformed CLI key is reported too (schema, not just JSON)', () => {
    const repo = testRepo();
    repo.setState(makeState('tdd-green', { frozen: { at: 'x', spec_hash: '', files: { 'a.ts': 'nothex' } } }));
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/frozen\.files\.a\.ts/);
  });

  it('keeps keys other parts own through every update', async () => {
    const repo = testRepo();
    ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md'));
    // Another part's key, written through the state store as every part does (a hand edit would be tampering).
    await withState(repo.path(`.tdd/${stateFileFor('main')}`), (st) => ({ ...st!, loop: { budget: 2 } }));
    repo.write('.tdd/plans/p.md', 'plan\n');
    ok(cli(repo, 'advance', 'red', '--plan', '.tdd/plans/p.md'));
    ok(cli(repo, 'abort', '--reason', 'testing'));
    expect(readState(repo)).toMatchObject({ phase: 'done', loop: { budget: 2 }, aborted: { reason: 'testing' } });
  });
});

describe('environment', () => {
  it('outside a git repository: a refusal that says so', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tdd-gate-nogit-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    expect(ok(cli(dir, 'status'), 1).stderr).toMatch(/not inside a git repository/);
  });

  it('on a detached HEAD the state lives under the branch name HEAD', () => {
    const repo = testRepo();
    git(repo.root, 'checkout', '-q', '--detach');
    ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md'));
    expect(readState(repo, 'HEAD').phase).toBe('tdd-plan');
    expect(ok(cli(repo, 'status')).stdout).toMatch(/branch HEAD/);
  });

  it('takes over a lock left behind by a crashed process', () => {
    const repo = testRepo();
    ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md'));
    const lock = repo.path(`.tdd/${stateFileFor('main')}.lock`);
    mkdirSync(lock);
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    const t0 = Date.now();
    ok(cli(repo, 'abort', '--reason', 'after a crash'));
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(readState(repo).phase).toBe('done');
  });
});

describe('test commands that misbehave', () => {
  it('a hanging command (and its child) is killed at test_timeout_seconds', { timeout: 30_000 }, () => {
    const repo = project('node-test', {}, { test_command: 'node -e "setTimeout(()=>{}, 60000)" & sleep 60', test_timeout_seconds: 1 });
    startRed(repo);
    repo.write('test/a.test.js', 'x');
    const t0 = Date.now();
    const r = ok(cli(repo, 'verify', 'red'), 1);
    expect(r.stderr).toMatch(/did not finish within 1s and was killed/);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('a command that does not exist', () => {
    const repo = project('node-test', {}, { test_command: 'tdd-gate-no-such-runner --all' });
    startRed(repo);
    repo.write('test/a.test.js', 'x');
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/test command was not found/);
  });

  it('megabytes of output are bounded in memory and on disk', { timeout: 30_000 }, () => {
    const repo = project('node-test', {}, { test_command: `node -e "const l='x'.repeat(1023)+'\\n'; for (let i=0;i<8192;i++) process.stdout.write(l); console.log('# tests 1'); process.exitCode = 1"` });
    startRed(repo);
    repo.write('test/a.test.js', 'x');
    ok(cli(repo, 'verify', 'red'), 1);
    const receipt = readState(repo).receipts.red;
    const size = statSync(repo.path(receipt.log)).size;
    expect(size).toBeLessThan(1.2 * 1024 * 1024);
    expect(readFileSync(repo.path(receipt.log), 'utf8')).toMatch(/bytes of output omitted/);
    expect(readFileSync(repo.path(receipt.log), 'utf8')).toMatch(/# tests 1/);
  });
});
