import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import type { HookRun } from '../helpers/hook.js';
import { runHookInProcess } from '../helpers/hookInProcess.js';
import { DEFAULT_STACK, git, state, testRepo } from '../helpers/repo.js';

const TW = { agent_type: 'tdd-gate:test-writer' };
const IMPL = { agent_type: 'tdd-gate:implementer' };
const REF = { agent_type: 'tdd-gate:refactorer' };

function expectDeny(r: HookRun, rule: string) {
  expect(r.status).toBe(0);
  expect(r.decision).toBe('deny');
  expect(r.reason).toContain(`[${rule}]`);
  expect(r.stdout).not.toContain('"allow"');
}

function expectPass(r: HookRun) {
  expect(r.stderr).toBe('');
  expect(r).toMatchObject({ status: 0, decision: 'pass', stdout: '' });
}

describe('no active cycle: the gate stays out of the way', () => {
  it('passes outside a git repository', async () => {
    const dir = path.join(testRepo().root, '..');
    expectPass(await runHookInProcess(ev.write({ cwd: dir }, 'tests/a.test.ts')));
  });

  it('passes with no state file for the branch', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'), 'other-branch');
    expectPass(await runHookInProcess(ev.write({ cwd: repo.root }, 'tests/a.test.ts')));
  });

  it('passes in phase done', async () => {
    const repo = testRepo();
    repo.setState(state('done'));
    expectPass(await runHookInProcess(ev.write({ cwd: repo.root }, 'tests/a.test.ts')));
  });

  it('passes tools it does not gate', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    expectPass(await runHookInProcess({ cwd: repo.root, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: 'tests/a.test.ts' } }));
  });
});

describe('tdd-green', () => {
  it.each([
    ['Write', (cwd: string) => ev.write({ cwd, ...IMPL }, 'tests/a.test.ts')],
    ['Edit', (cwd: string) => ev.edit({ cwd, ...IMPL }, 'tests/a.test.ts', 'expect(1)', 'expect(2)')],
    ['MultiEdit', (cwd: string) => ev.multiEdit({ cwd, ...IMPL }, 'tests/a.test.ts', [{ old_string: 'a', new_string: 'b' }])],
    ['NotebookEdit', (cwd: string) => ev.notebook({ cwd, ...IMPL }, 'tests/nb.test.ipynb', 'x')],
  ])('denies a test write by %s', async (_tool, make) => {
    const repo = testRepo({ files: { 'tests/a.test.ts': 'expect(1)\n' } });
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(make(repo.root)), 'tests-frozen');
  });

  it('lets the implementer write sources and other files', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    expectPass(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'src/a.ts')));
    expectPass(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'docs/notes.md')));
  });

  it('denies the orchestrator and other agents a source write in standard mode', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root }, 'src/a.ts')), 'role');
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, agent_type: 'general-purpose' }, 'src/a.ts')), 'role');
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...TW }, 'src/a.ts')), 'role');
  });

  it('lets anyone write sources in light modes', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green', { mode: 'light-inline' }));
    expectPass(await runHookInProcess(ev.write({ cwd: repo.root }, 'src/a.ts')));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root }, 'tests/a.test.ts')), 'tests-frozen');
  });

  it('freezes test-runner config files with the tests', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'vitest.config.ts')), 'tests-frozen');
  });

  it('honours a custom test_config_glob', async () => {
    const repo = testRepo({ stack: { ...DEFAULT_STACK, test_config_glob: 'fixtures/**' } });
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'fixtures/data.json')), 'tests-frozen');
    expectPass(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'vitest.config.ts')));
  });
});

describe('SPEC drift after the freeze', () => {
  it('denies every test and source write once the SPEC changed, in green and refactor', async () => {
    const repo = testRepo();
    repo.write('specs/SPEC-001.md', '# changed\n');
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'src/a.ts')), 'spec-drift');
    repo.setState(state('tdd-refactor'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...REF }, 'src/a.ts')), 'spec-drift');
  });

  it('ignores whitespace-only changes that normalize away', async () => {
    const repo = testRepo();
    repo.write('specs/SPEC-001.md', '# SPEC-001  \r\n\r\n#### Scenario: adds\r\n- GIVEN 1 and 2\t\r\n- THEN 3\r\n\r\n\r\n');
    repo.setState(state('tdd-green'));
    expectPass(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'src/a.ts')));
  });

  it('treats a deleted SPEC as drift', async () => {
    const repo = testRepo();
    git(repo.root, 'rm', '-q', 'specs/SPEC-001.md');
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'src/a.ts')), 'spec-drift');
  });

  it('hashes a large SPEC', async () => {
    const repo = testRepo();
    repo.write('specs/SPEC-001.md', 'line of requirements text\n'.repeat(40_000));
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'src/a.ts')), 'spec-drift');
  });
});

