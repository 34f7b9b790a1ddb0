// A whole cycle through the real client, the real /tdd skill and the real CLI, in standard mode:
// the scripted orchestrator does what the skill's procedure says, step by step (CLI verbs through
// Bash, each role as a subagent, every child's message through `tdd-gate result`); the evidence
// record exists at the end.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { testRepo } from '../helpers/repo.js';
import { afterNotification, childAnswer, describeE2E, E2E_TIMEOUT, dispatch, hooksOf, isLaunchNotice, lastUserText, PLUGIN_ROOT, resultOf, session, tddResult, type Script, type TurnContext } from './harness.js';
import { runtimePath } from './opaque.js';

const STACK = {
  language: 'javascript',
  test_command: 'node --test',
  test_file_glob: '**/*.test.*|tests/**',
  source_file_glob: 'src/**',
  // The skill's heredoc form of `result`, as the model follows it: behind the OS wall (on by
  // default) the gate refuses a heredoc and asks for the file form (test/e2e/hardened.test.ts covers that).
  os_wall: 'off',
  red_confirm: 'AssertionError|ERR_ASSERTION',
  build_error_pattern: 'SyntaxError|ERR_MODULE_NOT_FOUND|Cannot find module',
};
const PLAN = '# Test plan: SPEC-001\nTest command: node --test\n\n## AC-1: adds\n- Test file: tests/add.test.js\n- Unit under test: add in src/add.js, new\n- Cases: GIVEN 1 and 2 WHEN add THEN 3\n- Stubs the tests need (marked STUB:TDD): add(a, b)\n\n## Size\n1 AC, about 3 lines of change; security-sensitive: no\n';
const TEST = "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\n\ntest('AC-1: adds two numbers', () => assert.equal(add(1, 2), 3));\n";
const STUB = '// STUB:TDD\nexport function add(_a, _b) {\n  return 0;\n}\n';
const IMPL = 'export function add(a, b) {\n  return a + b;\n}\n';
const REFACTORED = '/** The sum of two numbers. */\nexport function add(augend, addend) {\n  return augend + addend;\n}\n';

/** A role dispatch as the skill says: in the foreground, so the Agent result is the child's answer. */
function agent(type: string, task: string) {
  return { tools: [dispatch(type, type, task)] };
}

/** The child's final message as the orchestrator received it (the Agent result, or its completion notification). */
function childMessage(ctx: TurnContext, turn: number): string {
  return childAnswer(ctx, `toolu_e2e_main_${turn}_0`);
}

