import { execFileSync, spawnSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/hook.js';
import { git, testRepo, type TestRepo } from '../helpers/repo.js';
import { NODE_MODULES, cli, ok, readState, startRed, writeVerdict } from './fixtures.js';

/**
 * Monorepos taken through a genuine cycle to `done` on the binding `stack detect` proposes, as
 * the person would: detect (from the root, or for one package), write it, and run the cycle in
 * one package with the built CLI.
 */

const hasGo = spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0;
const hasCargo = spawnSync('cargo', ['--version'], { encoding: 'utf8' }).status === 0;
const hasPytest = spawnSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).status === 0;

/** A repository holding these files, with no stack.json yet: `stack detect --write` makes it. */
function monorepo(files: Record<string, string>, setup?: (repo: TestRepo) => void): TestRepo {
  const repo = testRepo({ stack: null, files });
  setup?.(repo);
  return repo;
}

/** `stack detect [--package dir] --write`: the binding written, and the notes it printed. */
function detectAndWrite(repo: TestRepo, ...args: string[]): { stack: Record<string, unknown>; notes: string } {
  // run as the person runs it, the notes on stderr kept
  const r = spawnSync(process.execPath, [CLI, 'stack', 'detect', ...args], { cwd: repo.root, encoding: 'utf8', env: { ...process.env, TDD_GATE_DISABLE: '' } });
  const shown = ok({ status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr });
  ok(cli(repo, 'stack', 'detect', ...args, '--write'));
  ok(cli(repo, 'stack', 'check'));
  git(repo.root, 'add', '.tdd/stack.json');
  git(repo.root, 'commit', '-qm', 'stack');
  return { stack: JSON.parse(shown.stdout) as Record<string, unknown>, notes: shown.stderr };
}

interface CycleFiles {
  test: [string, string];
  stub: [string, string];
  real: [string, string];
}

/** RED on a stub, the validator's PASS, GREEN on the real code, done: returns what RED and done said. */
function cycle(repo: TestRepo, f: CycleFiles): { red: Record<string, unknown>; done: { tests: unknown[] } } {
  startRed(repo);
  repo.write(...f.test);
  repo.write(...f.stub);
  const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
  expect(red).toMatchObject({ valid: true });
  writeVerdict(repo);
  ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
  expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/not GREEN/);
  repo.write(...f.real);
  ok(cli(repo, 'verify', 'green'));
  const done = JSON.parse(ok(cli(repo, 'done', '--json')).stdout) as { tests: unknown[] };
  expect(readState(repo).phase).toBe('done');
  return { red, done };
}

const VITEST_OLD = (name: string) => `import { expect, test } from 'vitest';\ntest('${name}', () => { expect(1).toBe(1); });\n`;