describe('tdd-red', () => {
  it('lets the test-writer write tests', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-red'));
    expectPass(await runHookInProcess(ev.write({ cwd: repo.root, ...TW }, 'tests/a.test.ts')));
  });

  it('denies a source write without the marker and allows it with the marker', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-red'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...TW }, 'src/a.ts', 'export const a = 1;\n')), 'red-source');
    expectPass(await runHookInProcess(ev.write({ cwd: repo.root, ...TW }, 'src/a.ts', '// STUB:TDD\nexport function a() { throw new Error("todo"); }\n')));
  });

  it('judges an Edit by the file after the edit', async () => {
    const repo = testRepo({ files: { 'src/stub.ts': '// STUB:TDD\nexport function a() { throw new Error("todo"); }\n', 'src/real.ts': 'export const b = 1;\n' } });
    repo.setState(state('tdd-red'));
    expectPass(await runHookInProcess(ev.edit({ cwd: repo.root, ...TW }, 'src/stub.ts', 'throw new Error("todo")', 'throw new Error("not yet")')));
    expectDeny(await runHookInProcess(ev.edit({ cwd: repo.root, ...TW }, 'src/stub.ts', '// STUB:TDD\n', '')), 'red-source');
    expectDeny(await runHookInProcess(ev.edit({ cwd: repo.root, ...TW }, 'src/real.ts', 'b = 1', 'b = 2')), 'red-source');
    expectPass(await runHookInProcess(ev.edit({ cwd: repo.root, ...TW }, 'src/real.ts', 'export const b = 1;', '// STUB:TDD\nexport const b = 1;')));
  });

  it('judges a NotebookEdit by the notebook after the edit', async () => {
    const nb = JSON.stringify({ cells: [{ id: 'c1', cell_type: 'code', source: ['# STUB:TDD\n'] }, { id: 'c2', cell_type: 'code', source: ['x = 1'] }] });
    const repo = testRepo({ files: { 'src/nb.ipynb': nb } });
    repo.setState(state('tdd-red'));
    expectPass(await runHookInProcess(ev.notebook({ cwd: repo.root, ...TW }, 'src/nb.ipynb', 'x = 2', { cell_id: 'c2' })));
    expectDeny(await runHookInProcess(ev.notebook({ cwd: repo.root, ...TW }, 'src/nb.ipynb', 'x = 2', { cell_id: 'c1' })), 'red-source');
  });

  it('keeps the implementer out of RED', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-red'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'tests/a.test.ts')), 'role');
  });
});

describe('tdd-plan', () => {
  it('allows only the plan, by the planner or the orchestrator', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-plan'));
    expectPass(await runHookInProcess(ev.write({ cwd: repo.root }, '.tdd/plans/SPEC-001.md')));
    expectPass(await runHookInProcess(ev.write({ cwd: repo.root, agent_type: 'tdd-gate:planner' }, '.tdd/plans/SPEC-001.md')));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...TW }, '.tdd/plans/SPEC-001.md')), 'role');
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, agent_type: 'tdd-gate:planner' }, 'tests/a.test.ts')), 'plan-phase');
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, agent_type: 'tdd-gate:planner' }, 'src/a.ts')), 'plan-phase');
  });
});

describe('control files and the SPEC', () => {
  it.each(['tdd-plan', 'tdd-red', 'tdd-green', 'tdd-refactor'])('%s: denies .tdd/, Claude settings and the SPEC', async (phase) => {
    const repo = testRepo();
    repo.setState(state(phase));
    for (const p of ['.tdd/stack.json', `.tdd/state-main-000000.json`, '.claude/settings.json', '.claude/settings.local.json']) {
      expectDeny(await runHookInProcess(ev.write({ cwd: repo.root }, p, '{"disableAllHooks":true}')), 'control-file');
    }
    expectDeny(await runHookInProcess(ev.edit({ cwd: repo.root }, 'specs/SPEC-001.md', 'THEN 3', 'THEN 4')), 'spec-frozen');
  });

  it('denies the home settings files', async () => {
    const repo = testRepo();
    const home = path.join(repo.root, '..', path.basename(repo.root) + '-home');
    mkdirSync(path.join(home, '.claude'), { recursive: true });
    repo.setState(state('tdd-green'));
    const env = { HOME: home };
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root }, path.join(home, '.claude/settings.json')), { env }), 'control-file');
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root }, path.join(home, '.claude.json')), { env }), 'control-file');
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root }, path.join(home, '.claude/plugins/x/hooks/hooks.json')), { env }), 'control-file');
  });
});

