// The gate inside the real client, with hand-written state files: what the model is told when a
// write is denied, and what is on disk afterwards.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { git, SPEC_TEXT, state, stateFileFor, testRepo } from '../helpers/repo.js';
import { denied, describeE2E, E2E_TIMEOUT, gateReason, hooksOf, PLUGIN_ROOT, resultOf, session, throwawayHome, type SessionResult } from './harness.js';

const FROZEN_TEST = "import { expect, it } from 'vitest';\nimport { add } from '../src/add.js';\n\nit('adds', () => expect(add(1, 2)).toBe(3));\n";
const NOTEBOOK = `${JSON.stringify({
  cells: [{ cell_type: 'code', id: 'c1', metadata: {}, source: ['assert 1 + 2 == 3'], outputs: [], execution_count: null }],
  metadata: {},
  nbformat: 4,
  nbformat_minor: 5,
}, null, 1)}\n`;
const SOURCE = 'export const add = (a: number, b: number): number => a + b;\n';
const STUB = '// STUB:TDD\nexport const add = (_a: number, _b: number): number => {\n  throw new Error("not implemented");\n};\n';

function greenRepo(mode = 'light-inline') {
  const repo = testRepo({ files: { 'tests/add.test.ts': FROZEN_TEST } });
  repo.setState(state('tdd-green', { mode }));
  return repo;
}

/** The reasons our hook printed for the PreToolUse denies of the session, in order. */
function hookReasons(r: SessionResult): string[] {
  return hooksOf(r, 'PreToolUse')
    .filter((h) => h.stdout.trim().startsWith('{'))
    .map((h) => (JSON.parse(h.stdout) as { hookSpecificOutput: { permissionDecisionReason: string } }).hookSpecificOutput.permissionDecisionReason);
}

/** A denied call: the model got exactly our reason as an error result (in the client's wrapping, if any). */
function expectDenied(r: SessionResult, turn: number, rule: string, ...fragments: string[]): string {
  const reason = denied(resultOf(r, turn));
  expect(reason.startsWith(`tdd-gate rule [${rule}]: `), reason).toBe(true);
  for (const f of fragments) expect(reason).toContain(f);
  expect(hookReasons(r)).toContain(reason);
  return reason;
}

function expectAllowed(r: SessionResult, turn: number): void {
  const res = resultOf(r, turn);
  expect(res.is_error, res.content).toBe(false);
  expect(gateReason(res.content)).toBeNull();
}