describe('an npm workspaces monorepo', () => {
  it('vitest from the root: the binding runs every package, a cycle in one reaches done', { timeout: 180_000 }, () => {
    const repo = monorepo(
      {
        '.gitignore': 'node_modules\n',
        'package.json': JSON.stringify({ private: true, type: 'module', workspaces: ['packages/*'], devDependencies: { vitest: '*' } }, null, 2),
        'packages/a/package.json': JSON.stringify({ name: 'a', type: 'module' }),
        'packages/a/src/index.ts': 'export const name = "a";\n',
        'packages/a/test/old.test.ts': VITEST_OLD('a old'),
        'packages/b/package.json': JSON.stringify({ name: 'b', type: 'module' }),
        'packages/b/src/index.ts': 'export const name = "b";\n',
        'packages/b/test/old.test.ts': VITEST_OLD('b old'),
      },
      (repo) => symlinkSync(NODE_MODULES, repo.path('node_modules')),
    );
    const { stack, notes } = detectAndWrite(repo);
    expect(stack).toMatchObject({ language: 'typescript', test_command: 'npx vitest run' });
    expect(notes).toMatch(/a workspace of 2 packages \(packages\/a, packages\/b\)/);
    const { red, done } = cycle(repo, {
      test: ['packages/a/test/add.test.ts', "import { expect, test } from 'vitest';\nimport { add } from '../src/add.js';\ntest('adds', () => { expect(add(1, 2)).toBe(3); });\n"],
      stub: ['packages/a/src/add.ts', '// STUB:TDD\nexport function add(_a: number, _b: number): number { return 0; }\n'],
      real: ['packages/a/src/add.ts', 'export function add(a: number, b: number): number { return a + b; }\n'],
    });
    // every package's tests ran from the root
    expect(red).toMatchObject({ counts: { total: 3, failed: 1, passed: 2 }, failing_files: ['packages/a/test/add.test.ts'] });
    expect(done.tests).toContainEqual(expect.objectContaining({ red: 'failed', green: 'passed', counted_red: true }));
    expect(Object.keys(readState(repo).frozen.files).sort()).toEqual(['packages/a/test/add.test.ts', 'packages/a/test/old.test.ts', 'packages/b/test/old.test.ts', 'specs/SPEC-001.md']);
  });

  it('node:test bound to one package (--package): only its tests run, from the root', { timeout: 120_000 }, () => {
    const pkg = (name: string) => JSON.stringify({ name, type: 'module', scripts: { test: 'node --test test/' } });
    const old = (name: string) => `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('${name}', () => { assert.equal(1, 1); });\n`;
    const repo = monorepo({
      'package.json': JSON.stringify({ private: true, workspaces: ['packages/*'] }),
      'packages/a/package.json': pkg('a'),
      'packages/a/src/index.js': 'export const name = "a";\n',
      'packages/a/test/old.test.js': old('a old'),
      'packages/b/package.json': pkg('b'),
      'packages/b/src/index.js': 'export const name = "b";\n',
      'packages/b/test/old.test.js': old('b old'),
    });
    const { stack, notes } = detectAndWrite(repo, '--package', 'packages/b');
    expect(stack).toMatchObject({ test_command: 'node --test packages/b/test/', source_file_glob: expect.stringContaining('packages/b/src/**') as unknown });
    expect(notes).toMatch(/a cycle bound to packages\/b/);
    const { red } = cycle(repo, {
      test: ['packages/b/test/mul.test.js', "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { mul } from '../src/mul.js';\ntest('multiplies', () => { assert.equal(mul(2, 3), 6); });\n"],
      stub: ['packages/b/src/mul.js', '// STUB:TDD\nexport function mul() { return 0; }\n'],
      real: ['packages/b/src/mul.js', 'export function mul(a, b) { return a * b; }\n'],
    });
    expect(red).toMatchObject({ counts: { total: 2, failed: 1, passed: 1 } });
    expect(JSON.stringify(red)).not.toMatch(/a old/);
  });
});

const GO_HELPER = (pkg: string) => `package ${pkg}\n\nimport "testing"\n\nfunc check(t *testing.T, got, want int) {\n\tif got != want {\n\t\tt.Errorf("got %d, want %d", got, want)\n\t}\n}\n`;

describe.skipIf(!hasGo)('a Go repository of several modules', () => {
  it('go.work: the binding tests every module from the root; a cycle in one reaches done', { timeout: 180_000 }, () => {
    const repo = monorepo({
      'go.work': 'go 1.19\n\nuse (\n\t./api\n\t./calc\n)\n',
      'api/go.mod': 'module example.com/api\n\ngo 1.19\n',
      'api/api.go': 'package api\n\nfunc Version() string { return "1" }\n',
      'api/api_test.go': 'package api\n\nimport "testing"\n\nfunc TestVersion(t *testing.T) {\n\tif Version() != "1" {\n\t\tt.Fatal("version")\n\t}\n}\n',
      'calc/go.mod': 'module example.com/calc\n\ngo 1.19\n',
      'calc/calc.go': 'package calc\n',
      'calc/helper_test.go': GO_HELPER('calc'),
    });
    const { stack, notes } = detectAndWrite(repo);
    expect(stack).toMatchObject({ test_command: 'go test ./api/... ./calc/...' });
    expect(notes).toMatch(/a Go workspace of 2 modules/);
    const { red, done } = cycle(repo, {
      test: ['calc/add_test.go', 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) { check(t, Add(1, 2), 3) }\n'],
      stub: ['calc/calc.go', 'package calc\n\n// STUB:TDD\nfunc Add(a, b int) int { return 0 }\n'],
      real: ['calc/calc.go', 'package calc\n\nfunc Add(a, b int) int { return a + b }\n'],
    });
    expect(red).toMatchObject({ red_tests: ['example.com/calc::TestAdd'], tests: { 'example.com/api::TestVersion': 'passed' } });
    expect(done.tests).toContainEqual({ id: 'example.com/calc::TestAdd', red: 'failed', green: 'passed', counted_red: true });
  });
});

