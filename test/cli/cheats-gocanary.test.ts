// go test's events are built from the text the test binary prints (Go 1.19 here): the gate adds a
// test of its own at the end of every test binary (src/verify/evidence/goCanary.ts). These cheats
// get past the source rules because the project lists the cheating file in runner_reach_allow (a
// project may ship test helpers as source): what stops them here is the end-of-binary test alone.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { testRepo } from '../helpers/repo.js';
import { cli, GO_STACK, ok, readState, redToGreen, startRed } from './fixtures.js';

const hasGo = spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0;

const FILES = {
  'go.mod': 'module example.com/calc\n\ngo 1.19\n',
  'calc.go': 'package calc\n',
  // an external test package beside the internal one, there before the cycle
  'ext_test.go': 'package calc_test\n\nimport "testing"\n\nfunc TestExternal(t *testing.T) {}\n',
  // a package with a TestMain of its own
  'sub/sub.go': 'package sub\n\nfunc Twice(n int) int { return 2 * n }\n',
  'sub/sub_test.go': 'package sub\n\nimport (\n\t"os"\n\t"testing"\n)\n\nfunc TestMain(m *testing.M) { os.Exit(m.Run()) }\n\nfunc TestTwice(t *testing.T) {\n\tif Twice(2) != 4 {\n\t\tt.Fatal("Twice(2)")\n\t}\n}\n',
  // a third package, tests only in an external package
  'more/more.go': 'package more\n\nfunc One() int { return 1 }\n',
  'more/more_test.go': 'package more_test\n\nimport (\n\t"testing"\n\n\t"example.com/calc/more"\n)\n\nfunc TestOne(t *testing.T) {\n\tif more.One() != 1 {\n\t\tt.Fatal("One")\n\t}\n}\n',
};
const ADD_TEST = 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Errorf("Add(1, 2) = %d, want 3", Add(1, 2))\n\t}\n}\n';
const STUB = 'package calc\n\n// STUB:TDD\nfunc Add(a, b int) int { return 0 }\n';
const REAL = 'package calc\n\nfunc Add(a, b int) int { return a + b }\n';

/** A frozen RED (TestAdd fails on the stub) in a project that allows `helper.go` everything the source rules refuse. */
function frozen(addTest = ADD_TEST, stack: Record<string, unknown> = {}) {
  const repo = testRepo({ stack: { ...GO_STACK, runner_reach_allow: 'helper.go', ...stack }, files: FILES });
  startRed(repo);
  repo.write('add_test.go', addTest);
  repo.write('calc.go', STUB);
  redToGreen(repo);
  return repo;
}

function lastGreenLog(root: string): string {
  const dir = `${root}/.tdd/runs`;
  const logs = readdirSync(dir).filter((f) => f.endsWith('-green.log')).sort();
  return readFileSync(`${dir}/${logs[logs.length - 1]!}`, 'utf8');
}

const helper = (imports: string[], body: string) => `package calc\n\nimport (\n${imports.map((i) => `\t"${i}"\n`).join('')})\n\n${body}\n`;

