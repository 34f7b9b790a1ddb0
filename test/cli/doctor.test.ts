// `tdd-gate doctor` on temp repositories with a throwaway HOME: the built CLI, and the built hook for
// the heartbeats its probe looks for.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ev } from '../helpers/events.js';
import { CLI, runCli, runHookBundle } from '../helpers/hook.js';
import { SPEC_TEXT, state, testRepo, type TestRepo } from '../helpers/repo.js';
import { anchorPaths } from '../../src/state/anchorPaths.js';
import { findRepo } from '../../src/state/repo.js';
import { lab, toRed } from '../tamper/fixtures.js';

interface Home {
  home: string;
  plugin: string;
  source: string;
}

function tempDir(prefix: string): string {
  const d = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  onTestFinished(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

function writeJson(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, 2));
}

/** A HOME where tdd-gate is installed the way `claude plugin install` leaves it (files as the client writes them). */
function installedHome(opts: { enabled?: boolean } = {}): Home {
  const home = tempDir('tdd-gate-home-');
  const source = tempDir('tdd-gate-clone-');
  const plugin = path.join(home, '.claude', 'plugins', 'cache', 'tdd-gate', 'tdd-gate', '0.1.0');
  mkdirSync(path.join(plugin, 'dist'), { recursive: true });
  writeFileSync(path.join(plugin, 'dist', 'hook.cjs'), '');
  writeJson(path.join(home, '.claude', 'plugins', 'installed_plugins.json'), {
    version: 2,
    plugins: { 'tdd-gate@tdd-gate': [{ scope: 'user', installPath: plugin, version: '0.1.0', installedAt: '2026-11-27T00:00:00.000Z', lastUpdated: '2026-11-27T00:00:00.000Z' }] },
  });
  writeJson(path.join(home, '.claude', 'plugins', 'known_marketplaces.json'), {
    'tdd-gate': { source: { source: 'directory', path: source }, installLocation: source, lastUpdated: '2026-11-27T00:00:00.000Z' },
  });
  writeJson(path.join(home, '.claude', 'settings.json'), {
    extraKnownMarketplaces: { 'tdd-gate': { source: { source: 'directory', path: source } } },
    enabledPlugins: { 'tdd-gate@tdd-gate': opts.enabled ?? true },
  });
  return { home, plugin, source };
}

/** The probe's Bash call as the client hands it to the hook, in a context. */
function probeCall(repo: TestRepo, context: string, extra: Record<string, unknown> = {}, toolInput: Record<string, unknown> = {}) {
  const input = ev.bash({ cwd: repo.root, ...extra }, `node "/plugins/tdd-gate/dist/cli.mjs" doctor --probe ${context}`);
  return { ...input, tool_input: { ...(input.tool_input as object), ...toolInput }, tool_use_id: `toolu_probe_${context}` };
}

function doctor(repo: TestRepo, env: NodeJS.ProcessEnv, ...args: string[]) {
  return runCli(repo.root, ['doctor', ...args], { CLAUDECODE: '', CLAUDE_PLUGIN_ROOT: '', TDD_GATE_DISABLE: '', ...env });
}

function lines(out: string, tag: string): string[] {
  return out.split('\n').filter((l) => l.startsWith(tag));
}

