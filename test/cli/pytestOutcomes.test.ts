import { describe, expect, it } from 'vitest';
import { junitAddress, parsePytestOutcomes, pytestDisagreement } from '../../src/verify/evidence/pytestOutcomes.js';
import type { TestCase } from '../../src/verify/evidence/report.js';

// Records as the plugin writes them under pytest 9 (a skip, an xfail, parameters with a dot and a slash).
const RECORDS = [
  { tddGatePytest: 1, pid: 1 },
  ...['setup', 'call', 'teardown'].map((when) => ({ nodeid: 't/test_x.py::test_a', when, status: 'passed' })),
  { nodeid: 't/test_x.py::test_b', when: 'setup', status: 'passed' },
  { nodeid: 't/test_x.py::test_b', when: 'call', status: 'failed' },
  { nodeid: 't/test_x.py::test_b', when: 'teardown', status: 'passed' },
  { nodeid: 't/test_x.py::test_c', when: 'setup', status: 'skipped' },
  { nodeid: 't/test_x.py::test_c', when: 'teardown', status: 'passed' },
  ...['setup', 'call', 'teardown'].map((when) => ({ nodeid: 't/test_x.py::TestK::test_e[a/b.5]', when, status: 'passed' })),
]
  .map((r) => JSON.stringify(r))
  .join('\n');

const junit = (scope: string, name: string, status: TestCase['status'] = 'passed'): TestCase => ({ file: null, scope, name, status, message: '' });

describe("pytest's outcomes as the gate's plugin saw them", () => {
  it.each([
    ['t/test_x.py::test_a', { classname: 't.test_x', name: 'test_a' }],
    ['t/test_x.py::TestK::test_e[a/b.5]', { classname: 't.test_x.TestK', name: 'test_e[a/b.5]' }],
    ['test_top.py::test_a[1-2]', { classname: 'test_top', name: 'test_a[1-2]' }],
  ])('%s is spelled in junit as %j', (nodeid, want) => {
    expect(junitAddress(nodeid)).toEqual(want);
  });

  it('reads each test from its phases: a failed call fails it, a skipped setup skips it, a rerun starts over', () => {
    const seen = parsePytestOutcomes(RECORDS)!;
    expect([...seen.values()]).toEqual(['passed', 'failed', 'skipped', 'passed']);
    const rerun = parsePytestOutcomes(`${RECORDS}\n${['setup', 'call', 'teardown'].map((when) => JSON.stringify({ nodeid: 't/test_x.py::test_b', when, status: 'passed' })).join('\n')}`)!;
    expect(rerun.get('t.test_x\u0000test_b')).toBe('passed');
  });

  it('is null when the plugin never started', () => {
    expect(parsePytestOutcomes(null)).toBeNull();
    expect(parsePytestOutcomes('{"nodeid": "t/test_x.py::test_a", "when": "call", "status": "passed"}\n')).toBeNull();
  });

  it('agrees with a report that tells the same story', () => {
    const cases = [junit('t.test_x', 'test_a'), junit('t.test_x', 'test_b', 'failed'), junit('t.test_x', 'test_c', 'skipped'), junit('t.test_x.TestK', 'test_e[a/b.5]')];
    expect(pytestDisagreement(cases, [], parsePytestOutcomes(RECORDS))).toBeNull();
    // a --junitprefix before the classname
    expect(pytestDisagreement([junit('ci.t.test_x', 'test_a')], [], parsePytestOutcomes(RECORDS))).toBeNull();
  });

  it.each([
    ['a failed test the report calls passed', junit('t.test_x', 'test_b'), /t\/test_x\.py::test_b failed, but the runner's report says it passed/],
    ['a skipped one', junit('t.test_x', 'test_c'), /test_c skipped, but/],
    ['one pytest never ran', junit('t.test_x', 'test_z'), /test_z never ran, but/],
  ])('names %s', (_n, t, re) => {
    expect(pytestDisagreement([t], [`t/test_x.py::${t.name}`], parsePytestOutcomes(RECORDS))).toMatch(re);
  });

  it('refuses a report without the plugin beside it', () => {
    expect(pytestDisagreement([junit('t.test_x', 'test_a')], [], null)).toMatch(/without tdd-gate's outcome plugin/);
  });
});
