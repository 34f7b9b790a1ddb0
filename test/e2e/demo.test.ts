// `npm run demo` itself, on the client under test: a short standard-mode cycle through the real
// /tdd-gate:tdd skill reaches `done`, each role is a separate subagent doing its own part, and
// what it prints shows the product as it happens (a test that does not load sent back by `result`,
// a valid RED, the validator's PASS, the freeze, a GREEN cheat denied and a script's change
// restored), one line per step with the time and the role at work.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeE2E, E2E_TIMEOUT, PLUGIN_ROOT } from './harness.js';

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

/** The lines that start a step: `  12.3s  <role or blank>  <what>`. */
const STEP = /^ *\d+\.\ds {2}(\S*) *(.*)$/u;

describeE2E('demo', (bin) => {
  it('npm run demo: a standard-mode cycle with a separate subagent per role reaches done, the cheats are stopped, a progress line per step', async () => {
    const r = await runDemo(bin);
    console.log(`[e2e] demo: ${r.ms} ms`);
    expect(r.code, r.out).toBe(0);
    // Long answers are wrapped onto indented lines: read them joined.
    const flat = r.out.replace(/\n +/gu, ' ');
    for (const text of [
      'standard mode: a separate subagent per role',
      'cli   tdd-gate init --spec specs/SPEC-001.md --mode standard',
      'agent tdd-gate:planner',
      'agent tdd-gate:test-writer',
      '↻ retry — false RED',
      'failed to load (compile or import error)',
      'agent tdd-gate:test-writer (again, with exactly the retry prompt',
      'tdd-gate: valid RED',
      'verdict PASS',
      'tdd-gate: tdd-red → tdd-green',
      'agent tdd-gate:implementer',
      'tdd-gate: GREEN',
      '✓ done evidence record .tdd/evidence/SPEC-001-',
      'The frozen test is unchanged',
    ]) {
      expect(flat, r.out).toContain(text);
    }
    // The implementer's two cheats are stopped: the Edit by the gate, or, where the client applies
    // the OS wall's deny rules for the file tools before the hook (newer clients), by those rules;
    // the helper script's write restored after the call, or refused by the wall itself.
    expect(flat, r.out).toMatch(/✗ denied by tdd-gate tdd-gate rule \[tests-frozen\]: Blocked write to test file|Edit {2}tests\/add\.test\.js: [^\n]*? ✗ <tool_use_error>File is in a directory that is denied by your permission settings/u);
    expect(flat, r.out).toMatch(/tdd-gate \[frozen-restored\]|tdd-gate \[os-wall\]: the OS wall [^\n]*? stopped a write: `tests\/add\.test\.js` is a test frozen for this cycle/u);
    // One line per step, in order, each naming the role at work when it changes: the test is
    // written by the test-writer and the code by the implementer, never by the orchestrator.
    const steps = r.out.split('\n').flatMap((l) => {
      const m = STEP.exec(l);
      return m ? [{ role: m[1]!, what: m[2]! }] : [];
    });
    let role = '';
    const byRole = steps.map((s) => ({ role: (role = s.role || role), what: s.what }));
    const writer = (file: string) => byRole.filter((s) => s.what.startsWith(`Write ${file}`)).map((s) => s.role);
    expect(writer('tests/add.test.js')).toEqual(['test-writer']);
    expect(writer('src/add.js')).toEqual(['test-writer', 'implementer']);
    expect(byRole.filter((s) => s.what.startsWith('Write .tdd/plans/')).map((s) => s.role)).toEqual(['planner']);
    expect(byRole.filter((s) => s.what.startsWith('cli ')).every((s) => s.role === 'orchestrator')).toBe(true);
    expect(new Set(byRole.map((s) => s.role))).toEqual(new Set(['orchestrator', 'planner', 'test-writer', 'test-validator', 'implementer']));
    expect(steps.length).toBeGreaterThan(30);
    // Paths are shown relative to the project; the client's wrapping of a deny is not shown.
    expect(r.out).not.toMatch(/hook error:/u);
  }, E2E_TIMEOUT);
});
