// Held-out tests in the real client (docs/heldout.md): after the freeze, the implementer cannot
// read them (a Read of their store and a `cat` of their path are denied), special-cases the visible
// test, is refused by `verify green` on the held-out test by name and assertion only, and a second
// implementer dispatch with that refusal implements the behaviour; `done` brings the file back.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { testRepo } from '../helpers/repo.js';
import { runHookBundle } from '../helpers/hook.js';
import { describeE2E, dispatch, E2E_TIMEOUT, PLUGIN_ROOT, resultOf, session, tddResult, type Script, type TurnContext } from './harness.js';

const STACK = {
  language: 'javascript',
  test_command: 'node --test',
  test_file_glob: '**/*.test.*|tests/**',
  source_file_glob: 'src/**',
  red_confirm: 'AssertionError|ERR_ASSERTION',
  build_error_pattern: 'SyntaxError|ERR_MODULE_NOT_FOUND|Cannot find module',
  heldout: 'required',
};
const PLAN = '# Test plan: SPEC-001\n\n## AC-1: adds\n- Test file: tests/add.test.js, held out: tests/add.heldout.test.js\n';
const HEADER = "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\n\n";
const TEST = `${HEADER}test('AC-1: adds two numbers', () => assert.equal(add(1, 2), 3));\n`;
const HELDOUT = `${HEADER}test('AC-1: adds negative numbers', () => assert.equal(add(-4, 10), 6));\n`;
const STUB = '// STUB:TDD\nexport function add(_a, _b) {\n  return -1;\n}\n';
const SPECIAL = 'export function add(a, b) {\n  if (a === 1 && b === 2) return 3;\n  return -1;\n}\n';
const IMPL = 'export function add(a, b) {\n  return a + b;\n}\n';
const VERDICT = `Both sets pin AC-1.\n\n${tddResult({ role: 'test-validator', status: 'ok', verdict: 'PASS' })}`;

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => (statSync(path.join(dir, n)).isDirectory() ? filesUnder(path.join(dir, n)) : [path.join(dir, n)]));
}