describe.skipIf(!hasCargo)('a Cargo workspace', () => {
  it('bound to one member crate (--package): cargo test -p runs it from the root to done', { timeout: 300_000 }, () => {
    const crate = (name: string) => `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\n`;
    const repo = monorepo({
      '.gitignore': 'target\n',
      'Cargo.toml': '[workspace]\nmembers = ["crates/*"]\nresolver = "2"\n',
      'crates/shapes/Cargo.toml': crate('shapes'),
      'crates/shapes/src/lib.rs': 'pub fn sides() -> u32 {\n    4\n}\n',
      'crates/shapes/tests/old.rs': '#[test]\nfn square() {\n    assert_eq!(shapes::sides(), 4);\n}\n',
      'crates/words/Cargo.toml': crate('words'),
      'crates/words/src/lib.rs': 'pub fn hello() -> &\'static str {\n    "hello"\n}\n',
      'crates/words/tests/old.rs': '#[test]\nfn hello() {\n    assert_eq!(words::hello(), "hello");\n}\n',
    });
    // a lock file as the project would commit it: nothing to resolve during the cycle
    execFileSync('cargo', ['generate-lockfile', '--offline'], { cwd: repo.root, stdio: 'ignore' });
    git(repo.root, 'add', '-A');
    git(repo.root, 'commit', '-qm', 'lock');
    const { stack } = detectAndWrite(repo, '--package', 'crates/words');
    expect(stack).toMatchObject({ test_command: 'cargo test -p words', test_file_glob: '**/tests/**|**/benches/**' });
    const { red } = cycle(repo, {
      test: ['crates/words/tests/shout.rs', '#[test]\nfn shouts() {\n    assert_eq!(words::shout("hi"), "HI");\n}\n'],
      stub: ['crates/words/src/lib.rs', 'pub fn hello() -> &\'static str {\n    "hello"\n}\n\n// STUB:TDD\npub fn shout(_s: &str) -> String {\n    String::new()\n}\n'],
      real: ['crates/words/src/lib.rs', 'pub fn hello() -> &\'static str {\n    "hello"\n}\n\npub fn shout(s: &str) -> String {\n    s.to_uppercase()\n}\n'],
    });
    // only the bound crate's tests ran, named from the repository's root
    expect(JSON.stringify(red)).not.toMatch(/square/);
    expect(red).toMatchObject({ counts: { failed: 1 }, red_tests: ['crates/words/tests/shout.rs::shouts'] });
  });
});

