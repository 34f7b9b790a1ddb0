import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { testRepo } from '../helpers/repo.js';
import { cli, cliEnv, GO_STACK, ok, readState, redToGreen, startRed, writeVerdict } from './fixtures.js';

const hasGo = spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0;


// A shared assertion helper, committed before the cycle: a new test failing through it is RED.
const HELPER = 'package calc\n\nimport "testing"\n\nfunc check(t *testing.T, got, want int) {\n\tif got != want {\n\t\tt.Errorf("got %d, want %d", got, want)\n\t}\n}\n';
const OLD_TEST = 'package calc\n\nimport "testing"\n\nfunc TestOld(t *testing.T) { check(t, 1, 1) }\n';
const ADD_TEST = 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) { check(t, Add(1, 2), 3) }\n';
const STUB = 'package calc\n\n// STUB:TDD\nfunc Add(a, b int) int { return 0 }\n';
const REAL = 'package calc\n\nfunc Add(a, b int) int { return a + b }\n';

function goProject() {
  // A test-helper package that imports "testing" as source, as real Go projects have: it was there
  // before the cycle, so it is the project's, not a reach into the runner.
  const testutil = 'package testutil\n\nimport "testing"\n\nfunc Equal(t *testing.T, got, want int) {\n\tif got != want {\n\t\tt.Errorf("got %d, want %d", got, want)\n\t}\n}\n';
  const repo = testRepo({ stack: GO_STACK, files: { 'go.mod': 'module example.com/calc\n\ngo 1.19\n', 'helper_test.go': HELPER, 'old_test.go': OLD_TEST, 'calc.go': 'package calc\n', 'internal/testutil/testutil.go': testutil } });
  startRed(repo);
  return repo;
}

/** A project frozen on a genuine RED (TestAdd fails through the shared helper). */
function frozenGo() {
  const repo = goProject();
  repo.write('add_test.go', ADD_TEST);
  repo.write('calc.go', STUB);
  redToGreen(repo);
  return repo;
}

describe.skipIf(!hasGo)('CLI cycle with a real go test project', () => {
  it('a missing function is no RED; a failure through an unchanged shared helper is; a real Add reaches done', { timeout: 180_000 }, () => {
    const repo = goProject();
    repo.write('add_test.go', ADD_TEST);
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/missing name \(.*undefined: Add.*\); add a STUB:TDD stub first/);
    repo.write('calc.go', STUB);
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, red_tests: ['example.com/calc::TestAdd'], tests: { 'example.com/calc::TestAdd': 'failed', 'example.com/calc::TestOld': 'passed' } });
    writeVerdict(repo);
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
    expect(readState(repo).frozen.files).toHaveProperty(['helper_test.go']);
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/not GREEN: 1 of 2 tests fail/);
    repo.write('calc.go', REAL);
    // GOFLAGS from the caller's environment never reaches the run (it would select no test)
    const g = JSON.parse(ok(cliEnv(repo, { GOFLAGS: '-run=^$' }, 'verify', 'green', '--json')).stdout) as Record<string, unknown>;
    expect(g).toMatchObject({ valid: true, counts: { passed: 2 }, oracle: expect.stringMatching(/namespace|copy/) });
    const done = JSON.parse(ok(cli(repo, 'done', '--json')).stdout) as { tests: unknown[] };
    expect(done.tests).toContainEqual({ id: 'example.com/calc::TestAdd', red: 'failed', green: 'passed', counted_red: true });
    expect(readState(repo).phase).toBe('done');
  });

  it.each([
    ['init() exits before any test runs', 'package calc\n\nimport "os"\n\nfunc init() { os.Exit(0) }\n\nfunc Add(a, b int) int { return 0 }\n', /ends the process from library code/],
    ['a test-binary check skips the work', 'package calc\n\nimport (\n\t"os"\n\t"strings"\n)\n\nfunc Add(a, b int) int {\n\tif strings.HasSuffix(os.Args[0], ".test") {\n\t\treturn a + b\n\t}\n\treturn 0\n}\n', /checks whether it runs under go test/],
    ['init() prints passing results for the frozen tests and exits', 'package calc\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc init() {\n\tfmt.Println("=== RUN   TestAdd")\n\tfmt.Println("--- PASS: TestAdd (0.00s)")\n\tos.Exit(0)\n}\n\nfunc Add(a, b int) int { return 0 }\n', /prints the test runner’s own result lines/],
    ['source imports testing', 'package calc\n\nimport "testing"\n\nvar _ = testing.Short\n\nfunc Add(a, b int) int { return a + b }\n', /imports Go’s testing package/],
  ])('refuses GREEN when %s', { timeout: 120_000 }, (_name, source, reason) => {
    const repo = frozenGo();
    repo.write('calc.go', source);
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(reason);
  });
});
