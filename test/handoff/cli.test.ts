import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/hook.js';
import { state, testRepo, type TestRepo } from '../helpers/repo.js';
import type { LoopState } from '../../src/handoff/rules/loopState.js';
import { project as fixtureProject, NODE_TEST_STACK, redToGreen, startRed } from '../cli/fixtures.js';

// Real test commands in temporary repositories, through the built CLI (dist/cli.mjs).
const STACK = NODE_TEST_STACK;

const STUB = 'export function add(a, b) { return 0; } // STUB:TDD\n';
const IMPL = 'export function add(a, b) { return a + b; }\n';
const BROKEN = 'export function add(a, b) { return a - b; }\n';
const TEST = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.mjs';\ntest('adds', () => { assert.equal(add(1, 2), 3); });\n";

const F = '```';
function block(role: string, lines: string[], status = 'ok'): string {
  return `Work done.\n\n${F}tdd-result\nrole: ${role}\nstatus: ${status}\n${lines.join('\n')}\n${F}\n`;
}
const proof = (files: string[], command = 'node --test test/add.test.mjs') => [
  'ac: AC-1',
  'files:',
  ...files.map((f) => `  - ${f}`),
  `command: ${command}`,
  'output_excerpt: |',
  `  ${F}`,
  '  not ok 1 - adds',
  `  ${F}`,
];
const testWriterMsg = block('test-writer', proof(['test/add.test.mjs', 'src/add.mjs']));
const implementerMsg = block('implementer', [...proof(['src/add.mjs']), 'refactor_needed: true', 'refactor_reasons: [naming]']);
const refactorerMsg = block('refactorer', proof(['src/add.mjs']));

function project(phase = 'tdd-red', files: Record<string, string> = { 'src/add.mjs': STUB }): TestRepo {
  const repo = testRepo({ stack: STACK, files: { 'test/add.test.mjs': TEST, ...files } });
  repo.setState(state(phase));
  return repo;
}

/**
 * A real cycle frozen on the RED of TEST (phase tdd-green), the stub in place: a GREEN claim is
 * judged as `verify green` judges it, against the frozen bytes, so it needs a real freeze.
 */
function frozenProject(): TestRepo {
  const repo = fixtureProject('node-test');
  startRed(repo);
  repo.write('test/add.test.mjs', TEST);
  repo.write('src/add.mjs', STUB);
  redToGreen(repo);
  return repo;
}

function result(repo: TestRepo, message: string, args: string[]) {
  repo.write('msg.md', message);
  return runCli(repo.root, ['result', 'msg.md', ...args]);
}

function loopOf(repo: TestRepo): LoopState {
  const file = readFileSync(repo.path(`.tdd/${readStateName(repo)}`), 'utf8');
  return (JSON.parse(file) as { loop: LoopState }).loop;
}
function readStateName(repo: TestRepo): string {
  return readdirSync(repo.path('.tdd')).find((n) => n.startsWith('state-'))!;
}
function events(repo: TestRepo): Record<string, unknown>[] {
  const file = repo.path('.tdd/events.jsonl');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : [];
}

