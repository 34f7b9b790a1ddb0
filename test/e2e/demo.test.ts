// `npm run demo` itself, on the client under test: a short cycle through the real /tdd skill
// reaches `done`, and what it prints shows the product (RED refused for a build error, then valid,
// the validator's PASS, the freeze, a GREEN cheat denied and a script's change restored).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeE2E, PLUGIN_ROOT } from './harness.js';

function runDemo(bin: string): Promise<{ code: number | null; out: string; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [path.join(PLUGIN_ROOT, 'scripts', 'demo.mjs')], {
      env: { ...process.env, TDD_GATE_E2E_CLAUDE: bin, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => resolve({ code, out, ms: Date.now() - started }));
  });
}

describeE2E('demo', (bin) => {
  it('npm run demo: a cycle through the real skill reaches done, the cheats are stopped, no API key', async () => {
    const r = await runDemo(bin);
    console.log(`[e2e] demo: ${r.ms} ms`);
    expect(r.code, r.out).toBe(0);
    for (const line of [
      'tdd-gate verify red: refused: invalid RED',
      'tdd-gate: valid RED',
      'verdict PASS',
      'tdd-gate: tdd-red → tdd-green',
      '✗ denied by tdd-gate',
      'tdd-gate rule [tests-frozen]: Blocked write to test file tests/add.test.js',
      'tdd-gate [frozen-restored]',
      'tdd-gate: GREEN',
      '✓ done evidence record .tdd/evidence/SPEC-001-',
      'The frozen test is unchanged',
    ]) {
      expect(r.out, r.out).toContain(line);
    }
    // Paths are shown relative to the project; the client's wrapping of a deny is not shown.
    expect(r.out).not.toMatch(/hook error:/u);
    expect(r.ms).toBeLessThan(60_000);
  }, 120_000);
});
