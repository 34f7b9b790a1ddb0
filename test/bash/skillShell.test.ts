import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decision } from '../../src/gate/rules/decision.js';
import { preSkillShellCommand, preToolUse } from '../../src/hooks/bashPreToolUse.js';
import { badJson, gateText, internalError, preToolUseOutput } from '../../src/hooks/output.js';
import { quickCheck } from '../../src/hooks/quickCheck.js';
import { runHook } from '../../src/hooks/run.js';
import { ev } from '../helpers/events.js';
import { CORPUS, type Case } from './corpus.js';
import { corpusRepo, type CorpusRepo } from './fixture.js';

/**
 * PreSkillShellCommand (the shell command a skill or slash command embeds, newer clients) in
 * process: the one Bash gate decides it, so every command of the labelled Bash corpus gets the
 * same verdict and rule as the same command in a Bash call, except that an ask (which a skill
 * cannot wait for) becomes a deny that says who runs the command instead.
 */
type Phase = NonNullable<Case['phase']>;
const repos = new Map<Phase, CorpusRepo>();
const PHASES: Phase[] = ['tdd-plan', 'tdd-red', 'tdd-green', 'tdd-refactor'];

beforeAll(() => {
  for (const phase of PHASES) {
    // As the corpus's own test holds it: the newest stash entry changes a test.
    const repo = corpusRepo({ stashes: [{ 'tests/a.test.ts': 'stashed\n' }] });
    repo.setPhase(phase);
    repos.set(phase, repo);
  }
});
afterAll(() => {
  for (const repo of repos.values()) repo.cleanup();
});

/** The hook input the 2.1.332 client sends for a skill's embedded shell command (its schema's fields). */
function skillShell(o: { cwd: string; agent_type?: string; agent_id?: string; [k: string]: unknown }, command: string, tool_name = 'Bash'): Record<string, unknown> {
  const { agent_type, agent_id, ...rest } = o;
  return {
    session_id: 'b3b4c6e2-5a41-4c1e-9a0f-2f8c1d0e7a11',
    transcript_path: '/tmp/transcript.jsonl',
    permission_mode: 'default',
    effort: { level: 'medium' },
    hook_event_name: 'PreSkillShellCommand',
    tool_name,
    tool_input: { command },
    tool_use_id: 'toolu_01ABCDEF:preamble-0',
    command_name: 'touchy',
    command_source: 'projectSettings',
    invoked_by: 'claude',
    ...(agent_type !== undefined ? { agent_type, agent_id: agent_id ?? 'a1b2c3d4' } : {}),
    ...rest,
  };
}

function who(c: Case, repo: CorpusRepo): { cwd: string; agent_type?: string } {
  const role = c.role === undefined ? 'tdd-gate:implementer' : c.role;
  return { cwd: repo.root, ...(role !== null ? { agent_type: role } : {}) };
}

function verdictOf(d: Decision): string {
  return d.kind === 'pass' ? 'pass' : `${d.kind} ${d.ruleId}`;
}

describe('a skill\'s shell command is judged by the Bash gate', () => {
  it.each(CORPUS.map((c) => [`${c.phase ?? 'tdd-green'} ${c.role === undefined ? 'implementer' : (c.role ?? 'main')}: ${c.cmd.replace(/\n/g, '⏎')}`, c] as const))('%s', (_name, c) => {
    const repo = repos.get(c.phase ?? 'tdd-green')!;
    const env = { HOME: repo.home, CLAUDE_PLUGIN_ROOT: '' };
    const asBash = preToolUse(ev.bash(who(c, repo), c.cmd), env);
    const asSkill = preSkillShellCommand(skillShell(who(c, repo), c.cmd), env);
    if (asBash.kind === 'ask') {
      // A skill cannot ask: the same rule, denied, and the person is named as the one who runs it.
      expect(verdictOf(asSkill)).toBe(`deny ${asBash.ruleId}`);
      expect(asSkill.kind === 'deny' && asSkill.reason).toContain(asBash.reason);
      expect(asSkill.kind === 'deny' && asSkill.reason).toContain('cannot ask for it, so it was not run');
    } else {
      expect(verdictOf(asSkill)).toBe(verdictOf(asBash));
      if (asBash.kind === 'deny' && asSkill.kind === 'deny') expect(asSkill.reason.replace('Bash in /touchy', 'Bash')).toBe(asBash.reason);
    }
    // The corpus label holds for the skill's command too (an ask label: denied).
    expect(asSkill.kind).toBe(c.expect === 'ask' ? 'deny' : c.expect);
  });
});

