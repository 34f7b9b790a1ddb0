import { describe, expect, it } from 'vitest';
import { analyzeBash } from '../../src/gate/rules/bash/analyze.js';
import { decideWriteTarget, type CycleFacts } from '../../src/gate/rules/decideWrite.js';
import { frozenKeysHit, frozenPackageKeys, manifestIsConfig, partChanges, partText } from '../../src/state/rules/runnerParts.js';

const PKG = JSON.stringify({ type: 'module', scripts: { test: 'npm run unit', unit: 'node --test', lint: 'eslint .' }, dependencies: { a: '1' } });
const pkg = (patch: (p: Record<string, unknown> & { scripts: Record<string, string> }) => void) => {
  const p = JSON.parse(PKG) as Record<string, unknown> & { scripts: Record<string, string> };
  patch(p);
  return JSON.stringify(p);
};

describe('partChanges: which frozen settings a change touches', () => {
  it.each([
    ['the test script', pkg((p) => (p.scripts.test = 'true')), ['scripts.test']],
    ['a script the test script calls', pkg((p) => (p.scripts.unit = 'node --test a')), ['scripts.unit']],
    ['a new posttest script', pkg((p) => (p.scripts.posttest = 'x')), ['scripts.posttest']],
    ['the module type', pkg((p) => (p.type = 'commonjs')), ['type']],
    ['a runner key', pkg((p) => (p.mocha = { grep: 'x' })), ['mocha']],
    ['a dependency', pkg((p) => ((p.dependencies as Record<string, string>).b = '2')), []],
    ['another script', pkg((p) => (p.scripts.lint = 'eslint src')), []],
    ['only the formatting', JSON.stringify(JSON.parse(PKG), null, 2), []],
    ['JSON that does not parse', '{', ['scripts.test', 'scripts.unit', 'type', 'unparsable']],
  ])('package.json: %s', (_what, after, keys) => {
    expect(partChanges('package.json', PKG, after, 'npm test')).toEqual(keys);
  });
  it('pytest sections, and a file that is not a part file', () => {
    expect(partChanges('pyproject.toml', '[tool.pytest.ini_options]\naddopts = "-q"\n', '[tool.pytest.ini_options]\naddopts = "-q -x"\n', 'pytest')).toEqual(['[tool.pytest…]']);
    expect(partChanges('pyproject.toml', '[project]\nversion = "1"\n', '[project]\nversion = "2"\n', 'pytest')).toEqual([]);
    expect(partText('tox.ini', 'x', 'pytest')).toBeNull();
  });
  const GO = 'module example.com/m\n\ngo 1.22\n\nrequire (\n\tgithub.com/stretchr/testify v1.9.0 // indirect\n)\n\nreplace example.com/y => ./y\n';
  it.each([
    ['a replace', GO.replace('./y', './fake'), ['replace']],
    ['a replace block', GO + 'replace (\n\texample.com/z => ./z\n)\n', ['replace']],
    ['the go version', GO.replace('go 1.22', 'go 1.21'), ['go']],
    ['a toolchain line', GO + 'toolchain go1.22.1\n', ['toolchain']],
    ['an ignore directive (hides folders from ./...)', GO + 'ignore ./pkg\n', ['ignore']],
    ['a requirement', GO.replace('\tgithub', '\tgolang.org/x/text v0.14.0\n\tgithub'), []],
    ['a comment', GO.replace('go 1.22', 'go 1.22 // the language version'), []],
  ])('go.mod: %s', (_what, after, keys) => {
    expect(partChanges('go.mod', GO, after, 'go test ./...')).toEqual(keys);
  });
  const CARGO = '[package]\nname = "m"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nserde = "1"\n\n[dev-dependencies]\nproptest = "1"\n';
  it.each([
    ['a dev-dependency', CARGO.replace('proptest = "1"', 'proptest = { path = "fake" }'), ['[dev-dependencies]']],
    ['a test target without the harness', CARGO + '\n[[test]]\nname = "a"\nharness = false\n', ['[test]']],
    ['autotests', CARGO.replace('edition = "2021"', 'edition = "2021"\nautotests = false'), ['[package] autotests']],
    ['a build script', CARGO.replace('edition = "2021"', 'edition = "2021"\nbuild = "gen.rs"'), ['[package] build']],
    ['a patched crate', CARGO + '\n[patch.crates-io]\nproptest = { path = "fake" }\n', ['[patch.crates-io]']],
    ['a profile without debug assertions', CARGO + '\n[profile.test]\ndebug-assertions = false\n', ['[profile.test]']],
    ['a workspace member', CARGO + '\n[workspace]\nmembers = ["a"]\n', ['[workspace]']],
    ['a dependency', CARGO.replace('serde = "1"', 'serde = "1"\nrand = "0.8"'), []],
    ['the version and the description', CARGO.replace('version = "0.1.0"', 'version = "0.2.0"\ndescription = "x"'), []],
  ])('Cargo.toml: %s', (_what, after, keys) => {
    expect(partChanges('Cargo.toml', CARGO, after, 'cargo test')).toEqual(keys);
  });
  it('module manifests: the root one holds a part, a nested one is a config where its folder holds tests', () => {
    const holds = (dir: string) => dir === 'pkg/a';
    expect(manifestIsConfig('go.mod', holds)).toBe(false);
    expect(manifestIsConfig('Cargo.toml', holds)).toBe(false);
    expect(manifestIsConfig('pkg/a/go.mod', holds)).toBe(true);
    expect(manifestIsConfig('crates/new/Cargo.toml', holds)).toBe(false);
    expect(manifestIsConfig('vitest.config.ts', holds)).toBeNull();
  });
  it('the keys a package manager edit may touch', () => {
    const frozen = frozenPackageKeys(PKG, 'npm test');
    expect(frozen.slice(0, 6)).toEqual(['scripts.pretest', 'scripts.test', 'scripts.posttest', 'scripts.preunit', 'scripts.unit', 'scripts.postunit']);
    expect(frozenKeysHit(['scripts.test'], frozen)).toEqual(['scripts.test']);
    expect(frozenKeysHit(['scripts'], frozen)).toContain('scripts.unit');
    expect(frozenKeysHit(['scripts[test]'], frozen)).toEqual(['scripts.test']);
    expect(frozenKeysHit(['jest.testMatch'], frozen)).toEqual(['jest']);
    expect(frozenKeysHit(['scripts.lint', 'dependencies.b'], frozen)).toEqual([]);
  });
});

