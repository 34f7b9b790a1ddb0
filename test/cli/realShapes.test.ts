import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import { testBlock } from '../../src/verify/evidence/identity.js';
import { notAnAssertion } from '../../src/verify/rules/judge.js';
import { instrumentCommand } from '../../src/verify/evidence/instrument.js';
import { textCounts } from '../../src/verify/evidence/textReport.js';
import { CLI, runHookBundle } from '../helpers/hook.js';
import { git, testRepo, type TestRepo } from '../helpers/repo.js';
import { NODE_TEST_STACK, cli, ok, readState, redToGreen, startRed, writeVerdict } from './fixtures.js';

/**
 * Shapes of real open-source projects that went wrong under the gate, rebuilt small: where their
 * code, tests and golden files live, how their test script calls the runner, how a crate writes
 * its tests. Each case runs the shipped CLI and hook.
 */

const hasCargo = spawnSync('cargo', ['--version'], { encoding: 'utf8' }).status === 0;
const hasGo = spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0;
const hasPytest = spawnSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).status === 0;

let useId = 0;
/** A Bash call the gate lets run, closed with its PostToolUse as the client does. */
function bashPasses(repo: TestRepo, command: string, agent_type?: string): void {
  const id = `toolu_real_${++useId}`;
  const who = agent_type === undefined ? { cwd: repo.root } : { cwd: repo.root, agent_type };
  const pre = runHookBundle({ ...ev.bash(who, command), tool_use_id: id }, { event: 'PreToolUse' });
  expect({ command, decision: pre.decision, reason: pre.reason }).toEqual({ command, decision: 'pass', reason: '' });
  runHookBundle({ ...ev.bash(who, command), tool_use_id: id, hook_event_name: 'PostToolUse', tool_response: { stdout: '', stderr: '', interrupted: false } }, { event: 'PostToolUse' });
}

/** `stack detect` on a bare git repo holding these files. */
function detect(files: Record<string, string>): Record<string, string> {
  const repo = testRepo({ files });
  git(repo.root, 'add', '-A');
  return JSON.parse(ok(cli(repo, 'stack', 'detect')).stdout) as Record<string, string>;
}