describe('tdd-gate result: re-verification through the built CLI', () => {
  it('proceeds on a valid RED, records it in the loop and the event log', () => {
    const repo = project();
    const r = result(repo, testWriterMsg, ['--role', 'test-writer']);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('proceed');
    expect(loopOf(repo).acs['AC-1']).toMatchObject({ status: 'failing', test_files: ['test/add.test.mjs'], source_files: ['src/add.mjs'], cycles: [{ red: 'ok' }] });
    expect(events(repo).at(-1)).toMatchObject({ type: 'result', role: 'test-writer', ac: 'AC-1', action: 'proceed', exit_code: 1 });
  });

  it('mode A: a test-writer whose tests already pass gets the raw runner output back, nothing else', () => {
    const repo = project('tdd-red', { 'src/add.mjs': IMPL });
    const r = result(repo, testWriterMsg, ['--role', 'test-writer', '--json']);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ action: 'retry', mode: 'A', role: 'test-writer', ac: 'AC-1', retries: { used: 1, limit: 2, kind: 'semantic' }, exit_code: 0 });
    expect(out.retry_text).toMatch(/^✔ adds/);
    expect(out.retry_text).toContain('ℹ pass 1');
    expect(out.retry_text).not.toMatch(/false RED|retry|tdd-gate/i);
  });

  it('mode A: an import error is not a valid RED', () => {
    const repo = project('tdd-red', {});
    const r = result(repo, testWriterMsg, ['--role', 'test-writer']);
    expect(r.stdout).toMatch(/^retry\nmode: A/);
    expect(r.stdout).toContain('failed to load (compile or import error)');
  });

  it('mode B: an implementer that claims GREEN on failing tests is retried, then halted with a report (exit 3)', () => {
    const repo = frozenProject();
    const runs = [1, 2, 3].map(() => result(repo, implementerMsg, ['--role', 'implementer']));
    expect(runs.map((r) => [r.status, r.stdout.split('\n')[0]])).toEqual([
      [0, 'retry'],
      [0, 'retry'],
      [3, 'halt'],
    ]);
    expect(runs[0]!.stdout).toContain('--- retry prompt ---\n✖ adds');
    const report = runs[2]!.stdout;
    expect(report).toContain('reason: the same failure 3 times in a row');
    expect(report).toContain('mode: B (the implementer cannot reach GREEN)');
    expect(report).toContain('role: implementer');
    expect(report).toContain('ac: AC-1');
    expect(report).toContain('retries used: 2 of 2 semantic, 0 of 1 format');
    expect(report).toContain('last block:\n```tdd-result\nrole: implementer');
    expect(report).toContain('raw output:\n✖ adds');
    // Halted: every further hand-back gets the same report until a person resumes.
    const logs = readdirSync(repo.path('.tdd/runs')).length;
    const again = result(repo, implementerMsg, ['--role', 'implementer']);
    expect(again.status).toBe(3);
    expect(readdirSync(repo.path('.tdd/runs')).length).toBe(logs);
    expect(runCli(repo.root, ['result', '--resume']).status).toBe(0);
    repo.write('src/add.mjs', IMPL);
    expect(result(repo, implementerMsg, ['--role', 'implementer']).stdout.split('\n')[0]).toBe('proceed');
  });

  it('mode C: a refactorer that broke GREEN is retried with the raw output', () => {
    const repo = frozenProject();
    repo.write('src/add.mjs', IMPL);
    expect(runCli(repo.root, ['verify', 'green']).status).toBe(0);
    expect(runCli(repo.root, ['advance', 'refactor']).status).toBe(0);
    repo.write('src/add.mjs', BROKEN);
    const r = result(repo, refactorerMsg, ['--role', 'refactorer']);
    expect(r.stdout).toMatch(/^retry\nmode: C \(the refactorer broke GREEN\)/);
    expect(r.stdout).toContain('✖ adds');
  });

  it('mode D: no block → one targeted retry, then halt', () => {
    const repo = project('tdd-green', { 'src/add.mjs': IMPL });
    const first = result(repo, 'All tests pass now!', ['--role', 'implementer']);
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^retry\nmode: D/);
    expect(first.stdout).toContain('```tdd-result\nrole: implementer');
    const second = result(repo, testWriterMsg, ['--role', 'implementer']);
    expect(second.status).toBe(3);
    expect(second.stdout).toContain('format retry budget spent');
    expect(events(repo).filter((e) => e.type === 'result').map((e) => e.format_error)).toEqual(['no-block', 'wrong-role']);
  });

  it('mode D: a command that is not the test command is never run', () => {
    const repo = project('tdd-green');
    const r = result(repo, block('implementer', [...proof(['src/add.mjs'], 'node --test; exit 0'), 'refactor_needed: false']), ['--role', 'implementer']);
    expect(r.stdout).toMatch(/^retry\nmode: D/);
    expect(r.stdout).toContain("must be the project's test command (`node --test`)");
    const chained = result(repo, block('implementer', [...proof(['src/add.mjs'], 'node --test test/add.test.mjs && true'), 'refactor_needed: false']), ['--role', 'implementer']);
    expect(chained.status).toBe(3);
    expect(chained.stdout).toContain('`&&` is not allowed');
    expect(existsSync(repo.path('.tdd/runs'))).toBe(false);
  });

  it('mode E: a child out of turns gets the raw suite output', () => {
    const repo = frozenProject();
    const r = result(repo, 'Let me now look at', ['--role', 'implementer', '--incomplete', '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ action: 'retry', mode: 'E', command: 'node --test', exit_code: 1 });
  });

  it('reads the message from standard input', () => {
    const repo = project();
    const r = spawnSync(process.execPath, [CLI, 'result', '-', '--role', 'test-writer'], { cwd: repo.root, input: testWriterMsg, encoding: 'utf8' });
    expect([r.status, r.stdout.split('\n')[0]]).toEqual([0, 'proceed']);
  });

  it('refuses without an active cycle (1) and on bad usage (2)', () => {
    const repo = testRepo({ stack: STACK });
    expect(result(repo, testWriterMsg, ['--role', 'test-writer'])).toMatchObject({ status: 1, stderr: expect.stringContaining('no TDD cycle is active') });
    expect(result(repo, testWriterMsg, ['--role', 'tester']).status).toBe(2);
    expect(runCli(repo.root, ['result', '--role', 'implementer']).status).toBe(2);
  });

  it('refuses on a corrupt loop key and leaves the state file as it is', () => {
    const repo = testRepo({ stack: STACK, files: { 'test/add.test.mjs': TEST, 'src/add.mjs': STUB } });
    const file = repo.setState(state('tdd-red', { loop: { cycles_total: 'many' } }));
    const before = readFileSync(file, 'utf8');
    const r = result(repo, testWriterMsg, ['--role', 'test-writer']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the state\'s "loop" key is invalid');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('status shows the double loop', () => {
    const repo = project();
    result(repo, testWriterMsg, ['--role', 'test-writer']);
    const r = runCli(repo.root, ['status']);
    expect(r.stdout).toContain('loop: 1 of at most 10 cycles, current AC-1');
    expect(r.stdout).toContain('AC-1 failing, 0 cycles completed; cycle 1: red ok, green pending, refactor pending');
  });

  it('--max-cycles and --same-failure are persisted', () => {
    const repo = project();
    result(repo, testWriterMsg, ['--role', 'test-writer', '--max-cycles', '4', '--same-failure', '5']);
    expect(loopOf(repo).limits).toEqual({ semantic_retries: 2, format_retries: 1, same_failure: 5, max_cycles: 4 });
    expect(result(repo, testWriterMsg, ['--role', 'test-writer', '--max-cycles', '0']).status).toBe(2);
  });
});

describe('tdd-gate handoff and context: manifests and isolation', () => {
  it('red → implementer: the manifest holds the evidence; the context holds only allowlisted files', () => {
    const repo = project();
    result(repo, testWriterMsg, ['--role', 'test-writer']);
    const h = runCli(repo.root, ['handoff', 'red']);
    expect(h.status).toBe(0);
    const manifest = JSON.parse(readFileSync(repo.path('.tdd/handoff-red.json'), 'utf8'));
    expect(manifest).toMatchObject({
      version: 1,
      kind: 'red',
      phase: 'tdd-red',
      component: 'SPEC-001',
      cycle: { ac: 'AC-1', n: 1, total: 1 },
      test_files: ['test/add.test.mjs'],
      exit_code: 1,
      command: 'node --test',
      for_role: 'implementer',
      allowlist: ['src/add.mjs', 'test/add.test.mjs'],
    });
    expect(manifest.runner_output.length).toBeLessThanOrEqual(2000);
    expect(manifest.runner_output).toContain('ℹ fail 1');

    const c = runCli(repo.root, ['context', '--role', 'implementer']);
    expect(c.status).toBe(0);
    expect(c.stdout).toContain('## test/add.test.mjs');
    expect(c.stdout).toContain("assert.equal(add(1, 2), 3)");
    expect(c.stdout).toContain('## src/add.mjs');
    expect(c.stdout).not.toContain('SPEC-001.md');
    expect(c.stdout).not.toContain('Scenario');

    for (const forbidden of ['specs/SPEC-001.md', '.tdd/plans/SPEC-001.md', 'msg.md', '../outside.txt']) {
      const bad = runCli(repo.root, ['context', '--role', 'implementer', '--include', 'test/add.test.mjs', '--include', forbidden]);
      expect(bad.status).toBe(1);
      expect(bad.stderr).toContain('isolation violation');
      expect(bad.stdout).toBe('');
    }
    const narrowed = runCli(repo.root, ['context', '--role', 'implementer', '--include', './test/../test/add.test.mjs', '--json']);
    expect((JSON.parse(narrowed.stdout) as { files: { path: string }[] }).files.map((f) => f.path)).toEqual(['test/add.test.mjs']);
    expect(events(repo).some((e) => e.type === 'isolation-violation')).toBe(true);
  });

  it('refuses a RED hand-off when the tests do not fail validly', () => {
    const repo = project('tdd-red', { 'src/add.mjs': IMPL });
    repo.write('test/add.test.mjs', `${TEST}// changed in this cycle\n`);
    const h = runCli(repo.root, ['handoff', 'red']);
    expect(h.status).toBe(1);
    expect(h.stderr).toContain('passed (exit 0)');
    expect(existsSync(repo.path('.tdd/handoff-red.json'))).toBe(false);
  });

  it('green → refactorer: adds implementation files; needs GREEN; context without a manifest is refused', () => {
    const repo = frozenProject();
    expect(result(repo, testWriterMsg, ['--role', 'test-writer']).stdout).toMatch(/^proceed/);
    expect(runCli(repo.root, ['context', '--role', 'refactorer'])).toMatchObject({ status: 1, stderr: expect.stringContaining('handoff green') });
    repo.write('src/add.mjs', IMPL);
    expect(result(repo, implementerMsg, ['--role', 'implementer']).stdout).toMatch(/^proceed/);
    const h = runCli(repo.root, ['handoff', 'green', '--json']);
    expect(h.status).toBe(0);
    const { manifest } = JSON.parse(h.stdout);
    expect(manifest).toMatchObject({ kind: 'green', for_role: 'refactorer', exit_code: 0, implementation_files: ['src/add.mjs'], test_files: ['test/add.test.mjs'] });
    const c = runCli(repo.root, ['context', '--role', 'refactorer', '--include', 'specs/SPEC-001.md']);
    expect(c.status).toBe(1);
    repo.write('src/add.mjs', BROKEN);
    expect(runCli(repo.root, ['handoff', 'green']).status).toBe(1);
  });

  it('refuses a hand-off in the wrong phase', () => {
    const repo = project('tdd-plan');
    expect(runCli(repo.root, ['handoff', 'red'])).toMatchObject({ status: 1, stderr: expect.stringContaining('needs phase tdd-red or tdd-green') });
  });

  it('the test-writer context holds the SPEC, never a manifest', () => {
    const repo = project();
    const c = runCli(repo.root, ['context', '--role', 'test-writer', '--ac', 'AC-1']);
    expect(c.status).toBe(0);
    expect(c.stdout).toContain('## specs/SPEC-001.md');
    expect(runCli(repo.root, ['context', '--role', 'test-writer', '--include', 'src/add.mjs']).status).toBe(1);
  });
});
