import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { testRepo } from '../helpers/repo.js';
import { auditRun, failures, forge, forgeRedSource, head, honestCycle, tamper, type CycleFiles } from './fixtures.js';

const hasPytest = spawnSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).status === 0;

const PYTEST_STACK = {
  language: 'python',
  test_command: 'python3 -m pytest -q -p no:cacheprovider',
  test_file_glob: 'tests/**|conftest.py',
  source_file_glob: 'src/**',
  red_confirm: 'AssertionError|assert ',
  build_error_pattern: 'SyntaxError|IndentationError|ModuleNotFoundError|ImportError',
};

const CYCLE: CycleFiles = {
  test: ['tests/test_add.py', 'from src.add import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n'],
  stub: ['src/add.py', '# STUB:TDD\ndef add(a, b):\n    return 0\n'],
  impl: ['src/add.py', 'def add(a, b):\n    return a + b\n'],
};

describe.skipIf(!hasPytest)('tdd-gate audit on a pytest project', () => {
  it('an honest cycle passes; each tampering fails with a reason that names it', { timeout: 480_000 }, () => {
    const repo = testRepo({ stack: PYTEST_STACK, files: { 'conftest.py': '', 'src/__init__.py': '', 'pyproject.toml': '[project]\nname = "demo"\n\n[tool.pytest.ini_options]\naddopts = "-ra"\n' } });
    const base = head(repo);
    const record = honestCycle(repo, CYCLE);
    const honest = head(repo);

    const good = auditRun(repo, base, '--require-cycles');
    expect(failures(good.report)).toEqual([]);
    expect(good.status).toBe(0);
    expect(good.report.cycles[0]!.checks.find((c) => c.name === 'red-replayed')!.detail).toMatch(/^1 RED test fails on an assertion at the rebuilt RED \(1\/1 failing\)/);

    // a frozen test edited after the freeze
    tamper(repo, honest, 'edited-test', () => repo.write(CYCLE.test[0], CYCLE.test[1].replace('assert add(1, 2) == 3', 'assert True')));
    const edited = auditRun(repo, base);
    expect(edited.status).toBe(1);
    expect(failures(edited.report)).toEqual([expect.stringMatching(/^frozen-tests-unchanged: .*tests\/test_add\.py \(edited/)]);

    // the runner's configuration changed: pytest's table in pyproject.toml ...
    tamper(repo, honest, 'pyproject', () => repo.write('pyproject.toml', '[project]\nname = "demo"\n\n[tool.pytest.ini_options]\naddopts = "-ra -k add"\n'));
    const pyproject = auditRun(repo, base);
    expect(pyproject.status).toBe(1);
    expect(failures(pyproject.report)).toEqual([expect.stringMatching(/^runner-config-unchanged: the runner's configuration changed after the freeze: pyproject\.toml#pytest/)]);
    // ... or a conftest.py added where no freeze saw it
    tamper(repo, honest, 'conftest', () => repo.write('src/conftest.py', 'import pytest\n'));
    const conftest = auditRun(repo, base);
    expect(conftest.status).toBe(1);
    expect(failures(conftest.report)).toContainEqual(expect.stringMatching(/^runner-config-unchanged: .*src\/conftest\.py added, frozen by no cycle/));

    // (a stub left and a source outside any cycle are the same checks for every runner: audit-nodetest.test.ts)

    // a RED that could not fail: the recorded stub is the implementation
    forge(repo, base, honest, 'red-passes', () => forgeRedSource(repo, record, 'src/add.py', CYCLE.impl[1]));
    const passes = auditRun(repo, base);
    expect(passes.status).toBe(1);
    expect(failures(passes.report)).toEqual([expect.stringMatching(/^red-replayed: RED could not fail: tests\/test_add\.py::test_add passed at the rebuilt RED/)]);

    // a RED that failed for another reason: an import error
    forge(repo, base, honest, 'red-import', () => forgeRedSource(repo, record, 'src/add.py', '# STUB:TDD\ndef plus(a, b):\n    return 0\n'));
    const imp = auditRun(repo, base);
    expect(imp.status).toBe(1);
    expect(failures(imp.report)).toEqual([expect.stringMatching(/^red-replayed: RED failed for another reason, not on an assertion: .*(import|ImportError)/)]);
  });
});
