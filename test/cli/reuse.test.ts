// A run whose inputs have not changed since a run the CLI itself made is reused, never re-run:
// the hand-off verbs after `verify`, `done` right after `verify green|refactor`, a second verify.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TestRepo } from '../helpers/repo.js';
import { cli, ok, project, readState, startRed, writeVerdict } from './fixtures.js';

const ADD_TEST = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds', () => { assert.equal(add(1, 2), 3); });\n";

/** The run logs written so far (one per run of the test command). */
function runLogs(repo: TestRepo): string[] {
  return readdirSync(repo.path('.tdd/runs')).filter((f) => f.endsWith('.log')).sort();
}

describe('runs of unchanged inputs are reused, not re-run', () => {
  it('verify, hand-off and done reuse the run of the same inputs; any change runs again', { timeout: 120_000 }, () => {
    const repo = project('node-test');
    startRed(repo);
    repo.write('test/add.test.js', ADD_TEST);
    repo.write('src/add.js', '// STUB:TDD\nexport function add() { return 0; }\n');
    ok(cli(repo, 'verify', 'red'));
    const red = readState(repo).receipts.red;
    expect(red.inputs_sha256).toMatch(/^[0-9a-f]{64}$/);
    const afterRed = runLogs(repo);
    // the hand-off to the implementer needs the RED that `verify red` just recorded
    ok(cli(repo, 'handoff', 'red'));
    expect(runLogs(repo)).toEqual(afterRed);

    writeVerdict(repo);
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
    repo.write('src/add.js', 'export function add(a, b) { return a + b; }\n');
    ok(cli(repo, 'verify', 'green'));
    const green = readState(repo).receipts.green;
    const afterGreen = runLogs(repo);
    expect(afterGreen.length).toBe(afterRed.length + 1);
    const again = ok(cli(repo, 'verify', 'green'));
    expect(again.stdout).toContain(`nothing changed since the run at ${green.at}, so that run stands`);
    expect(readState(repo).receipts.green).toMatchObject({ valid: true, inputs_sha256: green.inputs_sha256, reused_from: green.at, log: green.log });
    ok(cli(repo, 'handoff', 'green'));
    expect(runLogs(repo)).toEqual(afterGreen);

    // a change anywhere in the project (not a test, not a source) is a new input: it runs
    repo.write('README.md', 'a note\n');
    ok(cli(repo, 'verify', 'green'));
    expect(runLogs(repo).length).toBe(afterGreen.length + 1);
    ok(cli(repo, 'advance', 'refactor'));
    ok(cli(repo, 'verify', 'refactor'));
    const refactor = readState(repo).receipts.refactor;
    expect(refactor.reused_from).toBeDefined();
    const beforeDone = runLogs(repo);
    const done = JSON.parse(ok(cli(repo, 'done', '--json')).stdout) as { runs: { final: { reused_from?: string; valid: boolean } } };
    expect(done.runs.final).toMatchObject({ valid: true, reused_from: refactor.reused_from });
    expect(runLogs(repo)).toEqual(beforeDone);
  });

  it('a failing run is never reused: the next verify runs again', { timeout: 60_000 }, () => {
    const repo = project('node-test');
    startRed(repo);
    repo.write('test/add.test.js', ADD_TEST);
    repo.write('src/add.js', '// STUB:TDD\nexport function add() { return 0; }\n');
    ok(cli(repo, 'verify', 'red'));
    writeVerdict(repo);
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
    ok(cli(repo, 'verify', 'green'), 1);
    const n = runLogs(repo).length;
    ok(cli(repo, 'verify', 'green'), 1);
    expect(runLogs(repo).length).toBe(n + 1);
  });
});