describeE2E('cycle', (bin) => {
  it('/tdd in standard mode, step by step as the skill says: init, plan, RED, validator PASS, freeze, GREEN per AC, REFACTOR, done — the evidence file exists', async () => {
    const repo = testRepo({ stack: STACK, files: { 'package.json': '{ "type": "module" }\n' } });
    const plugin = PLUGIN_ROOT;
    // The skill shows the CLI with ${CLAUDE_PLUGIN_ROOT} already replaced by the plugin folder.
    const cli = `node "${path.join(plugin, 'dist', 'cli.mjs')}"`;
    const bash = (command: string, description = command.replace(cli, 'tdd-gate').slice(0, 60)) => ({ tools: [{ name: 'Bash', input: { command, description } }] });
    const result = (role: string, turn: number, ac = '') => (ctx: TurnContext) =>
      bash(`${cli} result - --role ${role}${ac ? ` --ac ${ac}` : ''} <<'TDD_RESULT_EOF'\n${childMessage(ctx, turn)}\nTDD_RESULT_EOF`, `tdd-gate result --role ${role}`);
    const verdictText = `The test pins AC-1 with a concrete value and fails on the assertion.\n\n${tddResult({ role: 'test-validator', status: 'ok', verdict: 'PASS' })}`;
    const script: Script = {
      main: [
        /* 0 */ bash(`${cli} status`),
        /* 1 */ bash(`${cli} init --spec specs/SPEC-001.md --mode standard`),
        /* 2 */ agent('planner', 'SPEC: specs/SPEC-001.md. Plan: .tdd/plans/SPEC-001.md.'),
        /* 3 */ result('planner', 2),
        /* 4 */ bash(`${cli} advance red --plan .tdd/plans/SPEC-001.md`),
        /* 5 */ agent('test-writer', 'SPEC: specs/SPEC-001.md. Plan: .tdd/plans/SPEC-001.md. Cover AC-1.'),
        /* 6 */ result('test-writer', 5),
        /* 7 */ bash(`${cli} verify red`),
        /* 8 */ agent('test-validator', 'SPEC: specs/SPEC-001.md. Plan: .tdd/plans/SPEC-001.md.'),
        /* 9 */ result('test-validator', 8),
        /* 10 */ (ctx) => ({ tools: [{ name: 'Write', input: { file_path: repo.path('.tdd-verdict.md'), content: childMessage(ctx, 8) } }] }),
        /* 11 */ bash(`${cli} freeze --verdict .tdd-verdict.md`),
        /* 12 */ bash('rm .tdd-verdict.md'),
        /* 13 */ bash(`${cli} handoff red --ac AC-1`),
        /* 14 */ bash(`${cli} context --role implementer --ac AC-1`),
        /* 15 */ (ctx) => {
          const context = ctx.toolResults.find((t) => t.tool_use_id === 'toolu_e2e_main_14_0')?.content ?? '';
          return agent('implementer', `AC-1\n\n${context}`);
        },
        /* 16 */ result('implementer', 15, 'AC-1'),
        /* 17 */ bash(`${cli} verify green`),
        // The implementer asked for a refactor: step 6 of the skill.
        /* 18 */ bash(`${cli} advance refactor`),
        /* 19 */ bash(`${cli} handoff green`),
        /* 20 */ bash(`${cli} context --role refactorer`),
        /* 21 */ (ctx) => {
          const context = ctx.toolResults.find((t) => t.tool_use_id === 'toolu_e2e_main_20_0')?.content ?? '';
          return agent('refactorer', `refactor_reasons: [naming]\n\n${context}`);
        },
        /* 22 */ result('refactorer', 21),
        /* 23 */ bash(`${cli} verify refactor`),
        /* 24 */ bash(`${cli} done --json`),
        /* 25 */ { text: 'TDD cycle SPEC-001 done (mode standard).' },
      ],
      planner: [
        { tools: [{ name: 'Read', input: { file_path: repo.path('specs/SPEC-001.md') } }] },
        { tools: [{ name: 'Write', input: { file_path: repo.path('.tdd/plans/SPEC-001.md'), content: PLAN } }] },
        { text: `Plan written.\n\n${tddResult({ role: 'planner', status: 'ok', files: ['.tdd/plans/SPEC-001.md'], acs: '[AC-1]', notes: '1 AC, about 3 lines; not security-sensitive' })}` },
      ],
      'test-writer': [
        { tools: [{ name: 'Write', input: { file_path: repo.path('tests/add.test.js'), content: TEST } }] },
        { tools: [{ name: 'Write', input: { file_path: repo.path('src/add.js'), content: STUB } }] },
        { tools: [{ name: 'Bash', input: { command: 'node --test', description: 'Run the tests' } }] },
        {
          text: tddResult({
            role: 'test-writer',
            status: 'ok',
            files: ['tests/add.test.js', 'src/add.js'],
            command: 'node --test',
            output_excerpt: "not ok 1 - AC-1: adds two numbers\n  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal",
          }),
        },
      ],
      'test-validator': [
        { tools: [{ name: 'Read', input: { file_path: repo.path('tests/add.test.js') } }] },
        { text: verdictText },
      ],
      implementer: [
        { tools: [{ name: 'Read', input: { file_path: repo.path('src/add.js') } }] },
        { tools: [{ name: 'Write', input: { file_path: repo.path('src/add.js'), content: IMPL } }] },
        { tools: [{ name: 'Bash', input: { command: 'node --test', description: 'Run the tests' } }] },
        {
          text: tddResult({
            role: 'implementer',
            status: 'ok',
            ac: 'AC-1',
            files: ['src/add.js'],
            command: 'node --test',
            output_excerpt: 'ok 1 - AC-1: adds two numbers\n# pass 1',
            refactor_needed: 'true',
            refactor_reasons: ['naming'],
          }),
        },
      ],
      refactorer: [
        { tools: [{ name: 'Read', input: { file_path: repo.path('src/add.js') } }] },
        { tools: [{ name: 'Write', input: { file_path: repo.path('src/add.js'), content: REFACTORED } }] },
        {
          text: tddResult({
            role: 'refactorer',
            status: 'ok',
            files: ['src/add.js'],
            command: 'node --test',
            output_excerpt: 'ok 1 - AC-1: adds two numbers\n# pass 1',
          }),
        },
      ],
    };
    const r = await session(bin, repo, { pluginDir: plugin, promptPrefix: '/tdd', prompt: 'specs/SPEC-001.md --mode standard', script });

    // The commands the script ran are the skill's, as the model saw them.
    const skill = lastUserText(r, 'main', 0);
    expect(skill).toContain(`${cli} init --spec <path> --mode <mode>`);
    // The skill hands results over in a file (one form with the OS wall up or not); this script,
    // with the wall off, uses the standard-input form the CLI still takes.
    expect(skill).toContain(`${cli} result .tdd-result.md --role implementer --ac AC-1`);
    expect(skill).toContain('`run_in_background: false`');
    // Every step went through (a refusal or a deny is an error result naming the reason).
    for (let turn = 0; turn < 25; turn++) {
      if ([2, 5, 8, 15, 21].includes(turn)) continue; // Agent calls, checked through their children
      const res = resultOf(r, turn);
      expect(res.is_error, `main turn ${turn} (${JSON.stringify(res.input).slice(0, 120)}): ${res.content}`).toBe(false);
    }
    for (const turn of [3, 6, 9, 16, 22]) expect(resultOf(r, turn).content.split('\n')[0], `result at turn ${turn}`).toMatch(/^proceed\b/u);
    expect(resultOf(r, 7).content).toContain('valid RED');
    expect(resultOf(r, 11).content).toContain('tdd-red → tdd-green');
    expect(resultOf(r, 17).content).toContain('GREEN');
    expect(resultOf(r, 18).content).toContain('tdd-green → tdd-refactor');
    const done = JSON.parse(resultOf(r, 24).content) as Record<string, unknown>;
    for (const [conversation, turn] of [['planner', 1], ['test-writer', 0], ['test-writer', 1], ['implementer', 1], ['refactorer', 1]] as const) {
      const res = resultOf(r, turn, 0, conversation);
      expect(res.is_error, `${conversation} turn ${turn}: ${res.content}`).toBe(false);
    }
    expect(readFileSync(repo.path('src/add.js'), 'utf8')).toBe(REFACTORED);
    expect(readFileSync(repo.path('tests/add.test.js'), 'utf8')).toBe(TEST);
    expect(existsSync(repo.path('.tdd-verdict.md'))).toBe(false);
    // The evidence record.
    const evidenceDir = repo.path('.tdd/evidence');
    const files = readdirSync(evidenceDir).filter((f) => /^SPEC-001-.*\.json$/u.test(f));
    expect(files).toHaveLength(1);
    const evidence = JSON.parse(readFileSync(path.join(evidenceDir, files[0]!), 'utf8')) as Record<string, unknown>;
    expect(evidence).toMatchObject({ spec_id: 'SPEC-001' });
    expect(JSON.stringify(done)).toContain(files[0]!);
    // Each child ended with a valid block: no SubagentStop sent one back.
    const stops = hooksOf(r, 'SubagentStop');
    expect(stops).toHaveLength(5);
    for (const stop of stops) expect(stop.stdout, stop.stdout).toBe('');
  }, E2E_TIMEOUT);
});

