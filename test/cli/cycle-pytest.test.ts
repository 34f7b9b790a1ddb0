import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { testRepo } from '../helpers/repo.js';
import { cli, ok, readState, startRed, writeVerdict } from './fixtures.js';

const hasPytest = spawnSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).status === 0;

const PYTEST_STACK = {
  language: 'python',
  test_command: 'python3 -m pytest -q -p no:cacheprovider',
  test_file_glob: 'tests/**|conftest.py',
  source_file_glob: 'src/**',
  red_confirm: 'AssertionError|assert ',
  build_error_pattern: 'SyntaxError|IndentationError|ModuleNotFoundError|ImportError',
};

describe.skipIf(!hasPytest)('CLI cycle with a real pytest project (junit XML report)', () => {
  it('collection error is an invalid RED; an assertion failure is valid; then GREEN', { timeout: 120_000 }, () => {
    const repo = testRepo({ stack: PYTEST_STACK, files: { 'conftest.py': '' } });
    startRed(repo);
    repo.write('tests/test_add.py', 'from src.add import add\n\ndef test_add():\n    assert add(1, 2) == 3\n');
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/tests\/test_add\.py failed to load \(compile or import error\)/);
    repo.write('src/add.py', '# STUB:TDD\ndef add(a, b):\n    return 0\n');
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, counts: { total: 1, failed: 1, passed: 0 }, failing_files: ['tests/test_add.py'] });
    expect(red.command).toBe(PYTEST_STACK.test_command);
    writeVerdict(repo);
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
    repo.write('src/add.py', 'def add(a, b):\n    return a + b\n');
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });
});
