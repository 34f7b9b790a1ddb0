import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { detectPackageStack, detectStack, DetectProblem, prefixGlob, type Detected } from '../../src/stack/rules/detect.js';
import { goWorkUses, pnpmWorkspacePatterns } from '../../src/stack/rules/layout.js';
import { projectFacts } from '../../src/cli/verbs/stackDetect.js';
import { stackSchema } from '../../src/state/schema/stack.js';
import { backslashGlobProblems, slashForm } from '../../src/state/schema/stackGlobs.js';
import { identify } from '../../src/verify/evidence/identity.js';
import { cargoTests } from '../../src/verify/evidence/textReport.js';

/** A file to write: its text, or a link (`{ link }`), or an executable (`{ exec }`). */
type Entry = string | { link: string } | { exec: string } | { mode: number; text: string };

/** A temporary folder (no git: the files are found by a walk) holding these files. */
function tempProject(files: Record<string, Entry>): string {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-detect-')));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  for (const [rel, entry] of Object.entries(files)) {
    const abs = path.join(root, rel);
    mkdirSync(path.dirname(abs), { recursive: true });
    if (typeof entry === 'string') writeFileSync(abs, entry);
    else if ('link' in entry) symlinkSync(entry.link, abs);
    else if ('exec' in entry) {
      writeFileSync(abs, entry.exec);
      chmodSync(abs, 0o755);
    } else {
      writeFileSync(abs, entry.text);
      chmodSync(abs, entry.mode);
    }
  }
  return root;
}

const PYTHON = { exec: '#!/bin/sh\n' };
/** An interpreter as venv makes it: a link to the system's python. */
const PYTHON_LINK = { link: process.execPath };

function detectIn(files: Record<string, Entry>, env: NodeJS.ProcessEnv = {}, pkg?: string): Detected {
  const root = tempProject(files);
  const facts = projectFacts(root, { PATH: process.env.PATH, ...env, ...(env.VIRTUAL_ENV ? { VIRTUAL_ENV: path.resolve(root, env.VIRTUAL_ENV) } : {}) });
  const found = pkg === undefined ? detectStack(facts) : detectPackageStack(facts, pkg);
  if (!found) throw new Error('nothing detected');
  // every proposal passes our own strict schema
  expect(stackSchema.safeParse(found.stack).success).toBe(true);
  return found;
}

function problemIn(files: Record<string, Entry>, pkg?: string): string {
  const root = tempProject(files);
  const facts = projectFacts(root, {});
  try {
    if (pkg === undefined) detectStack(facts);
    else detectPackageStack(facts, pkg);
  } catch (err) {
    if (err instanceof DetectProblem) return err.message;
    throw err;
  }
  throw new Error('no problem reported');
}

const PYPROJECT = '[project]\nname = "calc"\n';

