import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULES } from '../../src/gate/rules/rules.js';
import type { Store } from '../../src/state/store.js';
import { ev } from '../helpers/events.js';
import { fixedClock, memoryStore, runHookInProcess } from '../helpers/hookInProcess.js';
import { DEFAULT_STACK, SPEC_TEXT, git, state } from '../helpers/repo.js';

/**
 * The hook's whole decision as a specification: a hook input as Claude Code sends it, the branch's
 * state and stack config (handed in through the store, never written to .tdd/), the live facts
 * (the files of one repository) and the clock → what the gate answers. In process, from the
 * sources: the entry (src/hooks/run.ts) with its quick check, the part for the event, the rule
 * list and the one renderer. The built bundle's own contract is test/integration/gate-smoke.test.ts.
 */

const IMPL = 'tdd-gate:implementer';
const TW = 'tdd-gate:test-writer';
const REF = 'tdd-gate:refactorer';
const SPEC_WRITER = 'tdd-gate:spec-writer';
const STARTED = '2026-11-22T00:00:00.000Z';

let root: string;
let home: string;
beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-hook-')));
  home = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-home-')));
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'config', 'user.email', 't@example.com');
  git(root, 'config', 'user.name', 'T');
  const files: Record<string, string> = {
    'specs/SPEC-001.md': SPEC_TEXT,
    'tests/a.test.ts': "it('adds', () => expect(add(1, 2)).toBe(3));\n",
    'src/a.ts': 'export const add = (a: number, b: number) => a + b;\n',
    'vitest.config.ts': 'export default {};\n',
    'docs/notes.md': 'notes\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'init');
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

type Expected = 'pass' | 'ask' | `deny ${string}` | `ask ${string}`;

interface Row {
  /** What the row says, as the test's name. */
  name: string;
  /** The branch's state (null: no cycle), or a string stored as the file's text. */
  state: object | string | null;
  stack?: object | string | null;
  input: (cwd: string) => Record<string, unknown>;
  event?: string;
  expect: Expected;
}

const green = state('tdd-green');
const red = state('tdd-red');
const plan = state('tdd-plan');
const refactor = state('tdd-refactor');
const as = (agent_type?: string) => (cwd: string) => ({ cwd, ...(agent_type !== undefined ? { agent_type } : {}) });

const PRE_TOOL_USE: Row[] = [
  // No cycle: the gate stays out of the way.
  { name: 'Write of a test with no cycle', state: null, input: (c) => ev.write(as()(c), 'tests/a.test.ts'), expect: 'pass' },
  { name: 'Write of a test when the cycle is done', state: state('done'), input: (c) => ev.write(as()(c), 'tests/a.test.ts'), expect: 'pass' },
  { name: 'a tool the gate does not gate (Read)', state: green, input: (c) => ({ ...as()(c), hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: 'tests/a.test.ts' } }), expect: 'pass' },

  // Write / Edit / MultiEdit / NotebookEdit by phase and role.
  { name: 'GREEN: the implementer writes a source', state: green, input: (c) => ev.write(as(IMPL)(c), 'src/a.ts'), expect: 'pass' },
  { name: 'GREEN: the implementer writes a file that is neither test nor source', state: green, input: (c) => ev.write(as(IMPL)(c), 'docs/notes.md'), expect: 'pass' },
  { name: 'GREEN: Write of a frozen test', state: green, input: (c) => ev.write(as(IMPL)(c), 'tests/a.test.ts'), expect: 'deny tests-frozen' },
  { name: 'GREEN: Edit of a frozen test', state: green, input: (c) => ev.edit(as(IMPL)(c), 'tests/a.test.ts', 'toBe(3)', 'toBe(4)'), expect: 'deny tests-frozen' },
  { name: 'GREEN: MultiEdit of a frozen test', state: green, input: (c) => ev.multiEdit(as(IMPL)(c), 'tests/a.test.ts', [{ old_string: 'adds', new_string: 'x' }]), expect: 'deny tests-frozen' },
  { name: 'GREEN: NotebookEdit of a test notebook', state: green, input: (c) => ev.notebook(as(IMPL)(c), 'tests/nb.test.ipynb', 'x'), expect: 'deny tests-frozen' },
  { name: 'GREEN: the runner config is frozen with the tests', state: green, input: (c) => ev.write(as(IMPL)(c), 'vitest.config.ts'), expect: 'deny tests-frozen' },
  { name: 'GREEN: the main thread may not write a source (standard mode)', state: green, input: (c) => ev.write(as()(c), 'src/a.ts'), expect: 'deny role' },
  { name: 'GREEN: the test-writer may not write a source', state: green, input: (c) => ev.write(as(TW)(c), 'src/a.ts'), expect: 'deny role' },
  { name: 'GREEN, light-inline mode: the main thread writes a source', state: state('tdd-green', { mode: 'light-inline' }), input: (c) => ev.write(as()(c), 'src/a.ts'), expect: 'pass' },
  { name: 'GREEN: the frozen SPEC', state: green, input: (c) => ev.edit(as(IMPL)(c), 'specs/SPEC-001.md', '3', '4'), expect: 'deny spec-frozen' },
  { name: 'GREEN: the stack config is a control file', state: green, input: (c) => ev.write(as(IMPL)(c), '.tdd/stack.json'), expect: 'deny control-file' },
  { name: 'RED: the test-writer writes a test', state: red, input: (c) => ev.write(as(TW)(c), 'tests/b.test.ts'), expect: 'pass' },
  { name: 'RED: no source is written', state: red, input: (c) => ev.write(as(TW)(c), 'src/a.ts'), expect: 'deny red-source' },
  { name: 'PLAN: no test is written', state: plan, input: (c) => ev.write(as()(c), 'tests/b.test.ts'), expect: 'deny plan-phase' },
  { name: 'REFACTOR: the refactorer edits a source', state: refactor, input: (c) => ev.edit(as(REF)(c), 'src/a.ts', 'a + b', 'b + a'), expect: 'pass' },
  { name: 'REFACTOR: the tests stay frozen', state: refactor, input: (c) => ev.edit(as(REF)(c), 'tests/a.test.ts', 'adds', 'sums'), expect: 'deny tests-frozen' },

  // Bash and Monitor: the command is judged by what it writes.
  { name: 'GREEN: Bash runs the tests', state: green, input: (c) => ev.bash(as(IMPL)(c), 'npx vitest run'), expect: 'pass' },
  { name: 'GREEN: Bash writes a frozen test', state: green, input: (c) => ev.bash(as(IMPL)(c), 'echo x > tests/a.test.ts'), expect: 'deny tests-frozen' },
  { name: 'GREEN: Bash moves HEAD', state: green, input: (c) => ev.bash(as(IMPL)(c), 'git checkout -b other'), expect: 'deny head-move' },
  { name: 'GREEN: Bash outside the sandbox', state: green, input: (c) => ({ ...ev.bash(as(IMPL)(c), 'ls'), tool_input: { command: 'ls', dangerouslyDisableSandbox: true } }), expect: 'deny sandbox-off' },
  { name: 'GREEN: the main thread ends the cycle: the person is asked', state: green, input: (c) => ev.bash(as()(c), 'tdd-gate abort --reason "stuck"'), expect: 'ask cli-confirm' },
  { name: 'GREEN: a subagent runs a state-changing verb', state: green, input: (c) => ev.bash(as(IMPL)(c), 'tdd-gate done'), expect: 'deny subagent-cli' },
  { name: 'GREEN: a Monitor whose command writes a test', state: green, input: (c) => ({ ...as(IMPL)(c), hook_event_name: 'PreToolUse', tool_name: 'Monitor', tool_input: { command: 'echo x > tests/a.test.ts' } }), expect: 'deny tests-frozen' },
  { name: 'GREEN: a Monitor that runs no command', state: green, input: (c) => ({ ...as(IMPL)(c), hook_event_name: 'PreToolUse', tool_name: 'Monitor', tool_input: { url: 'ws://localhost:1' } }), expect: 'pass' },

  // The newest client's other tools, and MCP servers.
  { name: 'GREEN: EnterWorktree', state: green, input: (c) => ({ ...as()(c), hook_event_name: 'PreToolUse', tool_name: 'EnterWorktree', tool_input: { name: 'x' } }), expect: 'deny worktree-switch' },
  { name: 'GREEN: an MCP tool writes a frozen test', state: green, input: (c) => ({ ...as(IMPL)(c), hook_event_name: 'PreToolUse', tool_name: 'mcp__fs__write_file', tool_input: { path: 'tests/a.test.ts', content: 'x' } }), expect: 'deny tests-frozen' },
  { name: 'GREEN: an MCP tool named for reading', state: green, input: (c) => ({ ...as(IMPL)(c), hook_event_name: 'PreToolUse', tool_name: 'mcp__fs__read_file', tool_input: { path: 'tests/a.test.ts' } }), expect: 'pass' },
  { name: 'GREEN: an MCP tool writes a source for the implementer', state: green, input: (c) => ({ ...as(IMPL)(c), hook_event_name: 'PreToolUse', tool_name: 'mcp__fs__write_file', tool_input: { path: 'src/a.ts', content: 'x' } }), expect: 'pass' },

  // The spec-writer is confined to specs/, with or without a cycle.
  { name: 'no cycle: the spec-writer writes a SPEC', state: null, input: (c) => ev.write(as(SPEC_WRITER)(c), 'specs/SPEC-002.md'), expect: 'pass' },
  { name: 'no cycle: the spec-writer writes a source', state: null, input: (c) => ev.write(as(SPEC_WRITER)(c), 'src/a.ts'), expect: 'deny spec-writer-scope' },

  // Records that cannot be read, and input that cannot be understood: fail closed.
  { name: 'a state file that is not JSON', state: '{"phase": ', input: (c) => ev.write(as(IMPL)(c), 'src/a.ts'), expect: 'deny state-corrupt' },
  { name: 'a state with an unknown phase', state: { ...green, phase: 'tdd-purple' }, input: (c) => ev.write(as(IMPL)(c), 'src/a.ts'), expect: 'deny state-corrupt' },
  { name: 'stack.json missing during a cycle', state: green, stack: null, input: (c) => ev.write(as(IMPL)(c), 'src/a.ts'), expect: 'deny stack-invalid' },
  { name: 'stack.json with a bad regular expression', state: green, stack: { ...DEFAULT_STACK, red_confirm: '(' }, input: (c) => ev.write(as(IMPL)(c), 'src/a.ts'), expect: 'deny stack-invalid' },
  { name: 'a Write without its file_path', state: green, input: (c) => ({ ...as(IMPL)(c), hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { content: 'x' } }), expect: 'deny bad-input' },
];