describe('tdd-gate doctor', () => {
  it('healthy: installed, enabled, the hook fires for each probe; exit 0 and one ok line per fact', () => {
    const h = installedHome();
    const repo = testRepo();
    const env = { HOME: h.home };
    // The client runs the PreToolUse hook (with its CLAUDE_PLUGIN_ROOT), then the probe command.
    const contexts: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['main', {}, {}],
      ['subagent', { agent_type: 'general-purpose', agent_id: 'sub-1' }, {}],
      ['background', {}, { run_in_background: true }],
    ];
    for (const [context, extra, toolInput] of contexts) {
      const pre = runHookBundle(probeCall(repo, context, extra, toolInput), { event: 'PreToolUse', env: { ...env, CLAUDE_PLUGIN_ROOT: h.plugin } });
      expect(pre.decision).toBe('pass');
      const probe = doctor(repo, env, '--probe', context);
      expect(probe.stdout).toContain(`ok    probe ${context}: the PreToolUse hook saw this command`);
      expect(probe.status).toBe(0);
    }
    runHookBundle({ ...probeCall(repo, 'main'), hook_event_name: 'PostToolUse', tool_response: { stdout: '' } }, { event: 'PostToolUse', env: { ...env, CLAUDE_PLUGIN_ROOT: h.plugin } });
    const r = doctor(repo, env);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(lines(r.stdout, 'FAIL')).toEqual([]);
    expect(r.stdout).toContain(`ok    plugin: the hooks ran from ${h.plugin}`);
    expect(r.stdout).toContain(`ok    plugin: tdd-gate@tdd-gate installed (user) at ${h.plugin}`);
    expect(r.stdout).toContain('ok    hooks: tdd-gate@tdd-gate is enabled in ~/.claude/settings.json');
    expect(r.stdout).toContain('ok    hooks: not switched off');
    expect(r.stdout).toContain('ok    hooks: PreToolUse fires in the main thread, PostToolUse too');
    expect(r.stdout).toContain('ok    hooks: PreToolUse fires in a subagent (agent_type general-purpose)');
    expect(r.stdout).toContain('ok    hooks: PreToolUse fires in a background command');
    expect(r.stdout).toMatch(/^ok {4}node: v\d+/mu);
    expect(r.stdout).toContain('ok    cycle: none on branch main');
    expect(r.stdout.trim().split('\n').at(-1)).toBe('tdd-gate doctor: healthy');
    const json = JSON.parse(doctor(repo, env, '--json').stdout) as { healthy: boolean; findings: { id: string; level: string; fact: string }[] };
    expect(json.healthy).toBe(true);
    expect(json.findings.map((f) => f.id)).toEqual(expect.arrayContaining(['plugin-loaded', 'installed', 'plugin-enabled', 'hooks-on', 'probe-main', 'probe-subagent', 'probe-background', 'node', 'wall', 'cycle']));
  });

  it('the plugin disabled in the project settings: FAIL with the command that enables it, exit 1', () => {
    const h = installedHome();
    const repo = testRepo();
    repo.write('.claude/settings.json', JSON.stringify({ enabledPlugins: { 'tdd-gate@tdd-gate': false } }));
    const r = doctor(repo, { HOME: h.home });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('FAIL  hooks: tdd-gate@tdd-gate is disabled in .claude/settings.json (enabledPlugins) — fix: `claude plugin enable tdd-gate@tdd-gate`');
    expect(r.stdout.trim().split('\n').at(-1)).toContain('something is wrong');
  });

  it('disabled in user settings, enabled again in the local project settings: the local file wins', () => {
    const h = installedHome({ enabled: false });
    const repo = testRepo();
    repo.write('.claude/settings.local.json', JSON.stringify({ enabledPlugins: { 'tdd-gate@tdd-gate': true } }));
    const r = doctor(repo, { HOME: h.home });
    expect(r.stdout).toContain('ok    hooks: tdd-gate@tdd-gate is enabled in .claude/settings.local.json');
    expect(lines(r.stdout, 'FAIL')).toEqual([]);
  });

  it('installed from a local folder that was deleted since: the cache-miss the client only logs, with the fix', () => {
    const h = installedHome();
    rmSync(h.source, { recursive: true, force: true });
    const repo = testRepo();
    const r = doctor(repo, { HOME: h.home });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`FAIL  plugin: the marketplace tdd-gate points to ${h.source}, which no longer exists`);
    expect(r.stdout).toContain('failed to load: cache-miss');
    expect(r.stdout).toContain('`claude plugin marketplace remove tdd-gate`');
  });

  it('the installed copy deleted: FAIL with reinstall', () => {
    const h = installedHome();
    rmSync(h.plugin, { recursive: true, force: true });
    const r = doctor(testRepo(), { HOME: h.home });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('is installed at');
    expect(r.stdout).toContain('that folder is gone — fix: `claude plugin uninstall tdd-gate@tdd-gate` and `claude plugin install tdd-gate@tdd-gate`');
  });

  it('hooks switched off (disableAllHooks): no heartbeat, the probe says the gate is skipped, doctor names the file', () => {
    const h = installedHome();
    const repo = testRepo();
    repo.write('.claude/settings.local.json', JSON.stringify({ disableAllHooks: true }));
    // With hooks off the client runs no hook: the probe command runs alone.
    const probe = doctor(repo, { HOME: h.home }, '--probe', 'main');
    expect(probe.status).toBe(1);
    expect(probe.stdout).toContain('FAIL  probe main: the PreToolUse hook did not see this command');
    const r = doctor(repo, { HOME: h.home });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('FAIL  hooks: "disableAllHooks": true in .claude/settings.local.json: no hook runs, the gate is off — fix: remove the key from .claude/settings.local.json');
    expect(r.stdout).toContain('FAIL  hooks: the probe ran in the main thread');
    expect(r.stdout).toContain('Claude Code skips the gate there — fix: switch the hooks back on (above)');
  });

  it('TDD_GATE_DISABLE in the environment or in a settings env: FAIL; the hook writes no heartbeat then', () => {
    const h = installedHome();
    const repo = testRepo();
    runHookBundle(probeCall(repo, 'main'), { event: 'PreToolUse', env: { HOME: h.home, TDD_GATE_DISABLE: '1' } });
    const probe = doctor(repo, { HOME: h.home, TDD_GATE_DISABLE: '1' }, '--probe', 'main');
    expect(probe.stdout).toContain('TDD_GATE_DISABLE=1 is set');
    expect(probe.status).toBe(1);
    const r = doctor(repo, { HOME: h.home, TDD_GATE_DISABLE: '1' });
    expect(r.stdout).toContain('FAIL  hooks: TDD_GATE_DISABLE=1 in this environment');
    const other = testRepo();
    other.write('.claude/settings.json', JSON.stringify({ env: { TDD_GATE_DISABLE: '1' } }));
    expect(doctor(other, { HOME: h.home }).stdout).toContain('FAIL  hooks: TDD_GATE_DISABLE is "1" in the env of .claude/settings.json');
  });

  it('a probe counts a heartbeat once: a second probe with no new hook run fails', () => {
    const h = installedHome();
    const repo = testRepo();
    runHookBundle(probeCall(repo, 'main'), { event: 'PreToolUse', env: { HOME: h.home } });
    expect(doctor(repo, { HOME: h.home }, '--probe', 'main').status).toBe(0);
    expect(doctor(repo, { HOME: h.home }, '--probe', 'main').status).toBe(1);
  });

  it('a subagent whose hook input carries no agent_type: the role rules cannot apply, FAIL', () => {
    const h = installedHome();
    const repo = testRepo();
    runHookBundle({ ...probeCall(repo, 'subagent'), agent_id: 'sub-1' }, { event: 'PreToolUse', env: { HOME: h.home } });
    doctor(repo, { HOME: h.home }, '--probe', 'subagent');
    const r = doctor(repo, { HOME: h.home });
    expect(r.stdout).toContain('FAIL  hooks: the PreToolUse hook fired for the subagent probe, but without agent_type');
  });

  it.each<[string, Record<string, unknown>]>([
    ['the main thread', {}],
    ['the main thread of a session started with --agent', { agent_type: 'reviewer' }],
  ])('`doctor --probe subagent` run in %s (a model spoofing the probe) makes no claim about subagents', (_name, extra) => {
    const h = installedHome();
    const repo = testRepo();
    // Raw input: the event helper adds an agent_id to every agent_type, and the main thread of an --agent session has none.
    runHookBundle({ ...probeCall(repo, 'subagent'), ...extra }, { event: 'PreToolUse', env: { HOME: h.home } });
    doctor(repo, { HOME: h.home }, '--probe', 'subagent');
    const r = doctor(repo, { HOME: h.home });
    expect(r.stdout).toContain('warn  hooks: the subagent probe ran in the main thread (the hook input had no agent_id), so it shows nothing about subagents');
    expect(r.stdout).not.toMatch(/fires in a subagent/u);
  });

  it('inconsistent record: a state rewritten behind the CLI, and an anchor record deleted under its marker', () => {
    const l = lab();
    toRed(l);
    const env = { ...l.env };
    expect(doctor(l.repo, env).stdout).toContain('ok    cycle: tdd-red on branch main; the state matches its anchor outside the work tree');
    const text = JSON.parse(JSON.stringify(state('tdd-green'))) as Record<string, unknown>;
    writeFileSync(l.statePath, JSON.stringify(text));
    const r = doctor(l.repo, env);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/FAIL {2}cycle: .*differs from the one the tdd-gate CLI last wrote.* — fix: `tdd-gate recover`/u);

    const m = lab();
    toRed(m);
    const paths = anchorPaths(findRepo(m.repo.root)!, m.env);
    unlinkSync(paths.record);
    if (paths.mirror !== null) unlinkSync(paths.mirror.record);
    const gone = doctor(m.repo, m.env);
    expect(gone.status).toBe(1);
    expect(gone.stdout).toContain('FAIL  cycle: the record on branch main is not consistent: the anchor kept outside the work tree is missing or unreadable');
  });

  it('a frozen test changed in GREEN: the oracle moved, FAIL; a hand-written state is reported as such', () => {
    const repo = testRepo({ files: { 'tests/a.test.ts': 'x\n' } });
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    repo.setState(state('tdd-green', { frozen: { at: '2026-11-22T00:00:00.000Z', spec_hash: sha(SPEC_TEXT), files: { 'tests/a.test.ts': sha('x\n') } } }));
    const home = tempDir('tdd-gate-home-');
    expect(doctor(repo, { HOME: home }).stdout).toContain('ok    cycle: tdd-green on branch main; a state with no anchor (written by hand)');
    repo.write('tests/a.test.ts', 'y\n');
    const r = doctor(repo, { HOME: home });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('FAIL  cycle: the frozen oracle moved: frozen files changed: tests/a.test.ts');
  });

  it('a canary report in this cycle is shown', () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    repo.write('.tdd/events.jsonl', `${JSON.stringify({ at: '2026-11-23T00:00:00.000Z', type: 'gate-skipped', tool: 'Write', target: 'tests/a.test.ts', context: 'subagent', role: 'tdd-gate:implementer' })}\n`);
    const r = doctor(repo, { HOME: tempDir('tdd-gate-home-') });
    expect(r.stdout).toContain('warn  canary: the gate was skipped 1 time(s) in this cycle (last: Write of tests/a.test.ts by tdd-gate:implementer');
  });

  it('no node on PATH and no sandbox tools: FAIL for node, a warning for the wall (not required here)', () => {
    const repo = testRepo();
    const empty = tempDir('tdd-gate-path-');
    const r = doctor(repo, { HOME: tempDir('tdd-gate-home-'), PATH: empty });
    expect(r.stdout).toContain('FAIL  node: no `node` on PATH');
    expect(r.stdout).toMatch(/^warn {2}OS wall: none here — Claude Code's Bash sandbox cannot run \(bubblewrap and socat are not installed/mu);
  });

  it('a status line pointing at a tdd-gate that is gone: a warning with the fix', () => {
    const repo = testRepo();
    repo.write('.claude/settings.local.json', JSON.stringify({ statusLine: { type: 'command', command: 'node "/nowhere/tdd-gate/0.0.1/dist/cli.mjs" statusline' } }));
    const r = doctor(repo, { HOME: tempDir('tdd-gate-home-') });
    expect(r.stdout).toContain('warn  status line: .claude/settings.local.json runs /nowhere/tdd-gate/0.0.1/dist/cli.mjs, which no longer exists');
  });

  it('during an active cycle the Bash gate lets a subagent run the probe (a read-only verb), and the heartbeat is written', () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    const env = { HOME: tempDir('tdd-gate-home-') };
    for (const command of [`node "${CLI}" doctor --probe subagent`, `node "${CLI}" statusline`, `node "${CLI}" doctor`]) {
      const pre = runHookBundle({ ...ev.bash({ cwd: repo.root, agent_type: 'tdd-gate:implementer', agent_id: 'impl-1' }, command), tool_use_id: 'toolu_sub_probe' }, { event: 'PreToolUse', env });
      expect(pre.decision, `${command}: ${pre.reason}`).toBe('pass');
    }
    const probe = doctor(repo, env, '--probe', 'subagent');
    expect(probe.stdout).toContain('ok    probe subagent: the PreToolUse hook saw this command in a subagent (agent_type tdd-gate:implementer)');
  });

  it('usage: --probe takes a known context; --help shows the usage', () => {
    const repo = testRepo();
    const bad = doctor(repo, {}, '--probe', 'elsewhere');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--probe takes main, subagent or background');
    const help = doctor(repo, {}, '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('usage: tdd-gate doctor [--json]');
  });

  it('outside a git repository: the machine-wide facts, and no cycle', () => {
    const dir = tempDir('tdd-gate-norepo-');
    const r = runCli(dir, ['doctor'], { HOME: tempDir('tdd-gate-home-'), CLAUDECODE: '', TDD_GATE_DISABLE: '' });
    expect(r.stdout).toContain('info  cycle: not inside a git repository');
    expect(r.stdout).toContain('info  hooks: not probed (not inside a git repository)');
  });
});