describe('stack detect: the in-project interpreter, only when it is there and executable', () => {
  it.each<[string, Record<string, Entry>, NodeJS.ProcessEnv, string]>([
    ['.venv with its interpreter linked to the system python', { 'pyproject.toml': PYPROJECT, '.venv/bin/python': PYTHON_LINK, '.venv/pyvenv.cfg': 'home = /usr/bin\n' }, {}, '.venv/bin/python -m pytest'],
    ['venv/', { 'pyproject.toml': PYPROJECT, 'venv/bin/python': PYTHON }, {}, 'venv/bin/python -m pytest'],
    ['.venv before venv', { 'pyproject.toml': PYPROJECT, 'venv/bin/python': PYTHON, '.venv/bin/python': PYTHON }, {}, '.venv/bin/python -m pytest'],
    ['only python3 in the venv', { 'pyproject.toml': PYPROJECT, '.venv/bin/python3': PYTHON }, {}, '.venv/bin/python3 -m pytest'],
    ['an interpreter that is not executable', { 'pyproject.toml': PYPROJECT, '.venv/bin/python': { mode: 0o644, text: '' } }, {}, 'python -m pytest'],
    ['a link to nothing', { 'pyproject.toml': PYPROJECT, '.venv/bin/python': { link: '/nonexistent/python3' } }, {}, 'python -m pytest'],
    ['a folder named like the interpreter', { 'pyproject.toml': PYPROJECT, '.venv/bin/python/x': '' }, {}, 'python -m pytest'],
    ['no virtualenv', { 'pyproject.toml': PYPROJECT }, {}, 'python -m pytest'],
    ['uv: its UV_PROJECT_ENVIRONMENT', { 'pyproject.toml': PYPROJECT, 'uv.lock': '', 'envs/dev/bin/python': PYTHON, '.venv/bin/python': PYTHON }, { UV_PROJECT_ENVIRONMENT: 'envs/dev' }, 'envs/dev/bin/python -m pytest'],
    ['uv: .venv by default', { 'pyproject.toml': PYPROJECT + '[tool.uv]\ndev-dependencies = []\n', '.venv/bin/python': PYTHON }, {}, '.venv/bin/python -m pytest'],
    ['poetry with virtualenvs.in-project', { 'pyproject.toml': PYPROJECT, 'poetry.lock': '', 'poetry.toml': '[virtualenvs]\nin-project = true\n', '.venv/bin/python': PYTHON }, {}, '.venv/bin/python -m pytest'],
    ['pipenv with PIPENV_VENV_IN_PROJECT', { Pipfile: '[packages]\n', 'test_a.py': '', '.venv/bin/python': PYTHON }, { PIPENV_VENV_IN_PROJECT: '1' }, '.venv/bin/python -m pytest'],
    ['the activated virtualenv inside the project', { 'pyproject.toml': PYPROJECT, 'env/bin/python': PYTHON, '.venv/bin/python': PYTHON }, { VIRTUAL_ENV: 'env' }, 'env/bin/python -m pytest'],
    ['an activated virtualenv outside the project is not the project’s', { 'pyproject.toml': PYPROJECT }, { VIRTUAL_ENV: '/opt/elsewhere' }, 'python -m pytest'],
  ])('%s', (_name, files, env, command) => {
    expect(detectIn(files, env).stack.test_command).toBe(command);
  });

  it('says which interpreter it picked and why', () => {
    const found = detectIn({ 'pyproject.toml': PYPROJECT, 'uv.lock': '', '.venv/bin/python': PYTHON });
    expect(found.notes).toContainEqual(expect.stringMatching(/own interpreter \.venv\/bin\/python \(uv\)/));
  });

  it('says when a tool keeps the virtualenv in the project but it is not made yet', () => {
    const found = detectIn({ 'pyproject.toml': PYPROJECT, 'poetry.lock': '', 'poetry.toml': '[virtualenvs]\nin-project = true\n' });
    expect(found.stack.test_command).toBe('python -m pytest');
    expect(found.notes).toContainEqual(expect.stringMatching(/poetry \(virtualenvs\.in-project\) keeps the project's virtualenv in \.venv, which has no interpreter yet: create it/));
  });

  it.each<[string, string, boolean]>([
    ['pytest in its site-packages', 'lib/python3.12/site-packages/pytest/__init__.py', false],
    ['pytest missing', 'lib/python3.12/site-packages/pip/__init__.py', true],
  ])('%s', (_name, installed, warns) => {
    const found = detectIn({ 'pyproject.toml': PYPROJECT, '.venv/bin/python': PYTHON, '.venv/pyvenv.cfg': 'home = /usr/bin\nversion = 3.12.1\n', [`.venv/${installed}`]: '' });
    expect(found.notes.some((n) => /pytest is not installed in \.venv/.test(n))).toBe(warns);
  });

  it('takes no note of pytest when the venv sees the system’s packages', () => {
    const found = detectIn({ 'pyproject.toml': PYPROJECT, '.venv/bin/python': PYTHON, '.venv/pyvenv.cfg': 'include-system-site-packages = true\nversion = 3.12.1\n', '.venv/lib/python3.12/site-packages/pip/x.py': '' });
    expect(found.notes.join('\n')).not.toMatch(/not installed/);
  });

  it.each<[string, Record<string, Entry>]>([
    ['.nvmrc', { '.nvmrc': '20\n' }],
    ['.node-version', { '.node-version': '20.11.0\n' }],
    ['.tool-versions (asdf)', { '.tool-versions': 'nodejs 20.11.0\n' }],
    ['volta in package.json', {}],
  ])('node under a version manager (%s): the command stays what PATH resolves', (_name, files) => {
    const pkg = { volta: { node: '20.11.0' }, devDependencies: { vitest: '4' } };
    expect(detectIn({ 'package.json': JSON.stringify(pkg), ...files }).stack.test_command).toBe('npx vitest run');
  });
});

describe('stack detect: where Python code lives', () => {
  it.each<[string, Record<string, Entry>, string]>([
    ['a src layout', { 'pyproject.toml': PYPROJECT, 'src/calc/__init__.py': '', 'tests/test_calc.py': '' }, 'src/**'],
    ['a flat package and a root module; tests, tooling and docs left out', { 'pyproject.toml': PYPROJECT, 'calc/__init__.py': '', 'calc/core.py': '', 'cli.py': '', 'setup.py': '', 'conftest.py': '', 'test_cli.py': '', 'tests/test_core.py': '', 'docs/conf.py': '', 'scripts/release.py': '' }, 'calc/**|cli.py'],
    ['a namespace package (no __init__.py)', { 'pyproject.toml': PYPROJECT, 'calc/core.py': '' }, 'calc/**'],
    ['a folder of tests only is no source', { 'pyproject.toml': PYPROJECT, 'src/calc/__init__.py': '', 'it/conftest.py': '', 'it/test_it.py': '' }, 'src/**'],
    ['an in-project virtualenv that git does not ignore is no source', { 'pyproject.toml': PYPROJECT, 'src/calc/__init__.py': '', 'env/pyvenv.cfg': '', 'env/lib/python3.11/site-packages/six.py': '' }, 'src/**'],
    ['no code yet', { 'pyproject.toml': PYPROJECT }, 'src/**|**/*.py'],
  ])('%s', (_name, files, sources) => {
    expect(detectIn(files).stack.source_file_glob).toBe(sources);
  });
});

describe('stack detect: a src/ layout imports the package from src/ unless the project has its own interpreter', () => {
  it.each<[string, Record<string, Entry>, RegExp]>([
    // tkem/cachetools' shape: src/ layout, tests in tests/, pytest settings in tox.ini's deps only
    ['no virtualenv: -o pythonpath=src', { 'pyproject.toml': PYPROJECT, 'tox.ini': '[testenv]\ndeps =\n    pytest\n', 'src/calc/__init__.py': '', 'tests/test_calc.py': '' }, /^python3? -m pytest -o pythonpath=src$/],
    ['pytest settings that set pythonpath themselves', { 'pyproject.toml': PYPROJECT + '\n[tool.pytest.ini_options]\npythonpath = ["src"]\n', 'src/calc/__init__.py': '', 'tests/test_calc.py': '' }, /^python3? -m pytest$/],
    ['a virtualenv in the project, the package installed there', { 'pyproject.toml': PYPROJECT, 'src/calc/__init__.py': '', 'tests/test_calc.py': '', '.venv/pyvenv.cfg': '', '.venv/bin/python': PYTHON_LINK }, /^\.venv\/bin\/python -m pytest$/],
    ['a flat layout', { 'pyproject.toml': PYPROJECT, 'calc/__init__.py': '', 'tests/test_calc.py': '' }, /^python3? -m pytest$/],
  ])('%s', (_name, files, command) => {
    const found = detectIn(files);
    expect(found.stack.test_command).toMatch(command);
    if (found.stack.test_command.includes('pythonpath')) expect(found.notes.join('\n')).toMatch(/src\/ layout and no virtualenv/);
  });
});

describe('stack detect: monorepos from the root', () => {
  const ws = (extra: Record<string, unknown> = {}) => JSON.stringify({ private: true, workspaces: ['packages/*'], ...extra });
  it.each<[string, Record<string, Entry>, Partial<Record<string, string>>, RegExp | null]>([
    [
      'npm workspaces, vitest at the root',
      { 'package.json': ws({ devDependencies: { vitest: '4' } }), 'packages/a/package.json': '{}', 'packages/a/src/a.ts': '', 'packages/b/package.json': '{}' },
      { test_command: 'npx vitest run', language: 'typescript', test_file_glob: '**/*.test.*|**/*.spec.*|**/test/**|**/tests/**|**/spec/**|**/__tests__/**' },
      /a workspace of 2 packages \(packages\/a, packages\/b\)/,
    ],
    [
      'a root that runs nothing itself: the packages’ runner',
      { 'package.json': ws(), 'packages/a/package.json': JSON.stringify({ devDependencies: { jest: '30' } }), 'packages/b/package.json': JSON.stringify({ scripts: { test: 'jest' } }) },
      { test_command: 'npx jest' },
      /workspace/,
    ],
    [
      'pnpm-workspace.yaml',
      { 'package.json': JSON.stringify({ private: true, devDependencies: { vitest: '4' } }), 'pnpm-workspace.yaml': "packages:\n  - 'apps/*'\n  - \"libs/**\"\n  - '!libs/old'\n", 'apps/web/package.json': '{}', 'libs/x/y/package.json': '{}', 'libs/old/package.json': '{}' },
      { test_command: 'npx vitest run' },
      /a workspace of 2 packages \(apps\/web, libs\/x\/y\)/,
    ],
    [
      'a package with its own vitest config the root does not read',
      { 'package.json': ws({ devDependencies: { vitest: '4' } }), 'packages/a/package.json': '{}', 'packages/a/vitest.config.ts': '' },
      { test_command: 'npx vitest run' },
      /packages\/a has its own vitest config, which a run from the root does not read/,
    ],
    [
      'go.work: every module it uses',
      { 'go.work': 'go 1.21\n\nuse (\n\t./a // the API\n\t./b\n)\n', 'a/go.mod': 'module example.com/a\n', 'b/go.mod': 'module example.com/b\n' },
      { test_command: 'go test ./a/... ./b/...' },
      /a Go workspace of 2 modules/,
    ],
    [
      'go.work using the root module too',
      { 'go.work': 'go 1.21\nuse .\nuse ./tools\n', 'go.mod': 'module example.com/m\n', 'tools/go.mod': 'module example.com/m/tools\n' },
      { test_command: 'go test ./... ./tools/...' },
      null,
    ],
    [
      'a root module with nested modules and no go.work',
      { 'go.mod': 'module example.com/m\n', 'tools/go.mod': 'module example.com/m/tools\n', 'internal/testdata/x/go.mod': 'module x\n' },
      { test_command: 'go test ./...' },
      /tools\/ is a module of its own, which `go test \.\/\.\.\.` from the root does not run: .*go work init \. \.\/tools/,
    ],
    [
      'a Cargo workspace',
      { 'Cargo.toml': '[workspace]\nmembers = ["crates/*"]\n', 'crates/a/Cargo.toml': '[package]\nname = "a"\n', 'crates/b/Cargo.toml': '[package]\nname = "b"\n' },
      { test_command: 'cargo test --workspace' },
      /a Cargo workspace \(crates\/a, crates\/b\)/,
    ],
    [
      'two Python packages, src and flat layouts, test modules of the same name',
      {
        'packages/alpha/pyproject.toml': PYPROJECT,
        'packages/alpha/src/alpha/__init__.py': '',
        'packages/alpha/tests/test_core.py': '',
        'packages/beta/setup.py': '',
        'packages/beta/beta/__init__.py': '',
        'packages/beta/tests/test_core.py': '',
      },
      {
        test_command: 'python -m pytest --rootdir=. -o "pythonpath=packages/alpha/src packages/beta" --import-mode=importlib packages/alpha packages/beta',
        source_file_glob: 'packages/alpha/src/**|packages/beta/beta/**',
      },
      /several Python packages \(packages\/alpha, packages\/beta\)/,
    ],
    [
      'Python packages under a root project with its own pytest settings',
      { 'pyproject.toml': PYPROJECT + '[tool.pytest.ini_options]\npythonpath = ["src", "libs/x/src"]\n', 'src/app/__init__.py': '', 'libs/x/pyproject.toml': PYPROJECT, 'libs/x/src/x/__init__.py': '', '.venv/bin/python': PYTHON },
      { test_command: '.venv/bin/python -m pytest', source_file_glob: 'src/**|libs/x/src/**' },
      /several Python packages \(\., libs\/x\)/,
    ],
  ])('%s', (_name, files, want, note) => {
    const found = detectIn(files);
    expect(found.stack).toMatchObject(want);
    if (note) expect(found.notes).toContainEqual(expect.stringMatching(note));
  });

  it.each<[string, Record<string, Entry>, RegExp]>([
    [
      'packages with different runners',
      { 'package.json': JSON.stringify({ workspaces: ['packages/*'] }), 'packages/a/package.json': JSON.stringify({ devDependencies: { vitest: '4' } }), 'packages/b/package.json': JSON.stringify({ devDependencies: { jest: '30' } }) },
      /different test runners \(packages\/a: vitest, packages\/b: jest\).*--package <dir>/,
    ],
    ['Go modules without a go.work or a root module', { 'a/go.mod': 'module a\n', 'b/go.mod': 'module b\n' }, /Go modules in a\/, b\/ and no go\.work at the root.*go work init \.\/a \.\/b/],
    ['crates without a root manifest', { 'a/Cargo.toml': '[package]\nname = "a"\n', 'b/Cargo.toml': '[package]\nname = "b"\n' }, /crates in a\/, b\/ and no Cargo\.toml at the root.*members = \["a", "b"\]/],
  ])('refuses what no command from the root runs: %s', (_name, files, message) => {
    expect(problemIn(files)).toMatch(message);
  });
});

describe('stack detect --package: one package, run from the root', () => {
  const ws = JSON.stringify({ private: true, workspaces: ['packages/*'], devDependencies: { vitest: '4' } });
  it.each<[string, Record<string, Entry>, string, Partial<Record<string, string>>]>([
    ['vitest, the root config scanning one package', { 'package.json': ws, 'packages/a/package.json': '{}', 'packages/a/src/a.ts': '' }, 'packages/a', { test_command: 'npx vitest run --dir packages/a' }],
    ['vitest, the package’s own config', { 'package.json': ws, 'packages/a/package.json': '{}', 'packages/a/vitest.config.ts': '' }, './packages/a/', { test_command: 'npx vitest run --root packages/a' }],
    [
      'vitest installed in the package only',
      { 'package.json': JSON.stringify({ workspaces: ['packages/*'] }), 'packages/a/package.json': JSON.stringify({ devDependencies: { vitest: '4' } }), 'packages/a/node_modules/.bin/vitest': PYTHON },
      'packages/a',
      { test_command: 'packages/a/node_modules/.bin/vitest run --dir packages/a' },
    ],
    ['jest with its config file', { 'package.json': ws, 'packages/a/package.json': JSON.stringify({ devDependencies: { jest: '30' } }), 'packages/a/jest.config.js': '' }, 'packages/a', { test_command: 'npx jest --config packages/a/jest.config.js' }],
    ['jest with its package.json key', { 'package.json': ws, 'packages/a/package.json': JSON.stringify({ jest: { testEnvironment: 'node' } }) }, 'packages/a', { test_command: 'npx jest --config packages/a/package.json' }],
    [
      'node:test from the package’s script',
      { 'package.json': JSON.stringify({ workspaces: ['packages/*'] }), 'packages/a/package.json': JSON.stringify({ scripts: { test: 'node --experimental-strip-types --test test/' } }), 'packages/a/src/a.js': '' },
      'packages/a',
      { test_command: 'node --experimental-strip-types --test packages/a/test/', test_file_glob: 'packages/a/test/**|**/*.test.*|**/*.spec.*|**/test/**|**/tests/**|**/spec/**|**/__tests__/**' },
    ],
    [
      'a Python package with its own pytest settings',
      { 'packages/alpha/pyproject.toml': PYPROJECT + '[tool.pytest.ini_options]\npythonpath = ["src"]\n', 'packages/alpha/src/alpha/__init__.py': '', 'packages/beta/pyproject.toml': PYPROJECT, 'packages/beta/beta/__init__.py': '' },
      'packages/alpha',
      { test_command: 'python -m pytest --rootdir=. -c packages/alpha/pyproject.toml packages/alpha', source_file_glob: 'packages/alpha/src/**|packages/beta/beta/**' },
    ],
    [
      'a flat Python package without pytest settings, and its own virtualenv',
      { 'packages/alpha/pyproject.toml': PYPROJECT, 'packages/beta/pyproject.toml': PYPROJECT, 'packages/beta/beta/__init__.py': '', 'packages/beta/.venv/bin/python': PYTHON },
      'packages/beta',
      { test_command: 'packages/beta/.venv/bin/python -m pytest --rootdir=. -c packages/beta/pyproject.toml -o pythonpath=. packages/beta' },
    ],
    ['a Go module of the go.work', { 'go.work': 'use ./a\nuse ./b\n', 'a/go.mod': 'module a\n', 'b/go.mod': 'module b\n' }, 'b', { test_command: 'go test ./b/...' }],
    ['a member crate', { 'Cargo.toml': '[workspace]\nmembers = ["crates/*"]\n', 'crates/a/Cargo.toml': '[package]\nname = "alpha"\nversion = "0.1.0"\n[dependencies]\nname = "x"\n' }, 'crates/a', { test_command: 'cargo test -p alpha', test_file_glob: '**/tests/**|**/benches/**' }],
  ])('%s', (_name, files, dir, want) => {
    expect(detectIn(files, {}, dir).stack).toMatchObject(want);
  });

  it.each<[string, Record<string, Entry>, string, RegExp]>([
    ['a Go module outside the go.work', { 'go.work': 'use ./a\n', 'a/go.mod': 'module a\n', 'b/go.mod': 'module b\n' }, 'b', /b\/ is not a module of the repository's go\.work: add it \(`go work use \.\/b`\)/],
    ['a Go module and no go.work', { 'a/go.mod': 'module a\n', 'b/go.mod': 'module b\n' }, 'a', /no go\.work.*go work init \.\/a \.\/b/],
    ['a crate outside a workspace', { 'Cargo.toml': '[package]\nname = "root"\n', 'x/Cargo.toml': '[package]\nname = "x"\n' }, 'x', /outside any Cargo workspace/],
    ['a folder with no files', { 'package.json': '{}' }, 'packages/none', /no files in packages\/none\//],
    ['a folder with no manifest', { 'package.json': '{}', 'docs/a.md': '' }, 'docs', /no package manifest in docs/],
    ['outside the repository', { 'package.json': '{}' }, '../x', /outside the repository/],
  ])('refuses %s', (_name, files, dir, message) => {
    expect(problemIn(files, dir)).toMatch(message);
  });
});

describe('the small readers', () => {
  it.each<[string, string[]]>([
    ['go 1.21\nuse ./a\n', ['a']],
    ['use (\n  ./a\n  "./b/c" // c\n  .\n)\n', ['a', 'b/c', '']],
    ['use (./x ./y)\n', ['x', 'y']],
  ])('go.work %j', (text, uses) => {
    expect(goWorkUses(text)).toEqual(uses);
  });
  it.each<[string, string[]]>([
    ["packages:\n  - 'a/*'\n  - b # comment\ncatalog:\n  - x\n", ['a/*', 'b']],
    ["packages: ['a/*', \"b\"]\n", ['a/*', 'b']],
  ])('pnpm-workspace.yaml %j', (text, patterns) => {
    expect(pnpmWorkspacePatterns(text)).toEqual(patterns);
  });
  it.each<[string, string, string]>([
    ['src/**|index.js', 'packages/a', 'packages/a/src/**|packages/a/index.js'],
    ['**/*.test.*|*_test.go|test_*.py', 'packages/a', '**/*.test.*|*_test.go|test_*.py'],
    ['src/**', '', 'src/**'],
  ])('prefixGlob(%j, %j)', (glob, dir, want) => {
    expect(prefixGlob(glob, dir)).toBe(want);
  });
});

describe('backslash globs', () => {
  it.each<[string, string | null]>([
    ['tests\\**', 'tests/**'],
    ['src\\app\\*.py', 'src/app/*.py'],
    ['tests\\\\**', 'tests/**'],
    ['\\tests\\**', 'tests/**'],
    ['**\\*.test.ts', '**/*.test.ts'],
    ['tests/**', null],
    // an escape on purpose: a Next.js dynamic route
    ['pages/\\[id\\].tsx', null],
    ['a/\\{b\\}/\\(c\\)!\\@x\\+', null],
  ])('%j', (pattern, fixed) => {
    expect(slashForm(pattern)).toBe(fixed);
  });

  it('names each key, its patterns, and the `/` form to write', () => {
    const problems = backslashGlobProblems({ test_file_glob: 'tests\\**|**/*.test.ts', source_file_glob: ['src\\**', 'lib/**'], test_config_glob: 'conftest.py', red_confirm: 'a\\d' });
    expect(problems).toEqual([
      'test_file_glob uses `\\` as a path separator (`tests\\**`): globs take `/` on every system (a backslash escapes the next character), so it matches no file. Write `tests/**|**/*.test.ts`',
      'source_file_glob uses `\\` as a path separator (`src\\**`): globs take `/` on every system (a backslash escapes the next character), so it matches no file. Write `src/**|lib/**`',
    ]);
  });
});

describe('a Cargo workspace’s tests, named from the repository’s root', () => {
  // cargo names a member's files from the member's folder; two members may both have tests/old.rs
  const OUT = [
    '     Running unittests src/lib.rs (target/debug/deps/my_shapes-95e51d23c399d757)',
    'test result: ok. 0 passed; 0 failed; 0 ignored',
    '     Running tests/old.rs (target/debug/deps/old-640b434ebe2e8ddd)',
    'test t ... ok',
    'test result: ok. 1 passed; 0 failed; 0 ignored',
    '     Running unittests src/lib.rs (target/debug/deps/words-a7ed91a919d2c7d0)',
    'test tests::unit ... FAILED',
    'test result: FAILED. 0 passed; 1 failed; 0 ignored',
    '     Running tests/old.rs (target/debug/deps/old-71b1e99d74ece354)',
    'test t ... ok',
    'test result: ok. 1 passed; 0 failed; 0 ignored',
    '   Doc-tests words',
    'test result: ok. 0 passed; 0 failed; 0 ignored',
  ].join('\n');
  const toml: Record<string, string> = { 'Cargo.toml': '[workspace]\nmembers = ["crates/*"]\n', 'crates/shapes/Cargo.toml': '[package]\nname = "my-shapes"\n', 'crates/words/Cargo.toml': '[package]\nname = "words"\n' };
  it.each<[string, readonly string[], string[]]>([
    ['members only', ['crates/shapes/tests/old.rs', 'crates/shapes/src/lib.rs', 'crates/words/tests/old.rs', 'crates/words/src/lib.rs'], ['crates/shapes/tests/old.rs::t', 'crates/words/src/lib.rs::tests::unit', 'crates/words/tests/old.rs::t']],
    // two binaries report one declaration: its reports are told apart by their order
    ['a member file no other crate has', ['crates/words/tests/old.rs', 'crates/words/src/lib.rs'], ['crates/words/tests/old.rs::t [#1]', 'crates/words/src/lib.rs::tests::unit', 'crates/words/tests/old.rs::t [#2]']],
  ])('%s', (_name, files, ids) => {
    const tests = identify(cargoTests(OUT) ?? [], { root: '/r', files, read: (rel) => toml[rel] ?? null });
    expect(tests.map((t) => t.id)).toEqual(ids);
  });
  it('a single crate keeps its own paths', () => {
    const single = OUT.replace(/my_shapes/g, 'words');
    const tests = identify(cargoTests(single) ?? [], { root: '/r', files: ['tests/old.rs', 'src/lib.rs'], read: (rel) => (rel === 'Cargo.toml' ? '[package]\nname = "words"\n' : null) });
    expect(tests.map((t) => t.id)).toEqual(['tests/old.rs::t [#1]', 'src/lib.rs::tests::unit', 'tests/old.rs::t [#2]']);
  });
});
