import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { testRepo } from '../helpers/repo.js';
import { CARGO_STACK, cli, ok, readState, redToGreen, startRed, writeVerdict } from './fixtures.js';

const hasCargo = spawnSync('cargo', ['--version'], { encoding: 'utf8' }).status === 0;
const unix = process.platform === 'linux' || process.platform === 'darwin';

const CARGO_TOML = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n';
const LIB = 'pub mod add;\npub use add::add;\n\n/// One.\n///\n/// ```\n/// assert_eq!(calc::one(), 1);\n/// ```\npub fn one() -> i32 { 1 }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn one_is_one() { assert_eq!(super::one(), 1); }\n}\n';
const ADD_TEST = '#[test]\nfn adds() { assert_eq!(calc::add(1, 2), 3); }\n\n#[test]\nfn adds_zero() { assert_eq!(calc::add(0, 5), 5); }\n';
const STUB = '// STUB:TDD\npub fn add(_a: i32, _b: i32) -> i32 { 0 }\n';
const REAL = 'pub fn add(a: i32, b: i32) -> i32 { a + b }\n';

/** libtest's result lines for every test of the run, passing, put together so no source line spells them. */
const FAKE = [
  'running 1 test',
  'test tests::one_is_one ... ok',
  '',
  'test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
  'running 2 tests',
  'test adds ... ok',
  'test adds_zero ... ok',
  '',
  'test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
].join('\n');
const fakeBytes = `&[${[...Buffer.from(FAKE)].join(', ')}]`;

/** The stub, after the fake results went to fd 1 past the harness's capture: `tail` ends the process. */
const cheat = (tail: string, before = '') => `use std::io::Write;\n\npub fn add(_a: i32, _b: i32) -> i32 {\n${before}    let _ = std::io::stdout().lock().write_all(${fakeBytes});\n    let _ = std::io::stdout().flush();\n${tail}    0\n}\n`;

