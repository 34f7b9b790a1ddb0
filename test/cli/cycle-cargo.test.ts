import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import { runHookBundle } from '../helpers/hook.js';
import { testRepo } from '../helpers/repo.js';
import { CARGO_STACK, cli, ok, readState, redToGreen, startRed, writeVerdict } from './fixtures.js';

const hasCargo = spawnSync('cargo', ['--version'], { encoding: 'utf8' }).status === 0;


const CARGO_TOML = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n';
const LIB_OLD = 'pub fn one() -> i32 { 1 }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn one_is_one() { assert_eq!(super::one(), 1); }\n}\n';
const ADD_TEST = '#[test]\nfn adds() { assert_eq!(calc::add(1, 2), 3); }\n';
const STUB = '// STUB:TDD\npub fn add(_a: i32, _b: i32) -> i32 { 0 }\n';
const REAL = 'pub fn add(a: i32, b: i32) -> i32 { a + b }\n';

function cargoProject() {
  const repo = testRepo({ stack: CARGO_STACK, files: { '.gitignore': 'target\n', 'Cargo.toml': CARGO_TOML, 'src/lib.rs': LIB_OLD } });
  startRed(repo);
  return repo;
}

describe.skipIf(!hasCargo)('CLI cycle with a real cargo test project', () => {
  it('a missing function is no RED, a failing assertion is; cheats on the runner are refused; a real add reaches done', { timeout: 300_000 }, () => {
    const repo = cargoProject();
    repo.write('tests/add.rs', ADD_TEST);
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/missing name|add a STUB:TDD stub/);
    repo.write('src/lib.rs', LIB_OLD + 'pub mod add;\npub use add::add;\n');
    repo.write('src/add.rs', STUB);
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, red_tests: ['tests/add.rs::adds'], tests: { 'tests/add.rs::adds': 'failed', 'src/lib.rs::tests::one_is_one': 'passed' } });
    writeVerdict(repo);
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
    // The manifest's runner part is frozen (dependencies stay the project's); the file itself is not.
    expect(Object.keys((readState(repo).frozen as { parts?: Record<string, string> }).parts ?? {})).toContain('Cargo.toml#runner');
    expect(Object.keys(readState(repo).frozen.files)).not.toContain('Cargo.toml');

    // the implementation is real, but the runner is told to skip the integration tests
    repo.write('src/add.rs', REAL);
    repo.write('Cargo.toml', CARGO_TOML + 'autotests = false\n');
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/settings changed: Cargo\.toml#runner/);
    repo.write('Cargo.toml', CARGO_TOML);
    // a cargo config written after the freeze (a runner that passes everything)
    repo.write('.cargo/config.toml', '[target.x86_64-unknown-linux-gnu]\nrunner = "true"\n');
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/test files added after the freeze: \.cargo\/config\.toml/);
    spawnSync('rm', ['-r', repo.path('.cargo')]);
    // the inline test module is frozen too: the hook denies the edit, the rest of the file stays editable
    const implementer = { cwd: repo.root, agent_type: 'tdd-gate:implementer' };
    const edit = runHookBundle(ev.edit(implementer, repo.path('src/lib.rs'), 'assert_eq!(super::one(), 1)', 'assert!(true)'));
    expect(edit).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/tests-frozen/) });
    const both = LIB_OLD.replace('{ 1 }', '{ 2 - 1 }').replace('assert_eq!(super::one(), 1)', 'assert!(true)') + 'pub mod add;\npub use add::add;\n';
    expect(runHookBundle(ev.write(implementer, repo.path('src/lib.rs'), both))).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/inline test module/) });
    expect(runHookBundle(ev.edit(implementer, repo.path('src/lib.rs'), 'pub fn one() -> i32 { 1 }', 'pub fn one() -> i32 { 2 - 1 }')).decision).toBe('pass');
    repo.write('src/lib.rs', LIB_OLD.replace('assert_eq!(super::one(), 1)', 'assert!(true)') + 'pub mod add;\npub use add::add;\n');
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/runner's settings changed: src\/lib\.rs#cfg\(test\)/);
    repo.write('src/lib.rs', LIB_OLD + 'pub mod add;\npub use add::add;\n');

    const g = JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout) as Record<string, unknown>;
    expect(g).toMatchObject({ valid: true, tests: { 'tests/add.rs::adds': 'passed' } });
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });

  it('an inline #[cfg(test)] module written in RED is a valid RED', { timeout: 180_000 }, () => {
    const repo = cargoProject();
    // the test-writer adds a test to the inline module: a test write, no stub marker needed
    const writer = { cwd: repo.root, agent_type: 'tdd-gate:test-writer' };
    const addTest = ev.edit(writer, repo.path('src/lib.rs'), '    fn one_is_one() { assert_eq!(super::one(), 1); }\n', '    fn one_is_one() { assert_eq!(super::one(), 1); }\n    #[test]\n    fn one_plus_one() { assert_eq!(super::one() + super::one(), 3); }\n');
    expect(runHookBundle(addTest).decision).toBe('pass');
    // production code in the same file still needs the stub marker in RED
    expect(runHookBundle(ev.edit(writer, repo.path('src/lib.rs'), 'pub fn one() -> i32 { 1 }', 'pub fn one() -> i32 { 2 }')).decision).toBe('deny');
    repo.write('src/lib.rs', LIB_OLD + '\n// STUB:TDD\npub fn two() -> i32 { 0 }\n\n#[cfg(test)]\nmod two_tests {\n    #[test]\n    fn two_is_two() { assert_eq!(super::two(), 2); }\n}\n');
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, red_tests: ['src/lib.rs::two_tests::two_is_two'] });
    redToGreenFrom(repo);
  });
});

function redToGreenFrom(repo: ReturnType<typeof testRepo>): void {
  redToGreen(repo);
  expect(readState(repo).phase).toBe('tdd-green');
}
