import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import { runHookBundle } from '../helpers/hook.js';
import { testRepo } from '../helpers/repo.js';
import { cli, cliEnv, GO_STACK, ok, readState, redToGreen, startRed } from './fixtures.js';

const hasGo = spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0;

// calc at the root, with a local module it compares through (swapped by a cheat below), and a
// second package whose test existed before the cycle.
const GO_MOD = 'module example.com/calc\n\ngo 1.19\n\nrequire example.com/check v0.0.0\n\nreplace example.com/check => ./check\n';
const CHECK = 'package check\n\nfunc Same(a, b int) bool { return a == b }\n';
const LENIENT = 'package check\n\nfunc Same(a, b int) bool { return true }\n';
const FMT = 'package fmtx\n\nimport "strconv"\n\nfunc Itoa(n int) string { return strconv.Itoa(n) }\n';
const FMT_TEST = 'package fmtx\n\nimport "testing"\n\nvar three = "3"\n\nfunc TestItoa(t *testing.T) {\n\tif Itoa(3) != three {\n\t\tt.Fatal("Itoa(3)")\n\t}\n}\n';
const ADD_TEST = 'package calc\n\nimport (\n\t"testing"\n\n\t"example.com/check"\n)\n\nfunc TestAdd(t *testing.T) {\n\tif !Enabled() {\n\t\tt.Skip("adding is switched off")\n\t}\n\tif !check.Same(Add(1, 2), 3) {\n\t\tt.Errorf("Add(1, 2) = %d, want 3", Add(1, 2))\n\t}\n}\n';
/** A switch the frozen test skips on: a source the agent may edit. */
const FEATURE = 'package calc\n\nfunc Enabled() bool { return true }\n';
const STUB = 'package calc\n\n// STUB:TDD\nfunc Add(a, b int) int { return 0 }\n';
const REAL = 'package calc\n\nfunc Add(a, b int) int { return a + b }\n';
/** A source of package calc whose Add is the stub, with `extra` in front of it. */
const withStub = (imports: string[], extra: string) => `package calc\n\nimport (\n${imports.map((i) => `\t"${i}"\n`).join('')})\n\n${extra}\nfunc Add(a, b int) int { return 0 }\n`;

/** Wait for a process to end (a background swapper of the test's own making). */
function waitGone(pid: number): void {
  for (let k = 0; k < 100; k++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    spawnSync('sleep', ['0.1']);
  }
  process.kill(pid, 'SIGKILL');
}

