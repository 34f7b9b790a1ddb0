// What a new user meets first: `--version`, `stack check` before a stack.json exists, error text
// without schema jargon, and a `.tdd/` that never lands in `git add -A` (before `init` too).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/hook.js';
import { git, testRepo } from '../helpers/repo.js';

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
