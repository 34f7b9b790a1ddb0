import { describe, expect, it } from 'vitest';
import { consistency, headExpectations, lockfileDrift, isProjectPath, shapeProblem, partsAtHead, recordsAppendOnly, sourcesInCycles, type AtCommit } from '../../src/audit/rules/checks.js';
import { changedWithHashes, recordName, redSourceSet, reviewEvents, stableJson, testFile, type CycleRecord } from '../../src/audit/rules/record.js';
import { junit, markdown, statusOf, type AuditReport } from '../../src/audit/rules/report.js';

const h = (c: string) => c.repeat(64);

function record(over: Partial<CycleRecord> = {}): CycleRecord {
  return {
    format: 'tdd-gate-cycle/1',
    written_by: 'tdd-gate 0.1.0',
    spec_id: 'SPEC-1',
    spec: { path: 'specs/S.md', hash: h('5'), sha256: h('6') },
    mode: 'standard',
    started_at: '2026-01-01T00:00:00.000Z',
    finished_at: '2026-01-02T00:00:00.000Z',
    roles: { test_validator: null, results: [] },
    runner: { command: 'node --test', version: null },
    frozen: { at: 'x', files: { 'test/a.test.js': h('a'), 'specs/S.md': h('6') }, parts: { 'package.json#runner': h('7') }, local_parts: {} },
    tests: { 'test/a.test.js::adds': { file: 'test/a.test.js', file_sha256: h('a'), red: 'failed' } },
    red: { at: 'x', command: 'node --test', exit_code: 1, counts: { total: 1, failed: 1, passed: 0 }, counted: { 'test/a.test.js::adds': 'AssertionError' } },
    red_sources: { 'src/a.js': h('b') },
    red_sources_at: 'red',
    changed: { tests: { 'test/a.test.js': h('a') }, sources: { 'src/a.js': h('c') } },
    green: null,
    refactor: null,
    final: { at: 'x', command: 'node --test', exit_code: 0, counts: { total: 1, failed: 0, passed: 1 }, tests: { 'test/a.test.js::adds': 'passed' } },
    events: [],
    events_total: 0,
    ...over,
  };
}

const NAME = `.tdd/cycles/${recordName('SPEC-1', '2026-01-02T00:00:00.000Z', 'abcd1234')}`;

function at(files: Record<string, string | null>, over: Partial<AtCommit> = {}): AtCommit {
  return { commit: 'c'.repeat(40), parts: { 'package.json#runner': h('7') }, isSource: (rel) => rel.startsWith('src/'), hash: (rel) => files[rel] ?? null, specHash: () => h('5'), testCommand: 'node --test', shortFor: () => 'abcd1234', ...over };
}

const REPO = { 'test/a.test.js': h('a'), 'specs/S.md': h('6'), [`.tdd/cycles/blobs/${h('b')}`]: h('b'), 'src/a.js': h('c') };

describe('the cycle record, pure', () => {
  it('names a record by SPEC id, date and the short part; stable JSON sorts keys at every level', () => {
    expect(recordName('SPEC 1/x', '2026-03-04T05:06:07.000Z', '0123abcd')).toBe('SPEC-1-x-20260304-0123abcd.json');
    expect(stableJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } })).toBe('{\n  "a": {\n    "d": [\n      {\n        "y": 2,\n        "z": 1\n      }\n    ]\n  },\n  "b": 1\n}\n');
  });

  it('keeps the RED content of every source the cycle touched: stubbed, written in GREEN, deleted', () => {
    const baseline = { 'src/keep.js': h('1'), 'src/stub.js': h('2'), 'src/gone.js': h('3'), 'src/green.js': h('4') };
    const atRed = { 'src/keep.js': h('1'), 'src/stub.js': h('5'), 'src/gone.js': h('3'), 'src/green.js': h('4'), 'src/new.js': h('6') };
    const atEnd = { 'src/keep.js': h('1'), 'src/stub.js': h('7'), 'src/green.js': h('8'), 'src/new.js': h('9'), 'src/later.js': h('a') };
    expect(redSourceSet(baseline, atRed, atEnd)).toEqual({ 'src/gone.js': h('3'), 'src/green.js': h('4'), 'src/later.js': null, 'src/new.js': h('6'), 'src/stub.js': h('5') });
    expect(changedWithHashes(baseline, atEnd)).toEqual({ 'src/gone.js': null, 'src/green.js': h('8'), 'src/later.js': h('a'), 'src/new.js': h('9'), 'src/stub.js': h('7') });
  });

  it('finds a test id\'s file among the frozen files, even with "::" in the name', () => {
    const files = { 'tests/test_a.py': h('1') };
    expect(testFile('tests/test_a.py::TestA::test_x', files)).toBe('tests/test_a.py');
    expect(testFile('example.com/calc::TestAdd', files)).toBeNull();
  });

  it.each([
    [{ type: 'hook-deny' }, true],
    [{ type: 'hook-restore' }, true],
    [{ type: 'refusal' }, true],
    [{ type: 'result', action: 'halt' }, true],
    [{ type: 'result', action: 'next' }, false],
    [{ type: 'transition', verb: 'abort', to: 'done' }, true],
    [{ type: 'transition', verb: 'freeze', to: 'tdd-green' }, false],
    [{ type: 'receipt' }, false],
  ])('shows the reviewer %j: %s', (e, shown) => {
    expect(reviewEvents([{ at: 'x', ...e }])).toHaveLength(shown ? 1 : 0);
  });
});