const SKILL_SHELL: Row[] = [
  { name: 'a skill’s Bash command that only reads', state: green, input: (c) => skill(c, 'Bash', 'ls tests'), expect: 'pass' },
  { name: 'a skill’s Bash command that writes a frozen test', state: green, input: (c) => skill(c, 'Bash', 'echo x > tests/a.test.ts'), expect: 'deny tests-frozen' },
  { name: 'a skill cannot wait for the person: what a Bash call would ask is denied', state: green, input: (c) => skill(c, 'Bash', 'tdd-gate abort --reason x'), expect: 'deny cli-confirm' },
  { name: 'a skill’s PowerShell command during a cycle', state: green, input: (c) => skill(c, 'PowerShell', 'Set-Content tests/a.test.ts x'), expect: 'deny shell-unparsed' },
  { name: 'a skill’s PowerShell command with no cycle', state: null, input: (c) => skill(c, 'PowerShell', 'Set-Content tests/a.test.ts x'), expect: 'pass' },
];

function skill(cwd: string, shell: string, command: string): Record<string, unknown> {
  return { session_id: 's', cwd, hook_event_name: 'PreSkillShellCommand', tool_name: shell, tool_input: { command }, command_name: 'demo' };
}

/** The rule ids a deny or ask can carry: the list's own, and the failures the gate reports as rules. */
const KNOWN_IDS = new Set([...RULES.flatMap((r) => [r.id, ...(r.ids ?? [])]), 'state-corrupt', 'stack-invalid']);