describe('stack detect on real layouts', () => {
  it.each([
    [
      // a Go module whose golden files sit beside the package that reads them
      'go: testdata/ below the root is test data',
      { 'go.mod': 'module example.com/m\n\ngo 1.19\n', 'cmp/compare.go': 'package cmp\n', 'cmp/compare_test.go': 'package cmp\n', 'cmp/testdata/diffs': 'x\n' },
      { test_file_glob: '*_test.go|**/testdata/**' },
    ],
    [
      // a package whose code is index.js beside package.json, tested by `npm run test:unit` → `c8 node --test`
      'node:test: behind npm run and a coverage wrapper, code at the root',
      {
        'package.json': JSON.stringify({ main: 'index.js', scripts: { test: 'npm run test:unit && npm run test:typescript', 'test:unit': 'c8 --100 node --test', 'test:typescript': 'tstyche' }, devDependencies: { c8: '1' } }),
        'index.js': 'module.exports = 1\n',
        'eslint.config.js': 'module.exports = []\n',
        'types/index.d.ts': 'export {}\n',
        'test/index.test.js': "require('node:test')\n",
      },
      { test_command: 'node --test', source_file_glob: 'src/**|lib/**|index.js' },
    ],
    [
      // mocha pointed at spec/ through `nyc npm run test-spec`: a bare `npx mocha` finds no test
      'mocha: the directory the project gives it',
      {
        'package.json': JSON.stringify({ scripts: { 'test-spec': 'mocha spec -R spec --reporter-option output=r.json', test: 'npm run eslint && nyc npm run test-spec' }, devDependencies: { mocha: '10', nyc: '15' } }),
        'index.js': 'module.exports = 1\n',
        'spec/index.spec.js': '',
        'spec/fixtures/schema.js': '',
      },
      { test_command: 'npx mocha spec', test_file_glob: 'spec/**|test/**|tests/**|**/*.spec.*|**/*.test.*', source_file_glob: 'src/**|lib/**|index.js' },
    ],
    [
      // specs with their fixtures under spec/, run by jest's default match
      'jest: spec/ and its fixtures are tests',
      { 'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '30' } }), 'index.js': '', 'spec/index.spec.js': '', 'spec/fixtures/schema.js': '' },
      { test_command: 'npm test --silent', test_file_glob: '**/*.test.*|**/*.spec.*|test/**|tests/**|spec/**|**/__tests__/**|**/__mocks__/**|**/__snapshots__/**' },
    ],
    [
      // a workspace package: TypeScript sources, the tsconfig and typescript at the workspace root
      'vitest: TypeScript sources without a tsconfig of their own',
      { 'package.json': JSON.stringify({ scripts: { test: 'vitest run' } }), 'src/index.ts': '', 'src/tests/a.test.ts': '' },
      { language: 'typescript', test_command: 'npx vitest run' },
    ],
    [
      // a command-line package: its code in bin/ and at the root, benchmarks and examples beside it
      'JavaScript code outside src/: bin/ and the root',
      { 'package.json': JSON.stringify({ bin: 'bin/cli.js', scripts: { test: 'node --test test/' } }), 'bin/cli.js': '', 'index.js': '', 'benchmarks/run.js': '', 'examples/a.js': '', 'test/a.test.js': '' },
      { test_command: 'node --test test/', test_file_glob: 'test/**', source_file_glob: 'src/**|lib/**|bin/**|index.js' },
    ],
    [
      // an npm workspace: each package has its own src/ and test/
      'a JavaScript workspace: every package’s src/ and test/',
      { 'package.json': JSON.stringify({ private: true, workspaces: ['packages/*'], scripts: { test: 'node --test' } }), 'packages/a/src/index.js': '', 'packages/a/test/a.test.js': '' },
      { test_file_glob: '**/*.test.*|**/*.spec.*|**/test/**|**/tests/**|**/spec/**|**/__tests__/**', source_file_glob: 'src/**|lib/**|**/src/**|**/lib/**|packages/**' },
    ],
    [
      'a Cargo workspace: every member crate',
      { 'Cargo.toml': '[workspace]\nmembers = ["crates/*"]\n', 'crates/a/Cargo.toml': '[package]\nname = "a"\n', 'crates/a/src/lib.rs': '', 'crates/a/tests/t.rs': '' },
      { test_command: 'cargo test --workspace', test_file_glob: '**/tests/**|**/benches/**', source_file_glob: '**/src/**|**/build.rs' },
    ],
    [
      // a package that ships its tests inside itself (pkg/tests/), with helpers that are not test_*.py
      'pytest: tests/ inside the package',
      { 'pkg/__init__.py': '', 'pkg/core.py': '', 'pkg/tests/__init__.py': '', 'pkg/tests/test_core.py': '' },
      { test_file_glob: 'test_*.py|*_test.py|**/tests/**|**/test/**' },
    ],
  ])('%s', (_name, files, want) => {
    expect(detect(files)).toMatchObject(want);
  });

  it('a package with its code at the root starts a cycle on the detected stack', () => {
    const repo = testRepo({
      files: { 'package.json': JSON.stringify({ scripts: { test: 'node --test' } }), 'index.js': 'module.exports = 1\n', 'test/a.test.js': "require('node:test')\n" },
    });
    git(repo.root, 'add', '-A');
    ok(cli(repo, 'stack', 'detect', '--write', '--force'));
    expect(ok(cli(repo, 'stack', 'check')).stdout).toMatch(/1 test files, 0 test-config files, 1 source files/);
    ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md'));
  });
});

describe('the CLI output', () => {
  it('a reader that stops early (`| head`) is no crash', () => {
    const repo = testRepo({ files: { 'go.mod': 'module m\n' } });
    const r = spawnSync('bash', ['-c', `"${process.execPath}" "${CLI}" stack detect 2>err.txt | true; echo "\${PIPESTATUS[0]}"; cat err.txt`], { cwd: repo.root, encoding: 'utf8' });
    expect(r.stdout).not.toMatch(/EPIPE|Unhandled/);
    expect(r.stdout.split('\n')[0]).toBe('0');
  });
});

describe('a source the project already had reaching into the runner', () => {
  it('may be edited in GREEN; what the cycle adds is still refused', { timeout: 60_000 }, () => {
    // a CLI helper that names the runners it supports, committed long before this cycle
    const RUNNERS = "export const RUNNERS = ['vitest', 'jest', 'node:test'];\n";
    const repo = testRepo({
      stack: NODE_TEST_STACK,
      files: { 'package.json': '{"type":"module","private":true}\n', 'src/runners.js': RUNNERS, 'src/add.js': '// STUB:TDD\nexport function add() { return 0; }\n' },
    });
    startRed(repo);
    repo.write('test/add.test.js', "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\nimport { RUNNERS } from '../src/runners.js';\ntest('add', () => { assert.equal(add(1, 2), 3); assert.ok(RUNNERS.length > 0); });\n");
    redToGreen(repo);
    // a refusal names the tests that fail
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/not GREEN: 1 of 1 tests fail: test\/add\.test\.js::add;/);
    const implementer = { cwd: repo.root, agent_type: 'tdd-gate:implementer' };
    const edited = RUNNERS + 'export function runnerNames() { return RUNNERS.join(", "); }\n';
    expect(runHookBundle(ev.write(implementer, repo.path('src/runners.js'), edited))).toMatchObject({ decision: 'pass' });
    repo.write('src/runners.js', edited);
    repo.write('src/add.js', 'export function add(a, b) { return a + b; }\n');
    ok(cli(repo, 'verify', 'green'));
    // a new reach into the runner in the same file is refused, by the hook and by verify
    const reaching = edited + 'export const underTest = () => Boolean(process.env.NODE_TEST_CONTEXT);\n';
    expect(runHookBundle(ev.write(implementer, repo.path('src/runners.js'), reaching))).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/runner-reach/) });
    repo.write('src/runners.js', reaching);
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/src\/runners\.js:3 reads the test runner’s environment/);
  });
});

