// The /tdd skill and the agents, as the model sees them: a slash command in the prompt expands the
// orchestrator skill into the first user message, and the agent list names every tdd-gate agent.
import path from 'node:path';
import { expect, it } from 'vitest';
import { testRepo } from '../helpers/repo.js';
import { AGENTS, bodyLine, describeE2E, pluginWithAgents, session, type SessionResult } from './harness.js';

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
      const plugin = pluginWithAgents();
      const r = await session(bin, repo, { pluginDir: plugin, promptPrefix: command, prompt: 'specs/SPEC-001.md', script: { main: [{ text: 'ok' }] } });
      const seen = firstRequestText(r);
      // The client resolves the short form to the plugin's namespaced skill.
      expect(seen).toContain('<command-name>/tdd-gate:tdd</command-name>');
      expect(seen).toContain(`Base directory for this skill: ${path.join(plugin, 'skills', 'tdd')}`);
      expect(seen).toContain(skillBodyLine(plugin));
      expect(seen).toContain('ARGUMENTS: [[e2e:main]] specs/SPEC-001.md');
    }, 60_000);
  }

  it('the agents and the skill are listed to the model', async () => {
    const repo = testRepo();
    const plugin = pluginWithAgents();
    const r = await session(bin, repo, { pluginDir: plugin, script: { main: [{ text: 'ok' }] } });
    const seen = firstRequestText(r);
    for (const a of AGENTS) expect(seen).toMatch(new RegExp(`^- tdd-gate:${a}: `, 'mu'));
    expect(seen).toMatch(/^- tdd-gate:tdd: /mu);
  }, 60_000);
});
