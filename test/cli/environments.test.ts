import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ev } from '../helpers/events.js';
import { runCli, runHookBundle, type HookRun } from '../helpers/hook.js';
import { testRepo, type TestRepo } from '../helpers/repo.js';
import { PASS_VERDICT, project, readState, type CliRun } from './fixtures.js';
import { cleanEnv, projectPath } from '../../src/verify/oracle/cleanEnv.js';
import { scanTree } from '../../src/verify/tree.js';
import { compileStack } from '../../src/state/loadStack.js';
import { envProbe } from '../../src/state/envProbe.js';

/**
 * Environments as people have them, through the built CLI and hook: an in-project virtualenv
 * with its symlinked interpreter, a test command that sets PYTHONPATH or NODE_OPTIONS itself,
 * another PATH between two calls, a frozen file that is a link. Each project runs a genuine cycle.
 */

const hasPytest = spawnSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).status === 0;

const WRITER = { agent_type: 'tdd-gate:test-writer', agent_id: 'tw-1' };
const IMPL = { agent_type: 'tdd-gate:implementer', agent_id: 'impl-1' };

const TEST_ADD = 'from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n';
const STUB = '# STUB:TDD\ndef add(a, b):\n    return 0\n';
const IMPL_ADD = 'def add(a, b):\n    return a + b\n';

/** A project with its own HOME and plugin data, driven through the built CLI and hook with one environment. */
interface Lab {
  repo: TestRepo;
  env: NodeJS.ProcessEnv;
  cli(env: NodeJS.ProcessEnv, ...args: string[]): CliRun;
  pre(input: Record<string, unknown>): HookRun;
  post(command: string, extra?: Record<string, unknown>): HookRun;
  /** A Write through the hook: allowed, then done, as Claude Code would. */
  write(who: Record<string, string>, rel: string, content: string): void;
}

function lab(repo: TestRepo, env: NodeJS.ProcessEnv = {}): Lab {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-envlab-')));
  onTestFinished(() => rmSync(base, { recursive: true, force: true }));
  const home = path.join(base, 'home');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  const own = { HOME: home, CLAUDE_PLUGIN_DATA: path.join(base, 'data'), ...env };
  const l: Lab = {
    repo,
    env: own,
    cli: (extra, ...args) => {
      const r = runCli(repo.root, args, { ...own, ...extra });
      return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
    },
    pre: (input) => runHookBundle(input, { env: own, event: 'PreToolUse' }),
    post: (command, extra = {}) => runHookBundle({ ...ev.bash({ cwd: repo.root, ...extra }, command), hook_event_name: 'PostToolUse', tool_response: { stdout: '', stderr: '' } }, { env: own, event: 'PostToolUse' }),
    write: (who, rel, content) => {
      const r = l.pre(ev.write({ cwd: repo.root, ...who }, rel, content));
      expect(r.reason).toBe('');
      expect(r.decision).toBe('pass');
      repo.write(rel, content);
    },
  };
  return l;
}

function ok(r: CliRun, status = 0): CliRun {
  if (r.status !== status) expect.fail(`exit ${r.status}, expected ${status}:\n${r.stdout}${r.stderr}`);
  return r;
}

/** init → plan → advance red, then the validator's PASS through the SubagentStop hook when asked. */
function toRed(l: Lab): void {
  ok(l.cli({}, 'init', '--spec', 'specs/SPEC-001.md'));
  l.repo.write('.tdd/plans/SPEC-001.md', '# Plan\n- AC-1: add(1, 2) is 3\n');
  ok(l.cli({}, 'advance', 'red', '--plan', '.tdd/plans/SPEC-001.md'));
}

function validatorPasses(l: Lab): void {
  const stop = runHookBundle(
    { session_id: 's', cwd: l.repo.root, hook_event_name: 'SubagentStop', stop_hook_active: false, agent_id: 'validator-1', agent_type: 'tdd-gate:test-validator', last_assistant_message: PASS_VERDICT },
    { env: l.env, event: 'SubagentStop' },
  );
  expect(stop.stdout).toBe('');
  l.repo.write('verdict.md', PASS_VERDICT);
}

function sitePackages(venv: string): string {
  const lib = path.join(venv, 'lib');
  const py = readdirSync(lib).find((n) => n.startsWith('python'));
  if (py === undefined) throw new Error(`no lib/python* in ${venv}`);
  return path.join(lib, py, 'site-packages');
}

