import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli, git, ok, project, writeVerdict } from '../cli/fixtures.js';
import { auditRun, blobs, commitAll, failures, forge, forgeRedSource, head, honestCycle, recordJson, sha, tamper, type CycleFiles } from './fixtures.js';

const OLD = "import { test } from 'node:test';\ntest('old', () => {});\n";
const CYCLE: CycleFiles = {
  test: ['test/add.test.js', "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds', () => { assert.equal(add(1, 2), 3); });\n"],
  stub: ['src/add.js', '// STUB:TDD\nexport function add() { return 0; }\n'],
  impl: ['src/add.js', 'export function add(a, b) { return a + b; }\n'],
};

describe('tdd-gate audit on a node:test project', () => {
  it('an honest cycle passes; each tampering fails with a reason that names it', { timeout: 240_000 }, () => {
    const repo = project('node-test', { 'test/old.test.js': OLD });
    const base = head(repo);
    const record = honestCycle(repo, CYCLE);
    const honest = head(repo);
    expect(record).toMatch(/^\.tdd\/cycles\/SPEC-001-\d{8}-[0-9a-f]{8}\.json$/);
    // committed with the work: the record and the stub's copy are tracked
    expect(git(repo.root, 'ls-files', '.tdd/cycles')).toContain(record);
    expect(blobs(repo)).toEqual([sha(CYCLE.stub[1])]);
    const rec = recordJson(repo, record) as { red: { counted: Record<string, string> }; red_sources: Record<string, string> };
    expect(rec.red.counted['test/add.test.js::adds']).toMatch(/AssertionError|ERR_ASSERTION/);
    expect(rec.red_sources).toEqual({ 'src/add.js': sha(CYCLE.stub[1]) });
    // stable bytes: keys sorted at every level
    const text = readFileSync(repo.path(record), 'utf8');
    expect(text).toBe(JSON.stringify(sortDeep(JSON.parse(text)), null, 2) + '\n');

    const junit = repo.path('../audit-junit.xml');
    const md = repo.path('../audit-summary.md');
    const good = auditRun(repo, base, '--require-cycles', '--junit', junit, '--markdown', md);
    expect(failures(good.report)).toEqual([]);
    expect(good.status).toBe(0);
    expect(good.report.status).toBe('pass');
    expect(good.report.cycles.map((c) => c.checks.map((k) => k.name))).toEqual([['record-consistent', 'red-replayed']]);
    expect(readFileSync(junit, 'utf8')).toMatch(/<testsuites name="tdd-gate audit" tests="\d+" failures="0">/);
    expect(readFileSync(md, 'utf8')).toMatch(/tdd-gate audit passed/);
    // no leftovers: the replay worktrees are gone
    expect(git(repo.root, 'worktree', 'list').trim().split('\n')).toHaveLength(1);

    // a frozen test edited after the freeze, in the tree
    tamper(repo, honest, 'edited-test', () => repo.write(CYCLE.test[0], CYCLE.test[1].replace('assert.equal(add(1, 2), 3)', 'assert.ok(true)')));
    const edited = auditRun(repo, base);
    expect(edited.status).toBe(1);
    expect(failures(edited.report)).toEqual([expect.stringMatching(/^frozen-tests-unchanged: frozen test or runner configuration file edited after the freeze: test\/add\.test\.js \(edited/)]);

    // a frozen test edited in the history, the record kept (committed together)
    forge(repo, base, honest, 'history', () => repo.write(CYCLE.test[0], CYCLE.test[1].replace('assert.equal(add(1, 2), 3)', 'assert.ok(add)')));
    const hist = auditRun(repo, base);
    expect(hist.status).toBe(1);
    expect(failures(hist.report)).toContainEqual(expect.stringMatching(/^record-consistent: .*frozen file test\/add\.test\.js is [0-9a-f]{12}… at [0-9a-f]{12}, the record says/));

    // a record edited by hand: one hash changed, in the commit that adds it
    const r = recordJson(repo, record) as { frozen: { files: Record<string, string> } };
    r.frozen.files['test/old.test.js'] = sha('something else');
    forge(repo, base, honest, 'edited-record', () => writeFileSync(repo.path(record), JSON.stringify(r, null, 2) + '\n'));
    const hand = auditRun(repo, base);
    expect(hand.status).toBe(1);
    expect(failures(hand.report)).toEqual([
      expect.stringMatching(/^record-consistent: record SPEC-001-.*frozen file test\/old\.test\.js .*the record was edited by hand/),
      'red-replayed: not replayed: the record does not match the commit that added it',
      expect.stringMatching(/^frozen-tests-unchanged: .*test\/old\.test\.js \(edited/),
    ]);
    // ... or in a later commit
    tamper(repo, honest, 'edited-later', () => writeFileSync(repo.path(record), JSON.stringify(r, null, 2) + '\n'));
    const later = auditRun(repo, base);
    expect(later.status).toBe(1);
    expect(failures(later.report)).toEqual([`records-append-only: cycle record edited by hand after it was committed (changed or deleted in the range): ${record}`]);

    // a record copied under another cycle's name
    tamper(repo, honest, 'copied-record', () => repo.write(record.replace(/-[0-9a-f]{8}\.json$/, '-0badc0de.json'), readFileSync(repo.path(record), 'utf8')));
    const copied = auditRun(repo, base);
    expect(copied.status).toBe(1);
    expect(failures(copied.report)).toContainEqual(expect.stringMatching(/^record-unique: record copied from another cycle/));
    expect(failures(copied.report)).toContainEqual(expect.stringMatching(/^record-consistent: .*copied from another cycle or renamed/));

    // a stub left at the head
    tamper(repo, honest, 'stub-left', () => repo.write('src/add.js', `// STUB:TDD\n${CYCLE.impl[1]}`));
    const stub = auditRun(repo, base);
    expect(stub.status).toBe(1);
    expect(failures(stub.report)).toEqual([expect.stringMatching(/^no-stubs: STUB:TDD stub left in src\/add\.js/)]);

    // the runner's configuration changed (a runner key of package.json)
    tamper(repo, honest, 'runner-config', () => repo.write('package.json', '{"type":"module","private":true,"imports":{"#x":"./src/add.js"}}\n'));
    const config = auditRun(repo, base);
    expect(config.status).toBe(1);
    expect(failures(config.report)).toEqual([expect.stringMatching(/^runner-config-unchanged: the runner's configuration changed after the freeze: package\.json#runner/)]);

    // the SPEC changed after the freeze
    tamper(repo, honest, 'spec', () => repo.write('specs/SPEC-001.md', '# SPEC-001\n\nadds, and more\n'));
    expect(failures(auditRun(repo, base).report)).toEqual([expect.stringMatching(/^spec-unchanged: the SPEC changed after the freeze: specs\/SPEC-001\.md/)]);

    // a source that rewrites a frozen test while the suite runs: read-only to it (a private mount
    // namespace, as in verify green), else found by the hashes after the run
    tamper(repo, honest, 'writes-tests', () => repo.write('src/add.js', `import { writeFileSync } from 'node:fs';\nwriteFileSync(new URL('../test/old.test.js', import.meta.url), "import { test } from 'node:test';\\ntest('old', () => {});\\n// x\\n");\n${CYCLE.impl[1]}`));
    const writes = auditRun(repo, base);
    expect(writes.status).toBe(1);
    expect(failures(writes.report)).toEqual([expect.stringMatching(/^frozen-tests-pass: (the frozen tests do not pass at the head|frozen files changed while the tests ran: test\/old\.test\.js)/)]);

    // a source change outside any cycle: fails only with --require-cycles
    tamper(repo, honest, 'outside', () => repo.write('src/other.js', 'export const x = 1;\n'));
    expect(auditRun(repo, base).status).toBe(0);
    const outside = auditRun(repo, base, '--require-cycles');
    expect(outside.status).toBe(1);
    expect(failures(outside.report)).toEqual(['sources-in-cycles: source change outside any cycle: src/other.js']);

    // a RED that could not fail: the recorded stub already is the implementation (record consistent with itself)
    forge(repo, base, honest, 'red-passes', () => forgeRedSource(repo, record, 'src/add.js', CYCLE.impl[1]));
    const passes = auditRun(repo, base);
    expect(passes.status).toBe(1);
    expect(failures(passes.report)).toEqual([expect.stringMatching(/^red-replayed: RED could not fail: test\/add\.test\.js::adds passed at the rebuilt RED/)]);

    // a test swapped in at RED through the record's sources
    forge(repo, base, honest, 'red-test-swap', () => forgeRedSource(repo, record, CYCLE.test[0], CYCLE.test[1]));
    expect(failures(auditRun(repo, base).report)).toEqual([
      expect.stringMatching(/^record-consistent: .*its sources at RED name test\/add\.test\.js, which are not source files by \.tdd\/stack\.json/),
      'red-replayed: not replayed: the record does not match the commit that added it',
    ]);

    // a RED that failed for another reason: the stub did not export the name (an import error)
    forge(repo, base, honest, 'red-import', () => forgeRedSource(repo, record, 'src/add.js', '// STUB:TDD\nexport function sum() { return 0; }\n'));
    const imp = auditRun(repo, base);
    expect(imp.status).toBe(1);
    expect(failures(imp.report)).toEqual([expect.stringMatching(/^red-replayed: RED failed for another reason, not on an assertion: .*test\/add\.test\.js failed to load \(compile or import error\)/)]);
  });

  it('a later cycle may re-freeze a test the earlier one froze; both replay, in order', { timeout: 240_000 }, () => {
    const repo = project('node-test', { 'test/old.test.js': OLD });
    const base = head(repo);
    honestCycle(repo, CYCLE);
    // the second cycle changes the first cycle's test file (a new test in it) and the source
    ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md', '--spec-id', 'SPEC-002'));
    repo.write('.tdd/plans/SPEC-002.md', '# Plan\n- AC-1: add(-1, 1) is 0\n');
    ok(cli(repo, 'advance', 'red', '--plan', '.tdd/plans/SPEC-002.md'));
    repo.write(CYCLE.test[0], `${CYCLE.test[1]}test('adds negatives', () => { assert.equal(add(-1, 1), 0); assert.equal(add(-2, -2), -4); });\n`);
    repo.write('src/add.js', '// STUB:TDD\nexport function add(a, b) { return a > 0 && b > 0 ? a + b : 1; }\n');
    ok(cli(repo, 'verify', 'red'));
    writeVerdict(repo);
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
    repo.write('src/add.js', 'export function add(a, b) { return a + b; }\n');
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
    commitAll(repo, 'second cycle');
    const both = auditRun(repo, base, '--require-cycles');
    expect(failures(both.report)).toEqual([]);
    expect(both.report.cycles).toHaveLength(2);
    expect(both.status).toBe(0);
  });

  it('--require-cycles: a test weakened before the cycle began is a test change outside any cycle', { timeout: 120_000 }, () => {
    const repo = project('node-test', { 'test/old.test.js': "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('old', () => { assert.equal(1, 1); });\n" });
    const base = head(repo);
    repo.write('test/old.test.js', OLD);
    commitAll(repo, 'weaken an old test');
    honestCycle(repo, CYCLE);
    expect(auditRun(repo, base).status).toBe(0);
    const strict = auditRun(repo, base, '--require-cycles');
    expect(strict.status).toBe(1);
    expect(failures(strict.report)).toEqual(['tests-in-cycles: test change outside any cycle: test/old.test.js']);
  });

  it('exit 3 when it cannot run: a base that names no commit', { timeout: 60_000 }, () => {
    const repo = project('node-test', { 'test/old.test.js': OLD });
    const r = cli(repo, 'audit', '--base', 'no-such-ref', '--json');
    expect(r.status).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'error', error: expect.stringMatching(/the ref "no-such-ref" does not name a commit/) });
    // no cycle records and nothing required: nothing to hold against the range
    expect(ok(cli(repo, 'audit', '--base', 'HEAD')).stdout).toMatch(/tdd-gate audit: PASS \(0 cycle records\)/);
  });
});

function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortDeep((v as Record<string, unknown>)[k])]));
  return v;
}
