import { describe, expect, it } from 'vitest';
import { readSpecFacts, specEntryProblem } from '../../src/spec/spec.js';
import { detectStack } from '../../src/stack/rules/detect.js';
import { stackSchema } from '../../src/state/schema/stack.js';
import { DEFAULT_STACK, testRepo } from '../helpers/repo.js';
import { cli, ok } from './fixtures.js';

describe('C1 entry gate', () => {
  it.each([
    ['# S\n#### Scenario: a\n- THEN 1\n', null],
    ['---\nstatus: active\nid: SPEC-9\n---\n#### Scenario: a\n- THEN 1\n', null],
    ['# S\n#### Scenario: a\n', /scenario "a" has no THEN step/],
    ['# S\n### Scenario: a\n', /no `#### Scenario` heading/],
    ['---\nstatus: draft\n---\n#### Scenario: a\n', /status "draft"/],
  ])('%j', (text, problem) => {
    const p = specEntryProblem(readSpecFacts(text), 'specs/S.md');
    if (problem === null) expect(p).toBeNull();
    else expect(p).toMatch(problem);
  });
  it('reads the id from front matter', () => {
    expect(readSpecFacts('---\r\nid: "SPEC-9"\r\n---\r\n').id).toBe('SPEC-9');
  });
});

describe('stack detect', () => {
  const facts = (files: string[], pkg: unknown = null) => ({
    has: (rel: string) => files.includes(rel),
    packageJson: pkg === null ? null : JSON.stringify(pkg),
    anyFile: (re: RegExp) => files.some((f) => re.test(f)),
  });
  it.each([
    ['vitest', facts(['package.json', 'tsconfig.json'], { devDependencies: { vitest: '1' } }), 'npx vitest run'],
    ['jest', facts(['package.json'], { devDependencies: { jest: '1' } }), 'npx jest'],
    ['node:test', facts(['package.json'], { scripts: { test: 'node --test' } }), 'node --test'],
    ['pytest', facts(['pyproject.toml']), 'python -m pytest'],
    ['go', facts(['go.mod']), 'go test ./...'],
    ['cargo', facts(['Cargo.toml']), 'cargo test'],
  ])('%s', (_n, f, command) => {
    const found = detectStack(f);
    expect(found?.stack.test_command).toBe(command);
    // every generated stack must pass our own strict schema and compile its regexes
    expect(stackSchema.safeParse(found!.stack).success).toBe(true);
    expect(() => new RegExp(found!.stack.red_confirm)).not.toThrow();
    expect(() => new RegExp(found!.stack.build_error_pattern!)).not.toThrow();
  });
  it.each([
    ['node:test from the project script, only what it names', facts(['package.json'], { scripts: { test: 'node --test test/' } }), { test_command: 'node --test test/', test_file_glob: 'test/**' }],
    ['node:test with flags and a file', facts(['package.json'], { scripts: { test: 'tsc && node --experimental-strip-types --test test/a.test.ts' } }), { test_command: 'node --experimental-strip-types --test test/a.test.ts', test_file_glob: 'test/a.test.ts' }],
    ['jest behind its plain test script', facts(['package.json'], { devDependencies: { jest: '30' }, scripts: { test: 'jest --config ci/jest.config.js' } }), { test_command: 'npm test --silent' }],
    ['jest for ESM, with its env prefix', facts(['package.json'], { scripts: { test: 'NODE_OPTIONS=--experimental-vm-modules jest' } }), { test_command: 'npm test --silent' }],
    ['jest from its key, the script doing more', facts(['package.json'], { jest: { testEnvironment: 'node' }, scripts: { test: 'eslint . && jest' } }), { test_command: 'npx jest' }],
    ['jest from its config file', facts(['package.json', 'jest.config.js'], { scripts: { test: 'jest --watch' } }), { test_command: 'npx jest', test_file_glob: expect.stringContaining('**/__mocks__/**') as unknown }],
    ['mocha as mocha', facts(['package.json'], { devDependencies: { mocha: '10' }, scripts: { test: 'mocha' } }), { test_command: 'npx mocha' }],
    ['python3 where python is absent', { ...facts(['pyproject.toml']), onPath: (p: string) => p === 'python3' }, { test_command: 'python3 -m pytest' }],
    ['a crate with a root lib.rs', { ...facts(['Cargo.toml']), read: () => '[lib]\npath = "lib.rs"\n' }, { source_file_glob: 'src/**|*.rs' }],
  ])('%s', (_n, f, want) => {
    expect(detectStack(f)?.stack).toMatchObject(want);
  });
  it('finds nothing in an empty project', () => {
    expect(detectStack(facts([]))).toBeNull();
  });
});

describe('init and the source glob', () => {
  it('refuses when source_file_glob matches no file but the project has code elsewhere', () => {
    const repo = testRepo({ stack: { ...DEFAULT_STACK, language: 'rust', source_file_glob: 'src/**' }, files: { 'Cargo.toml': '[package]\nname = "x"\n[lib]\npath = "lib.rs"\n', 'lib.rs': 'pub fn a() {}\n', 'eslint.config.js': 'export default [];\n' } });
    const r = ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md'), 1);
    expect(r.stderr).toMatch(/source_file_glob \(src\/\*\*\) matches no file, but the project has code in lib\.rs: .*Set source_file_glob in \.tdd\/stack\.json/);
    expect(r.stderr).not.toMatch(/eslint/);
    repo.setStack({ ...DEFAULT_STACK, language: 'rust', source_file_glob: 'src/**|*.rs' });
    ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md'));
  });
  it('refuses when a top-level Python package is neither test nor source, whatever else the glob matches', () => {
    const stack = { ...DEFAULT_STACK, language: 'python', test_command: 'python3 -m pytest', test_file_glob: 'tests/**', source_file_glob: 'src/**' };
    const files = {
      'src/helpers.py': 'def h():\n    return 1\n',
      'mylib/__init__.py': '',
      'mylib/core.py': 'def add(a, b):\n    return a + b\n',
      'tests/__init__.py': '',
      'tests/test_core.py': 'def test_add():\n    assert True\n',
      // tooling and test folders stay other
      'scripts/__init__.py': '',
      'scripts/release.py': 'print(1)\n',
      'benchmarks/__init__.py': '',
      'benchmarks/bench_add.py': 'print(1)\n',
      'docs/conf.py': 'project = "x"\n',
      'examples/demo.py': 'print(1)\n',
      'it/__init__.py': '',
      'it/conftest.py': '',
      'it/test_it.py': 'def test_it():\n    assert True\n',
    };
    const repo = testRepo({ stack: { ...stack, test_file_glob: 'tests/**|**/test_*.py' }, files });
    const r = ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md'), 1);
    expect(r.stderr).toMatch(/source_file_glob \(src\/\*\*\) does not match the Python package mylib\/ \(mylib\/__init__\.py, mylib\/core\.py\): .*writable in RED without a stub\. Add it to source_file_glob in \.tdd\/stack\.json \(`src\/\*\*\|mylib\/\*\*`\)/);
    expect(r.stderr).not.toMatch(/scripts|benchmarks|docs|examples|it\//);
    repo.setStack({ ...stack, test_file_glob: 'tests/**|**/test_*.py', source_file_glob: 'src/**|mylib/**' });
    ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md'));
  });
  it('lets a project without any code yet start', () => {
    ok(cli(testRepo(), 'init', '--spec', 'specs/SPEC-001.md'));
  });
});
