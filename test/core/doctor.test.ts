import { describe, expect, it } from 'vitest';
import { diagnose, healthy, renderFinding, type DoctorFacts, type ProbeFacts } from '../../src/doctor/rules/doctor.js';

const beat = (over: Partial<NonNullable<ProbeFacts['pre']>> = {}) => ({ agentType: null, agentId: null, background: false, pluginRoot: '/p', ageMs: 5_000, ...over });

const base: DoctorFacts = {
  insideClaudeCode: true,
  client: '2.1.332',
  cliRoot: '/p',
  pluginRootEnv: null,
  installs: [],
  marketplaces: [],
  enabled: [],
  disableAllHooks: [],
  managedHooksOnly: [],
  killSwitchEnv: false,
  killSwitchSettings: [],
  probes: [
    { context: 'main', pre: beat(), post: null, ran: { saw: true, ageMs: 4_000 } },
    { context: 'subagent', pre: beat({ agentType: 'general-purpose', agentId: 'a1' }), post: null, ran: { saw: true, ageMs: 4_000 } },
    { context: 'background', pre: beat({ background: true }), post: null, ran: { saw: true, ageMs: 4_000 } },
  ],
  node: { version: 'v20.1.0', onPath: '/usr/bin/node', onPathVersion: 'v20.1.0' },
  wall: { ok: true, backend: 'bubblewrap', problem: null, hardenedOn: false, problems: [] },
  cycle: { kind: 'none', branch: 'main' },
  statusLine: null,
};

const levelOf = (f: DoctorFacts, id: string) => diagnose(f).filter((x) => x.id === id).map((x) => x.level);