describe('canonical paths', () => {
  const cases: [string, (root: string) => string][] = [
    ['absolute', (root) => path.join(root, 'tests/a.test.ts')],
    ['./ prefix', () => './tests/a.test.ts'],
    ['.. inside', () => 'src/../tests/a.test.ts'],
    ['repeated /', () => 'tests//a.test.ts'],
    ['absolute with //', (root) => `${root}//tests///a.test.ts`],
    ['via a sibling path', (root) => `${root}/../${path.basename(root)}/tests/a.test.ts`],
  ];
  it.each(cases)('resolves %s paths', async (_name, make) => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, make(repo.root))), 'tests-frozen');
  });

  it('resolves relative paths from a subdirectory cwd', async () => {
    const repo = testRepo({ files: { 'src/x.ts': '' } });
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.path('src'), ...IMPL }, '../tests/a.test.ts')), 'tests-frozen');
  });

  it('classifies a symlink in src/ that points into tests/ as a test', async () => {
    const repo = testRepo({ files: { 'tests/a.test.ts': 'x' } });
    mkdirSync(repo.path('src'), { recursive: true });
    symlinkSync('../tests/a.test.ts', repo.path('src/link.ts'));
    symlinkSync('../tests/new.test.ts', repo.path('src/dangling.ts'));
    symlinkSync('../tests', repo.path('src/testsdir'));
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'src/link.ts')), 'tests-frozen');
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'src/dangling.ts')), 'tests-frozen');
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'src/testsdir/b.test.ts')), 'tests-frozen');
  });

  it('classifies a symlink in tests/ pointing to a source as a test (the write may replace the link)', async () => {
    const repo = testRepo({ files: { 'src/a.ts': 'x' } });
    mkdirSync(repo.path('tests'), { recursive: true });
    symlinkSync('../src/a.ts', repo.path('tests/alias.ts'));
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'tests/alias.ts')), 'tests-frozen');
  });

  it('treats paths outside the repository as anything else', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    expectPass(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, '/tmp/tests/a.test.ts')));
    expectPass(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, '../outside/tests/a.test.ts')));
  });

  it('handles non-ASCII names', async () => {
    const repo = testRepo({ stack: { ...DEFAULT_STACK, test_file_glob: 'tésts/**|**/*.тест.ts' } });
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'tésts/ünï.ts')), 'tests-frozen');
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'src/файл.тест.ts')), 'tests-frozen');
    expectPass(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'src/日本語.ts')));
  });
});

describe('branches and worktrees', () => {
  it.each(['feat/login', 'fix/ünï-cødé', 'rel/v1.2.3+x_y', 'x'.repeat(120), 'we!rd@{name}'.replace('@{', '-')])('finds the state of branch %s', async (branch) => {
    const repo = testRepo({ branch });
    repo.setState(state('tdd-green'), branch);
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'tests/a.test.ts')), 'tests-frozen');
  });

  it('uses HEAD for a detached HEAD', async () => {
    const repo = testRepo();
    git(repo.root, 'checkout', '-q', '--detach');
    repo.setState(state('tdd-green'), 'HEAD');
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'tests/a.test.ts')), 'tests-frozen');
  });

  it('gives a worktree its own root and state', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    const wt = `${repo.root}-wt`;
    git(repo.root, 'worktree', 'add', '-q', '-b', 'feature', wt);
    try {
      expectPass(await runHookInProcess(ev.write({ cwd: wt }, 'tests/a.test.ts')));
      mkdirSync(path.join(wt, '.tdd'), { recursive: true });
      writeFileSync(path.join(wt, '.tdd/stack.json'), JSON.stringify(DEFAULT_STACK));
      const file = path.join(wt, '.tdd', path.basename(repo.setState(state('tdd-green'), 'feature')));
      writeFileSync(file, JSON.stringify(state('tdd-green')));
      expectDeny(await runHookInProcess(ev.write({ cwd: wt, ...IMPL }, 'tests/a.test.ts')), 'tests-frozen');
      // From the main checkout the worktree is another project, and its own cycle judges the write.
      expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, `${wt}/tests/a.test.ts`)), 'tests-frozen');
    } finally {
      git(repo.root, 'worktree', 'remove', '--force', wt);
    }
  });
});

