import { describe, expect, it } from 'vitest';
import { junitAddress, parsePytestReport, pytestDisagreement, unreachedPytest } from '../../src/verify/evidence/pytestOutcomes.js';
import type { TestCase } from '../../src/verify/evidence/report.js';

const phases = (o: string, seen = o) => ({ report: { setup: 'passed', call: o, teardown: 'passed' }, seen: { setup: 'passed', call: seen, teardown: 'passed' } });

// The sealed report's records as the plugin writes them under pytest 9 (opened: the bodies only).
const RECORDS = [
  { k: 'test', nodeid: 't/test_x.py::test_a', file: 't/test_x.py', line: 3, ...phases('passed'), fails: [] },
  { k: 'test', nodeid: 't/test_x.py::test_b', ...phases('failed'), fails: [{ when: 'call', message: 'assert 0 == 3', trace: 'def test_b():\n>       assert add(1, 2) == 3\nE       assert 0 == 3\n\nt/test_x.py:7: AssertionError' }] },
  { k: 'test', nodeid: 't/test_x.py::test_c', report: { setup: 'skipped', teardown: 'passed' }, seen: { setup: 'skipped', teardown: 'passed' }, fails: [] },
  { k: 'test', nodeid: 't/test_x.py::TestK::test_e[a/b.5]', ...phases('passed'), fails: [] },
  { k: 'test', nodeid: 't/test_x.py::test_f', report: { setup: 'failed', teardown: 'passed' }, seen: { setup: 'failed', teardown: 'passed' }, fails: [{ when: 'setup', message: 'KeyError: db', trace: 't/conftest.py:4: KeyError' }] },
  { k: 'collect', nodeid: 't/test_broken.py', message: "ModuleNotFoundError: No module named 'src.gone'", trace: 'ImportError while importing test module' },
  { k: 'session', exitstatus: 1 },
];
const text = (records: readonly object[]) => records.map((r) => JSON.stringify(r)).join('\n');

const reported = (scope: string, name: string, status: TestCase['status'] = 'passed'): TestCase => ({ file: null, scope, name, status, message: '' });