describe('the rule: runner-settings-frozen', () => {
  const facts = (phase: CycleFacts['phase']): CycleFacts => ({ phase, mode: 'standard', role: 'tdd-gate:implementer', specRel: 'specs/SPEC-001.md', specDrift: null });
  it.each([
    ['tdd-green', { file: 'package.json', keys: ['scripts.test'] }, 'deny'],
    ['tdd-refactor', { file: 'package.json', keys: null }, 'deny'],
    ['tdd-red', { file: 'package.json', keys: ['scripts.test'] }, 'pass'],
  ] as const)('%s, %j → %s', (phase, frozenPart, kind) => {
    const d = decideWriteTarget(facts(phase), { display: 'package.json', classes: ['other'], frozenPart });
    expect(d.kind).toBe(kind);
    if (d.kind === 'deny') expect(d.ruleId).toBe('runner-settings-frozen');
  });
});

describe('package manager edits of package.json in a Bash command', () => {
  const read = (file: string) => (file === '/r/package.json' ? PKG : null);
  const writes = (command: string, cwd = '/r/src') => analyzeBash(command, { cwd, home: '/h', root: '/r', read }).writes.map((w) => [w.path, w.pkgKeys]);
  it.each([
    ['npm pkg set scripts.test=true type=commonjs', [['/r/package.json', ['scripts.test', 'type']]]],
    ['npm pkg delete scripts.pretest', [['/r/package.json', ['scripts.pretest']]]],
    ['npm pkg fix', [['/r/package.json', null]]],
    ['npm set-script test "node --test"', [['/r/package.json', ['scripts.test']]]],
    ['npm --prefix /o pkg set a=1', [['/o/package.json', ['a']]]],
    ['npm pkg get scripts', []],
    ['npm install lodash', []],
  ])('%s', (command, want) => {
    expect(writes(command)).toEqual(want);
  });
});
