// What the model is shown: a slash command in the prompt expands the orchestrator skill into the
// first user message, the agent list names every tdd-gate agent, and SessionStart reminds a
// session of an active cycle.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { state, testRepo } from '../helpers/repo.js';
import { AGENTS, bodyLine, describeE2E, E2E_TIMEOUT, hooksOf, PLUGIN_ROOT, resultOf, session, systemText, type SessionResult } from './harness.js';

/** Everything the model received in its first request, as text (user and system messages). */
function firstRequestText(r: SessionResult): string {
  const req = r.api.requests.find((q) => q.kind === 'turn' && q.conversation === 'main' && q.turn === 0);
  const messages = (req?.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  return messages
    .map((m) => (typeof m.content === 'string' ? m.content : (m.content as Array<{ text?: string }>).map((b) => b.text ?? '').join('\n')))
    .join('\n');
}

/** The first line of the skill's body (after the front matter): proof that the body was loaded. */
function skillBodyLine(plugin: string): string {
  return bodyLine(path.join(plugin, 'skills', 'tdd', 'SKILL.md'));
}

describeE2E('skills', (bin) => {
  for (const command of ['/tdd', '/tdd-gate:tdd']) {
    it(`${command} loads the orchestrator skill into the conversation`, async () => {
      const repo = testRepo();
      const plugin = PLUGIN_ROOT;
      const r = await session(bin, repo, { pluginDir: plugin, promptPrefix: command, prompt: 'specs/SPEC-001.md', script: { main: [{ text: 'ok' }] } });
      const seen = firstRequestText(r);
      // The client resolves the short form to the plugin's namespaced skill.
      expect(seen).toContain('<command-name>/tdd-gate:tdd</command-name>');
      expect(seen).toContain(`Base directory for this skill: ${path.join(plugin, 'skills', 'tdd')}`);
      expect(seen).toContain(skillBodyLine(plugin));
      expect(seen).toContain('ARGUMENTS: [[e2e:main]] specs/SPEC-001.md');
    }, E2E_TIMEOUT);
  }

  it('the agents and the skill are listed to the model', async () => {
    const repo = testRepo();
    const plugin = PLUGIN_ROOT;
    const r = await session(bin, repo, { pluginDir: plugin, script: { main: [{ text: 'ok' }] } });
    const seen = firstRequestText(r);
    for (const a of AGENTS) expect(seen).toMatch(new RegExp(`^- tdd-gate:${a}: `, 'mu'));
    expect(seen).toMatch(/^- tdd-gate:tdd: /mu);
    expect(seen).toMatch(/^- tdd-gate:status: /mu);
  }, E2E_TIMEOUT);

  it("the skill's allowed-tools pre-approve its CLI calls and the verdict clean-up, nothing else", async () => {
    const repo = testRepo({ files: { '.tdd-verdict.md': 'scratch\n' } });
    const plugin = PLUGIN_ROOT;
    const r = await session(bin, repo, {
      pluginDir: plugin,
      allowedTools: 'Read',
      promptPrefix: '/tdd',
      prompt: 'specs/SPEC-001.md',
      script: {
        main: [
          { tools: [{ name: 'Bash', input: { command: `node "${path.join(plugin, 'dist', 'cli.mjs')}" status`, description: 'tdd-gate status' } }] },
          { tools: [{ name: 'Bash', input: { command: 'rm .tdd-verdict.md', description: 'Remove the scratch verdict' } }] },
          { tools: [{ name: 'Bash', input: { command: 'touch other.md', description: 'Anything else' } }] },
          { text: 'ok' },
        ],
      },
    });
    expect(resultOf(r, 0)).toMatchObject({ is_error: false, content: expect.stringContaining('no TDD cycle on branch main') });
    expect(resultOf(r, 1).is_error).toBe(false);
    expect(existsSync(repo.path('.tdd-verdict.md'))).toBe(false);
    expect(resultOf(r, 2).is_error).toBe(true);
    expect(existsSync(repo.path('other.md'))).toBe(false);
  }, E2E_TIMEOUT);

  it('/tdd-gate:status shows the state read-only and hands the user a runnable CLI command for the terminal', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    const plugin = PLUGIN_ROOT;
    const cli = `node "${path.join(plugin, 'dist', 'cli.mjs')}"`;
    const r = await session(bin, repo, {
      pluginDir: plugin,
      allowedTools: 'Read',
      promptPrefix: '/tdd-gate:status',
      prompt: '',
      script: {
        main: [
          { tools: [{ name: 'Bash', input: { command: `${cli} status`, description: 'tdd-gate status' } }] },
          { tools: [{ name: 'Bash', input: { command: `${cli} log`, description: 'tdd-gate log' } }] },
          { tools: [{ name: 'Bash', input: { command: 'touch other.md', description: 'Anything else' } }] },
          { text: 'ok' },
        ],
      },
    });
    const seen = firstRequestText(r);
    expect(seen).toContain('<command-name>/tdd-gate:status</command-name>');
    expect(seen).toContain(`alias tdd-gate='${cli}'`);
    expect(seen).not.toContain('${CLAUDE_PLUGIN_ROOT}');
    expect(resultOf(r, 0)).toMatchObject({ is_error: false, content: expect.stringContaining('tdd-green') });
    expect(resultOf(r, 1).is_error, resultOf(r, 1).content).toBe(false);
    expect(resultOf(r, 2).is_error).toBe(true);
    expect(existsSync(repo.path('other.md'))).toBe(false);
  }, E2E_TIMEOUT);

  it('SessionStart: in an active cycle the model starts with the phase, the rules and the next step; without one, nothing', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    const r = await session(bin, repo, { script: { main: [{ text: 'ok' }] } });
    const seen = firstRequestText(r) + systemText(r, 'main');
    expect(seen).toContain('tdd-gate: a TDD cycle is active on branch main: SPEC-001 (specs/SPEC-001.md), phase tdd-green.');
    expect(seen).toContain(`Run the CLI as \`node "${PLUGIN_ROOT}/dist/cli.mjs" <verb>\``);
    expect(hooksOf(r, 'SessionStart')).toHaveLength(1);

    const idle = testRepo();
    const quiet = await session(bin, idle, { script: { main: [{ text: 'ok' }] } });
    expect(firstRequestText(quiet) + systemText(quiet, 'main')).not.toContain('tdd-gate: a TDD cycle is active');
  }, E2E_TIMEOUT);
});
