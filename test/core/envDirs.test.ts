import { describe, expect, it } from 'vitest';
import { environmentOf, isEnvironmentBin, isEnvironmentPath, isInstalledDependency, outsideEnvironments } from '../../src/state/rules/envDirs.js';
import { compileGlobs } from '../../src/state/rules/globs.js';
import { commandProgram, commandPrograms, toolchainAdvice, toolchainMoves, toolchainText, versionFromPath, type Toolchain } from '../../src/verify/rules/toolchain.js';

/** Folders that hold a marker (pyvenv.cfg, conda-meta, target's CACHEDIR.TAG), as a probe would find them. */
const MARKED = new Set(['env', 'tools/py311', '.direnv/python-3.11', 'target', 'conda']);
const probe = (dir: string) => MARKED.has(dir);

describe('environment folders are never tests, configs or sources', () => {
  it.each([
    ['.venv/lib/python3.11/site-packages/distutils-precedence.pth', '.venv'],
    ['venv/bin/python', 'venv'],
    ['node_modules/vitest/dist/index.js', 'node_modules'],
    ['packages/a/node_modules/x/test/a.test.js', 'packages/a/node_modules'],
    ['tests/__pycache__/test_a.cpython-311.pyc', 'tests/__pycache__'],
    ['.pytest_cache/v/cache/lastfailed', '.pytest_cache'],
    ['.tox/py311/lib/python3.11/site-packages/a.pth', '.tox'],
    ['env/lib/python3.11/site-packages/pytest/__init__.py', 'env'],
    ['tools/py311/bin/pytest', 'tools/py311'],
    ['.direnv/python-3.11/bin/python', '.direnv/python-3.11'],
    ['target/debug/build/x/out/gen.rs', 'target'],
    ['conda/conda-meta/history', 'conda'],
  ])('%s is in %s', (rel, env) => {
    expect(environmentOf(rel, probe)).toBe(env);
    expect(isEnvironmentPath(rel, probe)).toBe(true);
  });

  it.each([
    'tests/test_a.py',
    'src/venv_tools/cli.py',
    'tests/environment/test_env.py',
    'src/target/compile.ts',
    'tests/env.test.ts',
    'conftest.py',
    'environment/.venvrc',
  ])('%s is the project’s', (rel) => {
    // `src/target` holds no CACHEDIR.TAG, `environment` no pyvenv.cfg: only marked folders count
    expect(isEnvironmentPath(rel, probe)).toBe(false);
  });

  it('without a probe only the folders known by name count', () => {
    expect(isEnvironmentPath('env/lib/site.py')).toBe(false);
    expect(isEnvironmentPath('.venv/lib/site.py')).toBe(true);
    expect(isEnvironmentPath('src/a.cpython-311.pyc')).toBe(true);
  });

  it('the stack’s matchers leave environments out, whatever the glob says', () => {
    const isTest = outsideEnvironments(compileGlobs(['**/test_*.py', '*.pth'], false), probe);
    expect(isTest('tests/test_a.py')).toBe(true);
    expect(isTest('sitehooks.pth')).toBe(true);
    expect(isTest('.venv/lib/python3.11/site-packages/_pytest/test_x.py')).toBe(false);
    expect(isTest('env/lib/python3.11/site-packages/distutils-precedence.pth')).toBe(false);
  });

  it.each([
    ['node_modules/vitest/dist/index.js', true],
    ['.venv/lib/python3.11/site-packages/_pytest/python.py', true],
    ['env/lib/python3.11/site-packages/pytest/__init__.py', true],
    ['conda/lib/python3.11/site-packages/x.py', true],
    ['.tox/py311/lib/python3.11/site-packages/x.py', true],
    ['src/__pycache__/a.cpython-311.pyc', false],
    ['.pytest_cache/v/cache/lastfailed', false],
    ['target/debug/deps/x.d', false],
    ['src/a.py', false],
  ])('%s is an installed dependency (not edited by hand in GREEN): %s', (rel, want) => {
    expect(isInstalledDependency(rel, probe)).toBe(want);
  });

  it.each([
    ['node_modules/.bin', true],
    ['packages/web/node_modules/.bin', true],
    ['env/bin', true],
    ['tools/py311/bin', true],
    ['conda/bin', true],
    ['.venv/bin', false], // no pyvenv.cfg in this table: not a virtualenv
    ['bin', false],
    ['scripts', false],
    ['src/bin', false],
    ['node_modules/evil', false],
  ])('PATH entry %s is an environment’s programs: %s', (rel, want) => {
    expect(isEnvironmentBin(rel, probe)).toBe(want);
  });
});

