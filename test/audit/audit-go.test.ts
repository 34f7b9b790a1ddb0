import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { GO_STACK } from '../cli/fixtures.js';
import { testRepo } from '../helpers/repo.js';
import { auditRun, failures, forge, forgeRedSource, head, honestCycle, tamper, type CycleFiles } from './fixtures.js';

const hasGo = spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0;

// A shared assertion helper, committed before the cycle: a new test failing through it is RED.
const HELPER = 'package calc\n\nimport "testing"\n\nfunc check(t *testing.T, got, want int) {\n\tif got != want {\n\t\tt.Errorf("got %d, want %d", got, want)\n\t}\n}\n';
const OLD_TEST = 'package calc\n\nimport "testing"\n\nfunc TestOld(t *testing.T) { check(t, 1, 1) }\n';

const CYCLE: CycleFiles = {
  test: ['add_test.go', 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) { check(t, Add(1, 2), 3) }\n'],
  stub: ['calc.go', 'package calc\n\n// STUB:TDD\nfunc Add(a, b int) int { return 0 }\n'],
  impl: ['calc.go', 'package calc\n\nfunc Add(a, b int) int { return a + b }\n'],
};

describe.skipIf(!hasGo)('tdd-gate audit on a go test project', () => {
  it('an honest cycle passes (tests by package); a forged RED, a RED that does not compile and an edited test fail', { timeout: 240_000 }, () => {
    const repo = testRepo({ stack: GO_STACK, files: { 'go.mod': 'module example.com/calc\n\ngo 1.19\n', 'helper_test.go': HELPER, 'old_test.go': OLD_TEST, 'calc.go': 'package calc\n' } });
    const base = head(repo);
    const record = honestCycle(repo, CYCLE);
    const honest = head(repo);

    const good = auditRun(repo, base, '--require-cycles');
    expect(failures(good.report)).toEqual([]);
    expect(good.status).toBe(0);

    forge(repo, base, honest, 'red-passes', () => forgeRedSource(repo, record, 'calc.go', CYCLE.impl[1]));
    expect(failures(auditRun(repo, base).report)).toEqual([expect.stringMatching(/^red-replayed: RED could not fail: example\.com\/calc::TestAdd passed at the rebuilt RED/)]);

    forge(repo, base, honest, 'red-build', () => forgeRedSource(repo, record, 'calc.go', 'package calc\n\n// STUB:TDD\n'));
    expect(failures(auditRun(repo, base).report)).toEqual([expect.stringMatching(/^red-replayed: RED failed for another reason, not on an assertion/)]);

    tamper(repo, honest, 'edited-helper', () => repo.write('helper_test.go', HELPER.replace('if got != want', 'if false')));
    expect(failures(auditRun(repo, base).report)).toEqual([expect.stringMatching(/^frozen-tests-unchanged: .*helper_test\.go \(edited/)]);
  });
});