describe.skipIf(!hasPytest)('an in-project virtualenv', () => {
  it('python -m venv .venv (a symlinked interpreter, the package importable only there) runs a whole cycle to done through the hook and the CLI; another PATH is named, not taken for changed tests', { timeout: 240_000 }, () => {
    const repo = testRepo({
      stack: {
        language: 'python',
        test_command: 'python -m pytest -q -p no:cacheprovider',
        // `**/test_*.py` would name test modules a package ships in site-packages: never tests
        test_file_glob: 'tests/**|**/test_*.py|conftest.py',
        source_file_glob: 'src/**',
        red_confirm: 'AssertionError|assert ',
        build_error_pattern: 'SyntaxError|IndentationError|ModuleNotFoundError|ImportError',
      },
      files: { '.gitignore': '.venv\n', 'conftest.py': '' },
    });
    // Offline: no pip; pytest comes from the base interpreter's site-packages.
    const venv = repo.path('.venv');
    const made = spawnSync('python3', ['-m', 'venv', '--without-pip', '--system-site-packages', venv], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    expect(lstatSync(path.join(venv, 'bin', 'python')).isSymbolicLink()).toBe(true);
    const site = sitePackages(venv);
    // What `pip install -e .` leaves: the package is importable with the venv's interpreter only.
    writeFileSync(path.join(site, '__editable__.calc-0.1.pth'), `${repo.path('src')}\n`);
    // What setuptools leaves: a start-up hook that runs code at every interpreter start.
    writeFileSync(path.join(site, 'distutils-precedence.pth'), "import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os.environ.get(var, 'local') == 'local'\n");
    // A package that ships its own tests
    mkdirSync(path.join(site, 'somepkg'));
    writeFileSync(path.join(site, 'somepkg', 'test_helpers.py'), 'def test_x():\n    pass\n');

    const activated = { PATH: `${path.join(venv, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`, VIRTUAL_ENV: venv };
    const system = { PATH: process.env.PATH ?? '', VIRTUAL_ENV: '' };
    const l = lab(repo, activated);
    toRed(l);
    l.write(WRITER, 'tests/test_add.py', TEST_ADD);
    l.write(WRITER, 'src/calc/__init__.py', STUB);
    const red = JSON.parse(ok(l.cli({}, 'verify', 'red', '--json')).stdout) as { valid: boolean; counts: unknown; toolchain: { programs: { name: string; found: string }[]; hooks: Record<string, string> } };
    expect(red).toMatchObject({ valid: true, counts: { total: 1, failed: 1 } });
    expect(red.toolchain.programs[0]).toMatchObject({ name: 'python', found: '.venv/bin/python' });
    expect(Object.keys(red.toolchain.hooks)).toEqual([path.relative(repo.root, path.join(site, 'distutils-precedence.pth'))]);

    // The same environment, another PATH: the reason names what moved.
    validatorPasses(l);
    const moved = ok(l.cli(system, 'freeze', '--verdict', 'verdict.md'), 1).stderr;
    expect(moved).toMatch(/toolchain moved since the last valid RED: python now resolves to \/\S+python\S*, was \.venv\/bin\/python/);
    expect(moved).not.toMatch(/the tests changed/);
    ok(l.cli({}, 'freeze', '--verdict', 'verdict.md'));
    const frozen = readState(repo).frozen.files;
    expect(Object.keys(frozen).filter((rel) => rel.startsWith('.venv/'))).toEqual([]);
    expect(Object.keys(frozen)).toContain('tests/test_add.py');

    // GREEN: the implementation through the hook; a dependency installed in the venv meanwhile.
    l.write(IMPL, 'src/calc/__init__.py', IMPL_ADD);
    mkdirSync(path.join(site, 'newdep'));
    writeFileSync(path.join(site, 'newdep', '__init__.py'), 'X = 1\n');
    writeFileSync(path.join(site, 'newdep', 'test_newdep.py'), 'def test_y():\n    pass\n');
    writeFileSync(path.join(site, '__editable__.newdep-1.0.pth'), '/opt/newdep/src\n');
    const post = l.post('pip install newdep');
    expect(post.stdout).toBe('');
    expect(l.pre(ev.write({ cwd: repo.root, ...IMPL }, 'src/calc/__init__.py', IMPL_ADD)).decision).toBe('pass');
    // The venv holds the runner: a hand edit of it is no test write, and no source write either.
    const edit = l.pre(ev.write({ cwd: repo.root, ...IMPL }, path.relative(repo.root, path.join(site, 'newdep', '__init__.py')), 'X = 2\n'));
    expect(edit.decision).toBe('deny');
    expect(edit.reason).toMatch(/dependency-edit.*a virtualenv's site-packages.*pip install/s);

    // Another PATH at verify: named, with what to do.
    const green = ok(l.cli(system, 'verify', 'green'), 1).stderr;
    expect(green).toMatch(/the oracle moved: the test command's toolchain moved since the freeze: python now resolves to \/\S+, was \.venv\/bin\/python/);
    expect(green).toMatch(/VIRTUAL_ENV is now unset, was \/\S+\/\.venv/);
    expect(green).toMatch(/Run the CLI in the environment of the freeze/);
    // A start-up hook added after the freeze runs in every test run: named as one, not as a test file.
    const hook = path.join(site, 'zz-preload.pth');
    writeFileSync(hook, 'import sys\n');
    const added = ok(l.cli({}, 'verify', 'green'), 1).stderr;
    expect(added).toMatch(/the interpreter start-up hook \.venv\/lib\/python[\d.]+\/site-packages\/zz-preload\.pth was added/);
    expect(added).not.toMatch(/test files added/);
    unlinkSync(hook);
    // A package installed the ordinary way in GREEN that brings its own start-up hook (setuptools
    // upgraded by pip): its RECORD lists the file, so it is a dependency, not a planted hook.
    writeFileSync(path.join(site, 'distutils-precedence.pth'), "import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os.environ.get(var, 'stdlib') == 'local'\n");
    mkdirSync(path.join(site, 'setuptools-80.9.0.dist-info'));
    writeFileSync(path.join(site, 'setuptools-80.9.0.dist-info', 'RECORD'), 'distutils-precedence.pth,sha256=x,151\nsetuptools/__init__.py,sha256=y,10\n');
    writeFileSync(path.join(site, 'owned-preload.pth'), 'import sys\n');
    mkdirSync(path.join(site, 'owned-1.0.dist-info'));
    writeFileSync(path.join(site, 'owned-1.0.dist-info', 'RECORD'), 'owned-preload.pth,,\n');

    ok(l.cli({}, 'verify', 'green'));
    ok(l.cli({}, 'done'));
    expect(readState(repo).phase).toBe('done');
  });
});

describe.skipIf(!hasPytest)('a test command that sets the environment itself', () => {
  it('PYTHONPATH=src python3 -m pytest: the gate’s pytest plugin still loads, RED is judged on the assertion, the cycle reaches done', { timeout: 180_000 }, () => {
    const repo = testRepo({
      stack: {
        language: 'python',
        test_command: 'PYTHONPATH=src python3 -m pytest -q -p no:cacheprovider',
        test_file_glob: 'tests/**|conftest.py',
        source_file_glob: 'src/**',
        red_confirm: 'AssertionError|assert ',
        build_error_pattern: 'SyntaxError|IndentationError|ModuleNotFoundError|ImportError',
      },
      files: { 'conftest.py': '' },
    });
    const l = lab(repo);
    toRed(l);
    l.write(WRITER, 'tests/test_add.py', TEST_ADD);
    l.write(WRITER, 'src/calc/__init__.py', STUB);
    const red = JSON.parse(ok(l.cli({}, 'verify', 'red', '--json')).stdout) as { valid: boolean; tests: Record<string, string>; log: string };
    expect(red).toMatchObject({ valid: true, tests: { 'tests/test_add.py::test_add': 'failed' } });
    // The project's folder and the plugin's both reached pytest: the plugin wrote its outcomes.
    expect(readFileSync(repo.path(red.log), 'utf8')).not.toMatch(/Error importing plugin|No module named 'tdd_gate/);
    validatorPasses(l);
    ok(l.cli({}, 'freeze', '--verdict', 'verdict.md'));
    l.write(IMPL, 'src/calc/__init__.py', IMPL_ADD);
    ok(l.cli({}, 'verify', 'green'));
    ok(l.cli({}, 'done'));
    expect(readState(repo).phase).toBe('done');
  });

  it('NODE_OPTIONS=--no-warnings node --test: the gate’s reporter rides along, the project’s options stay, the cycle reaches done', { timeout: 120_000 }, () => {
    const repo = project('node-test', {}, { test_command: 'NODE_OPTIONS=--no-warnings node --test' });
    const l = lab(repo);
    toRed(l);
    l.write(WRITER, 'test/add.test.js', "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds', () => { assert.equal(add(1, 2), 3); });\n");
    l.write(WRITER, 'src/add.js', '// STUB:TDD\nexport function add() { return 0; }\n');
    const red = JSON.parse(ok(l.cli({}, 'verify', 'red', '--json')).stdout) as { valid: boolean; tests?: Record<string, string> };
    // Ids by file and name come from the gate's reporter: it ran beside the project's NODE_OPTIONS.
    expect(red).toMatchObject({ valid: true, tests: { 'test/add.test.js::adds': 'failed' } });
    validatorPasses(l);
    ok(l.cli({}, 'freeze', '--verdict', 'verdict.md'));
    l.write(IMPL, 'src/add.js', 'export function add(a, b) { return a + b; }\n');
    const green = JSON.parse(ok(l.cli({}, 'verify', 'green', '--json')).stdout) as { valid: boolean; tests?: Record<string, string> };
    expect(green).toMatchObject({ valid: true, tests: { 'test/add.test.js::adds': 'passed' } });
    ok(l.cli({}, 'done'));
    expect(readState(repo).phase).toBe('done');
  });
});

describe('a frozen file that is a symbolic link', () => {
  it('the hook and the CLI agree: the link stays a link at every gated call, verify green passes, and a link replaced by a copy is put back as the link', { timeout: 120_000 }, () => {
    const repo = project('node-test', { 'config/npmrc': 'fund=false\n' });
    symlinkSync('config/npmrc', repo.path('.npmrc'));
    const l = lab(repo);
    toRed(l);
    l.write(WRITER, 'test/add.test.js', "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds', () => { assert.equal(add(1, 2), 3); });\n");
    l.write(WRITER, 'src/add.js', '// STUB:TDD\nexport function add() { return 0; }\n');
    ok(l.cli({}, 'verify', 'red'));
    validatorPasses(l);
    ok(l.cli({}, 'freeze', '--verdict', 'verdict.md'));
    expect((readState(repo).frozen as { links?: Record<string, string> }).links).toEqual({ '.npmrc': 'config/npmrc' });

    // Every gated call checks the control set: the frozen link is as frozen, nothing is restored.
    l.write(IMPL, 'src/add.js', 'export function add(a, b) { return a + b; }\n');
    expect(l.post('node --test').stdout).toBe('');
    expect(l.pre(ev.write({ cwd: repo.root, ...IMPL }, 'src/add.js', 'export function add(a, b) { return a + b; }\n')).decision).toBe('pass');
    expect(readlinkSync(repo.path('.npmrc'))).toBe('config/npmrc');
    ok(l.cli({}, 'verify', 'green'));

    // The link replaced by a regular file of the same bytes: a change, put back as the link.
    unlinkSync(repo.path('.npmrc'));
    writeFileSync(repo.path('.npmrc'), 'fund=false\n');
    const post = l.post('cp config/npmrc .npmrc');
    expect(post.stdout).toMatch(/\.npmrc/);
    expect(post.stdout).toMatch(/was replaced by a regular file \(was a link to config\/npmrc\)|restored/);
    expect(lstatSync(repo.path('.npmrc')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(repo.path('.npmrc'))).toBe('config/npmrc');
    expect(l.pre(ev.write({ cwd: repo.root, ...IMPL }, 'src/add.js', 'export function add(a, b) { return a + b; }\n')).decision).toBe('pass');
    ok(l.cli({}, 'verify', 'green'));
    ok(l.cli({}, 'done'));
    expect(readState(repo).phase).toBe('done');
  });
});

describe('the test run’s environment keeps what picks the toolchain', () => {
  // Folders of /p that hold a pyvenv.cfg or conda-meta/
  const probe = (dir: string) => dir === '.venv' || dir === 'envs/conda' || dir === 'tools/py';
  it.each([
    ['an activated in-project virtualenv', '/p/.venv/bin:/usr/bin', '/p/.venv/bin:/usr/bin'],
    ['a conda environment inside the project', '/p/envs/conda/bin:/usr/bin', '/p/envs/conda/bin:/usr/bin'],
    ['a virtualenv of another name, by its pyvenv.cfg', '/p/tools/py/bin:/usr/bin', '/p/tools/py/bin:/usr/bin'],
    ['node_modules/.bin, at the root and in a workspace', '/p/node_modules/.bin:/p/packages/a/node_modules/.bin:/usr/bin', '/p/node_modules/.bin:/p/packages/a/node_modules/.bin:/usr/bin'],
    ['nvm, volta, asdf and fnm shims outside the project', '/h/.nvm/versions/node/v20.11.1/bin:/h/.volta/bin:/h/.asdf/shims:/run/fnm_multishells/1_2/bin:/usr/bin', '/h/.nvm/versions/node/v20.11.1/bin:/h/.volta/bin:/h/.asdf/shims:/run/fnm_multishells/1_2/bin:/usr/bin'],
    ['any other folder inside the project goes', '/p/bin:/p/scripts:/p/src/bin:/p:/p/.venv:/usr/bin', '/usr/bin'],
    ['a folder named like an environment without its marker goes', '/p/venv2/bin:/p/node_modules/evil:/usr/bin', '/usr/bin'],
  ])('%s', (_what, pathVar, want) => {
    expect(projectPath(pathVar, '/p', probe)).toBe(want);
  });

  it('version managers’ and Python project tools’ variables pass; what steers a runner does not', () => {
    const env = cleanEnv(
      { PATH: '/p/.venv/bin:/usr/bin', VIRTUAL_ENV: '/p/.venv', VOLTA_HOME: '/h/.volta', ASDF_NODEJS_VERSION: '20.11.1', ASDF_DATA_DIR: '/h/.asdf', FNM_MULTISHELL_PATH: '/run/fnm_multishells/1_2', NVM_BIN: '/h/.nvm/versions/node/v20.11.1/bin', MISE_PYTHON_VERSION: '3.12', UV_PROJECT_ENVIRONMENT: '.venv', POETRY_VIRTUALENVS_IN_PROJECT: 'true', PIPENV_VENV_IN_PROJECT: '1', NODE_OPTIONS: '--require x', PYTHONPATH: 'evil', PYTEST_ADDOPTS: '-k x', ASDF_EVIL: 'x' },
      '/p',
      [],
      probe,
    );
    expect(env).toMatchObject({ PATH: '/p/.venv/bin:/usr/bin', VIRTUAL_ENV: '/p/.venv', VOLTA_HOME: '/h/.volta', ASDF_NODEJS_VERSION: '20.11.1', ASDF_DATA_DIR: '/h/.asdf', FNM_MULTISHELL_PATH: '/run/fnm_multishells/1_2', NVM_BIN: '/h/.nvm/versions/node/v20.11.1/bin', MISE_PYTHON_VERSION: '3.12', UV_PROJECT_ENVIRONMENT: '.venv', POETRY_VIRTUALENVS_IN_PROJECT: 'true', PIPENV_VENV_IN_PROJECT: '1' });
    for (const k of ['NODE_OPTIONS', 'PYTHONPATH', 'PYTEST_ADDOPTS', 'ASDF_EVIL']) expect(env).not.toHaveProperty(k);
  });
});

describe('what the freeze takes from a project with a virtualenv', () => {
  it('a test command naming the venv’s interpreter (a link) records it in the toolchain, not among the frozen files; no venv file is a test, git-ignored or not', { timeout: 60_000 }, () => {
    const config = {
      language: 'python',
      test_command: '.venv/bin/python -m pytest -q',
      test_file_glob: 'tests/**|**/test_*.py|conftest.py',
      source_file_glob: '**/*.py',
      red_confirm: 'assert',
    };
    // No .gitignore: every venv file is an untracked project file as git lists them.
    const repo = testRepo({ stack: config, files: { 'conftest.py': '', 'tests/test_a.py': 'def test_a():\n    assert True\n', 'app/core.py': 'X = 1\n' } });
    const venv = repo.path('.venv');
    expect(spawnSync('python3', ['-m', 'venv', '--without-pip', venv]).status).toBe(0);
    const site = sitePackages(venv);
    writeFileSync(path.join(site, 'distutils-precedence.pth'), 'import os\n');
    mkdirSync(path.join(site, 'pkg'));
    writeFileSync(path.join(site, 'pkg', 'test_pkg.py'), 'def test_p():\n    pass\n');
    writeFileSync(path.join(site, 'pkg', 'conftest.py'), '');
    const tree = scanTree(repo.root, compileStack(config, false, envProbe(repo.root)));
    expect(Object.keys(tree.tests)).toEqual(['conftest.py', 'tests/test_a.py']);
    expect(Object.keys(tree.sources)).toEqual(['app/core.py']);
    const program = tree.toolchain.programs[0]!;
    expect(program).toMatchObject({ name: '.venv/bin/python', found: '.venv/bin/python' });
    expect(program.real).toBe(realpathSync(path.join(venv, 'bin', 'python')));
    expect(Object.keys(tree.toolchain.hooks)).toEqual([path.relative(repo.root, path.join(site, 'distutils-precedence.pth'))]);
  });
});