describe('fail closed, loudly', () => {
  const write = (cwd: string) => ev.write({ cwd, ...IMPL }, 'src/a.ts');

  it.each([
    ['not JSON', '{"phase": ', 'state-corrupt'],
    ['an unknown phase', JSON.stringify(state('tdd-blue')), 'state-corrupt'],
    ['a missing key', JSON.stringify({ ...state('tdd-green'), spec_path: undefined }), 'state-corrupt'],
    ['an unknown old version', JSON.stringify({ ...state('tdd-green'), version: 0 }), 'state-corrupt'],
    ['a newer version', JSON.stringify({ ...state('tdd-green'), version: 7 }), 'state-newer'],
    ['a bad spec hash', JSON.stringify({ ...state('tdd-green'), spec_hash: 'XYZ' }), 'state-corrupt'],
    ['an array', '[]', 'state-corrupt'],
  ])('denies on a state file with %s and names the file', async (_name, text, rule) => {
    const repo = testRepo();
    const file = repo.setState(state('tdd-green'));
    writeFileSync(file, text);
    const r = await runHookInProcess(write(repo.root));
    expectDeny(r, rule);
    expect(r.reason).toContain(path.basename(file));
    expect(r.reason).toContain('tdd-gate');
  });

  it.each([
    ['missing', null],
    ['not JSON', '{'],
    ['an unknown key', JSON.stringify({ ...DEFAULT_STACK, test_glob: 'x' })],
    ['a missing key', JSON.stringify({ ...DEFAULT_STACK, test_command: undefined })],
    ['a bad regex', JSON.stringify({ ...DEFAULT_STACK, red_confirm: '(unclosed' })],
    ['a bad build_error_pattern', JSON.stringify({ ...DEFAULT_STACK, build_error_pattern: '[z-a]' })],
  ])('denies when stack.json is %s during a cycle', async (_name, text) => {
    const repo = testRepo({ stack: text === null ? null : text });
    repo.setState(state('tdd-green'));
    const r = await runHookInProcess(write(repo.root));
    expectDeny(r, 'stack-invalid');
    expect(r.reason).toContain('.tdd/stack.json');
  });

  it('names the unknown key', async () => {
    const repo = testRepo({ stack: JSON.stringify({ ...DEFAULT_STACK, test_glob: 'x' }) });
    repo.setState(state('tdd-green'));
    expect((await runHookInProcess(write(repo.root))).reason).toContain('"test_glob"');
  });

  it.each([
    ['empty input', ''],
    ['not JSON', '{"tool_name":'],
    ['JSON null', 'null'],
    ['a missing tool_input', JSON.stringify({ cwd: '/tmp', tool_name: 'Write' })],
    ['a missing tool_name', JSON.stringify({ cwd: '/tmp', tool_input: { file_path: 'a' } })],
    ['a missing file_path', JSON.stringify({ cwd: '/tmp', tool_name: 'Write', tool_input: { content: 'x' } })],
    ['a missing cwd', JSON.stringify({ tool_name: 'Write', tool_input: { file_path: 'a', content: 'x' } })],
  ])('denies %s', async (_name, raw) => {
    const r = await runHookInProcess(raw, { raw: true });
    expectDeny(r, 'bad-input');
  });

  it('tolerates unknown keys in the input', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    expectPass(await runHookInProcess({ ...ev.write({ cwd: repo.root, ...IMPL }, 'src/a.ts'), brand_new_field: { x: 1 } }));
  });

  it('never answers allow', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    for (const e of [ev.write({ cwd: repo.root, ...IMPL }, 'src/a.ts'), ev.write({ cwd: repo.root, ...IMPL }, 'tests/a.test.ts')]) {
      expect((await runHookInProcess(e)).stdout).not.toContain('allow');
    }
  });

  it('can be switched off by a person with TDD_GATE_DISABLE=1', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    const r = await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'tests/a.test.ts'), { env: { TDD_GATE_DISABLE: '1' } });
    expect(r.decision).toBe('pass');
  });

  it('logs every deny to .tdd/events.jsonl', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'tests/a.test.ts'));
    const { readFileSync } = await import('node:fs');
    const line = JSON.parse(readFileSync(repo.path('.tdd/events.jsonl'), 'utf8').trim().split('\n').pop()!);
    expect(line).toMatchObject({ type: 'hook-deny', tool: 'Write', target: 'tests/a.test.ts', rule: 'tests-frozen', role: 'tdd-gate:implementer', phase: 'tdd-green' });
  });
});