describe('installed dependencies', () => {
  it('are neither tests nor sources: removing node_modules is an ordinary command in RED and GREEN', { timeout: 60_000 }, () => {
    const repo = testRepo({
      stack: { ...NODE_TEST_STACK, test_file_glob: '**/*.test.*|**/test/**', source_file_glob: '**/src/**' },
      files: { '.gitignore': 'node_modules\n', 'package.json': '{"type":"module","private":true}\n', 'src/add.js': '// STUB:TDD\nexport function add() { return 0; }\n' },
    });
    // a dependency that ships its own tests and sources
    repo.write('node_modules/dep/test/dep.test.js', '');
    repo.write('node_modules/dep/src/index.js', '');
    startRed(repo);
    bashPasses(repo, 'rm -rf node_modules', 'tdd-gate:test-writer');
    repo.write('test/add.test.js', "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('add', () => { assert.equal(add(1, 2), 3); });\n");
    redToGreen(repo);
    bashPasses(repo, 'rm -rf node_modules', 'tdd-gate:implementer');
    // a hand edit there is still denied while the tests are frozen
    const r = runHookBundle(ev.write({ cwd: repo.root, agent_type: 'tdd-gate:implementer' }, repo.path('node_modules/dep/test/dep.test.js'), 'x'));
    expect(r).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/dependency-edit/) });
  });
});

describe('freeze', () => {
  it('says why a verdict that arrived while a command ran was not taken', { timeout: 60_000 }, () => {
    const repo = testRepo({ stack: NODE_TEST_STACK, files: { 'package.json': '{"type":"module","private":true}\n', 'src/add.js': '// STUB:TDD\nexport function add() { return 0; }\n' } });
    startRed(repo);
    repo.write('test/add.test.js', "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('add', () => { assert.equal(add(1, 2), 3); });\n");
    ok(cli(repo, 'verify', 'red'));
    // a command of the orchestrator is still running (no PostToolUse yet) when the validator stops
    expect(runHookBundle({ ...ev.bash({ cwd: repo.root }, 'sleep 30'), tool_use_id: 'toolu_running' }, { event: 'PreToolUse' }).decision).toBe('pass');
    writeVerdict(repo);
    expect(ok(cli(repo, 'freeze', '--verdict', 'verdict.md'), 1).stderr).toMatch(/returned this verdict while other commands were still running .*dispatch the test-validator again/);
  });
});

describe('ordinary commands in a Python project', () => {
  it('clearing __pycache__ with find is no write to .tdd/', () => {
    const repo = testRepo({ stack: { language: 'python', test_command: 'python3 -m pytest', test_file_glob: 'test_*.py|**/tests/**', source_file_glob: '**/*.py', red_confirm: 'assert' }, files: { 'pkg/__init__.py': '', 'pkg/tests/test_a.py': 'def test_a():\n    assert True\n' } });
    startRed(repo);
    for (const cmd of ['find . -name __pycache__ -exec rm -rf {} +', 'find . -type d -name __pycache__ -exec rm -rf {} +']) bashPasses(repo, cmd);
    // what such a find does reach is still judged
    const r = runHookBundle(ev.bash({ cwd: repo.root }, "find . -name 'state-*.json' -delete"), { event: 'PreToolUse' });
    expect(r).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/control-file/) });
  });
});