describeE2E('gate', (bin) => {
  it('GREEN: Write, Edit and NotebookEdit on frozen tests are denied with our reason; the source write goes through', async () => {
    const repo = greenRepo();
    const test = repo.path('tests/add.test.ts');
    const notebook = repo.write('tests/check.ipynb', NOTEBOOK);
    const r = await session(bin, repo, {
      script: {
        main: [
          { tools: [{ name: 'Read', input: { file_path: test } }] },
          { tools: [{ name: 'Write', input: { file_path: test, content: 'it.skip("adds", () => {});\n' } }] },
          { tools: [{ name: 'Edit', input: { file_path: test, old_string: 'toBe(3)', new_string: 'toBe(4)' } }] },
          { tools: [{ name: 'Write', input: { file_path: repo.path('src/add.ts'), content: SOURCE } }] },
          { tools: [{ name: 'Read', input: { file_path: notebook } }] },
          { tools: [{ name: 'NotebookEdit', input: { notebook_path: notebook, cell_id: 'c1', new_source: 'assert True' } }] },
          { text: 'Done.' },
        ],
      },
    });
    expectDenied(r, 5, 'tests-frozen', 'read-only in tdd-green');
    expect(readFileSync(notebook, 'utf8')).toBe(NOTEBOOK);
    // The exact text the model saw for the Write.
    expect(denied(resultOf(r, 1))).toBe(
      `tdd-gate rule [tests-frozen]: Blocked write to test file ${test} (phase tdd-green, mode light-inline, the main thread (orchestrator)): ` +
        'the tests were certified and frozen, so they are read-only in tdd-green. Make them pass by changing source files only. ' +
        'If a frozen test is wrong, stop and report `TEST_BUG: <file>:<line> — <why>` to the orchestrator instead of changing it. ' +
        'This is the gate working as designed, not an error; do not retry the same call.',
    );
    expectDenied(r, 1, 'tests-frozen');
    expectDenied(r, 2, 'tests-frozen', 'read-only in tdd-green');
    expectAllowed(r, 3);
    expect(readFileSync(test, 'utf8')).toBe(FROZEN_TEST);
    expect(readFileSync(repo.path('src/add.ts'), 'utf8')).toBe(SOURCE);
    // Four writes and two Reads: the gate runs for reads too (held-out tests, docs/heldout.md), and passes them.
    expect(hooksOf(r, 'PreToolUse')).toHaveLength(6);
    expect(hooksOf(r, 'PreToolUse').filter((h) => h.stdout === '')).toHaveLength(3);
  }, E2E_TIMEOUT);

  it('GREEN: Bash commands that write a frozen test are denied; one that writes a source file runs', async () => {
    const repo = greenRepo();
    const test = repo.path('tests/add.test.ts');
    const r = await session(bin, repo, {
      script: {
        main: [
          { tools: [{ name: 'Bash', input: { command: "sed -i 's/toBe(3)/toBe(4)/' tests/add.test.ts", description: 'Edit the test in place' } }] },
          { tools: [{ name: 'Bash', input: { command: 'echo "it.skip(\'x\')" >> tests/add.test.ts', description: 'Append to the test' } }] },
          { tools: [{ name: 'Bash', input: { command: 'git checkout -b escape', description: 'Switch branch' } }] },
          { tools: [{ name: 'Bash', input: { command: `mkdir -p src && printf '%s' '${SOURCE.trim()}' > src/add.ts`, description: 'Write the source' } }] },
          { text: 'Done.' },
        ],
      },
    });
    for (const turn of [0, 1]) {
      const reason = expectDenied(r, turn, 'tests-frozen');
      expect(reason).toContain('tests/add.test.ts');
    }
    expectDenied(r, 2, 'head-move', 'Stay on this branch');
    expectAllowed(r, 3);
    expect(readFileSync(test, 'utf8')).toBe(FROZEN_TEST);
    expect(readFileSync(repo.path('src/add.ts'), 'utf8')).toBe(SOURCE.trim());
    expect(git(repo.root, 'branch', '--show-current').trim()).toBe('main');
  }, E2E_TIMEOUT);

  it('the client settings are control files: switching hooks off is denied, and the gate stays on', async () => {
    const repo = greenRepo();
    const home = throwawayHome();
    const test = repo.path('tests/add.test.ts');
    const off = '{"disableAllHooks": true}';
    const r = await session(bin, repo, {
      home,
      script: {
        main: [
          { tools: [{ name: 'Write', input: { file_path: repo.path('.claude/settings.local.json'), content: off } }] },
          { tools: [{ name: 'Bash', input: { command: `mkdir -p ~/.claude && echo '${off}' > ~/.claude/settings.json`, description: 'Turn hooks off' } }] },
          { tools: [{ name: 'Read', input: { file_path: test } }] },
          { tools: [{ name: 'Write', input: { file_path: test, content: '' } }] },
          { text: 'Done.' },
        ],
      },
    });
    expectDenied(r, 0, 'control-file', 'read-only while a TDD cycle is active');
    expectDenied(r, 1, 'control-file');
    expectDenied(r, 3, 'tests-frozen');
    expect(existsSync(repo.path('.claude/settings.local.json'))).toBe(false);
    expect(existsSync(path.join(home, '.claude', 'settings.json'))).toBe(false);
    expect(readFileSync(test, 'utf8')).toBe(FROZEN_TEST);
  }, E2E_TIMEOUT);

  it('GREEN under --dangerously-skip-permissions: the test write is still denied, the source write goes through', async () => {
    const repo = greenRepo();
    const test = repo.path('tests/add.test.ts');
    const r = await session(bin, repo, {
      skipPermissions: true,
      allowedTools: null,
      script: {
        main: [
          { tools: [{ name: 'Read', input: { file_path: test } }] },
          { tools: [{ name: 'Edit', input: { file_path: test, old_string: 'toBe(3)', new_string: 'toBe(4)' } }] },
          { tools: [{ name: 'Write', input: { file_path: repo.path('src/add.ts'), content: SOURCE } }] },
          { text: 'Done.' },
        ],
      },
    });
    expectDenied(r, 1, 'tests-frozen', 'read-only in tdd-green');
    expectAllowed(r, 2);
    expect(readFileSync(test, 'utf8')).toBe(FROZEN_TEST);
    expect(readFileSync(repo.path('src/add.ts'), 'utf8')).toBe(SOURCE);
  }, E2E_TIMEOUT);

  it('RED: a source write without STUB:TDD is denied, with the marker allowed; test writes are allowed', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-red', { mode: 'light-inline' }));
    const src = repo.path('src/add.ts');
    const r = await session(bin, repo, {
      script: {
        main: [
          { tools: [{ name: 'Write', input: { file_path: src, content: SOURCE } }] },
          { tools: [{ name: 'Write', input: { file_path: src, content: STUB } }] },
          { tools: [{ name: 'Write', input: { file_path: repo.path('tests/add.test.ts'), content: FROZEN_TEST } }] },
          { text: 'Done.' },
        ],
      },
    });
    expectDenied(r, 0, 'red-source', 'in tdd-red only tests are written', 'STUB:TDD');
    expectAllowed(r, 1);
    expectAllowed(r, 2);
    expect(readFileSync(src, 'utf8')).toBe(STUB);
    expect(readFileSync(repo.path('tests/add.test.ts'), 'utf8')).toBe(FROZEN_TEST);
  }, E2E_TIMEOUT);

  it('the SPEC edited after the freeze: every further test and source write is denied', async () => {
    const repo = greenRepo();
    const spec = repo.path('specs/SPEC-001.md');
    const drifted = `${SPEC_TEXT}\n#### Scenario: subtracts\n- THEN 1\n`;
    writeFileSync(spec, drifted);
    const test = repo.path('tests/add.test.ts');
    const r = await session(bin, repo, {
      script: {
        main: [
          { tools: [{ name: 'Write', input: { file_path: repo.path('src/add.ts'), content: SOURCE } }] },
          { tools: [{ name: 'Read', input: { file_path: test } }] },
          { tools: [{ name: 'Edit', input: { file_path: test, old_string: 'toBe(3)', new_string: 'toBe(4)' } }] },
          { tools: [{ name: 'Read', input: { file_path: spec } }] },
          { tools: [{ name: 'Write', input: { file_path: spec, content: SPEC_TEXT } }] },
          { text: 'Done.' },
        ],
      },
    });
    expectDenied(r, 0, 'spec-drift', 'changed after the freeze', 'Stop and tell the user');
    expectDenied(r, 2, 'spec-drift', 'changed after the freeze');
    // The SPEC itself is frozen too: the model cannot quietly "restore" the oracle.
    expectDenied(r, 4, 'spec-frozen', 'the SPEC is the oracle');
    expect(existsSync(repo.path('src/add.ts'))).toBe(false);
    expect(readFileSync(test, 'utf8')).toBe(FROZEN_TEST);
    expect(readFileSync(spec, 'utf8')).toBe(drifted);
  }, E2E_TIMEOUT);

  it('a corrupt state file: every write is denied with the fix in the reason', async () => {
    const repo = testRepo({ files: { 'tests/add.test.ts': FROZEN_TEST } });
    const stateFile = repo.setState(state('tdd-green'));
    writeFileSync(stateFile, '{"version": 1, "phase": "tdd-gr');
    const r = await session(bin, repo, {
      script: {
        main: [
          { tools: [{ name: 'Write', input: { file_path: repo.path('src/add.ts'), content: SOURCE } }] },
          { tools: [{ name: 'Write', input: { file_path: repo.path('tests/new.test.ts'), content: FROZEN_TEST } }] },
          { tools: [{ name: 'Write', input: { file_path: repo.path('notes.md'), content: 'notes\n' } }] },
          { text: 'Done.' },
        ],
      },
    });
    for (const turn of [0, 1, 2]) {
      expectDenied(r, turn, 'state-corrupt', `the state file ${stateFile} is not valid JSON`, 'Run `tdd-gate status`', 'the gate fails closed');
    }
    expect(existsSync(repo.path('src/add.ts'))).toBe(false);
    expect(existsSync(repo.path('tests/new.test.ts'))).toBe(false);
    expect(existsSync(repo.path('notes.md'))).toBe(false);
  }, E2E_TIMEOUT);

  for (const skip of [false, true]) {
    it(`abort from the main thread asks the person; headless (-p${skip ? ', --dangerously-skip-permissions' : ''}) nobody confirms, so it does not run`, async () => {
      const repo = greenRepo();
      const stateFile = repo.path(`.tdd/${stateFileFor('main')}`);
      const before = readFileSync(stateFile, 'utf8');
      const command = `node "${path.join(PLUGIN_ROOT, 'dist', 'cli.mjs')}" abort --reason "giving up"`;
      const r = await session(bin, repo, {
        skipPermissions: skip,
        allowedTools: skip ? null : undefined,
        script: { main: [{ tools: [{ name: 'Bash', input: { command, description: 'Abort the cycle' } }] }, { text: 'Done.' }] },
      });
      const res = resultOf(r, 0);
      expect(res.is_error).toBe(true);
      expect(gateReason(res.content)).toBe(
        `tdd-gate rule [cli-confirm]: \`${command}\` ends the active TDD cycle (phase tdd-green, SPEC SPEC-001) early. Confirm only if you, the user, want to stop this cycle; it is recorded either way.`,
      );
      const [hook] = hooksOf(r, 'PreToolUse');
      expect(JSON.parse(hook!.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'ask' } });
      expect(readFileSync(stateFile, 'utf8')).toBe(before);
    }, E2E_TIMEOUT);
  }
});
