import { spawnSync } from 'node:child_process';
import { rmSync, statSync, utimesSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { testRepo } from '../helpers/repo.js';
import { cli, cliEnv, ok, readState, redToGreen, startRed } from './fixtures.js';

const hasPytest = spawnSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).status === 0;

const PYTEST_STACK = {
  language: 'python',
  test_command: 'python3 -m pytest -q -p no:cacheprovider',
  test_file_glob: 'tests/**',
  source_file_glob: 'src/**',
  red_confirm: 'AssertionError|assert ',
  build_error_pattern: 'SyntaxError|IndentationError|ModuleNotFoundError|ImportError',
};
const TEST = 'from src.calc import add, sub\n\ndef test_add():\n    assert add(1, 2) == 3\n\ndef test_sub():\n    assert sub(3, 1) == 2\n';
const STUB = '# STUB:TDD\ndef add(a, b):\n    return 0\n\ndef sub(a, b):\n    return a - b\n';
const REAL = 'def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n';
const PYPROJECT = '[project]\nname = "calc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\nminversion = "7.0"\n';
/**
 * A source that reaches pytest's report class through a module name built at run time and turns
 * every failed report into a passed one: the junit report and the printed summary both say passed.
 */
const REPORT_LIAR = `import importlib

_name = '_py' + 'test.reports'
_reports = importlib.import_module(_name)
_init = _reports.TestReport.__init__


def _passing(self, *args, **kwargs):
    _init(self, *args, **kwargs)
    if self.outcome == 'failed':
        self.outcome = 'passed'
        self.longrepr = None


_reports.TestReport.__init__ = _passing

${STUB.replace('# STUB:TDD\n', '')}`;

