import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { testRepo } from '../helpers/repo.js';
import { cli, ok, startRed, writeVerdict } from './fixtures.js';

const hasPytest = spawnSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).status === 0;

/** A project whose Python lives in a subfolder, its tests run with `cd backend && …`, as people write it by hand. */
const STACK = {
  language: 'python',
  test_command: 'cd backend && python3 -m pytest -q -p no:cacheprovider',
  test_file_glob: 'backend/tests/**',
  source_file_glob: 'backend/src/**',
  red_confirm: 'AssertionError|assert ',
  build_error_pattern: 'SyntaxError|IndentationError|ModuleNotFoundError|ImportError',
};

describe.skipIf(!hasPytest)('a runner call inside a compound command reports through the gate’s plugin', () => {
  it('cd backend && pytest: RED counts the new test by its file in the project, GREEN refuses a fake summary, the real code reaches done', { timeout: 180_000 }, () => {
    const repo = testRepo({ stack: STACK, files: { 'backend/conftest.py': '', 'backend/src/__init__.py': '' } });
    startRed(repo);
    repo.write('backend/tests/test_add.py', 'from src.add import add\n\ndef test_add():\n    assert add(1, 2) == 3\n');
    repo.write('backend/src/add.py', '# STUB:TDD\ndef add(a, b):\n    return 0\n');
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, counts: { total: 1, failed: 1, passed: 0 } });
    expect(String(red.command)).toBe(STACK.test_command);
    writeVerdict(repo);
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
    // A source that prints pytest's summary and leaves with 0 before any test runs: no sealed report, not GREEN.
    repo.write('backend/src/add.py', 'import os, sys\nsys.stdout.write("1 passed in 0.01s\\n")\nsys.stdout.flush()\nos._exit(0)\n');
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/not GREEN|report/);
    repo.write('backend/src/add.py', 'def add(a, b):\n    return a + b\n');
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
  });
});
