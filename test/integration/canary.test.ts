// The canary through the built hook: during an active cycle PreToolUse records each file write it
// let through, and PostToolUse checks the record; a write with none ran without the gate.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ev, type EventOverrides } from '../helpers/events.js';
import { runHookBundle } from '../helpers/hook.js';
import { SPEC_TEXT, state, testRepo, type TestRepo } from '../helpers/repo.js';
import { anchorPaths } from '../../src/state/anchorPaths.js';
import { findRepo } from '../../src/state/repo.js';
import { markSeen } from '../../src/tamper/seenCalls.js';
import { ADD_TEST, IMPL, lab, toGreen } from '../tamper/fixtures.js';

const TEST = "it('adds', () => expect(1 + 2).toBe(3));\n";
const LOOSENED = "it('adds', () => expect(true).toBe(true));\n";
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** A hand-written GREEN cycle with a frozen test and its snapshot copy (as `freeze` leaves them). */
function greenRepo(): TestRepo {
  const repo = testRepo({ files: { 'tests/a.test.ts': TEST, 'src/a.ts': 'export {};\n' } });
  repo.setState(state('tdd-green', { frozen: { at: '2026-11-22T00:00:00.000Z', spec_hash: sha(SPEC_TEXT), files: { 'tests/a.test.ts': sha(TEST), 'specs/SPEC-001.md': sha(SPEC_TEXT) } } }));
  repo.write('.tdd/snapshots/frozen/tests/a.test.ts.copy', TEST);
  repo.write('.tdd/snapshots/frozen/specs/SPEC-001.md.copy', SPEC_TEXT);
  return repo;
}

interface PostOut {
  decision?: string;
  reason?: string;
  systemMessage?: string;
}

function post(input: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): PostOut | null {
  const r = runHookBundle({ ...input, hook_event_name: 'PostToolUse', tool_response: { type: 'update' } }, { event: 'PostToolUse', env });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim() === '' ? null : (JSON.parse(r.stdout) as PostOut);
}

