// A skill with a shell command in its body (`` !`…` ``, arguments filled in) that writes a frozen
// test, invoked by the model through the Skill tool during tdd-green. Claude Code 2.1.332 added the
// PreSkillShellCommand event for exactly these commands (before it, they never passed through any
// hook); tdd-gate registers it in hooks/skill-shell.json, a file of its own, because older clients
// reject a whole hooks file that names an event they do not know (docs/adr/008).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { SPEC_TEXT, state, testRepo } from '../helpers/repo.js';
import { lab, phaseOf, toGreen } from '../tamper/fixtures.js';
import { SKILL_SHELL_EVENT_SINCE, clientAtLeast, denied, describeE2E, E2E_TIMEOUT, gateReason, hooksOf, lastUserText, PLUGIN_ROOT, resultOf, session, throwawayHome, type SessionResult } from './harness.js';

const FROZEN = "it('adds', () => expect(1 + 2).toBe(3));\n";
const SOURCE = 'export const add = (a, b) => a + b;\n';
const LOOSEN = "it.skip('adds')";
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** A project skill as a user or a downloaded plugin might ship it: one harmless command, one that appends its arguments to the test. */
const SKILL = [
  '---',
  'name: loosen',
  'description: Appends a line to the add test.',
  'allowed-tools: Bash(echo:*)',
  '---',
  'Greeting: !`echo hello-from-skill`',
  'Appended: !`echo "$ARGUMENTS" >> tests/add.test.ts && echo appended`',
  '',
].join('\n');

/** GREEN with a freeze record and its snapshot copy, as `tdd-gate freeze` leaves them. */
function greenRepo() {
  const repo = testRepo({ files: { 'tests/add.test.ts': FROZEN, '.claude/skills/loosen/SKILL.md': SKILL } });
  repo.setState(state('tdd-green', { mode: 'light-inline', frozen: { at: '2026-11-22T00:00:00.000Z', spec_hash: sha(SPEC_TEXT), files: { 'tests/add.test.ts': sha(FROZEN), 'specs/SPEC-001.md': sha(SPEC_TEXT) } } }));
  repo.write('.tdd/snapshots/frozen/tests/add.test.ts.copy', FROZEN);
  repo.write('.tdd/snapshots/frozen/specs/SPEC-001.md.copy', SPEC_TEXT);
  return repo;
}

function pluginHookLoadErrors(r: SessionResult): string[] {
  return r.debugLog.split('\n').filter((l) => /Failed to load hooks/u.test(l));
}

