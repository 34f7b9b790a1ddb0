import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli, ok, project, readState, redToGreen, startRed } from '../cli/fixtures.js';
import type { TestRepo } from '../helpers/repo.js';

// The hand-off verbs judge GREEN with verify green's own code: the frozen bytes, run out of the
// agent's reach, and no source reaching into the runner. A plain re-run in the work tree would
// accept each cheat below.
const TEST = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.mjs';\ntest('adds', () => { assert.equal(add(1, 2), 3); });\n";
const STUB = 'export function add(a, b) { return 0; } // STUB:TDD\n';
const F = '```';
const implementer = (command: string) =>
  `Done.\n\n${F}tdd-result\nrole: implementer\nstatus: ok\nac: AC-1\nfiles:\n  - src/add.mjs\ncommand: ${command}\noutput_excerpt: |\n  ok 1 - adds\nrefactor_needed: false\n${F}\n`;

/** A node:test project frozen on a genuine RED (phase tdd-green), the stub still in place. */
function frozen(): TestRepo {
  const repo = project('node-test');
  startRed(repo);
  repo.write('test/add.test.mjs', TEST);
  repo.write('src/add.mjs', STUB);
  redToGreen(repo);
  expect(readState(repo).phase).toBe('tdd-green');
  return repo;
}

describe('hand-off GREEN is judged as `verify green` judges it', () => {
  it('a frozen test rewritten on disk to pass: handoff green and result refuse, as verify green does', { timeout: 60_000 }, () => {
    const repo = frozen();
    repo.write('test/add.test.mjs', TEST.replace('assert.equal(add(1, 2), 3)', 'assert.equal(3, 3)'));
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/the oracle moved: .*test\/add\.test\.mjs/);
    const h = ok(cli(repo, 'handoff', 'green'), 1);
    expect(h.stderr).toMatch(/the oracle moved: .*test\/add\.test\.mjs/);
    expect(existsSync(repo.path('.tdd/handoff-green.json'))).toBe(false);
    repo.write('msg.md', implementer('node --test'));
    expect(ok(cli(repo, 'result', 'msg.md', '--role', 'implementer'), 1).stderr).toMatch(/the oracle moved/);
  });

  it('a source that rebinds the assertion library is no GREEN, through a narrowed command too', { timeout: 60_000 }, () => {
    const repo = frozen();
    repo.write('src/add.mjs', "import assert from 'node:assert/strict';\nassert.equal = () => {};\nexport function add(a, b) { return 0; }\n");
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/rebinds the assertion library/);
    repo.write('msg.md', implementer('node --test test/add.test.mjs'));
    const r = ok(cli(repo, 'result', 'msg.md', '--role', 'implementer', '--json'));
    expect(JSON.parse(r.stdout)).toMatchObject({ action: 'retry', mode: 'B', detail: expect.stringContaining('rebinds the assertion library') });
    expect(ok(cli(repo, 'handoff', 'green'), 1).stderr).toMatch(/rebinds the assertion library/);
    expect(existsSync(repo.path('.tdd/handoff-green.json'))).toBe(false);

    // the genuine implementation goes through the same path
    repo.write('src/add.mjs', 'export function add(a, b) { return a + b; }\n');
    expect(JSON.parse(ok(cli(repo, 'result', 'msg.md', '--role', 'implementer', '--json')).stdout)).toMatchObject({ action: 'proceed', command: 'node --test test/add.test.mjs', exit_code: 0 });
    ok(cli(repo, 'handoff', 'green'));
  });
});
