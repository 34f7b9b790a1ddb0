import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { namespaceWorks } from '../../src/verify/oracle/isolate.js';
import { cli, ok, project, redToGreen, startRed } from './fixtures.js';

const ADD_TEST = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds', () => { assert.equal(add(1, 2), 3); });\n";

// A process the tests leave behind could rewrite the run's report after the runner exits and
// before the CLI reads it. In the namespace oracle it dies with the test command.
describe.skipIf(process.platform !== 'linux' || !namespaceWorks())('what the tests leave running', () => {
  it('is gone when verify reads the report', { timeout: 120_000 }, async () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'tdd-gate-leftover-'));
    onTestFinished(() => rmSync(outside, { recursive: true, force: true }));
    const marker = path.join(outside, 'written-after-the-run');
    const repo = project('node-test');
    startRed(repo);
    repo.write('test/add.test.js', ADD_TEST);
    repo.write('src/add.js', '// STUB:TDD\nexport function add() { return 0; }\n');
    redToGreen(repo);
    repo.write(
      'src/add.js',
      `import { spawn } from 'node:child_process';\n` +
        `spawn('sh', ['-c', 'sleep 2; echo late > ${marker}'], { detached: true, stdio: 'ignore' }).unref();\n` +
        'export function add(a, b) { return a + b; }\n',
    );
    ok(cli(repo, 'verify', 'green'));
    await new Promise((r) => setTimeout(r, 3_500));
    expect(existsSync(marker)).toBe(false);
  });
});
