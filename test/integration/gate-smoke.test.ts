import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS, type Case, type Category } from '../bash/corpus.js';
import { corpusRepo, type CorpusRepo } from '../bash/fixture.js';
import { ev } from '../helpers/events.js';
import { runHookBundle } from '../helpers/hook.js';
import { state, testRepo } from '../helpers/repo.js';

/**
 * The built bundle's contract (dist/hook.cjs, as hooks.json runs it): the wire format, the exit
 * codes, fail-closed on input it cannot read, the lazy parts each event loads, and a handful of
 * decisions per tool. The policy itself is specified in process (test/gate/hook.test.ts and the
 * tables beside it); here only that the bundle carries it. The boot and its code cache:
 * entry.test.ts; a crash or a hang in a real client: test/e2e/failclosed.test.ts.
 */

const IMPL = { agent_type: 'tdd-gate:implementer' };

function greenRepo() {
  const repo = testRepo({ files: { 'tests/a.test.ts': 'expect(1)\n' } });
  repo.setState(state('tdd-green'));
  return repo;
}

describe('the wire: what the bundle prints and how it exits', () => {
  it('passes everything, silently, when no state file exists', () => {
    const repo = testRepo();
    expect(runHookBundle(ev.write({ cwd: repo.root }, 'tests/a.test.ts'))).toMatchObject({ status: 0, decision: 'pass', stdout: '', stderr: '' });
  });

  it('a deny is JSON on stdout, exit 0, with the rule id in the reason, and never "allow"', () => {
    const r = runHookBundle(ev.write({ cwd: greenRepo().root, ...IMPL }, 'tests/a.test.ts'));
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny' } });
    expect(r.reason).toContain('tdd-gate rule [tests-frozen]');
    expect(r.stdout).not.toContain('"allow"');
  });

  it('an ask is JSON on stdout, exit 0', () => {
    const r = runHookBundle(ev.bash({ cwd: greenRepo().root }, 'tdd-gate abort --reason "stuck"'));
    expect(r).toMatchObject({ status: 0, decision: 'ask' });
    expect(r.reason).toContain('[cli-confirm]');
  });

  it.each([
    ['input that is not JSON', '{not json'],
    ['empty input', ''],
    ['a gated tool without its target', JSON.stringify({ cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { content: 'x' } })],
  ])('fails closed on %s: a deny, exit 0', (_name, raw) => {
    const r = runHookBundle(raw, { raw: true });
    expect(r).toMatchObject({ status: 0, decision: 'deny' });
    expect(r.reason).toContain('[bad-input]');
  });

  it('the kill switch lets everything through with a note on stderr', () => {
    const r = runHookBundle(ev.write({ cwd: greenRepo().root, ...IMPL }, 'tests/a.test.ts'), { env: { TDD_GATE_DISABLE: '1' } });
    expect(r).toMatchObject({ status: 0, decision: 'pass', stdout: '' });
    expect(r.stderr).toContain('TDD_GATE_DISABLE');
  });

  it('input that is not JSON on an event that cannot block: a note, exit 1 (non-blocking)', () => {
    const r = runHookBundle('{not json', { raw: true, event: 'PostToolUse' });
    expect(r).toMatchObject({ status: 1, stdout: '' });
    expect(r.stderr).toContain('not valid JSON');
  });
});