describe('doctor: each fact judged', () => {
  it('a healthy set of facts has no FAIL', () => {
    expect(healthy(diagnose(base))).toBe(true);
  });
  it.each<[string, Partial<DoctorFacts>, string, string[]]>([
    ['disableAllHooks true', { disableAllHooks: [{ file: '~/.claude/settings.json', value: true }] }, 'hooks-off', ['fail']],
    ['disableAllHooks false is not off', { disableAllHooks: [{ file: '~/.claude/settings.json', value: false }] }, 'hooks-on', ['ok']],
    ['the highest-precedence enabledPlugins decides', { enabled: [{ file: '.claude/settings.local.json', key: 'tdd-gate@m', value: false }, { file: '~/.claude/settings.json', key: 'tdd-gate@m', value: true }] }, 'plugin-disabled', ['fail']],
    ['managed hooks only', { managedHooksOnly: [{ file: '/etc/claude-code/managed-settings.json', value: true }] }, 'managed-hooks-only', ['fail']],
    ['kill switch in a settings env', { killSwitchSettings: [{ file: '.claude/settings.json', value: '1' }] }, 'kill-switch-settings', ['fail']],
    ['a marketplace folder gone', { marketplaces: [{ name: 'm', kind: 'directory', path: '/gone', exists: false }] }, 'marketplace-missing', ['fail']],
    // its installed copy is not "ok" then: the client does not load it
    ['a marketplace folder gone, its copy still installed', { marketplaces: [{ name: 'm', kind: 'directory', path: '/gone', exists: false }], installs: [{ key: 'tdd-gate@m', scope: 'user', installPath: '/p', exists: true, hasHook: true }] }, 'installed-unloaded', ['warn']],
    ['node 16', { node: { version: 'v16.20.0', onPath: '/usr/bin/node', onPathVersion: 'v16.20.0' } }, 'node', ['fail']],
    ['no sandbox, hardened off', { wall: { ok: false, backend: 'none', problem: 'bubblewrap is not installed; install bubblewrap', hardenedOn: false, problems: [] } }, 'wall', ['warn']],
    ['no sandbox, hardened on', { wall: { ok: false, backend: 'none', problem: 'x', hardenedOn: true, problems: [] } }, 'wall', ['fail']],
    ['not installed, inside Claude Code, no hook seen', { probes: null, cliRoot: null }, 'not-installed', ['fail']],
    ['not installed, in a terminal', { probes: null, cliRoot: null, insideClaudeCode: false }, 'not-installed', ['warn']],
    ['the probe ran, no heartbeat', { probes: [{ context: 'main', pre: null, post: null, ran: { saw: false, ageMs: 1_000 } }] }, 'probe-main', ['fail']],
    ['the probe ran unseen, a later probe seen', { probes: [{ context: 'main', pre: beat({ ageMs: 500 }), post: null, ran: { saw: false, ageMs: 1_000 } }] }, 'probe-main', ['ok']],
    ['a heartbeat, the probe could not record its run (sandbox)', { probes: [{ context: 'main', pre: beat(), post: null, ran: null }] }, 'probe-main', ['ok']],
    ['nothing probed', { probes: [{ context: 'main', pre: null, post: null, ran: null }] }, 'probe-missing', ['info']],
    ['a subagent without agent_type', { probes: [{ context: 'subagent', pre: beat({ agentId: 'a1' }), post: null, ran: { saw: true, ageMs: 1 } }] }, 'probe-subagent', ['fail']],
    // `doctor --probe subagent` typed in the main thread (or by a model there) proves nothing about subagents, whatever agent_type says (a session started with --agent has one).
    ['the subagent probe run in the main thread', { probes: [{ context: 'subagent', pre: beat(), post: null, ran: { saw: true, ageMs: 1 } }] }, 'probe-subagent', ['warn']],
    ['the subagent probe run in the main thread of an --agent session', { probes: [{ context: 'subagent', pre: beat({ agentType: 'reviewer' }), post: null, ran: { saw: true, ageMs: 1 } }] }, 'probe-subagent', ['warn']],
    ['the main probe run in a subagent', { probes: [{ context: 'main', pre: beat({ agentType: 'general-purpose', agentId: 'a1' }), post: null, ran: { saw: true, ageMs: 1 } }] }, 'probe-main', ['warn']],
    ['an older client: skill shell commands explained, not alarming', { client: '2.1.197' }, 'skill-shell', ['info']],
    ['the newest client', { client: '2.1.332' }, 'skill-shell', ['ok']],
    ['a terminal, installed', { client: null, installs: [{ key: 'tdd-gate@tdd-gate', scope: 'user', installPath: '/p', exists: true, hasHook: true }] }, 'skill-shell', ['info']],
    ['the background probe not in the background', { probes: [{ context: 'background', pre: beat(), post: null, ran: { saw: true, ageMs: 1 } }] }, 'probe-background', ['warn']],
    ['hooks and CLI from two copies', { cliRoot: '/other' }, 'plugin-two-copies', ['warn']],
    ['a state out of step with its anchor', { cycle: { kind: 'active', branch: 'main', phase: 'tdd-green', anchored: true, anchorProblem: 'x', drift: null, skips: 0, lastSkip: null } }, 'cycle', ['fail']],
    ['an unreadable record', { cycle: { kind: 'unreadable', branch: 'main', message: 'x' } }, 'cycle', ['fail']],
  ])('%s', (_name, over, id, want) => {
    expect(levelOf({ ...base, ...over }, id)).toEqual(want);
  });
  it('renders one line per fact, the fix after a dash', () => {
    expect(renderFinding({ id: 'x', level: 'fail', fact: 'hooks: off', fix: 'turn them on' })).toBe('FAIL  hooks: off — fix: turn them on');
    expect(renderFinding({ id: 'x', level: 'ok', fact: 'node: v20' })).toBe('ok    node: v20');
  });
});

describe('doctor: the client release', () => {
  it('comes from AI_AGENT, which Claude Code sets for its commands', async () => {
    const { clientVersion } = await import('../../src/doctor/facts.js');
    expect(clientVersion({ AI_AGENT: 'claude-code_2-1-197_agent' })).toBe('2.1.197');
    expect(clientVersion({ AI_AGENT: 'claude-code_2-1-332_agent' })).toBe('2.1.332');
    expect(clientVersion({ AI_AGENT: 'other_1-2-3_agent' })).toBeNull();
    expect(clientVersion({})).toBeNull();
  });
  it('on an older client the "failed to load" of plugin list is explained, and the report stays healthy', () => {
    const lines = diagnose({ ...base, client: '2.1.197' });
    expect(healthy(lines)).toBe(true);
    expect(lines.find((x) => x.id === 'skill-shell')?.fact).toContain('show tdd-gate as "failed to load" (Hook load failed … "PreSkillShellCommand"): only hooks/skill-shell.json is rejected; the gate itself loads');
  });
});
