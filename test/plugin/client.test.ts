// The /tdd skill in the real Claude Code client (scripted fake API, no network): the client
// substitutes ${CLAUDE_PLUGIN_ROOT} in the skill body, so the model reads a runnable, quoted CLI
// command even when the plugin lives under a path with a space; the skill's allowed-tools
// pre-approve exactly that command; running it reaches the CLI.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { state, testRepo } from '../helpers/repo.js';
import { describeE2E, E2E_TIMEOUT, dispatch, PLUGIN_ROOT, resultOf, session, type SessionResult } from '../e2e/harness.js';

function pluginUnderSpacedPath(): string {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-client-')));
  onTestFinished(() => rmSync(base, { recursive: true, force: true }));
  const dir = path.join(base, 'my plugins', 'tdd-gate');
  mkdirSync(dir, { recursive: true });
  for (const part of ['.claude-plugin', 'hooks', 'dist', 'skills', 'agents', 'examples']) {
    if (existsSync(path.join(PLUGIN_ROOT, part))) cpSync(path.join(PLUGIN_ROOT, part), path.join(dir, part), { recursive: true });
  }
  return dir;
}

function firstRequestText(r: SessionResult): string {
  const req = r.api.requests.find((q) => q.kind === 'turn' && q.conversation === 'main' && q.turn === 0);
  const messages = (req?.body?.messages ?? []) as Array<{ content: unknown }>;
  return messages
    .map((m) => (typeof m.content === 'string' ? m.content : (m.content as Array<{ text?: string }>).map((b) => b.text ?? '').join('\n')))
    .join('\n');
}

describeE2E('plugin skills in the client', (bin) => {
  it('/tdd hands the model a substituted, quoted CLI command that runs without a permission prompt', async () => {
    const repo = testRepo();
    const plugin = pluginUnderSpacedPath();
    const status = `node "${plugin}/dist/cli.mjs" status`;
    const r = await session(bin, repo, {
      pluginDir: plugin,
      promptPrefix: '/tdd',
      prompt: 'specs/SPEC-001.md',
      allowedTools: null,
      script: { main: [{ tools: [{ name: 'Bash', input: { command: status, description: 'tdd-gate status' } }] }, { text: 'ok' }] },
    });
    const seen = firstRequestText(r);
    expect(seen).toContain('# /tdd — the tdd-gate orchestrator');
    expect(seen).toContain(status);
    expect(seen).not.toContain('${CLAUDE_PLUGIN_ROOT}');
    expect(seen).toContain('ARGUMENTS: [[e2e:main]] specs/SPEC-001.md');
    const result = resultOf(r, 0);
    expect(result.is_error, result.content).toBe(false);
    expect(result.content).toContain('tdd-gate: no TDD cycle on branch main');
  }, E2E_TIMEOUT);

  it('control: without the allowed-tools line the same command is not run in -p mode (so the line is what approves it)', async () => {
    const repo = testRepo();
    const plugin = pluginUnderSpacedPath();
    const skill = path.join(plugin, 'skills', 'tdd', 'SKILL.md');
    writeFileSync(skill, readFileSync(skill, 'utf8').replace(/^allowed-tools: .*\n/mu, ''));
    const status = `node "${plugin}/dist/cli.mjs" status`;
    const r = await session(bin, repo, {
      pluginDir: plugin,
      promptPrefix: '/tdd',
      prompt: 'specs/SPEC-001.md',
      allowedTools: null,
      script: { main: [{ tools: [{ name: 'Bash', input: { command: status, description: 'tdd-gate status' } }] }, { text: 'ok' }] },
    });
    const result = resultOf(r, 0);
    expect(result.content).not.toContain('tdd-gate: no TDD cycle');
    expect(result.is_error).toBe(true);
  }, E2E_TIMEOUT);

  it('a session started on a branch with an active cycle is told the phase, the role rule and the next step', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    const r = await session(bin, repo, { script: { main: [{ text: 'ok' }] } });
    const seen = firstRequestText(r);
    expect(seen).toContain('tdd-gate: a TDD cycle is active on branch main: SPEC-001 (specs/SPEC-001.md), phase tdd-green.');
    expect(seen).toContain('only tdd-gate:implementer writes sources');
    expect(seen).toContain(`node "${PLUGIN_ROOT}/dist/cli.mjs" status`);
  }, E2E_TIMEOUT);

  it('each role agent is offered exactly the tools of its front matter (no write tools for the validator)', async () => {
    const repo = testRepo();
    const roles = ['planner', 'test-writer', 'test-validator', 'implementer', 'refactorer'];
    const r = await session(bin, repo, {
      script: {
        main: [...roles.map((role) => ({ tools: [dispatch(role, role, 'Report.')] })), { text: 'ok' }],
        ...Object.fromEntries(roles.map((role) => [role, [{ text: 'nothing to do' }]])),
      },
    });
    const offered = (role: string) => {
      const req = r.api.requests.find((q) => q.kind === 'turn' && q.conversation === role);
      return ((req?.body?.tools ?? []) as Array<{ name: string }>).map((t) => t.name).sort();
    };
    expect(offered('planner')).toEqual(['Glob', 'Grep', 'Read', 'Write']);
    expect(offered('test-validator')).toEqual(['Bash', 'Glob', 'Grep', 'Read']);
    for (const role of ['test-writer', 'implementer', 'refactorer']) expect(offered(role)).toEqual(['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'Write']);
  }, E2E_TIMEOUT);
});
