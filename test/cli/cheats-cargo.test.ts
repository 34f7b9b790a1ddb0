import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import { runHookBundle } from '../helpers/hook.js';
import { testRepo } from '../helpers/repo.js';
import { CARGO_STACK, cli, cliEnv, ok, readState, redToGreen, startRed } from './fixtures.js';

const hasCargo = spawnSync('cargo', ['--version'], { encoding: 'utf8' }).status === 0;

const CARGO_TOML = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n';
/** A test-generating macro the project ships in its source (editable in GREEN), used by a frozen test. */
const CASES_MACRO = '#[macro_export]\nmacro_rules! cases {\n    ($($name:ident: $got:expr => $want:expr),* $(,)?) => { $( #[test] fn $name() { assert_eq!($got, $want); } )* };\n}\n\n';
const LIB = CASES_MACRO + 'pub mod add;\npub use add::add;\n\npub fn one() -> i32 { 1 }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn one_is_one() { assert_eq!(super::one(), 1); }\n}\n';
const BASIC = 'const ONE: i32 = 1;\n\n#[test]\nfn one_works() { assert_eq!(calc::one(), ONE); }\n';
const ADD_TEST = '#[test]\nfn adds() { assert_eq!(calc::add(1, 2), 3); }\n';
const STUB = '// STUB:TDD\npub fn add(_a: i32, _b: i32) -> i32 { 0 }\n';
const REAL = 'pub fn add(a: i32, b: i32) -> i32 { a + b }\n';
/** What a fake runner prints: every frozen test passing. */
const FAKE_RESULTS = 'running 1 test\ntest tests::one_is_one ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n\nrunning 2 tests\ntest adds ... ok\ntest one_works ... ok\n\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n';