describe.skipIf(!hasCargo || !unix)("cargo test judged from libtest's own log", () => {
  it('printed results do not count: fake lines then a clean end, an abort, a SIGKILL, a build script’s fake summary are refused; the real add reaches done', { timeout: 600_000 }, () => {
    // A build script there from the start prints a whole fake run: to its stdout and stderr (cargo
    // keeps them in target/, people never see them), as cargo warnings (cargo prints them, each
    // after "warning: calc@0.1.0: "), and to cargo's own output through /proc where it can.
    const BUILD = `use std::io::Write;\nfn main() {\n    let fake = String::from_utf8((${fakeBytes}).to_vec()).unwrap();\n    print!("{fake}");\n    eprint!("{fake}");\n    for line in fake.lines() {\n        println!("cargo:warning={line}");\n    }\n    let ppid = std::os::unix::process::parent_id();\n    if let Ok(mut f) = std::fs::OpenOptions::new().append(true).open(format!("/proc/{ppid}/fd/1")) {\n        let _ = f.write_all(fake.as_bytes());\n    }\n}\n`;
    const repo = testRepo({ stack: CARGO_STACK, files: { '.gitignore': 'target\n', 'Cargo.toml': CARGO_TOML, 'build.rs': BUILD, 'src/lib.rs': LIB, 'src/add.rs': STUB } });
    startRed(repo);
    repo.write('tests/add.rs', ADD_TEST);
    redToGreen(repo);
    const refused = (what: string, re: RegExp) => {
      const r = cli(repo, 'verify', 'green');
      expect.soft(r.status, `${what}: ${r.stdout}${r.stderr}`).toBe(1);
      expect.soft(r.stderr, what).toMatch(re);
      return r;
    };
    // the stub as it is: the build script's fake run (on Linux, where it reaches cargo's output) changes nothing
    refused('the stub, with a build script printing a fake run', /2 of 4 tests fail: tests\/add\.rs::adds, tests\/add\.rs::adds_zero/);
    expect(logs(repo, 'red')).toMatch(/warning: calc@0\.1\.0: test result: ok\. 2 passed/);
    // the fake results, then the process replaced by one that exits 0
    repo.write('src/add.rs', cheat('    let _ = std::os::unix::process::CommandExt::exec(&mut std::process::Command::new("true"));\n'));
    const r = refused('fake lines, then a clean end', /before the test harness reported 1 of its 2 tests \(adds_zero\)|before the test harness reported 2 of its 2 tests/);
    expect(r.stderr).not.toMatch(/ends the process from library code/);
    // the test binary aborted (what panic = "abort" does on the first failing assertion)
    repo.write('src/add.rs', cheat('    std::process::abort();\n'));
    refused('abort', /test binary add-[0-9a-f]+ \(tests\/add\.rs\) ended with status 134 \(killed by signal 6/);
    // killed from outside while its tests run
    repo.write('src/add.rs', cheat('    let _ = std::process::Command::new("sh").arg("-c").arg("kill -9 $PPID").status();\n    std::thread::sleep(std::time::Duration::from_secs(5));\n'));
    refused('SIGKILL', /ended with status 137 \(killed by signal 9/);
    // the log of the refused run still holds what was printed, for people
    expect(lastLog(repo)).toMatch(/test result: ok\. 2 passed/);

    repo.write('src/add.rs', REAL);
    const green = JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout) as { tests: Record<string, string> };
    expect(green.tests).toMatchObject({ 'tests/add.rs::adds': 'passed', 'tests/add.rs::adds_zero': 'passed', 'src/lib.rs::tests::one_is_one': 'passed' });
    expect(Object.entries(green.tests).filter(([id]) => id.includes('one (line') || id.includes(' - one'))).toEqual([[expect.stringMatching(/src\/lib\.rs - one/), 'passed']]);
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });

  it('through make: the runner reaches the cargo a Makefile runs; fake lines then a clean end are refused there too', { timeout: 600_000 }, () => {
    const repo = testRepo({ stack: { ...CARGO_STACK, test_command: 'make test' }, files: { '.gitignore': 'target\n', Makefile: 'test:\n\tcargo test --offline --no-fail-fast\n', 'Cargo.toml': CARGO_TOML, 'src/lib.rs': LIB, 'src/add.rs': STUB } });
    startRed(repo);
    repo.write('tests/add.rs', ADD_TEST);
    redToGreen(repo);
    repo.write('src/add.rs', cheat('    let _ = std::os::unix::process::CommandExt::exec(&mut std::process::Command::new("true"));\n'));
    const r = cli(repo, 'verify', 'green');
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/add-[0-9a-f]+ \(tests\/add\.rs\) exited \(status 0\) before the test harness reported/);
    repo.write('src/add.rs', REAL);
    const green = JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout) as { tests: Record<string, string> };
    expect(green.tests).toMatchObject({ 'tests/add.rs::adds': 'passed', 'src/lib.rs::tests::one_is_one': 'passed' });
  });

  it('a workspace of two members from the root: unit, integration and doc tests by identity, to done', { timeout: 600_000 }, () => {
    const crate = (name: string) => `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2024"\n`;
    const repo = testRepo({
      stack: { ...CARGO_STACK, test_command: 'cargo test --workspace --offline', test_file_glob: '**/tests/**', source_file_glob: 'crates/*/src/**' },
      files: {
        '.gitignore': 'target\n',
        'Cargo.toml': '[workspace]\nmembers = ["crates/*"]\nresolver = "2"\n',
        'crates/shapes/Cargo.toml': crate('shapes'),
        'crates/shapes/src/lib.rs': '/// Sides.\n///\n/// ```\n/// assert_eq!(shapes::sides(), 4);\n/// ```\npub fn sides() -> u32 { 4 }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn four() { assert_eq!(super::sides(), 4); }\n}\n',
        'crates/shapes/tests/old.rs': '#[test]\nfn square() { assert_eq!(shapes::sides(), 4); }\n',
        'crates/words/Cargo.toml': crate('words'),
        'crates/words/src/lib.rs': 'pub fn hello() -> &\'static str { "hello" }\n',
        'crates/words/tests/old.rs': '#[test]\nfn hello() { assert_eq!(words::hello(), "hello"); }\n',
      },
    });
    execFileSync('cargo', ['generate-lockfile', '--offline'], { cwd: repo.root, stdio: 'ignore' });
    startRed(repo);
    repo.write('crates/words/tests/shout.rs', '#[test]\nfn shouts() { assert_eq!(words::shout("hi"), "HI"); }\n');
    repo.write('crates/words/src/lib.rs', 'pub fn hello() -> &\'static str { "hello" }\n\n// STUB:TDD\npub fn shout(_s: &str) -> String { String::new() }\n');
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as { tests: Record<string, string>; red_tests: string[] };
    expect(red.red_tests).toEqual(['crates/words/tests/shout.rs::shouts']);
    expect(red.tests).toMatchObject({
      'crates/shapes/src/lib.rs::tests::four': 'passed',
      'crates/shapes/tests/old.rs::square': 'passed',
      'crates/words/tests/old.rs::hello': 'passed',
      'crates/words/tests/shout.rs::shouts': 'failed',
    });
    expect(Object.keys(red.tests).filter((id) => id.includes('sides'))).toHaveLength(1);
    writeVerdict(repo);
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
    repo.write('crates/words/src/lib.rs', 'pub fn hello() -> &\'static str { "hello" }\n\npub fn shout(s: &str) -> String { s.to_uppercase() }\n');
    ok(cli(repo, 'verify', 'green'));
    const done = JSON.parse(ok(cli(repo, 'done', '--json')).stdout) as { tests: unknown[] };
    expect(done.tests).toContainEqual({ id: 'crates/words/tests/shout.rs::shouts', red: 'failed', green: 'passed', counted_red: true });
  });
});


/** Every run log of one kind, oldest first. */
function logs(repo: ReturnType<typeof testRepo>, kind: string): string {
  return readdirSync(repo.path('.tdd/runs')).filter((f) => f.endsWith(`-${kind}.log`)).sort().map((f) => readFileSync(repo.path(`.tdd/runs/${f}`), 'utf8')).join('\n');
}

/** The newest run log of the project. */
function lastLog(repo: ReturnType<typeof testRepo>): string {
  const runs = readdirSync(repo.path('.tdd/runs')).filter((f) => f.endsWith('.log')).sort();
  return readFileSync(repo.path(`.tdd/runs/${runs[runs.length - 1] ?? ''}`), 'utf8');
}
