// SessionStart through the built bundle: a resumed session learns the active cycle's phase, the
// role rules and the next step; nothing is said without a cycle; nothing ever blocks the session.
import { describe, expect, it } from 'vitest';
import { runHookInProcess } from '../helpers/hookInProcess.js';
import { state, testRepo } from '../helpers/repo.js';

async function sessionStart(cwd: string, env: NodeJS.ProcessEnv = {}, source = 'resume') {
  const input = { session_id: 'b3b4c6e2-5a41-4c1e-9a0f-2f8c1d0e7a11', transcript_path: '/tmp/transcript.jsonl', hook_event_name: 'SessionStart', source, cwd };
  const r = await runHookInProcess(input, { event: 'SessionStart', env });
  let context: string | null = null;
  if (r.stdout.trim() !== '') {
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(out.hookSpecificOutput.hookEventName).toBe('SessionStart');
    context = out.hookSpecificOutput.additionalContext;
  }
  return { ...r, context };
}

describe('built hook: SessionStart', () => {
  it('says nothing when no cycle is active', async () => {
    const repo = testRepo();
    expect(await sessionStart(repo.root)).toMatchObject({ status: 0, stdout: '', context: null });
  });

  it('says nothing when the cycle is done', async () => {
    const repo = testRepo();
    repo.setState(state('done'));
    expect(await sessionStart(repo.root)).toMatchObject({ status: 0, context: null });
  });

  it('says nothing outside a git repository', async () => {
    expect(await sessionStart('/')).toMatchObject({ status: 0, context: null });
  });

  it.each([
    ['tdd-plan', 'only the test plan under .tdd/plans/', 'tdd-gate advance red --plan'],
    ['tdd-red', 'only tdd-gate:test-writer writes tests and stubs', 'tdd-gate verify red'],
    ['tdd-green', 'only tdd-gate:implementer writes sources', 'tdd-gate verify green'],
    ['tdd-refactor', 'only tdd-gate:refactorer writes sources', 'tdd-gate verify refactor'],
  ])('in %s names the phase, the role rule and the next step', async (phase, rule, next) => {
    const repo = testRepo({ branch: 'feat/cart' });
    repo.setState(state(phase), 'feat/cart');
    const r = await sessionStart(repo.root, {}, 'startup');
    expect(r.status).toBe(0);
    expect(r.context).toContain(`branch feat/cart: SPEC-001 (specs/SPEC-001.md), phase ${phase}.`);
    expect(r.context).toContain(rule);
    expect(r.context).toContain(next);
    expect(r.context).toContain('/tdd skill');
  });

  it('applies the phase table alone in light modes', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green', { mode: 'light-inline' }));
    const r = await sessionStart(repo.root);
    expect(r.context).toContain('Mode light-inline: the phase rules apply to everyone');
    expect(r.context).not.toContain('only tdd-gate:implementer');
  });

  it('tells the model how to run the CLI from the plugin root', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-red'));
    const r = await sessionStart(repo.root, { CLAUDE_PLUGIN_ROOT: '/opt/plugins/tdd gate' });
    expect(r.context).toContain('`node "/opt/plugins/tdd gate/dist/cli.mjs" status`');
  });

  it('reports a corrupt state file without blocking the session', async () => {
    const repo = testRepo();
    const file = repo.setState(state('tdd-red'));
    repo.write(file.slice(repo.root.length + 1), '{ not json');
    const r = await sessionStart(repo.root);
    expect(r.status).toBe(0);
    expect(r.context).toContain('cannot be read');
    expect(r.context).toContain('status');
  });

  it('never fails on input it cannot use', async () => {
    for (const input of ['{not json', '{}', '{"cwd": 42}']) {
      const r = await runHookInProcess(input, { event: 'SessionStart', raw: true });
      expect(r.stdout).toBe('');
      expect([0, 1]).toContain(r.status); // 1 is a non-blocking error for SessionStart
    }
  });
});