describe.skipIf(!hasCargo)('cheats against a real cargo test project in GREEN', () => {
  // The project lives in a folder of its own: the cargo configuration this test puts in the folder
  // above the project must not reach the projects of other test files running at the same time.
  const savedTmp = process.env.TMPDIR;
  beforeAll(() => {
    process.env.TMPDIR = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-cargo-cheats-')));
  });
  afterAll(() => {
    const mine = process.env.TMPDIR;
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    if (mine !== undefined && mine !== savedTmp) rmSync(mine, { recursive: true, force: true });
  });
  it('each way around the failing frozen test is refused; the real add reaches done', { timeout: 900_000 }, () => {
    const repo = testRepo({ stack: CARGO_STACK, files: { '.gitignore': 'target\n', 'Cargo.toml': CARGO_TOML, 'src/lib.rs': LIB, 'tests/basic.rs': BASIC, 'tests/cases.rs': 'calc::cases! { two: calc::one() + 1 => 2 }\n', 'src/add.rs': 'pub fn add(_a: i32, _b: i32) -> i32 { unimplemented!() }\n' } });
    startRed(repo);
    // RED is judged per test: a new test that passes beside an old one broken in the same file is none
    repo.write('tests/basic.rs', BASIC.replace('ONE: i32 = 1', 'ONE: i32 = 2') + '#[test]\nfn one_is_positive() { assert!(calc::one() > 0); }\n');
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/not written or changed in this cycle \(failing: tests\/basic\.rs::one_works\)/);
    repo.write('tests/basic.rs', BASIC);
    repo.write('tests/add.rs', ADD_TEST);
    repo.write('src/add.rs', STUB);
    redToGreen(repo);
    const refused = (what: string, re: RegExp, env: NodeJS.ProcessEnv = {}) => {
      const r = cliEnv(repo, env, 'verify', 'green');
      expect.soft(r.status, `${what}: ${r.stdout}${r.stderr}`).toBe(1);
      expect.soft(r.stderr, what).toMatch(re);
    };
    const stubFails = /not GREEN: 1 of 4 tests fail/;

    // Cargo.toml's runner part is frozen: no harness = false, no autotests = false; no manifest over frozen tests
    repo.write('Cargo.toml', CARGO_TOML + '\n[[test]]\nname = "add"\nharness = false\n');
    refused('harness = false', /settings changed: Cargo\.toml#runner/);
    repo.write('Cargo.toml', CARGO_TOML);
    repo.write('tests/Cargo.toml', '[package]\nname = "member"\nversion = "0.1.0"\nedition = "2021"\n');
    refused('a package over the frozen tests', /added after the freeze: tests\/Cargo\.toml/);
    rmSync(repo.path('tests/Cargo.toml'));
    // a build script that sets cfg flags for the source
    repo.write('build.rs', 'fn main() { println!("cargo:rustc-cfg=graded"); }\n');
    repo.write('src/add.rs', '#[cfg(graded)]\npub fn add(_a: i32, _b: i32) -> i32 { 3 }\n#[cfg(not(graded))]\npub fn add(_a: i32, _b: i32) -> i32 { 0 }\n');
    refused('build.rs', /added after the freeze: build\.rs/);
    rmSync(repo.path('build.rs'));
    // the frozen test the source's macro generates, ignored from the macro
    repo.write('src/lib.rs', LIB.replace('#[test] fn $name()', '#[test] #[ignore] fn $name()'));
    repo.write('src/add.rs', REAL);
    // refused as skipped at the run, or before it: a `#[test]` in the source is one of its frozen test regions
    refused('#[ignore] from a source macro', /frozen tests were skipped instead of run: tests\/cases\.rs::two|settings changed: src\/lib\.rs#cfg\(test\)/);
    repo.write('src/lib.rs', LIB);
    // compiled differently under test
    repo.write('src/add.rs', 'pub fn add(a: i32, b: i32) -> i32 { if cfg!(test) { a + b } else { 0 } }\n');
    refused('cfg!(test)', /cfg\(test\)/);
    // the process exits at the start of what every test calls, or before main
    repo.write('src/add.rs', 'pub fn add(_a: i32, _b: i32) -> i32 { std::process::exit(0) }\n');
    refused('exit in add', /src\/add\.rs:1 ends the process from library code/);
    // results written past the harness's capture, then the process ends through a C declaration
    const FD_EXIT = `use std::io::Write;\nuse std::os::unix::io::FromRawFd;\n\nextern "C" {\n    fn _exit(code: i32) -> !;\n}\n\npub fn add(_a: i32, _b: i32) -> i32 {\n    let mut out = unsafe { std::fs::File::from_raw_fd(1) };\n    let _ = out.write_all(concat!(${JSON.stringify(FAKE_RESULTS.replace(/test result/g, 'te", "st result').replace(/\.\.\. ok/g, '..", ". ok'))}).as_bytes());\n    unsafe { _exit(0) }\n}\n`;
    repo.write('src/add.rs', FD_EXIT);
    refused('raw exit after fake results', /src\/add\.rs:5 ends the process from library code/);
    repo.write('src/add.rs', STUB + '\n#[used]\n#[link_section = ".init_array"]\nstatic EARLY: extern "C" fn() = early;\n\nextern "C" fn early() {}\n');
    refused('static initializer', /src\/add\.rs:5 runs code before main/);
    const implementer = { cwd: repo.root, agent_type: 'tdd-gate:implementer' };
    expect.soft(runHookBundle(ev.write(implementer, repo.path('src/add.rs'), FD_EXIT)).reason).toMatch(/ends the process from library code/);
    // a toolchain file written after the freeze (it can name any directory as the toolchain)
    repo.write('src/add.rs', STUB);
    repo.write('rust-toolchain.toml', '[toolchain]\npath = "/opt/any"\n');
    refused('rust-toolchain.toml', /added after the freeze: rust-toolchain\.toml/);
    rmSync(repo.path('rust-toolchain.toml'));
    repo.write('src/add.rs', STUB);

    // cargo configuration from outside the project: the user's cargo home and the caller's environment
    const home = repo.path('../cargo-home-' + path.basename(repo.root));
    mkdirSync(home, { recursive: true });
    const fake = path.join(home, 'fake-runner.sh');
    writeFileSync(fake, `#!/bin/sh\nprintf '%s' '${FAKE_RESULTS}'\n`);
    chmodSync(fake, 0o755);
    writeFileSync(path.join(home, 'config.toml'), `[target.'cfg(all())']\nrunner = "${fake}"\n`);
    refused('CARGO_HOME config from the caller', /settings changed: \.cargo\/config\.toml outside the project/, { CARGO_HOME: home });
    // the same file where cargo looks anyway: a directory above the project
    const above = path.join(path.dirname(repo.root), '.cargo');
    if (!existsSync(above)) {
      mkdirSync(above);
      writeFileSync(path.join(above, 'config.toml'), `[target.'cfg(all())']\nrunner = "${fake}"\n`);
      try {
        refused('cargo config above the project', /settings changed: \.cargo\/config\.toml outside the project/);
      } finally {
        rmSync(above, { recursive: true });
      }
    }
    refused('RUSTFLAGS from the caller', stubFails, { RUSTFLAGS: '--cfg graded' });
    refused('runner from the caller', stubFails, { CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER: fake, CARGO_TARGET_DIR: path.join(home, 'target') });
    // a look-alike cargo first on the caller's PATH, or another toolchain named by the caller
    writeFileSync(path.join(home, 'cargo'), `#!/bin/sh\nexec '${fake}'\n`);
    chmodSync(path.join(home, 'cargo'), 0o755);
    refused('a cargo first on PATH', /toolchain moved since the freeze: cargo now resolves to \/\S+\/cargo, was \/\S+\/cargo\b/, { PATH: `${home}:${process.env.PATH ?? ''}` });
    refused('RUSTUP_TOOLCHAIN from the caller', /toolchain moved since the freeze: RUSTUP_TOOLCHAIN is now evil, was unset/, { RUSTUP_TOOLCHAIN: 'evil' });
    rmSync(home, { recursive: true });

    // the test binary in target/ replaced by one that prints passes, newer than its sources
    const deps = repo.path('target/debug/deps');
    let replaced = 0;
    for (const f of readdirSync(deps)) {
      const p = path.join(deps, f);
      if (/^add-[0-9a-f]+$/.test(f) && statSync(p).mode & 0o100) {
        writeFileSync(p, `#!/bin/sh\nprintf '%s' 'running 1 test\ntest adds ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n'\n`);
        replaced++;
      }
    }
    expect(replaced).toBeGreaterThan(0);
    refused('test binary replaced', stubFails);
    // a test binary built from other bytes, the stub put back with an old time: cargo must rebuild
    repo.write('src/add.rs', REAL);
    expect(spawnSync('cargo', ['test', '--offline', '--no-run'], { cwd: repo.root, encoding: 'utf8' }).status).toBe(0);
    repo.write('src/add.rs', STUB);
    utimesSync(repo.path('src/add.rs'), new Date('2000-01-01'), new Date('2000-01-01'));
    refused('stale test binary', stubFails);

    repo.write('src/add.rs', REAL);
    ok(cli(repo, 'verify', 'green'));
    const done = JSON.parse(ok(cli(repo, 'done', '--json')).stdout) as { tests: unknown[] };
    expect(done.tests).toContainEqual({ id: 'tests/add.rs::adds', red: 'failed', green: 'passed', counted_red: true });
    expect(readState(repo).phase).toBe('done');
  });
});