describe('the audit rules, pure', () => {
  it('a consistent record passes', () => {
    expect(consistency(NAME, record(), at(REPO))).toMatchObject({ ok: true });
  });

  it.each<[string, Partial<CycleRecord> | null, Record<string, string | null> | null, Partial<AtCommit> | null, RegExp]>([
    ['a frozen hash edited by hand', { frozen: { at: 'x', files: { 'test/a.test.js': h('f'), 'specs/S.md': h('6') }, parts: {}, local_parts: {} } }, null, null, /frozen file test\/a\.test\.js .* the record says ffffffffffff…: the record was edited by hand/],
    ['a frozen test changed before the record was committed', null, { ...REPO, 'test/a.test.js': h('e') }, null, /frozen file test\/a\.test\.js is eeeeeeeeeeee…/],
    ['a record under another name', null, null, { shortFor: () => '99999999' }, /copied from another cycle or renamed/],
    ['a counted test that is not frozen', { red: { ...record().red, counted: { 'test/a.test.js::other': 'x' } } }, null, null, /RED tests test\/a\.test\.js::other are not among its frozen tests/],
    ['a counted test recorded as passing at RED', { tests: { 'test/a.test.js::adds': { file: 'test/a.test.js', file_sha256: h('a'), red: 'passed' } } }, null, null, /not recorded as failing at RED/],
    ['a RED copy missing', null, { ...REPO, [`.tdd/cycles/blobs/${h('b')}`]: null }, null, /copies of src\/a\.js at RED are missing/],
    ['a source that is not what the cycle ended with', null, { ...REPO, 'src/a.js': h('d') }, null, /sources src\/a\.js at c{12} are not the ones the cycle ended with/],
    ['another test command', null, null, { testCommand: 'node --test test/old.test.js' }, /not the test_command of \.tdd\/stack\.json/],
    ['a test swapped in at RED', { red_sources: { 'src/a.js': h('b'), 'test/a.test.js': h('b') } }, null, null, /sources at RED name test\/a\.test\.js, which are not source files/],
    ['runner settings that are not the frozen ones', null, null, { parts: { 'package.json#runner': h('0') } }, /the runner settings package\.json#runner at c{12} are not the frozen ones/],
    ['a SPEC with another hash', null, null, { specHash: () => h('0') }, /the SPEC specs\/S\.md hashes to 000000000000…/],
    ['a final run that did not pass a frozen test', { final: { ...record().final, tests: { 'test/a.test.js::adds': 'skipped' } } }, null, null, /final run does not show every frozen test passing/],
  ])('fails record-consistent: %s', (_what, over, files, atOver, reason) => {
    const c = consistency(NAME, record(over ?? {}), at(files ?? REPO, atOver ?? {}));
    expect(c.ok).toBe(false);
    expect(c.name).toBe('record-consistent');
    expect(c.detail).toMatch(reason);
  });

  it.each(['../outside.js', '/etc/passwd', 'src/../../x', '.git/hooks/pre-commit', '.tdd/state.json', 'src//a.js', 'C:/x', 'a\\b'])('refuses a record naming %j (a replay writes the files it names)', (rel) => {
    expect(isProjectPath(rel)).toBe(false);
    expect(shapeProblem(record({ red_sources: { [rel]: h('b') } }))).toMatch(/is not a path inside the project/);
  });

  it('accepts a well-formed record', () => {
    expect(isProjectPath('src/a.js')).toBe(true);
    expect(shapeProblem(record())).toBeNull();
  });

  it('a later cycle that froze a file again vouches for its tests; the earlier freeze of that file no longer counts', () => {
    const first = record();
    const second = record({
      spec_id: 'SPEC-2',
      frozen: { at: 'y', files: { 'test/a.test.js': h('9'), 'test/b.test.js': h('8'), 'specs/S.md': h('6') }, parts: { 'package.json#runner': h('8') }, local_parts: {} },
      tests: { 'test/a.test.js::adds more': { file: 'test/a.test.js', file_sha256: h('9'), red: 'failed' }, 'test/b.test.js::b': { file: 'test/b.test.js', file_sha256: h('8'), red: 'passed' } },
      red: { ...record().red, counted: { 'test/a.test.js::adds more': 'AssertionError' } },
    });
    const exp = headExpectations([{ path: 'one.json', record: first }, { path: 'two.json', record: second }]);
    expect(exp.files.get('test/a.test.js')).toEqual({ hash: h('9'), record: 'two.json' });
    expect(exp.tests).toEqual({ 'test/a.test.js::adds more': 'failed', 'test/b.test.js::b': 'passed' });
    expect(exp.redTests).toEqual(['test/a.test.js::adds more']);
    expect(partsAtHead(exp, { 'package.json#runner': h('7') }, [])).toMatchObject({ ok: false, detail: expect.stringMatching(/package\.json#runner/) });
    expect(partsAtHead(exp, { 'package.json#runner': h('8') }, ['test/a.test.js'])).toMatchObject({ ok: true });
    expect(partsAtHead(exp, { 'package.json#runner': h('8') }, ['conftest.py'])).toMatchObject({ ok: false, detail: expect.stringMatching(/conftest\.py added, frozen by no cycle/) });
  });

  it('installed dependencies are the lockfile\'s: versions, integrity, nothing extra; skipped platform packages do not count', () => {
    const lock = { packages: { '': { name: 'p' }, 'node_modules/a': { version: '1.0.0', integrity: 'sha512-a' }, 'node_modules/b': { version: '2.0.0' }, 'node_modules/@x/linux': { version: '1.0.0', optional: true } } };
    expect(lockfileDrift(null, null)).toBeNull();
    expect(lockfileDrift(lock, { packages: { 'node_modules/a': { version: '1.0.0', integrity: 'sha512-a' }, 'node_modules/b': { version: '2.0.0' } } })).toMatchObject({ ok: true });
    expect(lockfileDrift(lock, { packages: { 'node_modules/a': { version: '1.0.1', integrity: 'sha512-a' } } })!.detail).toMatch(/dependencies differ from the lockfile: a \(1\.0\.1 installed, 1\.0\.0 locked\)/);
    expect(lockfileDrift(lock, { packages: { 'node_modules/a': { version: '1.0.0', integrity: 'sha512-z' } } })!.ok).toBe(false);
    expect(lockfileDrift(lock, { packages: { 'node_modules/evil': { version: '1.0.0' } } })!.detail).toMatch(/evil \(not in the lockfile\)/);
    expect(lockfileDrift(lock, null)!.detail).toMatch(/node_modules\/\.package-lock\.json is not/);
  });

  it('a test a later cycle deleted is no longer held at the head, nor are its tests', () => {
    const second = record({ spec_id: 'SPEC-2', frozen: { at: 'y', files: { 'test/b.test.js': h('8'), 'specs/S.md': h('6') }, parts: {}, local_parts: {} }, tests: { 'test/b.test.js::b': { file: 'test/b.test.js', file_sha256: h('8'), red: 'failed' } }, red: { ...record().red, counted: { 'test/b.test.js::b': 'x' } }, changed: { tests: { 'test/a.test.js': null, 'test/b.test.js': h('8') }, sources: {} } });
    const exp = headExpectations([{ path: 'one.json', record: record() }, { path: 'two.json', record: second }]);
    expect([...exp.files.keys()].sort()).toEqual(['specs/S.md', 'test/b.test.js']);
    expect(exp.tests).toEqual({ 'test/b.test.js::b': 'failed' });
  });

  it('--require-cycles names each source no cycle changed; records are append-only', () => {
    expect(sourcesInCycles(['src/a.js', 'src/b.js'], [record()])).toEqual({ name: 'sources-in-cycles', ok: false, detail: 'source change outside any cycle: src/b.js' });
    expect(sourcesInCycles(['src/a.js'], [record()]).ok).toBe(true);
    expect(recordsAppendOnly([NAME]).detail).toMatch(/cycle record edited by hand after it was committed/);
  });

  it('the reports: status, JUnit that XML can hold, a Markdown table with each failure', () => {
    const bad = { name: 'red-replayed', ok: false, detail: 'RED could not fail: a <b> & "c"\u0001' };
    const report: AuditReport = { status: 'fail', base: 'b'.repeat(40), head: 'c'.repeat(40), cycles: [{ record: NAME, commit: 'd'.repeat(40), spec_id: 'SPEC-1', runner: null, checks: [bad] }], head_checks: [{ name: 'no-stubs', ok: true, detail: 'none | here' }] };
    expect(statusOf(report.cycles, report.head_checks)).toBe('fail');
    const x = junit(report);
    expect(x).toContain('<failure message="RED could not fail: a &lt;b&gt; &amp; &quot;c&quot;">');
    expect(x).toContain('<testsuites name="tdd-gate audit" tests="2" failures="1">');
    const md = markdown(report);
    expect(md).toMatch(/^## ❌ tdd-gate audit failed/);
    expect(md).toContain('| no-stubs | ✅ none \\| here |');
    expect(md).toContain(`- **red-replayed** (\`${NAME}\`): RED could not fail`);
  });
});
