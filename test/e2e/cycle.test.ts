// A whole cycle through the real client and the real CLI, in standard mode: the scripted
// orchestrator runs the CLI verbs through Bash and dispatches each role as a subagent, as the /tdd
// skill prescribes; the evidence record exists at the end.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { testRepo } from '../helpers/repo.js';
import { describeE2E, hooksOf, lastUserText, marker, PLUGIN_ROOT, pluginWithAgents, resultOf, session, tddResult, type Script } from './harness.js';

const STACK = {
  language: 'javascript',
  test_command: 'node --test',
  test_file_glob: '**/*.test.*|tests/**',
  source_file_glob: 'src/**',
  red_confirm: 'AssertionError|ERR_ASSERTION',
  build_error_pattern: 'SyntaxError|ERR_MODULE_NOT_FOUND|Cannot find module',
};
const PLAN = '# Test plan for SPEC-001\n\n- AC-1: add(1, 2) is 3 (tests/add.test.js)\n';
const TEST = "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\n\ntest('adds', () => assert.equal(add(1, 2), 3));\n";
const STUB = '// STUB:TDD\nexport function add(_a, _b) {\n  return 0;\n}\n';
const IMPL = 'export function add(a, b) {\n  return a + b;\n}\n';

function agent(type: string, task: string) {
  return { name: 'Agent', input: { subagent_type: `tdd-gate:${type}`, description: `${type} step`, prompt: `${marker(type)} ${task}` } };
}

describeE2E('cycle', (bin) => {
  it('init → plan → tests → verify red → validator PASS → freeze → implementation → verify green → done, with the evidence file at the end', async () => {
    const repo = testRepo({ stack: STACK, files: { 'package.json': '{ "type": "module" }\n' } });
    const plugin = pluginWithAgents();
    const cli = `node "${path.join(plugin, 'dist', 'cli.mjs')}"`;
    const bash = (command: string) => ({ tools: [{ name: 'Bash', input: { command, description: command.split(' ').slice(2, 4).join(' ') } }] });
    const verdictFile = repo.path('notes/verdict-red.md');
    const verdict = `The tests pin AC-1 and fail on the assertion.\n\n${tddResult({ role: 'test-validator', status: 'ok', verdict: 'PASS' })}`;
    const script: Script = {
      main: [
        bash(`${cli} init --spec specs/SPEC-001.md`),
        { tools: [agent('planner', 'Write the test plan for specs/SPEC-001.md.')] },
        bash(`${cli} advance red --plan .tdd/plans/SPEC-001.md`),
        { tools: [agent('test-writer', 'Write the failing tests for AC-1.')] },
        bash(`${cli} verify red`),
        { tools: [agent('test-validator', 'Review the tests against the SPEC.')] },
        { tools: [{ name: 'Write', input: { file_path: verdictFile, content: verdict } }] },
        bash(`${cli} freeze --verdict notes/verdict-red.md`),
        { tools: [agent('implementer', 'Make the tests pass.')] },
        bash(`${cli} verify green`),
        bash(`${cli} done`),
        { text: 'SPEC-001 is done.' },
      ],
      planner: [
        { tools: [{ name: 'Write', input: { file_path: repo.path('.tdd/plans/SPEC-001.md'), content: PLAN } }] },
        { text: tddResult({ role: 'planner', status: 'ok', files: ['.tdd/plans/SPEC-001.md'], acs: '[AC-1]' }) },
      ],
      'test-writer': [
        { tools: [{ name: 'Write', input: { file_path: repo.path('tests/add.test.js'), content: TEST } }] },
        { tools: [{ name: 'Write', input: { file_path: repo.path('src/add.js'), content: STUB } }] },
        {
          text: tddResult({
            role: 'test-writer',
            status: 'ok',
            files: ['tests/add.test.js', 'src/add.js'],
            command: 'node --test',
            output_excerpt: 'not ok 1 - adds\n  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal',
          }),
        },
      ],
      'test-validator': [{ text: verdict }],
      implementer: [
        { tools: [{ name: 'Read', input: { file_path: repo.path('src/add.js') } }] },
        { tools: [{ name: 'Write', input: { file_path: repo.path('src/add.js'), content: IMPL } }] },
        {
          text: tddResult({
            role: 'implementer',
            status: 'ok',
            files: ['src/add.js'],
            command: 'node --test',
            output_excerpt: 'ok 1 - adds\n# pass 1',
            refactor_needed: 'false',
          }),
        },
      ],
    };
    const r = await session(bin, repo, { pluginDir: plugin, script });

    // Every CLI step succeeded (a refusal would be an error result naming the reason).
    const cliTurns = [0, 2, 4, 7, 9, 10];
    for (const turn of cliTurns) {
      const res = resultOf(r, turn);
      expect(res.is_error, `turn ${turn}: ${res.content}`).toBe(false);
    }
    expect(resultOf(r, 4).content).toContain('valid RED');
    expect(resultOf(r, 7).content).toContain('tdd-red → tdd-green');
    expect(resultOf(r, 9).content).toContain('GREEN');
    expect(resultOf(r, 10).content).toContain('SPEC-001 done');
    // Every write by the right role went through.
    for (const [conversation, turn] of [['planner', 0], ['test-writer', 0], ['test-writer', 1], ['implementer', 1]] as const) {
      const res = resultOf(r, turn, 0, conversation);
      expect(res.is_error, `${conversation} turn ${turn}: ${res.content}`).toBe(false);
    }
    expect(readFileSync(repo.path('src/add.js'), 'utf8')).toBe(IMPL);
    expect(readFileSync(repo.path('tests/add.test.js'), 'utf8')).toBe(TEST);
    // The evidence record.
    const evidenceDir = repo.path('.tdd/evidence');
    const files = readdirSync(evidenceDir).filter((f) => /^SPEC-001-.*\.json$/u.test(f));
    expect(files).toHaveLength(1);
    const evidence = JSON.parse(readFileSync(path.join(evidenceDir, files[0]!), 'utf8')) as Record<string, unknown>;
    expect(evidence).toMatchObject({ spec_id: 'SPEC-001' });
    // Each child ended with a valid block: no SubagentStop sent one back.
    const stops = hooksOf(r, 'SubagentStop');
    expect(stops).toHaveLength(4);
    for (const s of stops) expect(s.stdout, s.stdout).toBe('');
  }, 180_000);
});