/** A repository in tdd-red with a valid RED receipt, set up by the real CLI outside the client. */
function redRepo(mode: string, files: Record<string, string> = {}) {
  const repo = testRepo({ stack: STACK, files: { 'package.json': '{ "type": "module" }\n', ...files } });
  const cli = (...args: string[]) => execFileSync(process.execPath, [path.join(PLUGIN_ROOT, 'dist', 'cli.mjs'), ...args], { cwd: repo.root, encoding: 'utf8' });
  cli('init', '--spec', 'specs/SPEC-001.md', '--mode', mode);
  repo.write('.tdd/plans/SPEC-001.md', PLAN);
  cli('advance', 'red', '--plan', '.tdd/plans/SPEC-001.md');
  repo.write('tests/add.test.js', TEST);
  repo.write('src/add.js', STUB);
  cli('verify', 'red');
  return { repo, cli };
}

describeE2E('cycle with a background child', (bin) => {
  it('a validator that runs in the background anyway: its final message arrives as a task notification, goes through `result`, and the freeze accepts it', async () => {
    // Standard mode: the freeze takes only a verdict that the validator's own SubagentStop recorded.
    const { repo } = redRepo('standard');
    const cli = `node "${path.join(PLUGIN_ROOT, 'dist', 'cli.mjs')}"`;
    const launch = 'toolu_e2e_main_0_0';
    const verdictText = `The test pins AC-1 and fails on the assertion.\n\n${tddResult({ role: 'test-validator', status: 'ok', verdict: 'PASS' })}`;
    const r = await session(bin, repo, {
      script: {
        main: [
          /* 0 */ { tools: [dispatch('test-validator', 'test-validator', 'SPEC: specs/SPEC-001.md. Plan: .tdd/plans/SPEC-001.md.', { background: true })] },
          // The launch notice is not the answer: the orchestrator waits for the notification.
          /* 1 */ afterNotification(launch, (ctx) => ({
            tools: [{ name: 'Bash', input: { command: `${cli} result - --role test-validator <<'TDD_RESULT_EOF'\n${childAnswer(ctx, launch)}\nTDD_RESULT_EOF`, description: 'tdd-gate result' } }],
          })),
          /* 2 */ (ctx) => ({ tools: [{ name: 'Write', input: { file_path: repo.path('.tdd-verdict.md'), content: childAnswer(ctx, launch) } }] }),
          /* 3 */ { tools: [{ name: 'Bash', input: { command: `${cli} freeze --verdict .tdd-verdict.md`, description: 'tdd-gate freeze' } }] },
          /* 4 */ { text: 'Frozen.' },
        ],
        'test-validator': [
          { tools: [{ name: 'Read', input: { file_path: repo.path('tests/add.test.js') } }] },
          { text: verdictText },
        ],
      },
    });
    const launched = resultOf(r, 0);
    expect(isLaunchNotice(launched.content), launched.content).toBe(true);
    const note = r.api.notifications.find((n) => n.tool_use_id === launch);
    expect(note?.result).toBe(verdictText);
    expect(resultOf(r, 1).content.split('\n')[0]).toMatch(/^proceed\b/u);
    expect(resultOf(r, 2).is_error, resultOf(r, 2).content).toBe(false);
    const freeze = resultOf(r, 3);
    expect(freeze.is_error, freeze.content).toBe(false);
    expect(freeze.content).toContain('tdd-red → tdd-green');
  }, E2E_TIMEOUT);
});

