// The scenario `npm run demo` plays: one short /tdd-gate:tdd cycle in standard mode, a separate
// subagent per role, through the real skill, the real agents and the real CLI. The scripted model
// follows the skill step by step (a scripted stand-in plays the model; Claude Code, the hooks and
// the CLI are real):
//   init → the planner writes the plan → advance red → the test-writer writes a test without its
//   stub; `result` re-runs it and sends it back (a test that does not load is not RED) → the
//   test-writer adds a STUB:TDD stub; `result` proceeds → `verify red` (an assertion fails) → the
//   test-validator's PASS → `freeze` → handoff and context for the implementer → in GREEN the
//   implementer tries to loosen the frozen test (Edit: denied; a script: restored) and then writes
//   the code → `verify green` → `done` with its evidence record.
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
export const PLAN = '# Test plan: SPEC-001\nTest command: node --test\n\n## AC-1: adds two numbers\n- Test file: tests/add.test.js\n- Unit under test: add in src/add.js, new\n- Cases: GIVEN 1 and 2 WHEN add THEN 3\n- Stubs the tests need (marked STUB:TDD): add(a, b)\n\n## Size\n1 AC, about 3 lines; security-sensitive: no\n';
export const TEST = "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\n\ntest('AC-1: adds two numbers', () => assert.equal(add(1, 2), 3));\n";
export const STUB = '// STUB:TDD\nexport function add(_a, _b) {\n  return 0;\n}\n';
export const IMPL = 'export function add(a, b) {\n  return a + b;\n}\n';
/** A helper script the Bash gate cannot see into: it "fixes" the test by loosening it. */
export const LOOSEN = "import { readFileSync, writeFileSync } from 'node:fs';\nconst f = 'tests/add.test.js';\nwriteFileSync(f, readFileSync(f, 'utf8').replace('assert.equal(add(1, 2), 3)', 'assert.ok(true)'));\n";
/** The slash command the demo types: the skill's full name (plugin skills are namespaced). */
export const COMMAND = '/tdd-gate:tdd';

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

/** A role dispatch as the skill says: in the foreground. `conversation` names the child's script. */
const dispatch = (role, conversation, task) => ({ name: 'Agent', input: { subagent_type: `tdd-gate:${role}`, description: `${role}: ${conversation}`, prompt: `${marker(conversation)} ${task}`, run_in_background: false } });

/** The text of the result of main turn `turn`'s first call. */
const output = (ctx, turn) => ctx.toolResults.find((t) => t.tool_use_id === `toolu_e2e_main_${turn}_0`)?.content ?? '';

/** What `tdd-gate result` says to send a retried child: exactly the text after its `--- retry prompt ---` line. */
export function retryPrompt(resultOutput) {
  const at = resultOutput.indexOf('--- retry prompt ---\n');
  return at === -1 ? '' : resultOutput.slice(at + '--- retry prompt ---\n'.length).replace(/\s+$/u, '');
}

/**
 * The script: main (the orchestrator following /tdd-gate:tdd in standard mode) and one
 * conversation per child. `cli` is the command the skill shows the model
 * (`node "<plugin>/dist/cli.mjs"`).
 */