describe("pytest through the gate's plugin: its sealed report", () => {
  it.each([
    ['t/test_x.py::test_a', { classname: 't.test_x', name: 'test_a' }],
    ['t/test_x.py::TestK::test_e[a/b.5]', { classname: 't.test_x.TestK', name: 'test_e[a/b.5]' }],
    ['test_top.py::test_a[1-2]', { classname: 'test_top', name: 'test_a[1-2]' }],
  ])('%s is addressed as %j', (nodeid, want) => {
    expect(junitAddress(nodeid)).toEqual(want);
  });

  it('reads each test from its phases, with its file, class path, message and long report; a collection error is a load error', () => {
    const { facts, observed } = parsePytestReport(text(RECORDS));
    expect(facts.source).toBe('pytest');
    expect(facts.unfinished).toBeUndefined();
    expect(facts.tests?.map((t) => [t.candidates?.[0], t.scope, t.name, t.status])).toEqual([
      ['t/test_x.py', 't.test_x', 'test_a', 'passed'],
      ['t/test_x.py', 't.test_x', 'test_b', 'failed'],
      ['t/test_x.py', 't.test_x', 'test_c', 'skipped'],
      ['t/test_x.py', 't.test_x.TestK', 'test_e[a/b.5]', 'passed'],
      ['t/test_x.py', 't.test_x', 'test_f', 'failed'],
    ]);
    expect(facts.counts).toEqual({ total: 4, passed: 2, failed: 2, skipped: 1 });
    expect(facts.tests?.[1]).toMatchObject({ message: 'assert 0 == 3', trace: expect.stringMatching(/t\/test_x\.py:7: AssertionError$/) as unknown });
    // a fixture's error is not the test's assertion
    expect(facts.tests?.[4]?.message).toBe('error in setup or teardown: KeyError: db');
    expect(facts.failingFiles).toEqual(['t/test_x.py']);
    expect(facts.loadErrorFiles).toEqual(['t/test_broken.py']);
    expect(facts.messages.join('\n')).toMatch(/No module named 'src\.gone'/);
    expect([...(observed?.values() ?? [])]).toEqual(['passed', 'failed', 'skipped', 'passed', 'failed']);
  });

  it('a rerun of a test replaces the attempt before it', () => {
    const again = { k: 'test', nodeid: 't/test_x.py::test_b', ...phases('passed'), fails: [] };
    const { facts } = parsePytestReport(text([...RECORDS.slice(0, -1), again, RECORDS[RECORDS.length - 1]!]));
    expect(facts.tests?.find((t) => t.name === 'test_b')?.status).toBe('passed');
    expect(facts.tests?.filter((t) => t.name === 'test_b')).toHaveLength(1);
  });

  it('a test the session stopped inside (its setup passed, its call never reported) failed; an interrupted session is unfinished', () => {
    const cut = { k: 'test', nodeid: 't/test_x.py::test_a', report: { setup: 'passed' }, seen: { setup: 'passed' }, fails: [], cut: true };
    const { facts } = parsePytestReport(text([cut, { k: 'session', exitstatus: 2 }]));
    expect(facts.tests?.[0]).toMatchObject({ status: 'failed', message: 'the test never finished: the session stopped inside it' });
    expect(facts.unfinished).toMatch(/session was interrupted \(exit status 2\)/);
    expect(facts.counts).toBeNull();
  });

  it('under pytest-xdist (no hook wrapper ran in the controller) each test is what its report says', () => {
    const { observed } = parsePytestReport(text([{ k: 'test', nodeid: 't/test_x.py::test_a', report: { setup: 'passed', call: 'passed', teardown: 'passed' }, seen: {}, fails: [] }, { k: 'session', exitstatus: 0 }]));
    expect(observed?.get('t.test_x\u0000test_a')).toBe('passed');
  });

  it.each([
    ['no report to trust (the seal did not hold)', null, /left no report it can trust/],
    ['a session that never finished (pytest stopped on its command line)', '', /never ran its session/],
    ['tests but no session record', text(RECORDS.slice(0, 2)), /never ran its session/],
  ])('%s is unfinished, with no counts', (_n, t, want) => {
    const { facts } = parsePytestReport(t);
    expect(facts.counts).toBeNull();
    expect(facts.unfinished).toMatch(want);
  });

  it('a run the plugin cannot load into says what to change', () => {
    expect(unreachedPytest().unfinished).toMatch(/-I or -E, which ignore PYTHONPATH.*drop -I\/-E from test_command/);
  });

  it('agrees with reports that tell the same story as what was raised', () => {
    const { facts, observed } = parsePytestReport(text(RECORDS));
    expect(pytestDisagreement(facts.tests ?? [], [], observed)).toBeNull();
  });

  it.each([
    ['a test reported passed whose call raised', phases('passed', 'failed'), /t\/test_x\.py::test_a failed, but the runner's report says it passed/],
    ['a test reported passed whose call skipped', phases('passed', 'skipped'), /test_a skipped, but/],
  ])('names %s', (_n, p, re) => {
    const { facts, observed } = parsePytestReport(text([{ k: 'test', nodeid: 't/test_x.py::test_a', ...p, fails: [] }, { k: 'session', exitstatus: 0 }]));
    expect(facts.tests?.[0]?.status).toBe('passed');
    expect(pytestDisagreement(facts.tests ?? [], ['t/test_x.py::test_a'], observed)).toMatch(re);
  });

  it('a test the hooks never saw is named', () => {
    const { observed } = parsePytestReport(text(RECORDS));
    expect(pytestDisagreement([reported('t.test_x', 'test_z')], ['t/test_x.py::test_z'], observed)).toMatch(/test_z never ran, but/);
  });
});
