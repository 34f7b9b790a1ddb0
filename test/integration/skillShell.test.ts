import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ev } from '../helpers/events.js';
import { HOOK } from '../helpers/hook.js';
import { runHookInProcess } from '../helpers/hookInProcess.js';
import { state, testRepo, type TestRepo } from '../helpers/repo.js';

/**
 * PreSkillShellCommand through what ships: the hook command in hooks/skill-shell.json (its
 * fail-closed wrapper included) and the built hook (dist/hook.cjs), fed the JSON the 2.1.332
 * client sends for a shell command a skill embeds.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const FROZEN = "it('adds', () => expect(1 + 2).toBe(3));\n";

interface HooksFile {
  hooks: Record<string, { matcher?: string; hooks: { type: string; command: string; timeout?: number }[] }[]>;
}
const readJson = <T>(rel: string): T => JSON.parse(readFileSync(path.join(ROOT, rel), 'utf8')) as T;

function skillShellInput(cwd: string, command: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    session_id: 's-1',
    transcript_path: '/tmp/t.jsonl',
    cwd,
    permission_mode: 'default',
    effort: { level: 'medium' },
    hook_event_name: 'PreSkillShellCommand',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: 'toolu_e2e_main_0_0:preamble-0',
    command_name: 'touchy',
    command_source: 'projectSettings',
    invoked_by: 'claude',
    ...extra,
  };
}

function greenRepo(): TestRepo {
  const repo = testRepo({ files: { 'tests/add.test.ts': FROZEN } });
  repo.setState(state('tdd-green', { mode: 'light-inline' }));
  return repo;
}

/** The command skill-shell.json registers, run by a shell as the client runs it, with CLAUDE_PLUGIN_ROOT set. */
function runRegistered(input: unknown, opts: { PATH?: string; pluginRoot?: string } = {}) {
  const command = readJson<HooksFile>('hooks/skill-shell.json').hooks.PreSkillShellCommand![0]!.hooks[0]!.command;
  const r = spawnSync('/bin/sh', ['-c', command], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    env: { ...process.env, TDD_GATE_DISABLE: '', CLAUDE_PLUGIN_ROOT: opts.pluginRoot ?? ROOT, PATH: opts.PATH ?? process.env.PATH ?? '/usr/bin:/bin' },
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('registration: the new event in a file of its own', () => {
  it('hooks/hooks.json names only events the oldest supported client knows; skill-shell.json holds PreSkillShellCommand alone; plugin.json lists it', () => {
    // 2.1.197 rejects a whole hooks file that names an event it does not know (docs/adr/008).
    const main = readJson<HooksFile>('hooks/hooks.json');
    expect(Object.keys(main.hooks)).not.toContain('PreSkillShellCommand');
    const extra = readJson<HooksFile>('hooks/skill-shell.json');
    expect(Object.keys(extra.hooks)).toEqual(['PreSkillShellCommand']);
    // No matcher: every shell a skill may use reaches the gate (PowerShell is denied during a cycle).
    expect(extra.hooks.PreSkillShellCommand![0]!.matcher).toBeUndefined();
    expect(readJson<{ hooks?: unknown }>('.claude-plugin/plugin.json').hooks).toBe('./hooks/skill-shell.json');
  });

  it('its command fails closed like the PreToolUse one: the same node check, time limit and exit 2', () => {
    const pre = readJson<HooksFile>('hooks/hooks.json').hooks.PreToolUse![0]!.hooks[0]!;
    const skill = readJson<HooksFile>('hooks/skill-shell.json').hooks.PreSkillShellCommand![0]!.hooks[0]!;
    expect(skill.timeout).toBe(pre.timeout);
    const shape = (c: string, event: string) => c.replaceAll(`hook.cjs\\" ${event}`, 'hook.cjs\\" EVENT').replaceAll(`hook.cjs" ${event}`, 'hook.cjs" EVENT').replace(/echo "[^"]*"/gu, 'echo MSG');
    expect(shape(skill.command, 'PreSkillShellCommand')).toBe(shape(pre.command, 'PreToolUse'));
  });
});

describe('the registered command, run as the client runs it', () => {
  it('GREEN: a skill command that writes a frozen test is denied with the event\'s own answer; a harmless one passes silently', () => {
    const repo = greenRepo();
    const denied = runRegistered(skillShellInput(repo.root, "sed -i 's/toBe(3)/toBe(4)/' tests/add.test.ts"));
    expect(denied.status).toBe(0);
    const out = JSON.parse(denied.stdout) as { hookSpecificOutput: Record<string, string> };
    expect(out.hookSpecificOutput).toMatchObject({ hookEventName: 'PreSkillShellCommand', permissionDecision: 'deny' });
    expect(out.hookSpecificOutput.permissionDecisionReason).toMatch(/^tdd-gate rule \[tests-frozen\]: Blocked write to test file tests\/add\.test\.ts/u);
    expect(readFileSync(repo.path('tests/add.test.ts'), 'utf8')).toBe(FROZEN);
    expect(runRegistered(skillShellInput(repo.root, 'git status --short'))).toEqual({ status: 0, stdout: '', stderr: '' });
  });

  it('node missing or crashing: exit 2 with the command\'s own message (the client blocks on 2; on 1 it would run the command)', () => {
    const repo = greenRepo();
    const noNode = tempDir('tdd-gate-no-node-');
    const missing = runRegistered(skillShellInput(repo.root, 'echo hi'), { PATH: noNode });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("node is not on PATH, so the TDD gate cannot run and this skill's shell command is blocked");
    const fake = tempDir('tdd-gate-fake-node-');
    writeFileSync(path.join(fake, 'node'), '#!/bin/sh\necho "node: simulated crash" >&2\nexit 1\n');
    chmodSync(path.join(fake, 'node'), 0o755);
    const crashed = runRegistered(skillShellInput(repo.root, 'echo hi'), { PATH: `${fake}:${process.env.PATH ?? ''}` });
    expect(crashed.status).toBe(2);
    expect(crashed.stderr).toContain("the gate crashed or did not answer within 10 s, so this skill's shell command is blocked (it fails closed)");
  });
});

describe('the built hook on PreSkillShellCommand', () => {
  it('judges like the Bash call: same verdict, same rule, for the orchestrator and a subagent', async () => {
    const repo = greenRepo();
    for (const who of [{}, { agent_type: 'tdd-gate:implementer', agent_id: 'a1' }, { agent_type: 'tdd-gate:test-validator', agent_id: 'a2' }]) {
      for (const command of ['echo x >> tests/add.test.ts', 'mkdir -p src && echo "export {}" > src/add.ts', 'git checkout -b elsewhere', 'cat tests/add.test.ts']) {
        const asBash = await runHookInProcess(ev.bash({ cwd: repo.root, ...who }, command));
        const asSkill = await runHookInProcess(skillShellInput(repo.root, command, who), { event: 'PreSkillShellCommand' });
        expect(asSkill.status).toBe(0);
        expect([asSkill.decision, asSkill.reason.replace('Bash in /touchy', 'Bash')]).toEqual([asBash.decision, asBash.reason]);
      }
    }
    expect(readFileSync(repo.path('tests/add.test.ts'), 'utf8')).toBe(FROZEN);
  });

  it('`tdd-gate abort` from a skill is denied, not asked: the person runs it', async () => {
    const repo = greenRepo();
    const r = await runHookInProcess(skillShellInput(repo.root, 'tdd-gate abort --reason "skill"'), { event: 'PreSkillShellCommand' });
    expect(r.decision).toBe('deny');
    expect(r.reason).toMatch(/^tdd-gate rule \[cli-confirm\]: /u);
    expect(r.reason).toContain('cannot ask for it, so it was not run');
    expect(r.stdout).toContain('"hookEventName":"PreSkillShellCommand"');
  });

  it('PowerShell: denied during a cycle, silent outside one', async () => {
    const repo = greenRepo();
    const during = await runHookInProcess(skillShellInput(repo.root, 'Remove-Item tests/add.test.ts', { tool_name: 'PowerShell' }), { event: 'PreSkillShellCommand' });
    expect(during.decision).toBe('deny');
    expect(during.reason).toMatch(/^tdd-gate rule \[shell-unparsed\]: Blocked the PowerShell command in \/touchy \(phase tdd-green\)/u);
    const none = testRepo();
    expect(await runHookInProcess(skillShellInput(none.root, 'Remove-Item tests/add.test.ts', { tool_name: 'PowerShell' }), { event: 'PreSkillShellCommand' })).toMatchObject({ status: 0, stdout: '', decision: 'pass' });
  });

  it('bad JSON is denied on this event, with its name', async () => {
    const r = await runHookInProcess('{"hook_event_name":"PreSkillShellCommand",', { raw: true, event: 'PreSkillShellCommand' });
    expect(r.decision).toBe('deny');
    expect(r.stdout).toContain('"hookEventName":"PreSkillShellCommand"');
    expect(r.reason).toMatch(/^tdd-gate rule \[bad-input\]: the hook input is not valid JSON/u);
  });

  it('a broken install (the Bash part missing) fails closed on this event: an internal-error deny', () => {
    const dir = tempDir('tdd-gate-broken-dist-');
    cpSync(path.dirname(HOOK), dir, { recursive: true });
    for (const f of readdirSync(path.join(dir, 'hook'))) if (f.startsWith('bashPreToolUse-')) rmSync(path.join(dir, 'hook', f));
    const repo = greenRepo();
    const r = spawnSync(process.execPath, [path.join(dir, 'hook.cjs'), 'PreSkillShellCommand'], { input: JSON.stringify(skillShellInput(repo.root, 'echo hi')), encoding: 'utf8', env: { ...process.env, TDD_GATE_DISABLE: '' } });
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: Record<string, string> };
    expect(out.hookSpecificOutput).toMatchObject({ hookEventName: 'PreSkillShellCommand', permissionDecision: 'deny' });
    expect(out.hookSpecificOutput.permissionDecisionReason).toMatch(/^tdd-gate rule \[internal-error\]: an internal error stopped the gate/u);
    // No cycle in reach: the quick check answers before any part is loaded, broken or not.
    expect(spawnSync(process.execPath, [path.join(dir, 'hook.cjs'), 'PreSkillShellCommand'], { input: JSON.stringify(skillShellInput(testRepo().root, 'echo hi')), encoding: 'utf8' }).stdout).toBe('');
  });
});