describeE2E('held-out tests', (bin) => {
  it('the implementer cannot read them, special-cases, is refused on the held-out test by name only, then implements and reaches done', async () => {
    const repo = testRepo({ stack: STACK, files: { 'package.json': '{ "type": "module" }\n' } });
    const cliFile = path.join(PLUGIN_ROOT, 'dist', 'cli.mjs');
    const run = (...args: string[]) => execFileSync(process.execPath, [cliFile, ...args], { cwd: repo.root, encoding: 'utf8', env: { ...process.env, CLAUDECODE: '' } });
    run('init', '--spec', 'specs/SPEC-001.md', '--mode', 'standard');
    repo.write('.tdd/plans/SPEC-001.md', PLAN);
    run('advance', 'red', '--plan', '.tdd/plans/SPEC-001.md');
    repo.write('tests/add.test.js', TEST);
    repo.write('tests/add.heldout.test.js', HELDOUT);
    repo.write('src/add.js', STUB);
    run('verify', 'red');
    // The validator's verdict as its SubagentStop records it (standard mode's freeze checks that).
    runHookBundle({ session_id: 's', cwd: repo.root, hook_event_name: 'SubagentStop', stop_hook_active: false, agent_id: 'agent-v', agent_type: 'tdd-gate:test-validator', last_assistant_message: VERDICT }, { event: 'SubagentStop' });
    repo.write('verdict.md', VERDICT);
    run('freeze', '--verdict', 'verdict.md');
    expect(existsSync(repo.path('tests/add.heldout.test.js'))).toBe(false);
    const store = filesUnder(repo.path('.git/tdd-gate/heldout')).find((f) => f.endsWith('.gz') && f.includes(`${path.sep}files${path.sep}`))!;
    expect(store).toBeDefined();

    const cli = `node "${cliFile}"`;
    const bash = (command: string) => ({ tools: [{ name: 'Bash', input: { command, description: command.replace(cli, 'tdd-gate').slice(0, 60) } }] });
    const refusal = (ctx: TurnContext) => ctx.toolResults.find((t) => t.tool_use_id === 'toolu_e2e_main_1_0')?.content ?? '';
    const script: Script = {
      main: [
        /* 0 */ { tools: [dispatch('implementer', 'impl-1', 'AC-1')] },
        /* 1 */ bash(`${cli} verify green`),
        /* 2 */ (ctx) => ({ tools: [dispatch('implementer', 'impl-2', `AC-1. verify green refused:\n${refusal(ctx)}`)] }),
        /* 3 */ bash(`${cli} verify green`),
        /* 4 */ bash(`${cli} done`),
        /* 5 */ { text: 'Done.' },
      ],
      'impl-1': [
        { tools: [{ name: 'Read', input: { file_path: store } }] },
        { tools: [{ name: 'Grep', input: { pattern: 'assert', glob: '*.heldout.test.js', output_mode: 'content' } }] },
        { tools: [{ name: 'Bash', input: { command: 'cat tests/add.heldout.test.js', description: 'Look at the held-out test' } }] },
        { tools: [{ name: 'Read', input: { file_path: repo.path('src/add.js') } }] },
        { tools: [{ name: 'Write', input: { file_path: repo.path('src/add.js'), content: SPECIAL } }] },
        { text: tddResult({ role: 'implementer', status: 'ok', ac: 'AC-1', files: ['src/add.js'], command: 'node --test', output_excerpt: 'ok 1 - AC-1: adds two numbers', refactor_needed: 'false' }) },
      ],
      'impl-2': [
        { tools: [{ name: 'Read', input: { file_path: repo.path('src/add.js') } }] },
        { tools: [{ name: 'Write', input: { file_path: repo.path('src/add.js'), content: IMPL } }] },
        { text: tddResult({ role: 'implementer', status: 'ok', ac: 'AC-1', files: ['src/add.js'], command: 'node --test', output_excerpt: 'ok 1 - AC-1: adds two numbers', refactor_needed: 'false' }) },
      ],
    };
    const r = await session(bin, repo, { script });

    // Every read was denied: the Read of the store by the client's own permission rule, which the
    // freeze put in .claude/settings.local.json (before any hook runs); the search and the shell
    // command by the gate's rule, and recorded.
    const read = resultOf(r, 0, 0, 'impl-1');
    expect(read.is_error, read.content).toBe(true);
    expect(read.content).not.toContain('add(-4, 10)');
    for (const turn of [1, 2]) {
      const res = resultOf(r, turn, 0, 'impl-1');
      expect(res.is_error, res.content).toBe(true);
      expect(res.content).toContain('[heldout-hidden]');
      expect(res.content).not.toContain('add(-4, 10)');
    }
    const events = readFileSync(repo.path('.tdd/events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.filter((e) => e.rule === 'heldout-hidden' && e.role === 'tdd-gate:implementer').map((e) => e.tool)).toEqual(['Grep', 'Bash']);
    // The special case is refused on the held-out test, by its name and assertion only.
    const refused = resultOf(r, 1);
    expect(refused.is_error, refused.content).toBe(true);
    expect(refused.content).toContain('1 of 2 tests fail: held-out test "AC-1: adds negative numbers"');
    expect(refused.content).toMatch(/-1 !== 6/);
    expect(refused.content).not.toContain('add(-4, 10)');
    expect(refused.content).not.toContain('add.heldout.test.js');
    // The second dispatch got that line, implemented the behaviour, and the cycle ended.
    expect(resultOf(r, 4, 0, 'impl-1').is_error, resultOf(r, 4, 0, 'impl-1').content).toBe(false);
    const wrote = resultOf(r, 1, 0, 'impl-2');
    expect(wrote.is_error, wrote.content).toBe(false);
    expect(resultOf(r, 3).is_error, resultOf(r, 3).content).toBe(false);
    const done = resultOf(r, 4);
    expect(done.is_error, done.content).toBe(false);
    expect(done.content).toMatch(/held-out: 1 tests in 1 files passed unseen; back in the work tree/);
    expect(readFileSync(repo.path('tests/add.heldout.test.js'), 'utf8')).toBe(HELDOUT);
  }, E2E_TIMEOUT);
});