describe.skipIf(!hasPytest)('cheats against a real pytest project in GREEN', () => {
  it('RED is per test; each way around a failing frozen test is refused; the real implementation reaches done', { timeout: 240_000 }, () => {
    // The static reading refuses a source importing unittest at all ([runner-state], cheats-aware);
    // allowed here so that what each cheat below meets is the check it is about.
    const repo = testRepo({ stack: { ...PYTEST_STACK, runner_reach_allow: 'src/calc.py#runner-state' }, files: { 'pyproject.toml': PYPROJECT, 'src/__init__.py': '', 'tests/__init__.py': '' } });
    startRed(repo);
    // a missing attribute is no RED
    repo.write('tests/test_calc.py', TEST);
    repo.write('src/calc.py', '# STUB:TDD\nclass _Nothing: pass\n');
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/ImportError|missing name|failed to load/);
    repo.write('src/calc.py', STUB);
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, red_tests: ['tests/test_calc.py::test_add'], tests: { 'tests/test_calc.py::test_add': 'failed', 'tests/test_calc.py::test_sub': 'passed' } });
    redToGreen(repo);
    const refused = (re: RegExp) => expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(re);

    // the interpreter exits before pytest reports
    repo.write('src/calc.py', 'import os\nos._exit(0)\n' + STUB);
    refused(/the gate’s reporter saw the run begin but not end/);
    // the failing test is skipped from the source, without naming pytest
    repo.write('src/calc.py', 'import unittest\n\ndef add(a, b):\n    raise unittest.SkipTest("later")\n\ndef sub(a, b):\n    return a - b\n');
    refused(/frozen tests were skipped instead of run: tests\/test_calc\.py::test_add/);
    // pytest from the source
    repo.write('src/calc.py', 'import pytest\n\ndef add(a, b):\n    pytest.skip("later")\n\ndef sub(a, b):\n    return a - b\n');
    refused(/imports pytest/);
    // pytest's report rewritten from the source, reached without naming pytest: the gate's own
    // plugin saw the test fail
    repo.write('src/calc.py', REPORT_LIAR);
    refused(/tests\/test_calc\.py::test_add failed.*but the runner's report says it passed/);
    // the same, the module name built inside the call
    repo.write('src/calc.py', REPORT_LIAR.replace("importlib.import_module(_name)", "importlib.import_module('_py' + 'test.reports')"));
    refused(/src\/calc\.py:\d+ imports a module by a name built from pieces/);
    repo.write('src/calc.py', STUB);
    // deselected from configuration outside the test globs
    repo.write('pyproject.toml', PYPROJECT + 'addopts = "-k not test_add"\n');
    refused(/runner's settings changed: pyproject\.toml#pytest/);
    repo.write('pyproject.toml', PYPROJECT);
    repo.write('setup.cfg', '[tool:pytest]\naddopts = --deselect tests/test_calc.py::test_add\n');
    refused(/runner's settings changed: setup\.cfg#pytest/);
    rmSync(repo.path('setup.cfg'));
    // interpreter start-up hooks and a root conftest written after the freeze
    for (const f of ['sitecustomize.py', 'calc.pth', 'conftest.py']) {
      repo.write(f, 'import os\n');
      refused(new RegExp(`added after the freeze: ${f.replace('.', '\\.')}`));
      rmSync(repo.path(f));
    }
    // PYTEST_ADDOPTS from the caller never reaches the run
    expect(ok(cliEnv(repo, { PYTEST_ADDOPTS: '-k test_sub' }, 'verify', 'green'), 1).stderr).toMatch(/not GREEN: 1 of 2 tests fail/);
    // bytecode compiled from a real implementation, the stub put back padded to its size and time
    const cheat = REAL + '#'.repeat(STUB.length - REAL.length - 1) + '\n';
    repo.write('src/calc.py', cheat);
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'PYTHONDONTWRITEBYTECODE'));
    expect(spawnSync('python3', ['-c', 'import src.calc'], { cwd: repo.root, env }).status).toBe(0);
    const { mtime } = statSync(repo.path('src/calc.py'));
    repo.write('src/calc.py', STUB);
    utimesSync(repo.path('src/calc.py'), mtime, mtime);
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/not GREEN: 1 of 2 tests fail/);

    repo.write('src/calc.py', REAL);
    ok(cli(repo, 'verify', 'green'));
    const done = JSON.parse(ok(cli(repo, 'done', '--json')).stdout) as { tests: unknown[] };
    expect(done.tests).toContainEqual({ id: 'tests/test_calc.py::test_add', red: 'failed', green: 'passed', counted_red: true });
    expect(readState(repo).phase).toBe('done');
  });

  it('a test calling a function the module lacks (AttributeError) is no RED; a stub returning a wrong value is', { timeout: 120_000 }, () => {
    const repo = testRepo({ stack: PYTEST_STACK, files: { 'src/__init__.py': '', 'tests/__init__.py': '', 'src/calc.py': 'def sub(a, b):\n    return a - b\n' } });
    startRed(repo);
    // the module imports, the name it is asked for is not there
    repo.write('tests/test_calc.py', 'import src.calc as calc\n\ndef test_add():\n    assert calc.add(1, 2) == 3\n');
    const r = ok(cli(repo, 'verify', 'red'), 1);
    expect(r.stderr).toMatch(/missing name \(.*AttributeError.*\).*add a STUB:TDD stub first/);
    expect(readState(repo).receipts.red.valid).toBe(false);
    repo.write('src/calc.py', '# STUB:TDD\ndef add(a, b):\n    return 0\n\ndef sub(a, b):\n    return a - b\n');
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, red_tests: ['tests/test_calc.py::test_add'] });
  });

  it('tox.ini addopts and a usercustomize.py written in GREEN are refused', { timeout: 120_000 }, () => {
    // no pytest table in pyproject.toml: pytest reads tox.ini's [pytest] section
    const TOX = '[tox]\nenvlist = py3\n\n[pytest]\ntestpaths = tests\n';
    const repo = testRepo({ stack: PYTEST_STACK, files: { 'tox.ini': TOX, 'src/__init__.py': '', 'tests/__init__.py': '' } });
    startRed(repo);
    repo.write('tests/test_calc.py', TEST);
    repo.write('src/calc.py', STUB);
    redToGreen(repo);
    const refused = (re: RegExp) => expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(re);
    repo.write('tox.ini', TOX + 'addopts = -k "not test_add"\n');
    refused(/frozen.*tox\.ini|tox\.ini.*changed/);
    repo.write('tox.ini', TOX);
    // an interpreter start-up hook that puts the failing test aside
    repo.write('usercustomize.py', "import os\nos.environ['PYTEST_ADDOPTS'] = '-k \"not test_add\"'\n");
    refused(/added after the freeze: usercustomize\.py/);
    rmSync(repo.path('usercustomize.py'));
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/not GREEN: 1 of 2 tests fail/);
    repo.write('src/calc.py', REAL);
    ok(cli(repo, 'verify', 'green'));
  });

  it('a new passing test beside old tests broken through shared setup is no RED', { timeout: 120_000 }, () => {
    const OLD = 'import pytest\n\n@pytest.fixture\ndef base():\n    return 1\n\ndef test_old(base):\n    assert base == 1\n';
    const repo = testRepo({ stack: PYTEST_STACK, files: { 'tests/__init__.py': '', 'tests/test_old.py': OLD } });
    startRed(repo);
    repo.write('tests/test_old.py', OLD.replace('return 1', 'return 2') + '\ndef test_new():\n    assert 1 + 1 == 2\n');
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/not written or changed in this cycle \(failing: tests\/test_old\.py::test_old\)/);
  });
});
