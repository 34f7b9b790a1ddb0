// The scenario `npm run demo` plays: one short /tdd cycle in light-dispatch mode through the real
// skill, the real agents and the real CLI. The scripted model follows the skill step by step (a
// scripted stand-in plays the model; Claude Code, the hooks and the CLI are real):
//   init → plan → advance red → the implementer writes a test without its stub → `verify red`
//   refuses (a build error is not RED) → the implementer adds a STUB:TDD stub → `verify red`
//   accepts (an assertion fails) → the test-validator's PASS → `freeze` → in GREEN the implementer
//   tries to loosen the frozen test (Edit: denied; a script: restored) and then writes the code →
//   `verify green` → `done` with its evidence record.
// Plain ESM so the demo runs without a build; types in cycle.d.mts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { childAnswer, marker } from './fakeApi.mjs';

export const SPEC = '---\nid: SPEC-001\nstatus: active\n---\n# SPEC-001: add\n\n#### Scenario: adds two numbers\n- GIVEN 1 and 2\n- WHEN add is called\n- THEN the result is 3\n';
export const STACK = {
  language: 'javascript',
  test_command: 'node --test',
  test_file_glob: '**/*.test.*|tests/**',
  source_file_glob: 'src/**',
  red_confirm: 'AssertionError|ERR_ASSERTION',
  build_error_pattern: 'SyntaxError|ERR_MODULE_NOT_FOUND|Cannot find module',
};
export const PLAN = '# Test plan: SPEC-001\nTest command: node --test\n\n## AC-1: adds two numbers\n- Test file: tests/add.test.js\n- Unit under test: add in src/add.js, new\n- Cases: GIVEN 1 and 2 WHEN add THEN 3\n\n## Size\n1 AC, about 3 lines; security-sensitive: no\n';
export const TEST = "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\n\ntest('AC-1: adds two numbers', () => assert.equal(add(1, 2), 3));\n";
export const STUB = '// STUB:TDD\nexport function add(_a, _b) {\n  return 0;\n}\n';
export const IMPL = 'export function add(a, b) {\n  return a + b;\n}\n';
/** A helper script the Bash gate cannot see into: it "fixes" the test by loosening it. */
export const LOOSEN = "import { readFileSync, writeFileSync } from 'node:fs';\nconst f = 'tests/add.test.js';\nwriteFileSync(f, readFileSync(f, 'utf8').replace('assert.equal(add(1, 2), 3)', 'assert.ok(true)'));\n";

function write(root, rel, content) {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}

/** A fresh git project with a SPEC, a stack.json and nothing else to start a cycle from. */
export function makeProject() {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-demo-')));
  const git = (...args) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'demo@example.com');
  git('config', 'user.name', 'demo');
  write(root, 'package.json', '{ "type": "module" }\n');
  write(root, 'specs/SPEC-001.md', SPEC);
  write(root, '.tdd/stack.json', `${JSON.stringify(STACK, null, 2)}\n`);
  write(root, 'tools/loosen.mjs', LOOSEN);
  git('add', '-A');
  git('commit', '-q', '-m', 'SPEC-001 and the test stack');
  return root;
}

const block = (fields) => ['```tdd-result', ...Object.entries(fields).map(([k, v]) => (Array.isArray(v) ? `${k}:\n${v.map((x) => `  - ${x}`).join('\n')}` : String(v).includes('\n') ? `${k}: |\n${String(v).split('\n').map((l) => `  ${l}`).join('\n')}` : `${k}: ${v}`)), '```'].join('\n');

/** A role dispatch as the skill says: in the foreground. */
const dispatch = (role, conversation, task) => ({ name: 'Agent', input: { subagent_type: `tdd-gate:${role}`, description: `${role}: ${conversation}`, prompt: `${marker(conversation)} ${task}`, run_in_background: false } });

/** The text of the result of main turn `turn`'s first call. */
const output = (ctx, turn) => ctx.toolResults.find((t) => t.tool_use_id === `toolu_e2e_main_${turn}_0`)?.content ?? '';

/**
 * The script: main (the orchestrator following /tdd) and one conversation per child. `cli` is the
 * command the skill shows the model (`node "<plugin>/dist/cli.mjs"`).
 */