export function demoScript(root, cli) {
  const bash = (command, description) => ({ tools: [{ name: 'Bash', input: { command, description } }] });
  // The skill's form: the child's final message, whole, into .tdd-result.md with the Write tool,
  // then `result` on that file as a call of its own (it works with the OS wall up or not).
  const result = (role, turn, ac = '') => [
    (ctx) => ({ tools: [{ name: 'Write', input: { file_path: file('.tdd-result.md'), content: childAnswer(ctx, `toolu_e2e_main_${turn}_0`) } }] }),
    bash(`${cli} result .tdd-result.md --role ${role}${ac ? ` --ac ${ac}` : ''}`, 'tdd-gate result'),
  ];
  const file = (rel) => path.join(root, rel);
  const verdict = `The test pins the scenario with concrete values (1 + 2 = 3) and fails on its assertion against the stub.\n\n${block({ role: 'test-validator', status: 'ok', verdict: 'PASS' })}`;
  return {
    main: [
      /* 0 */ { text: 'SPEC-001: 1 scenario → standard mode, a separate subagent for each role.', ...bash(`${cli} status`, 'tdd-gate status') },
      /* 1 */ bash(`${cli} init --spec specs/SPEC-001.md --mode standard`, 'tdd-gate init'),
      /* 2 */ { tools: [dispatch('planner', 'planner', 'SPEC: specs/SPEC-001.md. Plan: .tdd/plans/SPEC-001.md.')] },
      /* 3, 4 */ ...result('planner', 2),
      /* 5 */ bash(`${cli} advance red --plan .tdd/plans/SPEC-001.md`, 'tdd-gate advance red'),
      /* 6 */ { tools: [dispatch('test-writer', 'test-writer', 'SPEC: specs/SPEC-001.md. Plan: .tdd/plans/SPEC-001.md. Cover AC-1.')] },
      /* 7, 8 */ ...result('test-writer', 6),
      /* 9 */ (ctx) => ({ tools: [dispatch('test-writer', 'test-writer-retry', retryPrompt(output(ctx, 8)))] }),
      /* 10, 11 */ ...result('test-writer', 9),
      /* 12 */ bash(`${cli} verify red`, 'tdd-gate verify red'),
      /* 13 */ { tools: [dispatch('test-validator', 'test-validator', 'SPEC: specs/SPEC-001.md. Plan: .tdd/plans/SPEC-001.md.')] },
      /* 14, 15 */ ...result('test-validator', 13),
      /* 16 */ (ctx) => ({ tools: [{ name: 'Write', input: { file_path: file('.tdd-verdict.md'), content: childAnswer(ctx, 'toolu_e2e_main_13_0') } }] }),
      /* 17 */ bash(`${cli} freeze --verdict .tdd-verdict.md`, 'tdd-gate freeze'),
      /* 18 */ bash('rm .tdd-verdict.md', 'Remove the saved verdict'),
      /* 19 */ bash(`${cli} handoff red --ac AC-1`, 'tdd-gate handoff red'),
      /* 20 */ bash(`${cli} context --role implementer --ac AC-1`, 'tdd-gate context'),
      /* 21 */ (ctx) => ({ tools: [dispatch('implementer', 'implementer', `AC-1\n\n${output(ctx, 20)}`)] }),
      /* 22, 23 */ ...result('implementer', 21, 'AC-1'),
      /* 24 */ bash(`${cli} verify green`, 'tdd-gate verify green'),
      /* 25 */ bash(`${cli} done --json`, 'tdd-gate done'),
      /* 26 */ { text: 'TDD cycle SPEC-001 done (mode standard): planner, test-writer, test-validator and implementer each did their own part.' },
    ],
    planner: [
      { tools: [{ name: 'Read', input: { file_path: file('specs/SPEC-001.md') } }] },
      { tools: [{ name: 'Write', input: { file_path: file('.tdd/plans/SPEC-001.md'), content: PLAN } }] },
      { text: `Plan written.\n\n${block({ role: 'planner', status: 'ok', files: ['.tdd/plans/SPEC-001.md'], acs: '[AC-1]', notes: '1 AC, about 3 lines; not security-sensitive' })}` },
    ],
    'test-writer': [
      { tools: [{ name: 'Write', input: { file_path: file('tests/add.test.js'), content: TEST } }] },
      { tools: [{ name: 'Bash', input: { command: 'node --test', description: 'Run the tests' } }] },
      { text: `Test written; it fails.\n\n${block({ role: 'test-writer', status: 'ok', files: ['tests/add.test.js'], command: 'node --test', output_excerpt: 'not ok 1 - tests/add.test.js' })}` },
    ],
    'test-writer-retry': [
      { tools: [{ name: 'Write', input: { file_path: file('src/add.js'), content: STUB } }] },
      { tools: [{ name: 'Bash', input: { command: 'node --test', description: 'Run the tests' } }] },
      { text: `Stub added; the test now fails on its assertion.\n\n${block({ role: 'test-writer', status: 'ok', files: ['src/add.js'], command: 'node --test', output_excerpt: 'not ok 1 - AC-1: adds two numbers\nAssertionError [ERR_ASSERTION]' })}` },
    ],
    'test-validator': [
      { tools: [{ name: 'Read', input: { file_path: file('tests/add.test.js') } }] },
      { text: verdict },
    ],
    implementer: [
      { tools: [{ name: 'Read', input: { file_path: file('tests/add.test.js') } }] },
      { text: 'The quickest way to green is to loosen the assertion.', tools: [{ name: 'Edit', input: { file_path: file('tests/add.test.js'), old_string: 'assert.equal(add(1, 2), 3)', new_string: 'assert.ok(true)' } }] },
      { text: 'Then with the helper script.', tools: [{ name: 'Bash', input: { command: 'node tools/loosen.mjs', description: 'Run the helper script' } }] },
      { text: 'Understood: the test is the oracle. Implementing add instead.', tools: [{ name: 'Read', input: { file_path: file('src/add.js') } }] },
      { tools: [{ name: 'Write', input: { file_path: file('src/add.js'), content: IMPL } }] },
      { tools: [{ name: 'Bash', input: { command: 'node --test', description: 'Run the tests' } }] },
      { text: `add is implemented.\n\n${block({ role: 'implementer', status: 'ok', ac: 'AC-1', files: ['src/add.js'], command: 'node --test', output_excerpt: 'ok 1 - AC-1: adds two numbers\n# pass 1', refactor_needed: 'false' })}` },
    ],
  };
}
