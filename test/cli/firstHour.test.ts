// What a new user meets first: `--version`, `stack check` before a stack.json exists, error text
// without schema jargon, and a `.tdd/` that never lands in `git add -A` (before `init` too).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import { CLI, runCli, runHookBundle } from '../helpers/hook.js';
import { git, state, testRepo } from '../helpers/repo.js';
import { cli, cliEnv, PYTEST_STACK, startRed } from './fixtures.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, '.claude-plugin', 'plugin.json'), 'utf8')) as { version: string };

/** What `git add -A` would stage. */
function staged(root: string): string[] {
  git(root, 'add', '-A');
  return git(root, 'diff', '--cached', '--name-only').split('\n').filter(Boolean).sort();
}

describe('the first hour', () => {
  it.each([['--version'], ['-V'], ['version']])('`tdd-gate %s` prints the plugin version', (flag) => {
    const r = runCli(ROOT, [flag]);
    expect(r).toMatchObject({ status: 0, stdout: `tdd-gate ${manifest.version}\n` });
  });

  it('`stack check` without a stack.json says so and how to create one (no talk of a cycle)', () => {
    const repo = testRepo({ stack: null });
    const r = runCli(repo.root, ['stack', 'check']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('there is no .tdd/stack.json in this project yet');
    expect(r.stderr).toContain('tdd-gate stack detect --write');
    expect(r.stderr).not.toMatch(/cycle/u);
  });

  it('an invalid stack.json is explained in words, not schema text', () => {
    const repo = testRepo({ stack: { language: 'ts', test_command: 3, source_file_glob: 'src/**', red_confirm: 'x', colour: 'red' } });
    const r = runCli(repo.root, ['stack', 'check']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('test_command: must be a string, not a number');
    expect(r.stderr).toContain('test_file_glob: is missing (it must be a string or a list)');
    expect(r.stderr).toContain('unknown key "colour"');
    expect(r.stderr).not.toMatch(/Invalid input|received undefined/u);
  });

  it('before the first init, a refused verb logs its event into .tdd/ and `git add -A` stages none of it', () => {
    const repo = testRepo({ stack: null });
    expect(runCli(repo.root, ['verify', 'red']).status).toBe(1);
    expect(readFileSync(repo.path('.tdd/events.jsonl'), 'utf8')).toContain('"type":"refusal"');
    expect(staged(repo.root)).toEqual(['.tdd/.gitignore']);
  });

  it('`stack detect --write` leaves stack.json to commit and keeps the rest of .tdd/ out', () => {
    const repo = testRepo({ stack: null, files: { 'package.json': '{"devDependencies":{"vitest":"4"}}' } });
    expect(runCli(repo.root, ['stack', 'detect', '--write']).status).toBe(0);
    repo.write('.tdd/runs/x.log', 'a run log\n');
    expect(staged(repo.root)).toEqual(['.tdd/.gitignore', '.tdd/stack.json']);
  });
});

/** PATH without any node_modules/.bin (the test runner's own would make every runner "installed"). */
const BARE_PATH = (process.env.PATH ?? '').split(path.delimiter).filter((d) => !/node_modules[\\/]\.bin$/.test(d)).join(path.delimiter);
const hasPytest = spawnSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).status === 0;

describe('the first hour: errors that say the cause and the fix in one line', () => {
  it.each([
    ['`npx vitest run`, vitest not in package.json', { devDependencies: {} }, 'npx vitest run', 'vitest is not installed in this project: run `npm install -D vitest`'],
    ['`npx vitest run`, listed but never installed', { devDependencies: { vitest: '^4.0.0' } }, 'npx vitest run', 'vitest is not installed in this project: it is listed in package.json but not installed: run `npm install`'],
    ['`npm test` whose script runs jest', { scripts: { test: 'jest --ci' } }, 'npm test', 'jest is not installed in this project: run `npm install -D jest`'],
    ['`npm exec mocha`', {}, 'npm exec -- mocha', 'mocha is not installed in this project: run `npm install -D mocha`'],
  ])('%s: `verify red` refuses before running anything, naming the install command', (_name, pkg, command, message) => {
    const repo = testRepo({ stack: { language: 'javascript', test_command: command, test_file_glob: 'test/**', source_file_glob: 'src/**', red_confirm: 'AssertionError' }, files: { 'package.json': JSON.stringify({ private: true, ...pkg }) } });
    startRed(repo);
    repo.write('test/a.test.js', 'x\n');
    const r = cliEnv(repo, { PATH: BARE_PATH }, 'verify', 'red');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    // nothing ran: no run log, no "still running"
    expect(existsSync(repo.path('.tdd/runs')) ? readdirSync(repo.path('.tdd/runs')).filter((f) => f.endsWith('.log')) : []).toEqual([]);
    expect(r.stderr).not.toContain('still running');
  });

  it('a lock file picks the package manager of the fix', () => {
    const repo = testRepo({ stack: { language: 'javascript', test_command: 'npx vitest run', test_file_glob: 'test/**', source_file_glob: 'src/**', red_confirm: 'AssertionError' }, files: { 'package.json': '{}', 'pnpm-lock.yaml': 'lockfileVersion: 9\n' } });
    startRed(repo);
    expect(cliEnv(repo, { PATH: BARE_PATH }, 'verify', 'red').stderr).toContain('run `pnpm add -D vitest`');
  });

  it.skipIf(!hasPytest)('pytest missing for the interpreter the command runs: one line with the interpreter and the fix', () => {
    // -S: the interpreter without its site-packages, where pytest lives
    const repo = testRepo({ stack: { ...PYTEST_STACK, test_command: 'python3 -S -m pytest -q' }, files: { 'conftest.py': '' } });
    startRed(repo);
    repo.write('tests/test_a.py', 'def test_a():\n    assert 1 == 2\n');
    repo.write('src/a.py', '# STUB:TDD\n');
    const r = cli(repo, 'verify', 'red');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/invalid RED: pytest is not installed for \/\S*python[\d.]*, the interpreter `python3 -S -m pytest -q` runs: install it there \(`\/\S*python[\d.]* -m pip install pytest`/);
    expect(r.stderr).not.toContain('could not tell');
  });

  it('`init` before stack.json exists says how to create it, and implies no cycle', () => {
    const repo = testRepo({ stack: null });
    const r = cli(repo, 'init', '--spec', 'specs/SPEC-001.md');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('there is no .tdd/stack.json in this project');
    expect(r.stderr).toContain('`tdd-gate stack detect --write` (in Claude Code: /tdd-gate:setup)');
    expect(r.stderr).not.toMatch(/cycle/u);
  });
});

describe('a broken stack.json in the middle of a cycle: the gate fails closed for writes only', () => {
  const BROKEN = '{"language": "ts",';
  it.each([
    ['ls', 'pass'],
    ['ls -la src 2>/dev/null | head -5', 'pass'],
    ['cat .tdd/stack.json', 'pass'],
    ['git status && git diff', 'pass'],
    ['grep -rn add src', 'pass'],
    ['tdd-gate status', 'pass'],
    ['tdd-gate stack check', 'pass'],
    [`node ${CLI} stack check`, 'pass'],
    [`node ${CLI} status --json`, 'pass'],
    ['echo "{}" > .tdd/stack.json', 'deny'],
    ['rm -rf src', 'deny'],
    ['tdd-gate verify green', 'deny'],
    ['tdd-gate stack detect --write', 'deny'],
    ['node /tmp/elsewhere/dist/cli.mjs status', 'deny'],
    ['python3 -c "print(1)"', 'deny'],
    ['npm test', 'deny'],
    ['ls $(echo src)', 'deny'],
    ['FOO=1 ls', 'deny'],
    ['find . -delete', 'deny'],
    ['find . -exec rm {} +', 'deny'],
    ['sort -o src/a.ts src/a.ts', 'deny'],
    ['ls &', 'deny'],
  ])('Bash `%s`: %s', (command, expected) => {
    const repo = testRepo({ stack: BROKEN });
    repo.setState(state('tdd-green'));
    const r = runHookBundle(ev.bash({ cwd: repo.root }, command));
    expect(r.decision).toBe(expected);
    if (expected === 'deny') {
      expect(r.reason).toContain('[stack-invalid]');
      expect(r.reason).toContain('plain reads such as');
    }
  });

  it('a Write is denied; the CLI’s read-only `status` and `stack check` run and say what is wrong', () => {
    const repo = testRepo({ stack: BROKEN });
    repo.setState(state('tdd-green'));
    expect(runHookBundle(ev.write({ cwd: repo.root }, repo.path('src/a.ts'))).decision).toBe('deny');
    const status = cli(repo, 'status');
    expect(status.status).toBe(0);
    expect(status.stdout).toContain('tdd-green');
    const check = cli(repo, 'stack', 'check');
    expect(check.status).toBe(1);
    expect(check.stderr).toContain('.tdd/stack.json is not valid JSON');
  });
});