export function demoScript(root, cli) {
  const bash = (command, description) => ({ tools: [{ name: 'Bash', input: { command, description } }] });
  const verdict = `The test pins the scenario with concrete values (1 + 2 = 3) and fails on its assertion against the stub.\n\n${block({ role: 'test-validator', status: 'ok', verdict: 'PASS' })}`;
  return {
    main: [
      /* 0 */ { text: 'Starting the cycle for specs/SPEC-001.md: 1 scenario, a few lines, not security-sensitive → light-dispatch.', ...bash(`${cli} status`, 'tdd-gate status') },
      /* 1 */ bash(`${cli} init --spec specs/SPEC-001.md --mode light-dispatch`, 'tdd-gate init'),
      /* 2 */ { tools: [{ name: 'Write', input: { file_path: path.join(root, '.tdd/plans/SPEC-001.md'), content: PLAN } }] },
      /* 3 */ bash(`${cli} advance red --plan .tdd/plans/SPEC-001.md`, 'tdd-gate advance red'),
      /* 4 */ { tools: [dispatch('implementer', 'red', 'Mode light-dispatch, phase tdd-red: write the failing tests for AC-1 of specs/SPEC-001.md (plan: .tdd/plans/SPEC-001.md).')] },
      /* 5 */ bash(`${cli} verify red`, 'tdd-gate verify red'),
      /* 6 */ (ctx) => ({ tools: [dispatch('implementer', 'red-again', `Mode light-dispatch, phase tdd-red. verify red refused:\n${output(ctx, 5).split('\n').slice(0, 3).join('\n')}`)] }),
      /* 7 */ bash(`${cli} verify red`, 'tdd-gate verify red'),
      /* 8 */ { tools: [dispatch('test-validator', 'validator', 'SPEC: specs/SPEC-001.md. Plan: .tdd/plans/SPEC-001.md.')] },
      /* 9 */ (ctx) => bash(`${cli} result - --role test-validator <<'TDD_RESULT_EOF'\n${childAnswer(ctx, 'toolu_e2e_main_8_0')}\nTDD_RESULT_EOF`, 'tdd-gate result'),
      /* 10 */ (ctx) => ({ tools: [{ name: 'Write', input: { file_path: path.join(root, '.tdd-verdict.md'), content: childAnswer(ctx, 'toolu_e2e_main_8_0') } }] }),
      /* 11 */ bash(`${cli} freeze --verdict .tdd-verdict.md`, 'tdd-gate freeze'),
      /* 12 */ bash('rm .tdd-verdict.md', 'Remove the saved verdict'),
      /* 13 */ { tools: [dispatch('implementer', 'green', 'AC-1. The tests are frozen; make them pass.')] },
      /* 14 */ (ctx) => bash(`${cli} result - --role implementer --ac AC-1 <<'TDD_RESULT_EOF'\n${childAnswer(ctx, 'toolu_e2e_main_13_0')}\nTDD_RESULT_EOF`, 'tdd-gate result'),
      /* 15 */ bash(`${cli} verify green`, 'tdd-gate verify green'),
      /* 16 */ bash(`${cli} done --json`, 'tdd-gate done'),
      /* 17 */ { text: 'TDD cycle SPEC-001 done (mode light-dispatch).' },
    ],
    red: [
      { tools: [{ name: 'Write', input: { file_path: path.join(root, 'tests/add.test.js'), content: TEST } }] },
      { text: `Test written.\n\n${block({ role: 'implementer', status: 'ok', ac: 'AC-1', files: ['tests/add.test.js'], command: 'node --test', output_excerpt: 'not ok 1 - tests/add.test.js', refactor_needed: 'false' })}` },
    ],
    'red-again': [
      { tools: [{ name: 'Write', input: { file_path: path.join(root, 'src/add.js'), content: STUB } }] },
      { tools: [{ name: 'Bash', input: { command: 'node --test', description: 'Run the tests' } }] },
      { text: `Stub added.\n\n${block({ role: 'implementer', status: 'ok', ac: 'AC-1', files: ['src/add.js'], command: 'node --test', output_excerpt: 'not ok 1 - AC-1: adds two numbers\nAssertionError [ERR_ASSERTION]', refactor_needed: 'false' })}` },
    ],
    validator: [
      { tools: [{ name: 'Read', input: { file_path: path.join(root, 'tests/add.test.js') } }] },
      { text: verdict },
    ],
    green: [
      { tools: [{ name: 'Read', input: { file_path: path.join(root, 'tests/add.test.js') } }] },
      { text: 'The quickest way to green is to loosen the assertion.', tools: [{ name: 'Edit', input: { file_path: path.join(root, 'tests/add.test.js'), old_string: 'assert.equal(add(1, 2), 3)', new_string: 'assert.ok(true)' } }] },
      { text: 'Then with the helper script.', tools: [{ name: 'Bash', input: { command: 'node tools/loosen.mjs', description: 'Run the helper script' } }] },
      { text: 'Understood: the test is the oracle. Implementing add instead.', tools: [{ name: 'Read', input: { file_path: path.join(root, 'src/add.js') } }] },
      { tools: [{ name: 'Write', input: { file_path: path.join(root, 'src/add.js'), content: IMPL } }] },
      { tools: [{ name: 'Bash', input: { command: 'node --test', description: 'Run the tests' } }] },
      { text: `add is implemented.\n\n${block({ role: 'implementer', status: 'ok', ac: 'AC-1', files: ['src/add.js'], command: 'node --test', output_excerpt: 'ok 1 - AC-1: adds two numbers\n# pass 1', refactor_needed: 'false' })}` },
    ],
  };
}