function events(repo: TestRepo): Record<string, unknown>[] {
  const file = repo.path('.tdd/events.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

const o = (repo: TestRepo, extra: Partial<EventOverrides> = {}): EventOverrides => ({ cwd: repo.root, ...extra });

describe('the canary (built hook)', () => {
  it('a write the gate let through is recorded at PreToolUse and accepted at PostToolUse, once', () => {
    const repo = greenRepo();
    const write = { ...ev.write(o(repo, IMPL), 'src/a.ts', 'export const a = 1;\n'), tool_use_id: 'toolu_ok_1' };
    expect(runHookBundle(write).decision).toBe('pass');
    repo.write('src/a.ts', 'export const a = 1;\n');
    expect(post(write)).toBeNull();
    expect(events(repo).filter((e) => e.type === 'gate-skipped')).toEqual([]);
    // The record is taken back: the same id arriving again without a PreToolUse is a skip.
    expect(post(write)).toMatchObject({ decision: 'block' });
  });

  it('a frozen test written by a subagent with no PreToolUse: restored, recorded, the model and the person told which context', () => {
    const repo = greenRepo();
    repo.write('tests/a.test.ts', LOOSENED); // the write the client ran without the gate
    const out = post({ ...ev.edit(o(repo, IMPL), 'tests/a.test.ts', 'expect(1 + 2).toBe(3)', 'expect(true).toBe(true)'), tool_use_id: 'toolu_skip_1' });
    expect(out?.decision).toBe('block');
    expect(out?.reason).toContain('tdd-gate [gate-skipped]: The Edit of tests/a.test.ts by the subagent tdd-gate:implementer (agent id impl-1) ran without the tdd-gate PreToolUse check (phase tdd-green)');
    expect(out?.reason).toContain('What could be put back was: tests/a.test.ts');
    expect(out?.systemMessage).toContain('the gate was skipped for the subagent tdd-gate:implementer');
    expect(readFileSync(repo.path('tests/a.test.ts'), 'utf8')).toBe(TEST);
    expect(events(repo)).toContainEqual(
      expect.objectContaining({ type: 'gate-skipped', tool: 'Edit', target: 'tests/a.test.ts', context: 'subagent', role: 'tdd-gate:implementer', tool_use_id: 'toolu_skip_1', phase: 'tdd-green', restored: ['tests/a.test.ts'] }),
    );
  });

  it('the main thread, a file that has no copy: reported as not restorable', () => {
    const repo = testRepo({ files: { 'src/a.ts': 'export {};\n' } });
    repo.setState(state('tdd-red'));
    repo.write('src/a.ts', 'export const real = 1;\n');
    const out = post({ ...ev.write(o(repo), path.join(repo.root, 'src/a.ts'), 'export const real = 1;\n'), tool_use_id: 'toolu_skip_2' });
    expect(out?.reason).toContain('The Write of src/a.ts by the main thread ran without the tdd-gate PreToolUse check (phase tdd-red)');
    expect(out?.reason).toContain('src/a.ts itself has no copy to restore');
    expect(events(repo)).toContainEqual(expect.objectContaining({ type: 'gate-skipped', context: 'main', role: 'main', restored: [] }));
  });

  it('NotebookEdit and MultiEdit are checked too', () => {
    const repo = greenRepo();
    for (const input of [ev.notebook(o(repo), 'src/n.ipynb', 'x = 1'), ev.multiEdit(o(repo), 'src/a.ts', [{ old_string: 'a', new_string: 'b' }])]) {
      expect(post({ ...input, tool_use_id: `toolu_${String(input.tool_name)}` })?.reason).toContain(`The ${String(input.tool_name)} of `);
    }
  });

  it('no active cycle, a finished cycle, or no tool_use_id: nothing to check', () => {
    const idle = testRepo();
    expect(post({ ...ev.write(o(idle), 'src/a.ts'), tool_use_id: 'toolu_idle' })).toBeNull();
    const done = testRepo();
    done.setState(state('done'));
    expect(post({ ...ev.write(o(done), 'src/a.ts'), tool_use_id: 'toolu_done' })).toBeNull();
    const green = greenRepo();
    const { tool_use_id: _drop, ...noId } = ev.write(o(green), 'src/a.ts');
    expect(post(noId)).toBeNull();
  });

  it('a call the gate denied leaves no record (it never reaches PostToolUse)', () => {
    const repo = greenRepo();
    const write = { ...ev.write(o(repo, IMPL), 'tests/a.test.ts', LOOSENED), tool_use_id: 'toolu_denied' };
    expect(runHookBundle(write).decision).toBe('deny');
    const seen = path.join(anchorPaths(findRepo(repo.root)!, {}).home, 'seen');
    expect(existsSync(seen) ? readdirSync(seen) : []).toEqual([]);
  });

  it('the records stay bounded: marks of calls that never reached PostToolUse are pruned', () => {
    const repo = greenRepo();
    const paths = anchorPaths(findRepo(repo.root)!, {});
    for (let i = 0; i < 200; i++) markSeen(paths, `toolu_left_${i}`);
    const left = readdirSync(path.join(paths.home, 'seen'));
    expect(left.length).toBeLessThanOrEqual(64);
    expect(left).toContain('toolu_left_199'); // the newest stay
  });

  it('an anchored cycle (driven by the CLI): the recorded write passes, the unrecorded one restores the frozen test', () => {
    const l = lab();
    toGreen(l);
    const source = { ...ev.write(l.o(IMPL), 'src/add.js', 'export function add(a, b) { return a + b; }\n'), tool_use_id: 'toolu_lab_ok' };
    expect(l.pre(source).decision).toBe('pass');
    l.repo.write('src/add.js', 'export function add(a, b) { return a + b; }\n');
    expect(post(source, l.env)).toBeNull();
    l.repo.write('test/add.test.js', ADD_TEST.replace('3)', '0)'));
    const out = post({ ...ev.write(l.o(IMPL), 'test/add.test.js', 'x'), tool_use_id: 'toolu_lab_skip' }, l.env);
    expect(out?.reason).toContain('ran without the tdd-gate PreToolUse check (phase tdd-green)');
    expect(out?.reason).toContain('test/add.test.js');
    expect(readFileSync(l.repo.path('test/add.test.js'), 'utf8')).toBe(ADD_TEST);
  });
});