// A crate that writes its tests as top-level #[test] functions in src/lib.rs (no `mod tests`),
// with #[cfg(test)] imports and test data beside them.
const CARGO_TOML = '[package]\nname = "words"\nversion = "0.1.0"\nedition = "2021"\n';
const LIB = [
  'extern crate alloc;',
  '#[cfg(test)]',
  'use alloc::vec;',
  '',
  '/// Quotes a word with a space.',
  '///',
  '/// ```',
  '/// assert_eq!(words::quote("ab"), "ab");',
  '/// ```',
  'pub fn quote(w: &str) -> String {',
  '    if w.contains(\' \') { format!("\\"{}\\"", w) } else { w.to_string() }',
  '}',
  '',
  '#[cfg(test)]',
  'static ITEMS: &[(&str, &str)] = &[("a b", "\\"a b\\""), ("ab", "ab")];',
  '',
  '#[test]',
  'fn test_quote() {',
  '    for &(i, o) in ITEMS {',
  '        assert_eq!(quote(i), o);',
  '    }',
  '    assert_eq!(vec![1].len(), 1);',
  '}',
  '',
].join('\n');
const NEW_TEST = '#[test]\nfn test_is_safe() {\n    assert!(is_safe("ab"));\n    assert!(!is_safe("a b"));\n}\n';
const STUB = '// STUB:TDD\npub fn is_safe(_w: &str) -> bool {\n    false\n}\n';
const REAL = 'pub fn is_safe(w: &str) -> bool {\n    quote(w) == w\n}\n';

describe.skipIf(!hasCargo)('a crate with its tests at the top of src/lib.rs', () => {
  it('a new #[test] fn is a test write; the tests are frozen in GREEN; the real code reaches done', { timeout: 300_000 }, () => {
    const repo = testRepo({
      stack: { language: 'rust', test_command: 'cargo test --offline', test_file_glob: 'tests/**', source_file_glob: 'src/**', red_confirm: 'panicked at|assertion .*failed', build_error_pattern: 'error\\[E\\d+\\]|could not compile' },
      files: { '.gitignore': 'target\n', 'Cargo.toml': CARGO_TOML, 'src/lib.rs': LIB },
    });
    startRed(repo);
    const lib = repo.path('src/lib.rs');
    const writer = { cwd: repo.root, agent_type: 'tdd-gate:test-writer' };
    // RED: the test alone needs no stub marker (it is a test), production code does
    expect(runHookBundle(ev.edit(writer, lib, '#[test]\nfn test_quote() {', `${NEW_TEST}\n#[test]\nfn test_quote() {`))).toMatchObject({ decision: 'pass' });
    expect(runHookBundle(ev.edit(writer, lib, 'pub fn quote', `${REAL}\npub fn quote`))).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/red-source/) });
    repo.write('src/lib.rs', LIB.replace('/// Quotes a word', `${STUB}\n/// Quotes a word`).replace('#[test]\nfn test_quote() {', `${NEW_TEST}\n#[test]\nfn test_quote() {`));
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, red_tests: ['src/lib.rs::test_is_safe'] });
    redToGreen(repo);
    expect(readState(repo).frozen).toHaveProperty(['parts', 'src/lib.rs#cfg(test)']);

    // GREEN: the new test, the old one and the #[cfg(test)] items are frozen; the rest is not
    const implementer = { cwd: repo.root, agent_type: 'tdd-gate:implementer' };
    for (const [from, to] of [
      ['    assert!(is_safe("ab"));\n', ''],
      ['#[cfg(test)]\nstatic ITEMS', '#[cfg(test)]\nfn is_safe_under_test() {}\n#[cfg(test)]\nstatic ITEMS'],
      ['("ab", "ab")', '("ab", "x")'],
    ] as const) {
      expect(runHookBundle(ev.edit(implementer, lib, from, to))).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/tests-frozen/) });
    }
    // a doc example is a doc test: the one there at the freeze is frozen, a new item may bring its own
    expect(runHookBundle(ev.edit(implementer, lib, '/// assert_eq!(words::quote("ab"), "ab");', '/// assert_eq!(words::quote("ab"), "x");'))).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/tests-frozen.*doc example/) });
    const added = runHookBundle(ev.edit(implementer, lib, '/// Quotes a word with a space.', '/// Zero.\n///\n/// ```\n/// assert_eq!(words::zero(), 0);\n/// ```\npub fn zero() -> i32 {\n    0\n}\n\n/// Quotes a word that has a space.'));
    expect({ decision: added.decision, reason: added.reason }).toEqual({ decision: 'pass', reason: '' });
    expect(readState(repo).frozen).toHaveProperty(['parts', 'src/lib.rs#doc(quote)']);
    expect(runHookBundle(ev.edit(implementer, lib, STUB, REAL))).toMatchObject({ decision: 'pass' });
    bashPasses(repo, 'cargo fmt', 'tdd-gate:implementer');
    bashPasses(repo, 'cargo clippy', 'tdd-gate:implementer');
    repo.write('src/lib.rs', readFileSync(lib, 'utf8').replace(STUB, REAL));
    ok(cli(repo, 'verify', 'green'));
    const done = JSON.parse(ok(cli(repo, 'done', '--json')).stdout) as { tests: unknown[] };
    expect(done.tests).toContainEqual({ id: 'src/lib.rs::test_is_safe', red: 'failed', green: 'passed', counted_red: true });
  });
});


