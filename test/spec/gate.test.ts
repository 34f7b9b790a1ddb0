// The spec-writer drafts SPECs before a cycle exists and writes only under specs/. The built hook
// holds it there with no state file, with an active cycle, and outside a repository.
import { linkSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { decideSpecWriterWrite } from '../../src/gate/rules/roles.js';
import { ev } from '../helpers/events.js';
import { runHookBundle } from '../helpers/hook.js';
import { state, testRepo } from '../helpers/repo.js';

const SW = { agent_type: 'tdd-gate:spec-writer' };

function expectDeny(r: ReturnType<typeof runHookBundle>, rule: string) {
  expect(r.status).toBe(0);
  expect(r.decision).toBe('deny');
  expect(r.reason).toContain(`[${rule}]`);
}

function expectPass(r: ReturnType<typeof runHookBundle>) {
  expect(r).toMatchObject({ status: 0, decision: 'pass', stdout: '' });
}

describe('decideSpecWriterWrite', () => {
  it.each<[string | null, boolean, boolean, 'pass' | 'deny']>([
    ['specs/SPEC-002-dry-run.md', false, false, 'pass'],
    ['specs/auth/FR-AUTH-004.md', false, false, 'pass'],
    ['SPECS/SPEC-002.md', true, false, 'pass'],
    ['SPECS/SPEC-002.md', false, false, 'deny'],
    ['specs', false, false, 'deny'],
    ['specs/', false, false, 'deny'],
    ['src/deploy.ts', false, false, 'deny'],
    ['specsx/a.md', false, false, 'deny'],
    ['.tdd/plans/SPEC-002.md', false, false, 'deny'],
    [null, false, false, 'deny'],
    ['specs/SPEC-002.md', false, true, 'deny'],
  ])('%j (nocase %s, hard-linked %s) → %s', (rel, nocase, linked, kind) => {
    expect(decideSpecWriterWrite('x', rel, nocase, linked).kind).toBe(kind);
  });
});

describe('the built hook confines the spec-writer to specs/', () => {
  it('with no cycle: a draft under specs/ passes; code, tests, the project root and beyond are denied', () => {
    const repo = testRepo();
    const o = { cwd: repo.root, ...SW };
    expectPass(runHookBundle(ev.write(o, 'specs/SPEC-002-dry-run.md', '# draft\n')));
    expectPass(runHookBundle(ev.write(o, path.join(repo.root, 'specs/SPEC-002-dry-run.md'))));
    expectPass(runHookBundle(ev.edit(o, 'specs/SPEC-001.md', 'THEN 3', 'THEN 4')));
    for (const target of ['src/deploy.ts', 'tests/deploy.test.ts', 'README.md', 'specs/../src/a.ts', '../elsewhere.md', '/etc/hosts', '.tdd/stack.json', '~/.claude/settings.json']) {
      const r = runHookBundle(ev.write(o, target));
      expectDeny(r, 'spec-writer-scope');
      expect(r.reason).toContain('writes only the SPEC draft under specs/');
    }
    expectDeny(runHookBundle(ev.notebook(o, 'notes.ipynb', 'x')), 'spec-writer-scope');
    expectDeny(runHookBundle(ev.multiEdit(o, 'src/a.ts', [{ old_string: 'a', new_string: 'b' }])), 'spec-writer-scope');
  });

  it('resolves symlinks and hard links: specs/ names that reach other files are denied', () => {
    const repo = testRepo({ files: { 'src/app.ts': 'export const a = 1;\n' } });
    symlinkSync(repo.path('src/app.ts'), repo.path('specs/link.md'));
    symlinkSync(repo.path('src'), repo.path('specs/srcdir'));
    linkSync(repo.path('src/app.ts'), repo.path('specs/hard.md'));
    const o = { cwd: repo.root, ...SW };
    expectDeny(runHookBundle(ev.write(o, 'specs/link.md')), 'spec-writer-scope');
    expectDeny(runHookBundle(ev.write(o, 'specs/srcdir/app.ts')), 'spec-writer-scope');
    expectDeny(runHookBundle(ev.edit(o, 'specs/hard.md', 'a', 'b')), 'spec-writer-scope');
  });

  it('denies every command and every other writing tool', () => {
    const repo = testRepo();
    const o = { cwd: repo.root, ...SW };
    for (const cmd of ['ls specs', 'echo x > specs/a.md', 'git status']) expectDeny(runHookBundle(ev.bash(o, cmd)), 'spec-writer-scope');
    expectDeny(runHookBundle({ ...ev.write(o, 'specs/a.md'), tool_name: 'mcp__fs__write_file', tool_input: { path: 'src/a.ts', content: 'x' } }), 'spec-writer-scope');
  });

  it('leaves the main thread and other agents alone when no cycle is active', () => {
    const repo = testRepo();
    expectPass(runHookBundle(ev.write({ cwd: repo.root }, 'src/deploy.ts')));
    expectPass(runHookBundle(ev.write({ cwd: repo.root, agent_type: 'general-purpose' }, 'src/deploy.ts')));
    expectPass(runHookBundle(ev.bash({ cwd: repo.root, agent_type: 'tdd-gate:planner' }, 'ls')));
  });

  it('with an active cycle: a new draft passes, the cycle SPEC stays frozen, the rest is denied', () => {
    const repo = testRepo();
    repo.setState(state('tdd-plan'));
    const o = { cwd: repo.root, ...SW };
    expectPass(runHookBundle(ev.write(o, 'specs/SPEC-002-next.md')));
    expectDeny(runHookBundle(ev.edit(o, 'specs/SPEC-001.md', 'THEN 3', 'THEN 4')), 'spec-frozen');
    expectDeny(runHookBundle(ev.write(o, '.tdd/plans/SPEC-001.md')), 'spec-writer-scope');
    expectDeny(runHookBundle(ev.write(o, 'src/a.ts')), 'spec-writer-scope');
  });

  it('outside a repository its working directory stands in for the project', () => {
    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-nogit-')));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    expectPass(runHookBundle(ev.write({ cwd: dir, ...SW }, 'specs/SPEC-001-x.md')));
    expectDeny(runHookBundle(ev.write({ cwd: dir, ...SW }, 'src/x.ts')), 'spec-writer-scope');
  });
});