describe.skipIf(!hasGo)('go test: the gate’s end-of-binary test', () => {
  it('a genuine cycle over three packages (internal and external tests, a TestMain) reaches done, the gate’s test in each binary', { timeout: 180_000 }, () => {
    const repo = frozen();
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/not GREEN: 1 of 4 tests fail: example\.com\/calc::TestAdd/);
    repo.write('calc.go', REAL);
    const g = JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout) as { valid: boolean; counts: { passed: number }; tests: Record<string, string> };
    expect(g).toMatchObject({ valid: true, counts: { passed: 4 } });
    // the gate's test is not one of the project's
    expect(Object.keys(g.tests).sort()).toEqual(['example.com/calc/more::TestOne', 'example.com/calc/sub::TestTwice', 'example.com/calc::TestAdd', 'example.com/calc::TestExternal']);
    const log = lastGreenLog(repo.root);
    expect(log).toMatch(/go test -json -vet=off -overlay=\S+overlay\.json \.\/\.\.\./);
    // it ran last in every binary: after the internal and the external tests, under the TestMain
    for (const pkg of ['example.com/calc', 'example.com/calc/sub', 'example.com/calc/more']) {
      const tests = log.split('\n').filter((l) => l.includes(`"Package":"${pkg}"`) && l.includes('"Action":"run"')).map((l) => (JSON.parse(l) as { Test: string }).Test);
      expect(tests[tests.length - 1], pkg).toMatch(/^TestTddGateEnd[0-9a-f]{16}$/);
    }
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });

  it('a test command that selects tests with -run (a quoted pattern with `|`) still runs the gate’s test', { timeout: 180_000 }, () => {
    const repo = frozen(ADD_TEST, { test_command: "go test -run 'TestAdd|TestTwice' ./..." });
    repo.write('calc.go', REAL);
    const g = JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout) as { tests: Record<string, string> };
    expect(Object.keys(g.tests).sort()).toEqual(['example.com/calc/sub::TestTwice', 'example.com/calc::TestAdd']);
    const log = lastGreenLog(repo.root);
    expect(log).toMatch(/-run='\(\?:TestAdd\|TestTwice\)\|\^TestTddGateEnd[0-9a-f]{16}\$'/);
    // the gate's test ran in the package whose own tests -run selected none of
    expect(log).toMatch(/"Action":"pass","Package":"example\.com\/calc\/more","Test":"TestTddGateEnd[0-9a-f]{16}"/);
  });

  it('a go test inside a compound command gets the gate’s test in place and reaches GREEN; two go test calls are refused', { timeout: 180_000 }, () => {
    const repo = frozen(ADD_TEST, { test_command: 'go vet ./... && go test ./...' });
    repo.write('calc.go', REAL);
    ok(cli(repo, 'verify', 'green'), 0);
    expect(lastGreenLog(repo.root)).toMatch(/TestTddGateEnd[0-9a-f]{16}/);
    const twice = frozen(ADD_TEST, { test_command: 'go test ./... && go test -count=1 ./...' });
    twice.write('calc.go', REAL);
    expect(ok(cli(twice, 'verify', 'green'), 1).stderr).toMatch(/the gate could not add its end-of-binary test to go test: test_command runs go test behind other shell syntax/);
  });

  it('each cheat the source rules let through is refused at verify green', { timeout: 600_000 }, () => {
    const repo = frozen();
    const refused = (what: string, re: RegExp) => {
      const r = cli(repo, 'verify', 'green');
      expect.soft(r.status, `${what}: ${r.stdout}${r.stderr}`).toBe(1);
      expect.soft(r.stderr, what).toMatch(re);
    };
    // init() exits 0 before any test prints anything
    repo.write('helper.go', helper(['os'], 'func init() { os.Exit(0) }'));
    refused('exit 0 in init', /the test binary of example\.com\/calc did not run to its end: the gate's own last test \(TestTddGateEnd[0-9a-f]+\) never passed there/);
    // init() prints the frozen test's framing and the binary's PASS, then exits 0
    repo.write('helper.go', helper(['fmt', 'os'], 'func init() {\n\tfmt.Println("=== RUN   TestAdd")\n\tfmt.Println("--- PASS: TestAdd (0.00s)")\n\tfmt.Println("PASS")\n\tos.Exit(0)\n}'));
    refused('fake framing, then exit 0', /the test binary of example\.com\/calc did not run to its end: the gate's own last test \(TestTddGateEnd[0-9a-f]+\) never passed there/);
    // the process's output rerouted (descriptor 1 onto a pipe of its own), results rewritten on the way
    const rewrite = 'go func() {\n\t\ts := bufio.NewScanner(r)\n\t\tfor s.Scan() {\n\t\t\treal.WriteString(strings.ReplaceAll(s.Text(), "FAIL", "PASS") + "\\n")\n\t\t}\n\t}()';
    repo.write('helper.go', helper(['bufio', 'os', 'strings', 'syscall'], `func init() {\n\tr, w, _ := os.Pipe()\n\tsaved, _ := syscall.Dup(1)\n\treal := os.NewFile(uintptr(saved), "out")\n\tsyscall.Dup2(int(w.Fd()), 1)\n\t${rewrite}\n}`));
    refused('descriptor 1 rerouted', /the test output of example\.com\/calc was redirected while its tests ran \(.*(file descriptor 1 \(pipe:\[\d+\]\) is not the output go test reads|points where the test output goes too)/);
    // os.Stdout itself replaced by a pipe the source reads and rewrites
    repo.write('helper.go', helper(['bufio', 'os', 'strings'], `func init() {\n\tr, w, _ := os.Pipe()\n\treal := os.Stdout\n\tos.Stdout = w\n\t${rewrite}\n}`));
    refused('os.Stdout replaced', /the test output of example\.com\/calc was redirected while its tests ran \(os\.Stdout is no longer file descriptor 1/);
    // os.Exit(0) inside the function under test: go's -test.paniconexit0 turns it into a panic, a failing test
    repo.write('helper.go', helper(['os'], 'func init() { exit = os.Exit }\n\nvar exit func(int)\n\nfunc Quit() { exit(0) }'));
    repo.write('calc.go', 'package calc\n\nfunc Add(a, b int) int {\n\tQuit()\n\treturn 0\n}\n');
    refused('os.Exit(0) in Add', /not GREEN: .*example\.com\/calc::TestAdd/);
    expect.soft(lastGreenLog(repo.root)).toMatch(/unexpected call to os\.Exit\(0\) during test/);
    // the test binary killed in the middle of the run, after printing a pass for the test it is in
    repo.write('helper.go', helper(['fmt', 'syscall'], 'func Die() {\n\tfmt.Println("--- PASS: TestAdd (0.00s)")\n\tsyscall.Kill(syscall.Getpid(), syscall.SIGKILL)\n}'));
    repo.write('calc.go', 'package calc\n\nfunc Add(a, b int) int {\n\tDie()\n\treturn a + b\n}\n');
    // (go's events then hold the printed pass of TestAdd and a failed package: the gate's test never ran)
    refused('binary killed mid-run', /the test binary of example\.com\/calc did not run to its end: the gate's own last test \(TestTddGateEnd[0-9a-f]+\) never passed there/);
    expect.soft(lastGreenLog(repo.root)).toMatch(/"Action":"pass","Package":"example\.com\/calc","Test":"TestAdd"/);
    // and the real Add, the helper gone, is GREEN
    rmSync(repo.path('helper.go'));
    repo.write('calc.go', REAL);
    ok(cli(repo, 'verify', 'green'));
  });

  it('a parallel test runs after the gate’s test: the check runs again when every test is done', { timeout: 300_000 }, () => {
    // TestAdd calls t.Parallel, so go runs it after every sequential test, the gate's among them
    const repo = frozen(ADD_TEST.replace('{\n\tif Add', '{\n\tt.Parallel()\n\tif Add'));
    // the code under test reroutes the output the first time it runs, turns the test's failure into a
    // pass and ends the binary with 0 right after it (before the binary's own FAIL)
    const body = [
      'var once sync.Once',
      '',
      'func Hide() {',
      '\tonce.Do(func() {',
      '\t\tr, w, _ := os.Pipe()',
      '\t\tsaved, _ := syscall.Dup(1)',
      '\t\treal := os.NewFile(uintptr(saved), "out")',
      '\t\tsyscall.Dup2(int(w.Fd()), 1)',
      '\t\tgo func() {',
      '\t\t\ts := bufio.NewScanner(r)',
      '\t\t\tfor s.Scan() {',
      '\t\t\t\treal.WriteString(strings.ReplaceAll(s.Text(), "FAIL", "PASS") + "\\n")',
      '\t\t\t\tif strings.HasPrefix(s.Text(), "--- FAIL") {',
      '\t\t\t\t\treal.WriteString("PASS\\n")',
      '\t\t\t\t\tsyscall.Exit(0)',
      '\t\t\t\t}',
      '\t\t\t}',
      '\t\t}()',
      '\t})',
      '}',
    ].join('\n');
    repo.write('helper.go', helper(['bufio', 'os', 'strings', 'sync', 'syscall'], body));
    repo.write('calc.go', 'package calc\n\nfunc Add(a, b int) int {\n\tHide()\n\treturn 0\n}\n');
    const r = cli(repo, 'verify', 'green');
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/the test binary of example\.com\/calc did not run to its end: the gate's own last test \(TestTddGateEnd[0-9a-f]+\) left no line|the test output of example\.com\/calc was redirected while its tests ran \(after its last test/);
    // the gate's test itself passed: it ran before TestAdd
    const log = lastGreenLog(repo.root);
    expect(log).toMatch(/"Action":"pass","Package":"example\.com\/calc","Test":"TestTddGateEnd[0-9a-f]+"/);
    // when the cheat won its race (exit 0, go's events all passing), only the line promised for
    // after every test tells: it is missing, or it names the rerouting
    if (/\[exit 0\]\s*$/.test(log)) expect(r.stderr).toMatch(/left no line|after its last test/);
    rmSync(repo.path('helper.go'));
    repo.write('calc.go', REAL);
    ok(cli(repo, 'verify', 'green'));
  });
});