const base: Toolchain = {
  programs: [{ name: 'python', found: '.venv/bin/python', real: '/usr/lib/python3.12/bin/python3.12', id: '1:2', version: '3.12' }],
  vars: { VIRTUAL_ENV: '/p/.venv', GOROOT: '' },
  hooks: { '.venv/lib/python3.12/site-packages/distutils-precedence.pth': 'aa' },
};

describe('the toolchain record names what moved', () => {
  it.each([
    ['PYTHONPATH=src python3 -m pytest', 'python3', ['python3']],
    ['env -u HOME CI=1 pytest -q', 'pytest', ['pytest']],
    ['exec .venv/bin/python -m pytest', '.venv/bin/python', ['.venv/bin/python']],
    ['npx vitest run', 'npx', ['npx', 'node']],
    ['node_modules/.bin/jest --ci', 'node_modules/.bin/jest', ['node_modules/.bin/jest', 'node']],
    ['$(which pytest)', null, []],
  ])('%s starts %s', (command, program, programs) => {
    expect(commandProgram(command)).toBe(program);
    expect(commandPrograms(command)).toEqual(programs);
  });

  it.each([
    ['/root/.pyenv/versions/3.11.7/bin/python3.11', '3.11.7'],
    ['/home/u/.nvm/versions/node/v20.11.1/bin/node', 'v20.11.1'],
    ['/usr/bin/python3.12', '3.12'],
    ['/usr/bin/node', undefined],
  ])('%s is version %s', (p, v) => {
    expect(versionFromPath(p)).toBe(v);
  });

  it.each([
    ['nothing', base, []],
    ['another PATH', { ...base, programs: [{ name: 'python', found: '/usr/bin/python3', real: '/usr/bin/python3.11', id: '3:4', version: '3.11' }] }, ['python now resolves to /usr/bin/python3 (3.11), was .venv/bin/python (3.12)']],
    ['nothing found any more', { ...base, programs: [{ name: 'python', found: null, real: null, id: 'not found' }] }, ['python now resolves to nothing on PATH, was .venv/bin/python (3.12)']],
    ['the venv rebuilt on another interpreter', { ...base, programs: [{ name: 'python', found: '.venv/bin/python', real: '/usr/bin/python3.13', id: '5:6', version: '3.13' }] }, ['python (.venv/bin/python) now leads to /usr/bin/python3.13, was /usr/lib/python3.12/bin/python3.12']],
    ['the same file, other bytes', { ...base, programs: [{ ...base.programs[0]!, id: '9:9' }] }, ['python (.venv/bin/python → /usr/lib/python3.12/bin/python3.12) is another file than it was (its bytes or its identity changed)']],
    ['a variable', { ...base, vars: { VIRTUAL_ENV: '', GOROOT: '/opt/go' } }, ['GOROOT is now /opt/go, was unset', 'VIRTUAL_ENV is now unset, was /p/.venv']],
    ['a start-up hook added', { ...base, hooks: { ...base.hooks, '.venv/lib/python3.12/site-packages/zz.pth': 'bb' } }, ['the interpreter start-up hook .venv/lib/python3.12/site-packages/zz.pth was added']],
    ['a start-up hook changed', { ...base, hooks: { '.venv/lib/python3.12/site-packages/distutils-precedence.pth': 'cc' } }, ['the interpreter start-up hook .venv/lib/python3.12/site-packages/distutils-precedence.pth changed']],
  ])('%s', (_what, now, moves) => {
    expect(toolchainMoves(base, now)).toEqual(moves);
    expect(toolchainText(now) === toolchainText(base)).toBe(moves.length === 0);
  });

  it('the refusal says what moved and what to do', () => {
    const text = toolchainAdvice(['python now resolves to /usr/bin/python3, was .venv/bin/python'], 'the freeze');
    expect(text).toBe(
      "the test command's toolchain moved since the freeze: python now resolves to /usr/bin/python3, was .venv/bin/python. Run the CLI in the environment of the freeze (the same PATH, the same virtualenv or node version activated); a toolchain changed on purpose is a new cycle.",
    );
    expect(toolchainAdvice(['the interpreter start-up hook .venv/x.pth was added'], 'the freeze')).toMatch(/no installed package lists it as its own/);
  });
});
