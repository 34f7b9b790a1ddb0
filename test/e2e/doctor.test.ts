// `/tdd-gate:doctor` in the real client: the probe in the main thread and in a subagent, then the
// report; and the same with every hook switched off (disableAllHooks), which the report names.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { state, testRepo } from '../helpers/repo.js';
import { clientAtLeast, describeE2E, E2E_TIMEOUT, SKILL_SHELL_EVENT_SINCE, marker, PLUGIN_ROOT, resultOf, session } from './harness.js';

const CLI = `node "${path.join(PLUGIN_ROOT, 'dist', 'cli.mjs')}"`;
const bash = (command: string) => ({ name: 'Bash', input: { command, description: 'tdd-gate doctor' } });
const subagentProbe = {
  name: 'Agent',
  input: { subagent_type: 'general-purpose', description: 'probe', prompt: `${marker('sub')} Run the probe and reply with its output.`, run_in_background: false },
};

describeE2E('doctor', (bin) => {
  it('a healthy project: the hook sees the probe in the main thread and in a subagent; the report is healthy', async () => {
    const repo = testRepo();
    const r = await session(bin, repo, {
      promptPrefix: '/tdd-gate:doctor',
      prompt: '',
      script: {
        main: [{ tools: [bash(`${CLI} doctor --probe main`)] }, { tools: [subagentProbe] }, { tools: [bash(`${CLI} doctor`)] }, { text: 'done' }],
        sub: [{ tools: [bash(`${CLI} doctor --probe subagent`)] }, { text: 'probed' }],
      },
    });
    expect(resultOf(r, 0).content).toContain('ok    probe main: the PreToolUse hook saw this command in the main thread');
    expect(resultOf(r, 0, 0, 'sub').content).toContain('ok    probe subagent: the PreToolUse hook saw this command in a subagent (agent_type general-purpose)');
    const report = resultOf(r, 2);
    expect(report.is_error, report.content).toBe(false);
    expect(report.content).toContain(`ok    plugin: the hooks ran from ${PLUGIN_ROOT}`);
    expect(report.content).toContain('ok    hooks: PreToolUse fires in the main thread, PostToolUse too');
    expect(report.content).toContain('ok    hooks: PreToolUse fires in a subagent (agent_type general-purpose)');
    expect(report.content).toContain('tdd-gate doctor: healthy');
    // The client's release comes from its own environment: an older one gets the "failed to load" of `plugin list` explained, not alarmed.
    if (clientAtLeast(bin, SKILL_SHELL_EVENT_SINCE)) expect(report.content).toMatch(/ok {4}skill shell commands: Claude Code \d+\.\d+\.\d+ has the PreSkillShellCommand event/u);
    else expect(report.content).toMatch(/info {2}skill shell commands: Claude Code \d+\.\d+\.\d+ has no PreSkillShellCommand event, so `claude plugin list` and \/plugin show tdd-gate as "failed to load"/u);
  }, E2E_TIMEOUT);

  it('hooks turned off (disableAllHooks): the probe is not seen and the report names the setting, exit 1', async () => {
    const repo = testRepo({ files: { '.claude/settings.local.json': JSON.stringify({ disableAllHooks: true }) } });
    const r = await session(bin, repo, {
      script: { main: [{ tools: [bash(`${CLI} doctor --probe main`)] }, { tools: [bash(`${CLI} doctor`)] }, { text: 'done' }] },
    });
    expect(resultOf(r, 0).content).toContain('FAIL  probe main: the PreToolUse hook did not see this command');
    const report = resultOf(r, 1);
    expect(report.is_error).toBe(true);
    expect(report.content).toContain('FAIL  hooks: "disableAllHooks": true in .claude/settings.local.json');
    expect(report.content).toContain('FAIL  hooks: the probe ran in the main thread');
    expect(report.content).toContain('something is wrong');
    expect(r.hooks.filter((h) => h.event === 'PreToolUse')).toEqual([]);
  }, E2E_TIMEOUT);

  it('the canary stays quiet when the client runs the gate: an allowed Write and Edit in a cycle reach PostToolUse with their record', async () => {
    const repo = testRepo({ files: { 'src/a.ts': 'export const a = 0;\n' } });
    repo.setState(state('tdd-green', { mode: 'light-inline' }));
    const r = await session(bin, repo, {
      script: {
        main: [
          { tools: [{ name: 'Write', input: { file_path: repo.path('src/b.ts'), content: 'export const b = 1;\n' } }] },
          { tools: [{ name: 'Read', input: { file_path: repo.path('src/a.ts') } }] },
          { tools: [{ name: 'Edit', input: { file_path: repo.path('src/a.ts'), old_string: '0', new_string: '1' } }] },
          { text: 'done' },
        ],
      },
    });
    expect(resultOf(r, 0).is_error, resultOf(r, 0).content).toBe(false);
    expect(resultOf(r, 2).is_error, resultOf(r, 2).content).toBe(false);
    expect(r.hooks.filter((h) => h.event === 'PostToolUse').length).toBeGreaterThanOrEqual(2);
    const log = existsSync(repo.path('.tdd/events.jsonl')) ? readFileSync(repo.path('.tdd/events.jsonl'), 'utf8') : '';
    expect(log).not.toContain('gate-skipped');
    expect(readFileSync(repo.path('src/a.ts'), 'utf8')).toBe('export const a = 1;\n');
  }, E2E_TIMEOUT);
});
