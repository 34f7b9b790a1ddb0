import { describe, expect, it } from 'vitest';
import { otherToolSchema, preToolUseSchema } from '../../src/state/schema/event.js';
import { checkBaseState, checkOtherTool, checkPreToolUse, checkStack } from '../../src/state/schema/handChecks.js';
import { baseStateSchema } from '../../src/state/schema/state.js';
import { stackSchema } from '../../src/state/schema/stack.js';

// The hook validates its three inputs by hand (ADR 007); the zod schemas stay the definition.
// Every key of every valid example is swapped for each of these values, removed, and joined by an
// unknown key: the hand-written check must give zod's verdict each time.
const VALUES: unknown[] = [
  undefined,
  null,
  true,
  0,
  1,
  -1,
  1.5,
  7200,
  7201,
  100,
  101,
  Number.MAX_SAFE_INTEGER + 2,
  '',
  'x',
  ' ',
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855',
  'tdd-green',
  'done',
  'standard',
  'replace',
  'Write',
  'Bash',
  [],
  [''],
  ['tests/**'],
  ['tests/**', 3],
  {},
  { old_string: 'a', new_string: 'b' },
];

interface Verdicts {
  accepts: (v: unknown) => boolean;
  zod: (v: unknown) => boolean;
}

function variants(base: Record<string, unknown>): unknown[] {
  const out: unknown[] = [base, { ...base, an_unknown_key: 'x' }, null, [], 'text', 3];
  for (const key of Object.keys(base)) {
    const { [key]: _removed, ...without } = base;
    out.push(without);
    for (const v of VALUES) out.push({ ...base, [key]: v });
  }
  return out;
}

function expectSameVerdicts(examples: Record<string, unknown>[], { accepts, zod }: Verdicts): void {
  let compared = 0;
  for (const example of examples) {
    for (const v of variants(example)) {
      expect({ input: v, accepted: accepts(v) }).toEqual({ input: v, accepted: zod(v) });
      compared++;
    }
  }
  expect(compared).toBeGreaterThan(100);
}

const STATE = {
  version: 1,
  phase: 'tdd-green',
  mode: 'standard',
  spec_id: 'SPEC-001',
  spec_path: 'specs/SPEC-001.md',
  spec_hash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  plan_artifact: '',
  started_at: '2026-01-01T00:00:00Z',
  phase_entered_at: '2026-01-01T00:00:00Z',
};

const STACK = {
  $schema: './stack.schema.json',
  language: 'typescript',
  test_command: 'npx vitest run',
  test_file_glob: 'tests/**|**/*.test.ts',
  source_file_glob: ['src/**'],
  red_confirm: 'AssertionError',
  build_error_pattern: 'SyntaxError',
  lint_command: 'npx eslint .',
  test_config_glob: 'vitest.config.*',
  test_timeout_seconds: 600,
  coverage_command: 'npx vitest run --coverage',
  coverage_pattern: 'All files[^|]*\\|\\s*([\\d.]+)',
  coverage_threshold: 80,
  test_env_allow: ['JAVA_HOME'],
  oracle_isolation: 'namespace',
  oracle_ignore_processes: ['code'],
  runner_reach_allow: 'src/testing/**',
  bash_allow: ['cmake', 'make test'],
  heldout_glob: '**/*.heldout.test.ts',
  heldout: 'required',
  os_wall: 'off',
};

const COMMON = { session_id: 's', transcript_path: '/t', cwd: '/repo', hook_event_name: 'PreToolUse', tool_use_id: 't', agent_id: 'a', agent_type: 'tdd-gate:implementer', permission_mode: 'default' };
const EVENTS = [
  { ...COMMON, tool_name: 'Write', tool_input: { file_path: 'src/a.ts', content: 'x' } },
  { ...COMMON, tool_name: 'Edit', tool_input: { file_path: 'src/a.ts', old_string: 'a', new_string: 'b', replace_all: true } },
  { ...COMMON, tool_name: 'MultiEdit', tool_input: { file_path: 'src/a.ts', edits: [{ old_string: 'a', new_string: 'b' }] } },
  { ...COMMON, tool_name: 'NotebookEdit', tool_input: { notebook_path: 'n.ipynb', new_source: 'x', cell_id: 'c', cell_type: 'code', edit_mode: 'insert' } },
  { ...COMMON, tool_name: 'Bash', tool_input: { command: 'ls' } },
];

describe('hand-written checks give the zod schemas\u2019 verdicts', () => {
  it('on the state file', () => {
    expectSameVerdicts([STATE, { ...STATE, spec_hash: '', phase: 'done', extra_cli_key: { any: 1 } }], {
      accepts: (v) => checkBaseState(v).ok,
      zod: (v) => baseStateSchema.safeParse(v).success,
    });
  });

  it('on stack.json, its every optional key included', () => {
    // A key added to the schema must be added here (and to the hand check) too.
    expect(Object.keys(STACK).sort()).toEqual(Object.keys(stackSchema._zod.def.shape).sort());
    const minimal = { language: 'ts', test_command: 'x', test_file_glob: 't/**', source_file_glob: 's/**', red_confirm: 'x' };
    expectSameVerdicts([STACK, minimal], { accepts: (v) => checkStack(v).ok, zod: (v) => stackSchema.safeParse(v).success });
  });

  it('on the PreToolUse input of each gated tool, and inside its tool_input', () => {
    const nested = EVENTS.map((e) => variants(e.tool_input).map((tool_input) => ({ ...e, tool_input })));
    const all = [...EVENTS.flatMap((e) => variants(e)), ...nested.flat()];
    for (const v of all) expect({ input: v, accepted: checkPreToolUse(v).ok }).toEqual({ input: v, accepted: preToolUseSchema.safeParse(v).success });
  });

  it('on the PreToolUse input of MCP tools, Monitor and EnterWorktree', () => {
    const others = [
      { ...COMMON, tool_name: 'mcp__fs__write_file', tool_input: { path: 'src/a.ts', content: 'x' } },
      { ...COMMON, tool_name: 'Monitor', tool_input: { command: 'tail -f log' } },
      { ...COMMON, tool_name: 'EnterWorktree', tool_input: {} },
    ];
    const all = [...others.flatMap((e) => variants(e)), ...others.flatMap((e) => variants(e.tool_input).map((tool_input) => ({ ...e, tool_input })))];
    for (const v of all) expect({ input: v, accepted: checkOtherTool(v).ok }).toEqual({ input: v, accepted: otherToolSchema.safeParse(v).success });
  });

  it.each([
    ['an unknown stack key', () => checkStack({ ...STACK, test_glob: 'x' }), '(top level): unknown key "test_glob"'],
    ['an empty test command', () => checkStack({ ...STACK, test_command: '' }), 'test_command: must not be empty'],
    ['a bad phase', () => checkBaseState({ ...STATE, phase: 'green' }), 'phase: phase must be one of tdd-plan, tdd-red, tdd-green, tdd-refactor, done'],
    ['a Write without content', () => checkPreToolUse({ ...EVENTS[0], tool_input: { file_path: 'a' } }), 'tool_input.content: is missing (it must be a string)'],
  ])('names the key on %s', (_name, check, issues) => {
    expect(check()).toEqual({ ok: false, issues });
  });
});