async function decide(row: Row, store: Store = memoryStore({ root, state: row.state, ...(row.stack !== undefined ? { stack: row.stack } : {}) })) {
  return runHookInProcess(row.input(root), { event: row.event, env: { HOME: home, CLAUDE_PLUGIN_ROOT: '', CLAUDE_PLUGIN_DATA: '' }, store, clock: fixedClock(STARTED) });
}

function check(r: Awaited<ReturnType<typeof decide>>, expected: Expected) {
  expect(r.status, r.stderr).toBe(0);
  const [kind, rule] = expected.split(' ') as [string, string | undefined];
  expect(r.decision, r.reason).toBe(kind);
  if (rule !== undefined) {
    expect(KNOWN_IDS.has(rule), `${rule} is a rule the gate knows`).toBe(true);
    expect(r.reason).toContain(`tdd-gate rule [${rule}]`);
  }
  if (kind === 'pass') expect(r.stdout).toBe('');
}

describe('PreToolUse: input + state + stack + files → decision', () => {
  it.each(PRE_TOOL_USE.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    check(await decide(row), row.expect);
  });
});

describe('PreSkillShellCommand: a skill’s shell command is judged as the Bash call it is', () => {
  it.each(SKILL_SHELL.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    check(await decide({ ...row, event: 'PreSkillShellCommand' }), row.expect);
  });
});

