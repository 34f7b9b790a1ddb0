import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runHookInProcess } from '../helpers/hookInProcess.js';
import { SPEC_TEXT, state, testRepo, type TestRepo } from '../helpers/repo.js';

/** The after-the-fact check through the built bundle: drifted frozen files come back from their snapshot copies. */
const TEST = "it('adds', () => expect(1 + 2).toBe(3));\n";
const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

function frozenRepo(opts: { phase?: string; frozen?: boolean } = {}): TestRepo {
  const repo = testRepo({ files: { 'tests/a.test.ts': TEST, 'src/a.ts': 'export {};\n' } });
  const files = { 'tests/a.test.ts': sha(TEST), 'specs/SPEC-001.md': sha(SPEC_TEXT) };
  const extra = opts.frozen === false ? {} : { frozen: { at: '2026-11-22T00:00:00.000Z', spec_hash: sha('x'), files } };
  repo.setState(state(opts.phase ?? 'tdd-green', extra));
  repo.write('.tdd/snapshots/frozen/tests/a.test.ts.copy', TEST);
  repo.write('.tdd/snapshots/frozen/specs/SPEC-001.md.copy', SPEC_TEXT);
  return repo;
}

async function post(repo: TestRepo, command = 'npm run gen', tool = 'Bash') {
  const input = {
    session_id: 's',
    transcript_path: '/tmp/t.jsonl',
    cwd: repo.root,
    hook_event_name: 'PostToolUse',
    tool_name: tool,
    tool_input: { command },
    tool_response: { stdout: '', stderr: '', interrupted: false, isImage: false },
    tool_use_id: 'toolu_1',
    agent_type: 'tdd-gate:implementer',
    agent_id: 'a1',
  };
  const r = await runHookInProcess(input, { event: 'PostToolUse' });
  const out = r.stdout.trim() === '' ? null : (JSON.parse(r.stdout) as { decision?: string; reason?: string });
  return { ...r, out };
}

function events(repo: TestRepo): Record<string, unknown>[] {
  const file = repo.path('.tdd/events.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('PostToolUse on Bash: frozen files', () => {
  it('restores a frozen test a script changed, tells the model, and records a hook-restore event', async () => {
    const repo = frozenRepo();
    repo.write('tests/a.test.ts', "it('adds', () => expect(1 + 2).toBe(4));\n");
    const r = await post(repo);
    expect(r.status).toBe(0);
    expect(readFileSync(repo.path('tests/a.test.ts'), 'utf8')).toBe(TEST);
    expect(r.out).toMatchObject({ decision: 'block' });
    expect(r.out).not.toHaveProperty('hookSpecificOutput'); // the reason reaches the model once
    expect(r.out?.reason).toContain('tests/a.test.ts');
    expect(r.out?.reason).toContain('restored');
    expect(events(repo)).toEqual([expect.objectContaining({ type: 'hook-restore', files: ['tests/a.test.ts'], command: 'npm run gen' })]);
  });

  it('restores a deleted frozen test and a changed SPEC', async () => {
    const repo = frozenRepo();
    rmSync(repo.path('tests/a.test.ts'));
    repo.write('specs/SPEC-001.md', '# changed\n');
    const r = await post(repo);
    expect(readFileSync(repo.path('tests/a.test.ts'), 'utf8')).toBe(TEST);
    expect(readFileSync(repo.path('specs/SPEC-001.md'), 'utf8')).toBe(SPEC_TEXT);
    expect(events(repo)[0]?.files).toEqual(['tests/a.test.ts', 'specs/SPEC-001.md']);
    expect(r.out?.decision).toBe('block');
  });

  it('replaces a frozen test turned into a symlink with a regular file, leaving the link target alone', async () => {
    const repo = frozenRepo();
    repo.write('elsewhere.ts', 'other\n');
    rmSync(repo.path('tests/a.test.ts'));
    symlinkSync(repo.path('elsewhere.ts'), repo.path('tests/a.test.ts'));
    await post(repo);
    expect(lstatSync(repo.path('tests/a.test.ts')).isSymbolicLink()).toBe(false);
    expect(readFileSync(repo.path('tests/a.test.ts'), 'utf8')).toBe(TEST);
    expect(readFileSync(repo.path('elsewhere.ts'), 'utf8')).toBe('other\n');
  });

  it('does not restore from an altered snapshot copy, and says so', async () => {
    const repo = frozenRepo();
    repo.write('.tdd/snapshots/frozen/tests/a.test.ts.copy', 'tampered\n');
    repo.write('tests/a.test.ts', 'changed\n');
    const r = await post(repo);
    expect(readFileSync(repo.path('tests/a.test.ts'), 'utf8')).toBe('changed\n');
    expect(r.out?.reason).toContain('could not be restored');
    expect(events(repo)[0]).toMatchObject({ type: 'hook-restore', files: [], failed: ['tests/a.test.ts'] });
  });

  it.each([
    ['nothing drifted', (_r: TestRepo) => {}, {}],
    ['the cycle has no frozen files yet (tdd-red)', (r: TestRepo) => r.write('tests/a.test.ts', 'x\n'), { phase: 'tdd-red', frozen: false }],
    ['no cycle is active (done)', (r: TestRepo) => r.write('tests/a.test.ts', 'x\n'), { phase: 'done' }],
  ] as const)('stays silent when %s', async (_name, change, opts) => {
    const repo = frozenRepo(opts);
    change(repo);
    const r = await post(repo);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(events(repo)).toEqual([]);
  });

  it('ignores tools other than Bash', async () => {
    const repo = frozenRepo();
    repo.write('tests/a.test.ts', 'x\n');
    expect((await post(repo, 'x', 'Read')).stdout).toBe('');
    expect(readFileSync(repo.path('tests/a.test.ts'), 'utf8')).toBe('x\n');
  });

  it('stays silent without a state file', async () => {
    const repo = frozenRepo();
    repo.setState(null);
    repo.write('tests/a.test.ts', 'x\n');
    expect((await post(repo)).stdout).toBe('');
  });

  it('never reaches outside the project through a hand-edited frozen list', async () => {
    const repo = frozenRepo();
    const outside = path.join(path.dirname(repo.root), `outside-${path.basename(repo.root)}.txt`);
    writeFileSync(outside, 'keep\n');
    repo.setState(state('tdd-green', { frozen: { at: 'x', spec_hash: sha('x'), files: { [`../${path.basename(outside)}`]: sha('other') } } }));
    expect((await post(repo)).stdout).toBe('');
    expect(readFileSync(outside, 'utf8')).toBe('keep\n');
    rmSync(outside);
  });
});