describeE2E('cycle after the freeze', (bin) => {
  it('PostToolUse: a frozen test changed by a script the Bash gate cannot see into is restored, and the model is told', async () => {
    // The target is put together at run time: the static check has nothing to deny, so this is
    // the restore's case. (A script that names the test is denied up front: test/e2e/tamper.test.ts.)
    const sneak = `import { writeFileSync } from 'node:fs';\nconst target = ${runtimePath('tests/add.test.js')};\nwriteFileSync(target, "test('adds', () => {});\\n");\n`;
    // Frozen by the real CLI, outside the client (light-inline: the main thread writes).
    const { repo, cli } = redRepo('light-inline', { 'tools/fix.mjs': sneak });
    repo.write('notes/verdict.md', tddResult({ role: 'test-validator', status: 'ok', verdict: 'PASS' }));
    cli('freeze', '--verdict', 'notes/verdict.md');

    const r = await session(bin, repo, {
      script: {
        main: [
          { tools: [{ name: 'Bash', input: { command: 'node tools/fix.mjs', description: 'Run the fix script' } }] },
          { text: 'Done.' },
        ],
      },
    });
    const post = hooksOf(r, 'PostToolUse');
    expect(post).toHaveLength(1);
    const out = JSON.parse(post[0]!.stdout) as { decision: string; reason: string };
    expect(out.decision).toBe('block');
    expect(out.reason).toMatch(/^tdd-gate \[frozen-restored\]: the last Bash command changed 1 frozen file\(s\) \(tests\/add\.test\.js\)/u);
    // What the model was told: the command's own result, then the hook's reason as a system reminder.
    expect(resultOf(r, 0).content).toBe('(Bash completed with no output)');
    expect(lastUserText(r, 'main', 1)).toContain(`PostToolUse:Bash hook blocking error from command: "node "\${CLAUDE_PLUGIN_ROOT}/dist/hook.cjs" PostToolUse": ${out.reason}`);
    expect(readFileSync(repo.path('tests/add.test.js'), 'utf8')).toBe(TEST);
  }, E2E_TIMEOUT);
});
