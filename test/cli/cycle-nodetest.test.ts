import { describe, expect, it } from 'vitest';
import { cli, ok, project, readState, startRed, writeVerdict } from './fixtures.js';

const ADD_TEST = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds', () => { assert.equal(add(1, 2), 3); });\n";

describe('CLI cycle with a real node:test project (tests by file and name)', () => {
  it('refuses an import error, accepts an assertion failure, then goes GREEN and done', { timeout: 120_000 }, () => {
    const repo = project('node-test', { 'test/old.test.js': "import { test } from 'node:test';\ntest('old', () => {});\n" });
    startRed(repo);
    repo.write('test/add.test.js', ADD_TEST);
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/test\/add\.test\.js failed to load \(compile or import error\)/);

    repo.write('src/add.js', '// STUB:TDD\nexport function add() { return 0; }\n');
    const r = ok(cli(repo, 'verify', 'red', '--json'));
    const receipt = JSON.parse(r.stdout);
    expect(receipt).toMatchObject({ kind: 'red', valid: true, counts: { total: 2, failed: 1 }, failing_files: ['test/add.test.js'] });

    writeVerdict(repo);
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/not GREEN: 1 of 2 tests fail/);
    repo.write('src/add.js', 'export function add(a, b) { return a + b; }\n');
    const g = JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout);
    expect(g).toMatchObject({ kind: 'green', valid: true, counts: { total: 2, failed: 0, passed: 2 } });
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });

  it('refuses a RED where the new test passes and an old one fails', { timeout: 60_000 }, () => {
    const repo = project('node-test', {
      'test/old.test.js': "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('old', () => { assert.equal(1, 2); });\n",
    });
    startRed(repo);
    repo.write('test/new.test.js', "import { test } from 'node:test';\ntest('new', () => {});\n");
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/not written or changed in this cycle \(failing: test\/old\.test\.js::old\)/);
  });
});