// A Go table test whose table lives outside the test function (a package-level var, or a helper
// that builds it), the test only looping over it with t.Errorf.
const GO_TABLE = (rows: string) => `package calc\n\nimport "testing"\n\nvar addCases = []struct{ a, b, want int }{\n${rows}}\n\nfunc TestAdd(t *testing.T) {\n\tfor _, c := range addCases {\n\t\tif got := Add(c.a, c.b); got != c.want {\n\t\t\tt.Errorf("Add(%d, %d) = %d, want %d", c.a, c.b, got, c.want)\n\t\t}\n\t}\n}\n`;

describe.skipIf(!hasGo)('a Go table test with its table outside the test', () => {
  it('a row added to the table is a genuine RED; an existing row changed is not', { timeout: 120_000 }, () => {
    const repo = testRepo({
      stack: { language: 'go', test_command: 'go test ./...', test_file_glob: '*_test.go|**/testdata/**', source_file_glob: '**/*.go', red_confirm: '--- FAIL', build_error_pattern: '\\[build failed\\]|undefined: ' },
      files: { 'go.mod': 'module example.com/calc\n\ngo 1.19\n', 'calc.go': 'package calc\n\nfunc Add(a, b int) int { return a + b }\n', 'calc_test.go': GO_TABLE('\t{1, 1, 2},\n\t{2, 3, 5},\n') },
    });
    startRed(repo);
    repo.write('calc_test.go', GO_TABLE('\t{1, 1, 2},\n\t{2, 4, 5},\n'));
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/not written or changed in this cycle \(failing: example\.com\/calc::TestAdd\)/);
    repo.write('calc_test.go', GO_TABLE('\t{1, 1, 2},\n\t{2, 3, 5},\n\t{99, 5, 100}, // saturates at 100\n'));
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, red_tests: ['example.com/calc::TestAdd'] });
  });
});

describe('a pytest test is its decorators too', () => {
  const PY = (rows: string) => `import pytest\nfrom calc import add\n\n\ndef test_one():\n    assert add(1, 1) == 2\n\n\n@pytest.mark.parametrize("a,b,want", [\n${rows}])\ndef test_add(a, b, want):\n    assert add(a, b) == want\n`;
  it('the block of a test holds its parametrize cases, and the test above it ends before them', () => {
    const text = PY('    (1, 2, 3),\n');
    expect(testBlock(text, 'test_add')).toBe('@pytest.mark.parametrize("a,b,want", [\n    (1, 2, 3),\n])\ndef test_add(a, b, want):\n    assert add(a, b) == want');
    expect(testBlock(text, 'test_one')).toBe('def test_one():\n    assert add(1, 1) == 2');
    const method = 'class TestCalc:\n    @pytest.mark.slow\n    @pytest.mark.parametrize("n", [1,\n        2])\n    def test_n(self, n):\n        assert n\n';
    expect(testBlock(method, 'test_n')).toBe('    @pytest.mark.slow\n    @pytest.mark.parametrize("n", [1,\n        2])\n    def test_n(self, n):\n        assert n');
  });

  it.skipIf(!hasPytest)('a case added to @pytest.mark.parametrize is a genuine RED', { timeout: 60_000 }, () => {
    const repo = testRepo({
      stack: { language: 'python', test_command: 'python3 -m pytest -p no:cacheprovider', test_file_glob: 'test_*.py|**/tests/**', source_file_glob: '**/*.py', red_confirm: 'AssertionError|assert ' },
      files: { 'calc/__init__.py': 'def add(a, b):\n    return a + b\n', 'tests/test_calc.py': PY('    (1, 2, 3),\n'), '.gitignore': '__pycache__/\n' },
    });
    startRed(repo);
    repo.write('tests/test_calc.py', PY('    (1, 2, 3),\n    (99, 5, 100),\n'));
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, red_tests: ['tests/test_calc.py::test_add[99-5-100]'] });
  });
});