describe('the store and the clock are the hook’s only view of the cycle and the time', () => {
  it('a state kept only in the store is the cycle: nothing in .tdd/ on disk', async () => {
    const row: Row = { name: '', state: green, input: (c) => ev.write(as(IMPL)(c), 'tests/a.test.ts'), expect: 'deny tests-frozen' };
    check(await decide(row), 'deny tests-frozen');
    // and the same call with an empty store passes: the disk holds no state
    check(await decide(row, memoryStore({ root, state: null })), 'pass');
  });

  it('PostToolUse: a Write the gate never saw fires the canary, except in the first seconds of a PLAN cycle', async () => {
    const write = { ...ev.write(as(TW)(root), 'tests/c.test.ts'), hook_event_name: 'PostToolUse', tool_use_id: 'toolu_unseen', tool_response: { type: 'create' } };
    const store = memoryStore({ root, state: plan });
    const clock = fixedClock(Date.parse(STARTED) + 5_000);
    const env = { HOME: home, CLAUDE_PLUGIN_ROOT: '', CLAUDE_PLUGIN_DATA: '' };
    const early = await runHookInProcess(write, { event: 'PostToolUse', env, store, clock });
    expect(early.stdout, 'a write in the cycle’s first seconds may predate the gate').toBe('');
    clock.set(Date.parse(STARTED) + 3_600_000);
    const late = await runHookInProcess(write, { event: 'PostToolUse', env, store, clock });
    expect(JSON.parse(late.stdout)).toMatchObject({ decision: 'block', reason: expect.stringContaining('[gate-skipped]') as unknown });
  });

  it('SubagentStop: a tdd-gate subagent without its tdd-result block is sent back while the stored cycle is active, not after it', async () => {
    const stop = { session_id: 's', cwd: root, hook_event_name: 'SubagentStop', agent_type: IMPL, agent_id: 'a1', stop_hook_active: false, last_assistant_message: 'done' };
    const env = { HOME: home, CLAUDE_PLUGIN_ROOT: '' };
    const active = await runHookInProcess(stop, { event: 'SubagentStop', env, store: memoryStore({ root, state: green }), clock: fixedClock(STARTED) });
    expect(JSON.parse(active.stdout)).toMatchObject({ decision: 'block', reason: expect.stringContaining('[result-format]') as unknown });
    const done = await runHookInProcess(stop, { event: 'SubagentStop', env, store: memoryStore({ root, state: state('done') }), clock: fixedClock(STARTED) });
    expect(done).toMatchObject({ status: 0, stdout: '' });
  });

  it('SessionStart: the model is told the phase from the stored state', async () => {
    const r = await runHookInProcess({ session_id: 's', cwd: root, hook_event_name: 'SessionStart', source: 'startup' }, { event: 'SessionStart', env: { HOME: home, CLAUDE_PLUGIN_ROOT: '' }, store: memoryStore({ root, state: refactor }) });
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } };
    expect(out.hookSpecificOutput.additionalContext).toContain('phase tdd-refactor');
  });
});