describe('each part of the bundle loads and decides', () => {
  it.each([
    ['Write (the file part)', (cwd: string) => ev.write({ cwd, ...IMPL }, 'tests/a.test.ts'), 'deny'],
    ['Edit', (cwd: string) => ev.edit({ cwd, ...IMPL }, 'tests/a.test.ts', 'expect(1)', 'expect(2)'), 'deny'],
    ['NotebookEdit', (cwd: string) => ev.notebook({ cwd, ...IMPL }, 'tests/nb.test.ipynb', 'x'), 'deny'],
    ['an MCP tool', (cwd: string) => ({ cwd, ...IMPL, hook_event_name: 'PreToolUse', tool_name: 'mcp__fs__write_file', tool_input: { path: 'tests/a.test.ts', content: 'x' } }), 'deny'],
    ['Bash (the shell-parser part)', (cwd: string) => ev.bash({ cwd, ...IMPL }, 'echo x > tests/a.test.ts'), 'deny'],
    ['Monitor (the shell-parser part)', (cwd: string) => ({ cwd, ...IMPL, hook_event_name: 'PreToolUse', tool_name: 'Monitor', tool_input: { command: 'echo x > tests/a.test.ts' } }), 'deny'],
    ['Write of a source by the implementer', (cwd: string) => ev.write({ cwd, ...IMPL }, 'src/a.ts'), 'pass'],
    ['Bash running the tests', (cwd: string) => ev.bash({ cwd, ...IMPL }, 'npx vitest run'), 'pass'],
  ] as const)('%s', (_name, make, verdict) => {
    const r = runHookBundle(make(greenRepo().root));
    expect(r.status, r.stderr).toBe(0);
    expect(r.decision, r.reason).toBe(verdict);
    if (verdict === 'deny') expect(r.reason).toContain('[tests-frozen]');
  });

  it('PreSkillShellCommand: a skill’s command that writes a frozen test is denied', () => {
    const input = { session_id: 's', cwd: greenRepo().root, hook_event_name: 'PreSkillShellCommand', tool_name: 'Bash', tool_input: { command: 'echo x > tests/a.test.ts' }, command_name: 'demo' };
    const r = runHookBundle(input, { event: 'PreSkillShellCommand' });
    expect(r).toMatchObject({ status: 0, decision: 'deny' });
    expect(JSON.parse(r.stdout)).toMatchObject({ hookSpecificOutput: { hookEventName: 'PreSkillShellCommand' } });
  });

  it('PostToolUse after a clean Bash call: nothing to say', () => {
    const r = runHookBundle({ ...ev.bash({ cwd: greenRepo().root, ...IMPL }, 'ls'), hook_event_name: 'PostToolUse', tool_response: {} }, { event: 'PostToolUse' });
    expect(r).toMatchObject({ status: 0, stdout: '', stderr: '' });
  });

  it('SessionStart in a cycle: the phase as context', () => {
    const r = runHookBundle({ session_id: 's', cwd: greenRepo().root, hook_event_name: 'SessionStart', source: 'startup' }, { event: 'SessionStart' });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: expect.stringContaining('phase tdd-green') as unknown } });
  });

  it('SubagentStop: a tdd-gate subagent that ends without its tdd-result block is sent back once for it; another agent stops', () => {
    const cwd = greenRepo().root;
    const stop = (agent_type: string) => ({ session_id: 's', cwd, hook_event_name: 'SubagentStop', agent_type, agent_id: 'a1', stop_hook_active: false, last_assistant_message: 'done' });
    const r = runHookBundle(stop('tdd-gate:implementer'), { event: 'SubagentStop' });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'block', reason: expect.stringContaining('[result-format]') as unknown });
    expect(runHookBundle(stop('general-purpose'), { event: 'SubagentStop' })).toMatchObject({ status: 0, stdout: '' });
  });
});

/** One labelled command per category of the Bash corpus (the whole corpus runs in process: test/bash/corpus.test.ts). */
describe('a sample of the Bash corpus through the bundle', () => {
  const sample = [...new Map(CORPUS.filter((c) => (c.phase ?? 'tdd-green') === 'tdd-green').map((c) => [`${c.cat} ${c.expect}`, c] as const)).values()];
  let repo: CorpusRepo;
  beforeAll(() => {
    repo = corpusRepo({ stashes: [{ 'tests/a.test.ts': 'stashed\n' }] });
    repo.setPhase('tdd-green');
  });
  afterAll(() => repo.cleanup());

  it('covers every category', () => {
    expect(new Set(sample.map((c) => c.cat))).toEqual(new Set<Category>(CORPUS.map((c) => c.cat)));
  });

  it.each(sample.map((c) => [`[${c.cat}] ${c.cmd.replace(/\n/g, '⏎')} → ${c.expect}`, c] as const))('%s', (_name, c: Case) => {
    const role = c.role === undefined ? 'tdd-gate:implementer' : c.role;
    const r = runHookBundle(ev.bash({ cwd: repo.root, ...(role !== null ? { agent_type: role } : {}) }, c.cmd), { env: { HOME: repo.home, CLAUDE_PLUGIN_ROOT: '' } });
    expect(r.status).toBe(0);
    expect(r.decision, r.reason).toBe(c.expect);
  });
});
