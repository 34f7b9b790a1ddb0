// `tdd-gate statusline` through the built CLI, fed the JSON Claude Code gives a statusLine command.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CLI } from '../helpers/hook.js';
import { state, testRepo, type TestRepo } from '../helpers/repo.js';
import { emptyLoop } from '../../src/handoff/rules/loopState.js';
import { lab, toRed } from '../tamper/fixtures.js';

function home(): string {
  const d = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-home-')));
  onTestFinished(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** The statusLine input, with the session somewhere else than the process's cwd (as the client runs it). */
function line(dir: string, opts: { env?: NodeJS.ProcessEnv; stdin?: string; args?: string[] } = {}): { status: number | null; out: string; err: string } {
  const input = opts.stdin ?? JSON.stringify({ session_id: 's1', cwd: dir, workspace: { current_dir: dir, project_dir: dir }, model: { id: 'claude', display_name: 'Claude' } });
  const r = spawnSync(process.execPath, [CLI, 'statusline', ...(opts.args ?? [])], { cwd: tmpdir(), input, encoding: 'utf8', env: { ...process.env, HOME: home(), TDD_GATE_DISABLE: '', ...opts.env } });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

const RECEIPT = { at: '2026-11-22T00:00:00.000Z', command: 'npx vitest run', exit_code: 1, valid: true, counts: { total: 1, failed: 1, passed: 0 }, output_sha256: 'x', log: '.tdd/runs/r.log' };

function withState(phase: string, extra: Record<string, unknown> = {}): TestRepo {
  const repo = testRepo();
  repo.setState(state(phase, extra));
  return repo;
}

describe('tdd-gate statusline', () => {
  it.each<[string, () => TestRepo, string]>([
    ['no cycle', () => testRepo(), 'tdd-gate: no cycle · gate on'],
    ['a finished cycle', () => withState('done'), 'tdd-gate: no cycle · gate on'],
    ['tdd-plan: the planner', () => withState('tdd-plan'), 'tdd-gate tdd-plan · standard · planner · gate on'],
    ['tdd-red: the test-writer', () => withState('tdd-red'), 'tdd-gate tdd-red · standard · test-writer · gate on'],
    ['tdd-red with a valid RED: the test-validator', () => withState('tdd-red', { receipts: { red: RECEIPT } }), 'tdd-gate tdd-red · standard · test-validator · gate on'],
    ['tdd-green: the implementer', () => withState('tdd-green'), 'tdd-gate tdd-green · standard · implementer · gate on'],
    ['tdd-refactor: the refactorer', () => withState('tdd-refactor'), 'tdd-gate tdd-refactor · standard · refactorer · gate on'],
    ['light-inline: the main thread', () => withState('tdd-green', { mode: 'light-inline' }), 'tdd-gate tdd-green · light-inline · main thread · gate on'],
    ['light-dispatch RED: the implementer writes the tests', () => withState('tdd-red', { mode: 'light-dispatch' }), 'tdd-gate tdd-red · light-dispatch · implementer · gate on'],
    [
      'the retry budget of the role at work',
      () => withState('tdd-green', { loop: { ...emptyLoop(), current_ac: 'AC-1', budgets: { 'implementer AC-1': { semantic: 1, format: 0 } } } }),
      'tdd-gate tdd-green · standard · implementer · retries 1/2 · gate on',
    ],
    ['a fresh loop: the whole budget', () => withState('tdd-green', { loop: emptyLoop() }), 'tdd-gate tdd-green · standard · implementer · retries 2/2 · gate on'],
    [
      'halted',
      () => withState('tdd-green', { loop: { ...emptyLoop(), halted: { at: '2026-11-22T00:00:00.000Z', mode: 'A', role: 'implementer', ac: 'AC-1', reason: 'r', report: 'x' } } }),
      'tdd-gate tdd-green · standard · HALTED · retries 2/2 · gate on',
    ],
  ])('%s', (_name, make, want) => {
    const repo = make();
    const r = line(repo.root);
    expect(r.status).toBe(0);
    expect(r.out).toBe(`${want}\n`);
  });

  it('the gate is not live: hooks switched off, the plugin disabled, the kill switch', () => {
    const off = withState('tdd-green');
    off.write('.claude/settings.local.json', JSON.stringify({ disableAllHooks: true }));
    expect(line(off.root).out).toBe('tdd-gate tdd-green · standard · implementer · gate OFF: disableAllHooks in .claude/settings.local.json\n');
    const disabled = testRepo();
    disabled.write('.claude/settings.json', JSON.stringify({ enabledPlugins: { 'tdd-gate@tdd-gate': false } }));
    expect(line(disabled.root).out).toBe('tdd-gate: no cycle · gate OFF: plugin disabled in .claude/settings.json\n');
    expect(line(testRepo().root, { env: { TDD_GATE_DISABLE: '1' } }).out).toBe('tdd-gate: no cycle · gate OFF: TDD_GATE_DISABLE=1\n');
  });

  it('a state out of step with its anchor, and a canary report, show on the gate', () => {
    const l = lab();
    toRed(l);
    const run = (env: NodeJS.ProcessEnv = {}) => spawnSync(process.execPath, [CLI, 'statusline'], { cwd: tmpdir(), input: JSON.stringify({ cwd: l.repo.root }), encoding: 'utf8', env: { ...process.env, ...l.env, TDD_GATE_DISABLE: '', ...env } }).stdout;
    expect(run()).toBe('tdd-gate tdd-red · standard · test-writer · gate on\n');
    writeFileSync(l.statePath, JSON.stringify(state('tdd-green')));
    expect(run()).toContain('gate OFF: state ≠ anchor (tdd-gate recover)');
    const skipped = withState('tdd-green');
    skipped.write('.tdd/events.jsonl', `${JSON.stringify({ at: '2026-11-23T00:00:00.000Z', type: 'gate-skipped', tool: 'Write' })}\n`);
    expect(line(skipped.root).out).toBe('tdd-gate tdd-green · standard · implementer · gate skipped 1×\n');
  });

  it('never fails loudly: garbage input, a corrupt state, stray arguments', () => {
    expect(line(testRepo().root, { stdin: 'not json' })).toMatchObject({ status: 0, err: '' });
    const corrupt = testRepo();
    corrupt.write(path.relative(corrupt.root, corrupt.setState(state('tdd-green'))), '{ nope');
    expect(line(corrupt.root)).toMatchObject({ status: 0, out: 'tdd-gate: no cycle · gate OFF: state unreadable\n', err: '' });
    expect(line(testRepo().root, { args: ['--bogus'] })).toMatchObject({ status: 0, out: 'tdd-gate: ?\n', err: '' });
  });

  it('outside a repository: idle, not "gate on" (the gate guards nothing there)', () => {
    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-norepo-')));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    expect(line(dir).out).toBe('tdd-gate: idle here (not a git repository)\n');
  });
});