describe('cargo test as projects spell it', () => {
  it.each([
    ['cargo test -q', 'cargo test --no-fail-fast'],
    ['cargo test --quiet --all-features', 'cargo test --no-fail-fast --all-features'],
    ['cargo test -- -q --test-threads=1', 'cargo test --no-fail-fast -- --test-threads=1'],
    ['cargo test -- --format terse', 'cargo test --no-fail-fast --'],
  ])('%s runs as %s (quiet output names no test)', (command, want) => {
    const plan = instrumentCommand(command, '/r.json');
    expect(plan).toMatchObject({ command: want, kind: 'cargo', jsModule: { source: expect.stringContaining("r='/r.json'") as unknown } });
    // every test binary runs through the gate's runner, named in the environment (cargo does not fingerprint it)
    if (hasCargo) expect(Object.entries(plan.env ?? {})).toContainEqual([expect.stringMatching(/^CARGO_TARGET_\w+_RUNNER$/), `sh ${plan.jsModule?.token ?? '?'}`]);
  });
  it.each([
    ['cargo test --offline && cargo clippy', 'cargo test --offline && cargo clippy'],
    ['cargo test --no-fail-fast --target x86_64-unknown-linux-musl', 'cargo test --no-fail-fast --target x86_64-unknown-linux-musl'],
  ])('%s: the runner goes in through the environment, the command stays', (command, want) => {
    const plan = instrumentCommand(command, '/r.json');
    expect(plan).toMatchObject({ command: want, kind: 'cargo' });
    if (command.includes('musl')) expect(plan.env).toHaveProperty('CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_RUNNER');
  });
});

describe('python -m unittest, as projects built on unittest run it', () => {
  it.each([
    ['s....E..\n' + '-'.repeat(70) + '\nRan 144 tests in 0.331s\n\nFAILED (errors=1, skipped=8)\n', { total: 136, failed: 1, passed: 135 }],
    ['Ran 3 tests in 0.001s\n\nFAILED (failures=1, errors=1)\n', { total: 3, failed: 2, passed: 1 }],
    ['Ran 5 tests in 0.010s\n\nOK (skipped=1, expected failures=1)\n', { total: 3, failed: 0, passed: 3 }],
    ['Ran 1 test in 0.000s\n\nOK\n', { total: 1, failed: 0, passed: 1 }],
  ])('%j', (text, counts) => {
    expect(textCounts(text)).toEqual(counts);
  });
});

describe('a stub that throws is there, but no assertion ran', () => {
  it.each([
    ['pytest', 'NotImplementedError'],
    ['cargo', "thread 'adds' panicked at src/lib.rs:3:5:\nnot implemented"],
    ['vitest', 'Error: not implemented'],
  ])('%s: %j', (_runner, message) => {
    const t = { id: 'a::b', file: 'a', leaf: 'b', status: 'failed' as const, message };
    expect(notAnAssertion(t, /AssertionError|assert/, null, 'text')).toMatch(/stub that throws .*let the STUB:TDD stub return a value/);
  });
  it('a missing name is still a missing name', () => {
    const t = { id: 'a::b', file: 'a', leaf: 'b', status: 'failed' as const, message: "AttributeError: module 'calc' has no attribute 'add'" };
    expect(notAnAssertion(t, /AssertionError/, null, 'text')).toMatch(/missing name .*add a STUB:TDD stub first/);
  });
});