describeE2E('cycle after the freeze', (bin) => {
  it('PostToolUse: a frozen test changed by a script the Bash gate cannot see into is restored, and the model is told', async () => {
    const sneak = "import { writeFileSync } from 'node:fs';\nwriteFileSync('tests/add.test.js', \"test('adds', () => {});\\n\");\n";
    const repo = testRepo({ stack: STACK, files: { 'package.json': '{ "type": "module" }\n', 'tools/fix.mjs': sneak } });
    // Frozen by the real CLI, outside the client (light-inline: the main thread writes).
    const cli = (...args: string[]) => execFileSync(process.execPath, [path.join(PLUGIN_ROOT, 'dist', 'cli.mjs'), ...args], { cwd: repo.root, encoding: 'utf8' });
    cli('init', '--spec', 'specs/SPEC-001.md', '--mode', 'light-inline');
    repo.write('.tdd/plans/SPEC-001.md', PLAN);
    cli('advance', 'red', '--plan', '.tdd/plans/SPEC-001.md');
    repo.write('tests/add.test.js', TEST);
    repo.write('src/add.js', STUB);
    cli('verify', 'red');
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
    expect(lastUserText(r, 'main', 1)).toContain(`PostToolUse:Bash hook blocking error from command: "node "\${CLAUDE_PLUGIN_ROOT}/dist/hook.mjs" PostToolUse": ${out.reason}`);
    expect(readFileSync(repo.path('tests/add.test.js'), 'utf8')).toBe(TEST);
  }, 120_000);
});