describe('other ways to the same file', () => {
  it('treats a hard-linked file as a possible test in GREEN', async () => {
    const { linkSync } = await import('node:fs');
    const repo = testRepo({ files: { 'tests/a.test.ts': 'expect(1)\n', 'src/ok.ts': '' } });
    linkSync(repo.path('tests/a.test.ts'), repo.path('src/alias.ts'));
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'src/alias.ts')), 'tests-frozen');
    expectPass(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'src/ok.ts')));
  });

  it('treats a second name of a control file as the control file, for the file tools and Bash alike', async () => {
    const { linkSync } = await import('node:fs');
    const repo = testRepo({ files: { '.claude/settings.local.json': '{}\n', 'tests/a.test.ts': 'expect(1)\n' } });
    linkSync(repo.path('.claude/settings.local.json'), repo.path('tests/cfg.json'));
    // RED allows test writes: only the identity of the file says it is the settings.
    repo.setState(state('tdd-red'));
    const WRITER = { agent_type: 'tdd-gate:test-writer' };
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...WRITER }, 'tests/cfg.json', '{"disableAllHooks":true}')), 'control-file');
    expectDeny(await runHookInProcess(ev.bash({ cwd: repo.root, ...WRITER }, `echo '{"disableAllHooks":true}' > tests/cfg.json`)), 'control-file');
  });

  it('protects the git dir, which holds HEAD and with it the branch state', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, '.git/HEAD', 'ref: refs/heads/elsewhere\n')), 'control-file');
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, '.git/refs/heads/main', '0'.repeat(40))), 'control-file');
  });

  it('expands ~ to the home directory', async () => {
    const repo = testRepo();
    const home = `${repo.root}-home`;
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root }, '~/.claude/settings.json'), { env: { HOME: home } }), 'control-file');
  });
});

describe('the session cwd is not the only way into a project', () => {
  it('judges a Write into a project with a cycle from a cwd outside it', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    const elsewhere = path.dirname(repo.root);
    expectDeny(await runHookInProcess(ev.write({ cwd: elsewhere, ...IMPL }, path.join(repo.root, 'tests/a.test.ts'))), 'tests-frozen');
    expectDeny(await runHookInProcess(ev.write({ cwd: elsewhere, ...IMPL }, `${path.basename(repo.root)}/tests/a.test.ts`)), 'tests-frozen');
  });

  it('judges a Write from inside another repository', async () => {
    const repo = testRepo();
    const other = testRepo();
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(ev.write({ cwd: other.root, ...IMPL }, path.join(repo.root, 'tests/a.test.ts'))), 'tests-frozen');
    expectPass(await runHookInProcess(ev.write({ cwd: other.root, ...IMPL }, path.join(other.root, 'tests/a.test.ts'))));
  });

  it('judges a Bash command naming the project by absolute path from a cwd outside it', async () => {
    const repo = testRepo({ files: { 'tests/a.test.ts': 'x' } });
    repo.setState(state('tdd-green'));
    const r = await runHookInProcess(ev.bash({ cwd: '/tmp', ...IMPL }, `rm ${repo.root}/tests/a.test.ts`));
    expectDeny(r, 'tests-frozen');
  });

  it('judges a relative Bash command against the project Claude Code was started in', async () => {
    const repo = testRepo({ files: { 'tests/a.test.ts': 'x' } });
    repo.setState(state('tdd-green'));
    const rel = path.relative('/tmp', repo.root);
    const r = await runHookInProcess(ev.bash({ cwd: '/tmp', ...IMPL }, `cd ${rel} && rm tests/a.test.ts`), { env: { CLAUDE_PROJECT_DIR: repo.root } });
    expectDeny(r, 'tests-frozen');
  });
});

