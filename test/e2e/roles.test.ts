// Roles through real subagents: the client's Agent tool starts `tdd-gate:<agent>` children, and the
// hook sees their agent_type. Also the SubagentStop check on the child's final tdd-result block.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { state, testRepo } from '../helpers/repo.js';
import { bodyLine, denied, describeE2E, E2E_TIMEOUT, dispatch, hooksOf, lastUserText, PLUGIN_ROOT, resultOf, session, systemText, tddResult } from './harness.js';

const TEST = "import { expect, it } from 'vitest';\nimport { add } from '../src/add.js';\n\nit('adds', () => expect(add(1, 2)).toBe(3));\n";
const STUB = '// STUB:TDD\nexport const add = (_a: number, _b: number): number => {\n  throw new Error("not implemented");\n};\n';

/** As /tdd dispatches a role: in the foreground, so the Agent result is the child's final message. */
const agent = (type: string, conversation: string, task: string) => dispatch(type, conversation, task);

const WRITER_DONE = tddResult({
  role: 'test-writer',
  status: 'ok',
  files: ['tests/add.test.ts'],
  command: 'npx vitest run',
  output_excerpt: 'FAIL tests/add.test.ts > adds\nAssertionError: expected 3',
});

describeE2E('roles', (bin) => {
  it('RED, standard mode: the test-writer subagent writes the test; the implementer subagent may not; neither may run a state-changing CLI verb', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-red'));
    const plugin = PLUGIN_ROOT;
    const cli = path.join(plugin, 'dist', 'cli.mjs');
    const r = await session(bin, repo, {
      pluginDir: plugin,
      script: {
        main: [
          { tools: [agent('test-writer', 'writer', 'Write the failing test for SPEC-001.')] },
          { tools: [agent('implementer', 'impl', 'Implement add.')] },
          // The orchestrator itself may not write tests in standard mode.
          { tools: [{ name: 'Write', input: { file_path: repo.path('tests/other.test.ts'), content: TEST } }] },
          { text: 'Done.' },
        ],
        writer: [
          { tools: [{ name: 'Write', input: { file_path: repo.path('tests/add.test.ts'), content: TEST } }] },
          { tools: [{ name: 'Bash', input: { command: `node "${cli}" freeze --verdict .tdd/verdict.md`, description: 'Freeze the tests' } }] },
          { text: `Test written.\n\n${WRITER_DONE}` },
        ],
        impl: [
          { tools: [{ name: 'Write', input: { file_path: repo.path('src/add.ts'), content: STUB } }] },
          { tools: [{ name: 'Bash', input: { command: `node "${cli}" advance refactor`, description: 'Advance' } }] },
          { text: `Blocked.\n\n${tddResult({ role: 'implementer', status: 'blocked', notes: 'not my phase' })}` },
        ],
      },
    });
    // Each child ran with its agent definition as the system prompt.
    expect(systemText(r, 'writer')).toContain(bodyLine(path.join(plugin, 'agents', 'test-writer.md')));
    expect(systemText(r, 'impl')).toContain(bodyLine(path.join(plugin, 'agents', 'implementer.md')));
    // test-writer in RED: allowed.
    expect(resultOf(r, 0, 0, 'writer').is_error, resultOf(r, 0, 0, 'writer').content).toBe(false);
    expect(readFileSync(repo.path('tests/add.test.ts'), 'utf8')).toBe(TEST);
    // A subagent running a state-changing verb: denied.
    const freeze = resultOf(r, 1, 0, 'writer');
    expect(denied(freeze)).toMatch(/^tdd-gate rule \[subagent-cli\]: Blocked `node .*freeze --verdict .tdd\/verdict.md`/u);
    expect(freeze.content).toContain("subagents never run the tdd-gate CLI's state-changing verbs (freeze)");
    expect(freeze.content).toContain('(tdd-gate:test-writer): subagents never run');
    // implementer in RED: the role rule, though the stub carries the marker.
    const stub = resultOf(r, 0, 0, 'impl');
    expect(denied(stub)).toMatch(/^tdd-gate rule \[role\]: Blocked write to source file .*src\/add\.ts \(phase tdd-red, mode standard, agent tdd-gate:implementer\): in standard mode only tdd-gate:test-writer writes tests and sources in tdd-red\./u);
    expect(existsSync(repo.path('src/add.ts'))).toBe(false);
    const advance = resultOf(r, 1, 0, 'impl');
    expect(denied(advance)).toMatch(/^tdd-gate rule \[subagent-cli\]: Blocked `node .*advance .*` \(tdd-gate:implementer\): subagents never run the tdd-gate CLI's state-changing verbs \(advance refactor\)/u);
    // The orchestrator: the role rule names whom to dispatch.
    const own = resultOf(r, 2);
    expect(denied(own)).toMatch(/^tdd-gate rule \[role\]: .*As the orchestrator, dispatch the tdd-gate:test-writer subagent/u);
    expect(existsSync(repo.path('tests/other.test.ts'))).toBe(false);
    // Both children ended with a valid block: SubagentStop let them stop.
    const stops = hooksOf(r, 'SubagentStop');
    expect(stops).toHaveLength(2);
    for (const s of stops) expect(s.stdout).toBe('');
  }, E2E_TIMEOUT);

  it('GREEN, standard mode: the implementer writes the source; the refactorer may not; the test-validator writes nothing, not even through Bash', async () => {
    const repo = testRepo({ files: { 'tests/add.test.ts': TEST, 'src/add.ts': STUB } });
    repo.setState(state('tdd-green'));
    const plugin = PLUGIN_ROOT;
    const impl = 'export const add = (a: number, b: number): number => a + b;\n';
    const r = await session(bin, repo, {
      pluginDir: plugin,
      script: {
        main: [
          { tools: [agent('implementer', 'impl', 'AC-1')] },
          { tools: [agent('refactorer', 'ref', 'Tidy up.')] },
          { tools: [agent('test-validator', 'val', 'Review.')] },
          { text: 'Done.' },
        ],
        impl: [
          { tools: [{ name: 'Read', input: { file_path: repo.path('src/add.ts') } }] },
          { tools: [{ name: 'Write', input: { file_path: repo.path('src/add.ts'), content: impl } }] },
          { text: tddResult({ role: 'implementer', status: 'ok', ac: 'AC-1', files: ['src/add.ts'], command: 'npx vitest run', output_excerpt: 'Tests  1 passed', refactor_needed: 'false' }) },
        ],
        ref: [
          { tools: [{ name: 'Read', input: { file_path: repo.path('src/add.ts') } }] },
          { tools: [{ name: 'Write', input: { file_path: repo.path('src/add.ts'), content: `// tidied\n${impl}` } }] },
          { text: tddResult({ role: 'refactorer', status: 'blocked', notes: 'not my phase' }) },
        ],
        val: [
          { tools: [{ name: 'Bash', input: { command: 'echo "looks fine" > notes.md', description: 'Write a note' } }] },
          { text: tddResult({ role: 'test-validator', status: 'ok', verdict: 'PASS' }) },
        ],
      },
    });
    expect(resultOf(r, 1, 0, 'impl').is_error, resultOf(r, 1, 0, 'impl').content).toBe(false);
    expect(denied(resultOf(r, 1, 0, 'ref'))).toMatch(/^tdd-gate rule \[role\]: Blocked write to source file .*\(phase tdd-green, mode standard, agent tdd-gate:refactorer\): in standard mode only tdd-gate:implementer writes/u);
    expect(denied(resultOf(r, 0, 0, 'val'))).toMatch(/^tdd-gate rule \[validator-read-only\]: /u);
    expect(readFileSync(repo.path('src/add.ts'), 'utf8')).toBe(impl);
    expect(existsSync(repo.path('notes.md'))).toBe(false);
  }, E2E_TIMEOUT);

  it('SubagentStop: a child that ends without a valid tdd-result block is sent back once', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-red'));
    const r = await session(bin, repo, {
      pluginDir: PLUGIN_ROOT,
      script: {
        main: [{ tools: [agent('test-writer', 'writer', 'Write the failing test for SPEC-001.')] }, { text: 'Done.' }],
        writer: [
          { tools: [{ name: 'Write', input: { file_path: repo.path('tests/add.test.ts'), content: TEST } }] },
          { text: 'I wrote the test.' },
          // Sent back: still no block. The second stop goes through (one nudge per child run).
          { text: 'The test is written, as I said.' },
        ],
      },
    });
    const told = lastUserText(r, 'writer', 2);
    expect(told).toContain('tdd-gate [result-format]');
    expect(told).toContain('```tdd-result');
    expect(told).toContain('role: test-writer');
    const stops = hooksOf(r, 'SubagentStop');
    expect(stops).toHaveLength(2);
    expect(JSON.parse(stops[0]!.stdout)).toMatchObject({ decision: 'block' });
    expect(stops[1]!.stdout).toBe('');
    // The child's last words reached the orchestrator.
    expect(resultOf(r, 0).content).toContain('The test is written, as I said.');
    const events = readFileSync(repo.path('.tdd/events.jsonl'), 'utf8');
    expect(events).toContain('"type":"format-violation"');
  }, E2E_TIMEOUT);
});