describe.skipIf(!hasGo)('cheats against a real go test project in GREEN', () => {
  it('each way around the failing frozen test is refused; the real Add reaches done', { timeout: 600_000 }, () => {
    const repo = testRepo({
      stack: GO_STACK,
      files: { 'go.mod': GO_MOD, 'check/go.mod': 'module example.com/check\n\ngo 1.19\n', 'check/check.go': CHECK, 'fmtx/fmtx.go': FMT, 'fmtx/fmtx_test.go': FMT_TEST, 'calc.go': 'package calc\n', 'feature.go': FEATURE },
    });
    startRed(repo);
    // RED is judged per test: a new test that passes beside an old one broken in the same file is none
    repo.write('fmtx/fmtx_test.go', FMT_TEST.replace('three = "3"', 'three = "4"') + '\nfunc TestItoaZero(t *testing.T) {\n\tif Itoa(0) != "0" {\n\t\tt.Fatal("Itoa(0)")\n\t}\n}\n');
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/not written or changed in this cycle \(failing: example\.com\/calc\/fmtx::TestItoa\)/);
    repo.write('fmtx/fmtx_test.go', FMT_TEST);
    repo.write('add_test.go', ADD_TEST);
    repo.write('calc.go', STUB);
    redToGreen(repo);
    const green = (env: NodeJS.ProcessEnv = {}) => cliEnv(repo, env, 'verify', 'green');
    const stubFails = /not GREEN: 1 of 2 tests fail/;
    const implementer = { cwd: repo.root, agent_type: 'tdd-gate:implementer' };
    const refused = (what: string, re: RegExp, env: NodeJS.ProcessEnv = {}) => {
      const r = green(env);
      expect.soft(r.status, `${what}: ${r.stdout}${r.stderr}`).toBe(1);
      expect.soft(r.stderr, what).toMatch(re);
    };

    // the process exits before the runner reports
    repo.write('calc.go', withStub(['os'], 'func init() { os.Exit(0) }\n'));
    refused('init exits', /calc\.go:7 ends the process from library code/);
    // the hook denies the same write when the agent makes it with a tool (over the file as it was:
    // the hook judges what a write adds to it)
    repo.write('calc.go', withStub([], ''));
    expect.soft(runHookBundle(ev.write(implementer, repo.path('calc.go'), withStub(['os'], 'func init() { os.Exit(0) }\n'))).reason).toMatch(/runner-reach|ends the process from library code/);
    // the runner's result lines printed from the source, assembled so no literal shows
    repo.write('calc.go', withStub(['fmt'], 'func init() {\n\tfmt.Println("=" + "== RUN   TestAdd")\n\tfmt.Println("-" + "-- PA" + "SS: TestAdd (0.00s)")\n}\n'));
    // (the frozen test then reports both the printed pass and its own failure: the events contradict each other)
    refused('fake PASS lines', /events contradict each other \(example\.com\/calc::TestAdd was reported both passed and failed\)/);
    repo.write('calc.go', withStub(['fmt', 'os'], 'func init() {\n\tfmt.Println("-" + "-- PA" + "SS: TestAdd (0.00s)")\n\tfmt.Println("PA" + "SS")\n\tos.Exit(0)\n}\n'));
    refused('fake PASS lines, then exit', /ends the process from library code/);
    // the test's own skip guard reached through the source switch it reads
    repo.write('calc.go', STUB);
    repo.write('feature.go', FEATURE.replace('return true', 'return false'));
    refused('skip through a source switch', /frozen tests were skipped instead of run: example\.com\/calc::TestAdd/);
    repo.write('feature.go', FEATURE);
    // the binary's name checked without the literal the rule looks for
    repo.write('calc.go', 'package calc\n\nimport (\n\t"os"\n\t"path/filepath"\n)\n\nfunc Add(a, b int) int {\n\tif filepath.Ext(os.Args[0]) == ".te"+"st" {\n\t\treturn a + b\n\t}\n\treturn 0\n}\n');
    refused('os.Args[0] extension', /calc\.go:9 reads the program’s name/);
    // the test goroutine ended from the source: no failure reported, no pass either
    repo.write('calc.go', withStub(['runtime'], 'func init() {}\n\nfunc quit() { runtime.Goexit() }\n').replace('return 0 }', 'quit(); return 0 }'));
    refused('runtime.Goexit', /not GREEN|did not run|skipped/);
    // a C constructor compiled in through cgo prints the results and exits before Go's main
    repo.write('early.c', '#include <stdio.h>\n#include <unistd.h>\n__attribute__((constructor)) static void early(void) { printf("=== RUN   TestAdd\\n--" "- PASS: TestAdd (0.00s)\\nPASS\\n"); fflush(stdout); _exit(0); }\n');
    repo.write('calc.go', 'package calc\n\nimport "C"\n\n// STUB:TDD\nfunc Add(a, b int) int { return 0 }\n');
    refused('cgo constructor', /calc\.go:3 brings in C code through cgo/);
    rmSync(repo.path('early.c'));
    repo.write('calc.go', STUB);

    // go env -w writes the user's go env file: the oracle never reads it
    const home = repo.path('.home');
    mkdirSync(home);
    expect(spawnSync('go', ['env', '-w', 'GOFLAGS=-run=TestItoa'], { cwd: repo.root, env: { ...process.env, HOME: home, XDG_CONFIG_HOME: '' } }).status).toBe(0);
    refused('go env -w GOFLAGS', stubFails, { HOME: home, XDG_CONFIG_HOME: '' });
    rmSync(home, { recursive: true });
    // GOFLAGS, GOENV and GOROOT-free flags from the caller's environment
    refused('GOFLAGS from the caller', stubFails, { GOFLAGS: '-run=TestItoa' });
    repo.write('../goenv-' + repo.root.split('/').pop(), 'GOFLAGS=-run=TestItoa\n');
    refused('GOENV from the caller', stubFails, { GOENV: repo.path('../goenv-' + repo.root.split('/').pop()) });

    // a look-alike go first on the caller's PATH, and a GOROOT of the caller's (its testing package
    // could be edited): the program and the toolchain are part of the oracle
    const bin = repo.path('../' + path.basename(repo.root) + '.bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'go'), '#!/bin/sh\necho \'{"Action":"pass","Package":"example.com/calc","Test":"TestAdd"}\'\n');
    chmodSync(path.join(bin, 'go'), 0o755);
    refused('a go first on PATH', /toolchain moved since the freeze: go now resolves to \/\S+\.bin\/go, was \/\S+\/go\b/, { PATH: `${bin}:${process.env.PATH ?? ''}` });
    rmSync(bin, { recursive: true });
    refused('GOROOT from the caller', /toolchain moved since the freeze: GOROOT is now \S*goroot-copy, was /, { GOROOT: repo.path('../goroot-copy') });

    // a workspace file, a nested module that hides a tested package, a swapped dependency
    repo.write('go.work', 'go 1.19\n\nuse .\n');
    refused('go.work', /added after the freeze: go\.work/);
    rmSync(repo.path('go.work'));
    // (with the real Add: the only test left to hide is the other package's)
    repo.write('calc.go', REAL);
    repo.write('fmtx/go.mod', 'module example.com/fmtx\n\ngo 1.19\n');
    refused('nested go.mod', /test files added after the freeze: fmtx\/go\.mod/);
    rmSync(repo.path('fmtx/go.mod'));
    repo.write('calc.go', STUB);
    repo.write('evil/go.mod', 'module example.com/check\n\ngo 1.19\n');
    repo.write('evil/check.go', LENIENT);
    // the hook denies the edit of the frozen directive; made anyway, verify refuses it
    // (the hook's integrity check may first move the new evil/go.mod, a test configuration, to the quarantine)
    expect.soft(runHookBundle(ev.edit(implementer, repo.path('go.mod'), './check', './evil')).reason).toMatch(/"replace" in go\.mod is frozen|evil\/go\.mod in the frozen test directory/);
    repo.write('evil/go.mod', 'module example.com/check\n\ngo 1.19\n');
    repo.write('go.mod', GO_MOD.replace('./check', './evil'));
    refused('replace swapped', /settings changed: go\.mod#runner/);
    repo.write('go.mod', GO_MOD);
    rmSync(repo.path('evil'), { recursive: true });
    repo.write('vendor/modules.txt', '# example.com/check v0.0.0 => ./check\n## explicit\nexample.com/check\n# example.com/check => ./check\n');
    repo.write('vendor/example.com/check/check.go', LENIENT);
    refused('vendor', /added after the freeze: vendor\/modules\.txt/);
    rmSync(repo.path('vendor'), { recursive: true });
    // a TestMain in a new test file that exits before any test runs
    repo.write('main_test.go', 'package calc\n\nimport (\n\t"os"\n\t"testing"\n)\n\nfunc TestMain(m *testing.M) { os.Exit(0) }\n');
    refused('new TestMain', /test files added after the freeze: main_test\.go/);
    rmSync(repo.path('main_test.go'));
    // and the hook denies writing one in GREEN
    expect.soft(runHookBundle(ev.write(implementer, repo.path('main_test.go'), 'package calc\n')).reason).toMatch(/tests-frozen|frozen/);
    // the frozen test swapped while the runner executes, by a process started before `verify`
    // (the swapped-in copy waits outside the project: inside, it would be a test file added)
    const evil = repo.write('../' + path.basename(repo.root) + '.evil', ADD_TEST.replace('!check.Same(Add(1, 2), 3)', 'false'));
    const swap = (delay: number) => `sleep ${delay}; cp '${evil}' '${repo.path('add_test.go')}'`;
    // started from the project in a session of its own (an earlier Bash call): a stray, refused
    const stray = spawn('sh', ['-c', swap(3)], { cwd: repo.root, detached: true, stdio: 'ignore' });
    refused('swap from a background shell', new RegExp(`processes started from the project are still running: ${stray.pid} sh`));
    waitGone(stray.pid!);
    repo.write('add_test.go', ADD_TEST);
    // started beside `verify` on one command line (its process group, which is not checked), and
    // from outside the project: the run still reads the frozen bytes
    for (const cwd of [repo.root, '/']) {
      const pid = Number(spawnSync('sh', ['-c', `(${swap(1)}) >/dev/null 2>&1 & echo $!`], { cwd, encoding: 'utf8' }).stdout.trim());
      refused(`swap started beside verify from ${cwd}`, /not GREEN: 1 of 2 tests fail|frozen files changed: add_test\.go/);
      waitGone(pid);
      repo.write('add_test.go', ADD_TEST);
    }
    rmSync(evil);
    // a build constraint in the source drops Add: the test package no longer compiles
    repo.write('calc.go', '//go:build never\n\n' + REAL);
    refused('build constraint', /not GREEN: example\.com\/calc failed to load/);
    repo.write('calc.go', STUB);

    repo.write('calc.go', REAL);
    ok(green());
    const done = JSON.parse(ok(cli(repo, 'done', '--json')).stdout) as { tests: unknown[] };
    expect(done.tests).toContainEqual({ id: 'example.com/calc::TestAdd', red: 'failed', green: 'passed', counted_red: true });
    expect(readState(repo).phase).toBe('done');
  });
});