describe('PreSkillShellCommand beyond the corpus', () => {
  it('records the deny under the skill\'s name, and an ask that became a deny as a deny', () => {
    const repo = repos.get('tdd-green')!;
    const env = { HOME: repo.home, CLAUDE_PLUGIN_ROOT: '' };
    expect(preSkillShellCommand(skillShell({ cwd: repo.root }, 'echo x >> tests/a.test.ts'), env).kind).toBe('deny');
    expect(preSkillShellCommand(skillShell({ cwd: repo.root }, 'tdd-gate abort --reason "from a skill"'), env).kind).toBe('deny');
    const events = readFileSync(`${repo.root}/.tdd/events.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events).toContainEqual(expect.objectContaining({ type: 'hook-deny', tool: 'Bash in /touchy', target: 'echo x >> tests/a.test.ts', rule: 'tests-frozen' }));
    expect(events).toContainEqual(expect.objectContaining({ type: 'hook-deny', tool: 'Bash in /touchy', target: 'tdd-gate abort --reason "from a skill"', rule: 'cli-confirm' }));
    expect(events.filter((e) => e.type === 'hook-ask' && String(e.tool).includes('/touchy'))).toEqual([]);
  });

  it.each(PHASES)('%s: a PowerShell command cannot be read, so during a cycle it is denied (even a harmless one)', (phase) => {
    const repo = repos.get(phase)!;
    const d = preSkillShellCommand(skillShell({ cwd: repo.root }, 'Get-ChildItem', 'PowerShell'), { HOME: repo.home });
    expect(verdictOf(d)).toBe('deny shell-unparsed');
    expect(d.kind === 'deny' && d.reason).toContain(`PowerShell command in /touchy (phase ${phase})`);
  });

  it('a PowerShell command outside a cycle passes, at the quick check and at the full gate', () => {
    const repo = corpusRepo();
    try {
      const input = skillShell({ cwd: repo.root }, 'Set-Content tests/a.test.ts x', 'PowerShell');
      expect(quickCheck('PreSkillShellCommand', input, { HOME: repo.home })).toBe('inactive');
      expect(preSkillShellCommand(input, { HOME: repo.home })).toEqual({ kind: 'pass' });
      repo.setPhase('done');
      expect(quickCheck('PreSkillShellCommand', input, { HOME: repo.home })).toBe('inactive');
      expect(preSkillShellCommand(input, { HOME: repo.home })).toEqual({ kind: 'pass' });
    } finally {
      repo.cleanup();
    }
  });

  it('the spec-writer runs no shell command from a skill either, with or without a cycle', () => {
    const repo = corpusRepo();
    try {
      for (const shell of ['Bash', 'PowerShell']) {
        const input = skillShell({ cwd: repo.root, agent_type: 'tdd-gate:spec-writer' }, 'echo hi', shell);
        expect(quickCheck('PreSkillShellCommand', input, { HOME: repo.home })).toBe('full');
        expect(verdictOf(preSkillShellCommand(input, { HOME: repo.home }))).toBe('deny spec-writer-scope');
      }
    } finally {
      repo.cleanup();
    }
  });

  it.each([
    ['not an object', 'x'],
    ['no command', { cwd: '/tmp', tool_name: 'Bash', tool_input: {} }],
    ['a command that is not text', { cwd: '/tmp', tool_name: 'Bash', tool_input: { command: ['rm', 'x'] } }],
    ['no tool_name', { cwd: '/tmp', tool_input: { command: 'ls' } }],
    ['no cwd', { tool_name: 'Bash', tool_input: { command: 'ls' } }],
  ])('input with %s goes the full way and is denied as bad input', (_name, input) => {
    expect(quickCheck('PreSkillShellCommand', input, {})).toBe('full');
    expect(verdictOf(preSkillShellCommand(input, {}))).toBe('deny bad-input');
  });

  it('the quick check stays cheap: no cycle in reach means no full gate, for Bash and PowerShell alike', () => {
    const repo = corpusRepo();
    try {
      for (const shell of ['Bash', 'PowerShell']) expect(quickCheck('PreSkillShellCommand', skillShell({ cwd: repo.root }, 'echo x >> tests/a.test.ts', shell), { HOME: repo.home })).toBe('inactive');
      repo.setPhase('tdd-green');
      for (const shell of ['Bash', 'PowerShell']) expect(quickCheck('PreSkillShellCommand', skillShell({ cwd: repo.root }, 'echo x', shell), { HOME: repo.home })).toBe('full');
    } finally {
      repo.cleanup();
    }
  });
});

describe('the hook entry on PreSkillShellCommand (run.ts, output.ts)', () => {
  const parse = (stdout: string) => JSON.parse(stdout) as { hookSpecificOutput: { hookEventName: string; permissionDecision: string; permissionDecisionReason: string }; systemMessage?: string };

  it('answers with the event\'s own name and never with ask', async () => {
    const repo = repos.get('tdd-green')!;
    const env = { HOME: repo.home, CLAUDE_PLUGIN_ROOT: '', TDD_GATE_DISABLE: '' };
    for (const command of ['echo x >> tests/a.test.ts', 'tdd-gate abort --reason x']) {
      const r = await runHook(JSON.stringify(skillShell({ cwd: repo.root }, command)), 'PreSkillShellCommand', env);
      expect(r.exitCode).toBe(0);
      const out = parse(r.stdout).hookSpecificOutput;
      expect(out.hookEventName).toBe('PreSkillShellCommand');
      expect(out.permissionDecision).toBe('deny');
      expect(out.permissionDecisionReason).toMatch(/^tdd-gate rule \[(tests-frozen|cli-confirm)\]: /u);
    }
    const allowed = await runHook(JSON.stringify(skillShell({ cwd: repo.root }, 'echo hi > /dev/null')), 'PreSkillShellCommand', env);
    expect(allowed).toEqual({ stdout: '', stderr: '', exitCode: 0 });
  });

  it('denies input that is not JSON, on this event as on PreToolUse', async () => {
    for (const event of ['PreSkillShellCommand', 'PreToolUse']) {
      const r = await runHook('{not json', event, { TDD_GATE_DISABLE: '' });
      const out = parse(r.stdout).hookSpecificOutput;
      expect(out).toMatchObject({ hookEventName: event, permissionDecision: 'deny' });
      expect(out.permissionDecisionReason).toMatch(/^tdd-gate rule \[bad-input\]: the hook input is not valid JSON/u);
    }
    expect(badJson('SessionStart', 'x')).toMatchObject({ stdout: '', exitCode: 1 });
  });

  it('an internal error denies on both gate events and only notes on the others', () => {
    for (const event of ['PreSkillShellCommand', 'PreToolUse'] as const) {
      const out = parse(internalError(event, 'boom').stdout).hookSpecificOutput;
      expect(out).toMatchObject({ hookEventName: event, permissionDecision: 'deny' });
      expect(out.permissionDecisionReason).toContain('an internal error stopped the gate (boom)');
    }
    for (const event of ['PostToolUse', 'SubagentStop', 'SessionStart']) expect(internalError(event, 'boom')).toMatchObject({ stdout: '', exitCode: 1 });
  });

  it('an ask that reaches the renderer on PreSkillShellCommand still goes out as a deny', () => {
    const out = parse(preToolUseOutput({ kind: 'ask', ruleId: 'cli-confirm', reason: 'r.' }, 'PreSkillShellCommand').stdout).hookSpecificOutput;
    expect(out.permissionDecision).toBe('deny');
    expect(parse(preToolUseOutput({ kind: 'ask', ruleId: 'cli-confirm', reason: 'r.' }).stdout).hookSpecificOutput.permissionDecision).toBe('ask');
  });
});

describe('deny text reads as a rule, not as a failure (gateText)', () => {
  it.each([
    [{ kind: 'deny', ruleId: 'tests-frozen', reason: 'Blocked x.' }, 'tdd-gate rule [tests-frozen]: Blocked x. This is the gate working as designed, not an error; do not retry the same call.'],
    [{ kind: 'deny', ruleId: 'head-move', reason: 'Blocked y.' }, 'tdd-gate rule [head-move]: Blocked y. This is the gate working as designed, not an error; do not retry the same call.'],
    // The call itself was fine: the gate put back what something else changed, and says to retry if still needed.
    [{ kind: 'deny', ruleId: 'frozen-restored', reason: 'Restored. Retry the call if it is still what your task needs.' }, 'tdd-gate rule [frozen-restored]: Restored. Retry the call if it is still what your task needs. This is the gate working as designed, not an error.'],
    [{ kind: 'deny', ruleId: 'tamper-restored', reason: 'Restored.' }, 'tdd-gate rule [tamper-restored]: Restored. This is the gate working as designed, not an error.'],
    // The gate could not judge: no claim that it worked as designed.
    [{ kind: 'deny', ruleId: 'internal-error', reason: 'an internal error stopped the gate.' }, 'tdd-gate rule [internal-error]: an internal error stopped the gate.'],
    [{ kind: 'deny', ruleId: 'bad-input', reason: 'not JSON.' }, 'tdd-gate rule [bad-input]: not JSON.'],
    // An ask is for the person to answer.
    [{ kind: 'ask', ruleId: 'cli-confirm', reason: 'Confirm only if you, the user, want it.' }, 'tdd-gate rule [cli-confirm]: Confirm only if you, the user, want it.'],
  ] as const)('%j', (decision, text) => {
    expect(gateText(decision)).toBe(text);
  });
});