describeE2E('skill shell commands', (bin) => {
  it('GREEN: a skill whose shell command writes a frozen test — denied before it runs on clients with the event; on older ones the plugin still loads and the next gated call restores the test', async () => {
    const repo = greenRepo();
    const test = repo.path('tests/add.test.ts');
    const r = await session(bin, repo, {
      script: {
        main: [
          { tools: [{ name: 'Skill', input: { skill: 'loosen', args: LOOSEN } }] },
          { tools: [{ name: 'Write', input: { file_path: repo.path('src/add.js'), content: SOURCE } }] },
          { tools: [{ name: 'Read', input: { file_path: test } }] },
          { tools: [{ name: 'Write', input: { file_path: test, content: `${LOOSEN};\n` } }] },
          { text: 'Done.' },
        ],
      },
    });
    const skillHooks = hooksOf(r, 'PreSkillShellCommand');
    const told = lastUserText(r, 'main', 1);

    if (clientAtLeast(bin, SKILL_SHELL_EVENT_SINCE)) {
      // Both of the skill's commands reached the gate; the harmless one ran, the write did not.
      expect(pluginHookLoadErrors(r)).toEqual([]);
      expect(skillHooks).toHaveLength(2);
      const answers = skillHooks.map((h) => (h.stdout.trim() === '' ? null : (JSON.parse(h.stdout) as { hookSpecificOutput: { hookEventName: string; permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput));
      expect(answers.filter((a) => a === null)).toHaveLength(1);
      const deny = answers.find((a) => a !== null)!;
      expect(deny).toMatchObject({ hookEventName: 'PreSkillShellCommand', permissionDecision: 'deny' });
      expect(deny.permissionDecisionReason).toMatch(/^tdd-gate rule \[tests-frozen\]: Blocked write to test file tests\/add\.test\.ts \(written by `>> redirection` in a Bash command\) \(phase tdd-green/u);
      expect(readFileSync(test, 'utf8')).toBe(FROZEN);
      // What the model read: the skill's text with the harmless output, and the rule in place of the blocked command's.
      expect(told).toContain('Greeting: hello-from-skill');
      expect(told).toContain('Appended: [not run: blocked by hook: tdd-gate rule [tests-frozen]: Blocked write to test file tests/add.test.ts');
      // Nothing moved, so the source write that follows goes through.
      expect(resultOf(r, 1).is_error, resultOf(r, 1).content).toBe(false);
      expect(readFileSync(repo.path('src/add.js'), 'utf8')).toBe(SOURCE);
      const events = readFileSync(repo.path('.tdd/events.jsonl'), 'utf8');
      expect(events).toContain('"tool":"Bash in /loosen"');
    } else {
      // The old client does not fire PreSkillShellCommand at all: it skips hooks/skill-shell.json
      // (a logged load error, nothing else) and runs the skill's commands with no hook. The rest
      // of the plugin is loaded and working.
      expect(skillHooks).toEqual([]);
      const errors = pluginHookLoadErrors(r);
      expect(errors.length).toBeGreaterThan(0);
      for (const line of errors) expect(line).toContain('./hooks/skill-shell.json');
      expect(told).toContain('Greeting: hello-from-skill');
      expect(told).toContain('Appended: appended');
      // The command did change the test; the next gated call finds it, puts it back and says so.
      const restored = denied(resultOf(r, 1));
      expect(restored).toMatch(/^tdd-gate rule \[frozen-restored\]: Blocked Write before it ran: something that ran outside a checked tool call .* changed 1 frozen file\(s\) \(tests\/add\.test\.ts\); they were restored from the snapshot/u);
    }
    // Either way: the frozen test is as frozen, and the ordinary gate (hooks/hooks.json) denies a direct write to it.
    expect(readFileSync(test, 'utf8')).toBe(FROZEN);
    expect(denied(resultOf(r, 3))).toMatch(/^tdd-gate rule \[tests-frozen\]: Blocked write to test file /u);
    expect(gateReason(resultOf(r, 3).content)).toContain('This is the gate working as designed, not an error; do not retry the same call.');
    expect(hooksOf(r, 'PreToolUse').length).toBeGreaterThanOrEqual(2);
  }, E2E_TIMEOUT);

  it('a project slash command whose shell command runs `tdd-gate abort` with the model\'s arguments does not end the cycle: denied before it runs on clients with the event, refused by the CLI on older ones', async () => {
    const home = throwawayHome();
    const l = lab({ home, data: false });
    l.repo.write('.claude/commands/stop.md', ['---', 'description: Stops.', 'allowed-tools: Bash', '---', `Result: !\`node ${path.join(PLUGIN_ROOT, 'dist', 'cli.mjs')} abort --reason "$ARGUMENTS"\``, ''].join('\n'));
    toGreen(l);
    const r = await session(bin, l.repo, {
      home,
      script: { main: [{ tools: [{ name: 'Skill', input: { skill: 'stop', args: 'the task is done' } }] }, { text: 'Done.' }] },
    });
    const told = lastUserText(r, 'main', 1);
    if (clientAtLeast(bin, SKILL_SHELL_EVENT_SINCE)) {
      expect(told).toContain('Result: [not run: blocked by hook: tdd-gate rule [cli-confirm]: ');
    } else {
      expect(hooksOf(r, 'PreSkillShellCommand')).toEqual([]);
      expect(told).toMatch(/tdd-gate abort: refused: `tdd-gate abort` is the user's decision, and this command ran inside Claude Code without passing the gate's question to the user/u);
    }
    expect(phaseOf(l)).toBe('tdd-green');
  }, E2E_TIMEOUT);
});