describe.skipIf(!hasPytest)('a Python repository of two packages, with an in-project virtualenv', () => {
  const files = {
    '.gitignore': '.venv/\n__pycache__/\n',
    'packages/alpha/pyproject.toml': '[project]\nname = "alpha"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    'packages/alpha/src/alpha/__init__.py': 'def one():\n    return 1\n',
    'packages/alpha/tests/test_core.py': 'from alpha import one\n\n\ndef test_one():\n    assert one() == 1\n',
    'packages/beta/pyproject.toml': '[project]\nname = "beta"\nversion = "0.1.0"\n',
    'packages/beta/beta/__init__.py': 'def two():\n    return 2\n',
    'packages/beta/tests/test_core.py': 'from beta import two\n\n\ndef test_two():\n    assert two() == 2\n',
  };
  /** `python -m venv .venv` as a person makes it (seeing the system's pytest: no network here). */
  const withVenv = (repo: TestRepo) => execFileSync('python3', ['-m', 'venv', '--system-site-packages', '--without-pip', repo.path('.venv')], { stdio: 'ignore' });
  const mulCycle = (pkg: string): CycleFiles => ({
    test: [`packages/${pkg}/tests/test_mul.py`, `from ${pkg}.mul import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n`],
    stub: [`packages/${pkg}/${pkg === 'alpha' ? 'src/alpha' : 'beta'}/mul.py`, '# STUB:TDD\ndef mul(a, b):\n    return 0\n'],
    real: [`packages/${pkg}/${pkg === 'alpha' ? 'src/alpha' : 'beta'}/mul.py`, 'def mul(a, b):\n    return a * b\n'],
  });

  it('from the root: the venv’s interpreter runs both packages in one session; a cycle in one reaches done', { timeout: 180_000 }, () => {
    const repo = monorepo(files, withVenv);
    const { stack, notes } = detectAndWrite(repo);
    expect(stack).toMatchObject({
      test_command: '.venv/bin/python -m pytest --rootdir=. -o "pythonpath=packages/alpha/src packages/beta" --import-mode=importlib packages/alpha packages/beta',
      source_file_glob: 'packages/alpha/src/**|packages/beta/beta/**',
    });
    expect(notes).toMatch(/own interpreter \.venv\/bin\/python/);
    const { red, done } = cycle(repo, mulCycle('beta'));
    expect(red).toMatchObject({ counts: { total: 3, failed: 1, passed: 2 }, red_tests: ['packages/beta/tests/test_mul.py::test_mul'] });
    expect(done.tests).toContainEqual({ id: 'packages/beta/tests/test_mul.py::test_mul', red: 'failed', green: 'passed', counted_red: true });
  });

  it('bound to one package (--package): its own pytest settings, its tests only, to done', { timeout: 180_000 }, () => {
    const repo = monorepo(files, withVenv);
    const { stack } = detectAndWrite(repo, '--package', 'packages/alpha');
    expect(stack).toMatchObject({ test_command: '.venv/bin/python -m pytest --rootdir=. -c packages/alpha/pyproject.toml packages/alpha' });
    const { red } = cycle(repo, mulCycle('alpha'));
    expect(red).toMatchObject({ counts: { total: 2, failed: 1, passed: 1 }, red_tests: ['packages/alpha/tests/test_mul.py::test_mul'] });
  });
});

describe('backslash globs', () => {
  it('stack check and init refuse them and give the `/` form', () => {
    const repo = testRepo({ stack: { language: 'python', test_command: 'python3 -m pytest', test_file_glob: 'tests\\**', source_file_glob: 'src/**', red_confirm: 'assert' }, files: { 'src/a.py': '', 'tests/test_a.py': '' } });
    const check = ok(cli(repo, 'stack', 'check'), 1);
    expect(check.stderr).toMatch(/test_file_glob uses `\\` as a path separator \(`tests\\\*\*`\).*matches no file\. Write `tests\/\*\*`/);
    const json = JSON.parse(ok(cli(repo, 'stack', 'check', '--json'), 1).stdout) as { ok: boolean; errors: string[] };
    expect(json).toMatchObject({ ok: false, errors: [expect.stringContaining('Write `tests/**`')] });
    expect(ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md'), 1).stderr).toMatch(/stack\.json: test_file_glob uses `\\`.*Write `tests\/\*\*`, then init again/);
    repo.setStack({ language: 'python', test_command: 'python3 -m pytest', test_file_glob: 'tests/**', source_file_glob: 'src/**', red_confirm: 'assert' });
    ok(cli(repo, 'stack', 'check'));
  });
});