describe('the test runner cannot be edited out from under the tests', () => {
  it('denies a hand edit of node_modules in GREEN', async () => {
    const repo = testRepo({ files: { 'node_modules/vitest/index.js': 'export const expect = 1;\n' } });
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(ev.edit({ cwd: repo.root, ...IMPL }, 'node_modules/vitest/index.js', '1', '2')), 'dependency-edit');
  });

  it('denies Bash writes into node_modules and package-manager commands that replace the runner in GREEN; an ordinary install passes; RED may install', async () => {
    const repo = testRepo({
      files: {
        'node_modules/expect/build/index.js': 'module.exports = 1;\n',
        'package.json': '{"devDependencies":{"jest":"*"}}\n',
        'libs/util/package.json': '{"name":"@demo/util"}\n',
        'libs/fake/package.json': '{"name":"expect"}\n',
      },
    });
    repo.setState(state('tdd-green'));
    const bash = (cmd: string) => runHookInProcess(ev.bash({ cwd: repo.root, ...IMPL }, cmd));
    for (const cmd of [
      "sed -i 's/pass = /pass = true || /' node_modules/expect/build/index.js",
      'echo "module.exports = () => true" > node_modules/expect/build/index.js',
      'npm install --no-save ../patched-expect',
      'npm install --no-save ./expect-30.0.0.tgz',
      'npm i -D expect@file:../expect',
      'npm install --no-save expect',
      'npm link vitest',
      'npm rebuild',
      'yarn add -D @vitest/expect',
      'pnpm add jest-circus@link:../jc',
      'npm install ./libs/fake',
      'npm install file:libs/fake',
    ]) {
      expectDeny(await bash(cmd), 'dependency-edit');
    }
    // A local folder whose package.json names an ordinary package is an ordinary install.
    for (const cmd of ['npm install lodash', 'npm i -S left-pad@1.3.0', 'yarn add @types/node', 'npm ci --dry-run --ignore-scripts=false || true', 'npm install ./libs/util', 'npm i file:./libs/util/']) {
      const r = await bash(cmd);
      expect(r.decision === 'deny' ? r.reason : '', cmd).not.toMatch(/dependency-edit/);
    }
    // a path of the runner's installation outside the project, as the freeze recorded it
    const site = testRepo({ files: { '_pytest/python.py': 'x = 1\n' } });
    repo.setState(state('tdd-green', { runner_installation: { packages: {}, absent: [], manifest_sha256: '0'.repeat(64), covers: [path.join(site.root, '_pytest')] } }));
    expectDeny(await bash(`sed -i 's/x/y/' ${site.root}/_pytest/python.py`), 'dependency-edit');
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, path.join(site.root, '_pytest/python.py'), 'x = 2\n')), 'dependency-edit');
    repo.setState(state('tdd-red'));
    expectPass(await runHookInProcess(ev.bash({ cwd: repo.root, agent_type: 'tdd-gate:test-writer' }, 'npm install --no-save expect')));
  });

  it('freezes vite.config.* with the tests (vitest reads it when there is no vitest.config)', async () => {
    const repo = testRepo();
    repo.setState(state('tdd-green'));
    expectDeny(await runHookInProcess(ev.write({ cwd: repo.root, ...IMPL }, 'vite.config.ts')), 'tests-frozen');
  });
});

describe('HEAD moves are judged per repository', () => {
  it('lets git switch branches in another repository while this one is in a cycle', async () => {
    const repo = testRepo();
    const other = testRepo();
    repo.setState(state('tdd-green'));
    const env = { CLAUDE_PROJECT_DIR: repo.root };
    expectPass(await runHookInProcess(ev.bash({ cwd: other.root, ...IMPL }, 'git checkout -b feature'), { env }));
    expectPass(await runHookInProcess(ev.bash({ cwd: repo.root, ...IMPL }, `git -C ${other.root} checkout -b feature`), { env }));
    expectPass(await runHookInProcess(ev.bash({ cwd: repo.root, ...IMPL }, `cd ${other.root} && git pull`), { env }));
  });

  it('still denies them in the cycle’s repository, however it is reached', async () => {
    const repo = testRepo();
    const other = testRepo();
    repo.setState(state('tdd-green'));
    const env = { CLAUDE_PROJECT_DIR: repo.root };
    expectDeny(await runHookInProcess(ev.bash({ cwd: repo.root, ...IMPL }, 'git checkout -b feature'), { env }), 'head-move');
    expectDeny(await runHookInProcess(ev.bash({ cwd: other.root, ...IMPL }, `git -C ${repo.root} checkout -b x`), { env }), 'head-move');
    expectDeny(await runHookInProcess(ev.bash({ cwd: other.root, ...IMPL }, `cd ${repo.root} && git merge main`), { env }), 'head-move');
    expectDeny(await runHookInProcess(ev.bash({ cwd: repo.root, ...IMPL }, `(cd ${other.root}; git pull); git merge x`), { env }), 'head-move');
  });
});
