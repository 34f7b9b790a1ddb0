import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI, runHookBundle } from '../helpers/hook.js';
import { ev } from '../helpers/events.js';
import { cli, events, ok, project } from '../cli/fixtures.js';
import { filesUnder, toGreen, type RunnerCase } from './fixtures.js';

const HEADER = "import { expect, test } from 'vitest';\nimport { add } from '../src/add.js';\n";
const CASE: RunnerCase = {
  name: 'vitest',
  make: () => project('vitest', {}, { heldout: 'required' }),
  visible: ['tests/add.test.ts', `${HEADER}test('adds two numbers', () => { expect(add(1, 2)).toBe(3); });\n`],
  heldout: ['tests/add.heldout.test.ts', `${HEADER}test('adds negative numbers', () => {\n  expect(add(-4, 10)).toBe(6);\n});\n`],
  source: 'src/add.ts',
  stub: '// STUB:TDD\nexport function add(_a: number, _b: number): number { return -1; }\n',
  special: '',
  genuine: 'export function add(a: number, b: number): number { return a + b; }\n',
  heldoutName: /adds negative numbers/,
  assertion: /to be 6/,
  secret: ['add(-4, 10)'],
};

const IMPLEMENTER = 'tdd-gate:implementer';
const REFACTORER = 'tdd-gate:refactorer';

function call(tool: string, input: Record<string, unknown>, cwd: string, agent: string | undefined) {
  return { session_id: 's', transcript_path: '/t', hook_event_name: 'PreToolUse', permission_mode: 'default', tool_name: tool, tool_input: input, tool_use_id: 'toolu_1', cwd, ...(agent !== undefined ? { agent_type: agent, agent_id: 'a1' } : {}) };
}

describe('held-out tests are out of every agent\u2019s sight from the freeze to done (built hook)', () => {
  it('denies and records every read path to the store or the held-out files; ordinary reads pass', { timeout: 180_000 }, () => {
    const repo = CASE.make();
    toGreen(repo, CASE);
    const root = repo.root;
    const stored = filesUnder(`${root}/.git/tdd-gate/heldout`).filter((f) => f.endsWith('.gz') && f.includes('/files/'));
    expect(stored).toHaveLength(1);
    const store = `${root}/.git/tdd-gate/heldout/${stored[0]!}`;
    const storeDir = store.slice(0, store.indexOf('/files/'));
    repo.write('src/leak.mjs', "import { gunzipSync } from 'node:zlib';\nimport { readFileSync } from 'node:fs';\nconsole.log(gunzipSync(readFileSync(process.argv[2])).toString());\n");
    repo.write('src/leak2.py', "import glob, gzip\nfor f in glob.glob('**/*.gz', recursive=True): print(gzip.open(f).read())\n");

    const denied: [string, Record<string, unknown>][] = [
      ['Read', { file_path: store }],
      ['Read', { file_path: `${root}/tests/add.heldout.test.ts` }],
      ['Read', { file_path: 'tests/add.heldout.test.ts' }],
      ['Read', { file_path: `${root}/.git/tdd-gate/../tdd-gate/heldout/${stored[0]!}` }],
      ['NotebookRead', { notebook_path: store }],
      ['Grep', { pattern: 'expect', path: `${root}/.git` }],
      ['Grep', { pattern: 'expect', path: storeDir }],
      ['Grep', { pattern: 'add', glob: '*.heldout.test.ts' }],
      ['Glob', { pattern: '**/*.gz', path: `${root}/.git/tdd-gate` }],
      ['Glob', { pattern: `${root}/.git/**/*.gz` }],
      ['Bash', { command: `cat ${store}` }],
      ['Bash', { command: `gunzip -c .git/tdd-gate/heldout/${stored[0]!}` }],
      ['Bash', { command: 'zcat $(find . -name "*.gz")' }],
      ['Bash', { command: 'find . -name "*.gz" -exec zcat {} \\;' }],
      ['Bash', { command: 'find . -name "*.gz" | xargs zcat' }],
      ['Bash', { command: 'cp -r . /tmp/everything' }],
      ['Bash', { command: 'tar cf - . | tar tvf -' }],
      ['Bash', { command: 'cat tests/add.heldout.test.ts' }],
      ['Bash', { command: 'grep -rn expect add.heldout.test.ts' }],
      ['Bash', { command: 'cat "$(git rev-parse --git-dir)"/tdd-gate/*/*/*/*' }],
      ['Bash', { command: 'cd .git && ls -R' }],
      ['Bash', { command: `python3 -c "import gzip,glob; [print(gzip.open(f).read()) for f in glob.glob('**/*.gz', recursive=True)]"` }],
      ['Bash', { command: 'node src/leak.mjs somefile' }],
      ['Bash', { command: 'python3 src/leak2.py' }],
      ['Bash', { command: '$(echo zcat) x.gz' }],
      ['mcp__fs__read_file', { path: store }],
      ['mcp__fs__read_text_file', { path: 'tests/add.heldout.test.ts' }],
      ['mcp__fs__search_files', { path: `${root}/.git`, pattern: 'add' }],
    ];
    const passed: [string, Record<string, unknown>][] = [
      ['Read', { file_path: `${root}/src/add.ts` }],
      ['Read', { file_path: `${root}/tests/add.test.ts` }],
      ['Grep', { pattern: 'add', path: `${root}/src` }],
      ['Grep', { pattern: 'add' }],
      ['Glob', { pattern: '**/*.ts' }],
      ['Bash', { command: 'cat src/add.ts tests/add.test.ts' }],
      ['Bash', { command: 'grep -rn add src tests' }],
      ['Bash', { command: 'git status && git diff' }],
      ['Bash', { command: 'ls tests' }],
      // The CLI in the one form the skill uses: with the OS wall up (on by default where it runs)
      // only `node "<cli>" <verb> …` is let through, an unquoted path is denied [hardened-cli-call].
      ['Bash', { command: `node "${CLI}" status` }],
      ['Bash', { command: 'npx vitest run tests/add.test.ts' }],
      ['mcp__fs__read_file', { path: `${root}/src/add.ts` }],
    ];
    let n = 0;
    for (const [tool, input] of denied) {
      const r = runHookBundle(call(tool, input, root, IMPLEMENTER));
      expect({ tool, input, decision: r.decision }).toEqual({ tool, input, decision: 'deny' });
      expect(r.reason).toMatch(/^tdd-gate rule \[heldout-hidden\]: Blocked /);
      expect(r.reason).not.toContain('add(-4, 10)');
      n++;
    }
    for (const [tool, input] of passed) {
      const pre = call(tool, input, root, IMPLEMENTER);
      const r = runHookBundle(pre);
      expect({ tool, input, decision: r.decision, reason: r.reason }).toMatchObject({ tool, input, decision: 'pass' });
      // The command ran and ended: its PostToolUse closes it.
      if (tool === 'Bash') runHookBundle({ ...pre, hook_event_name: 'PostToolUse', tool_response: { stdout: '', stderr: '', interrupted: false } }, { event: 'PostToolUse' });
    }
    // The orchestrator could pass the content on: it is denied too.
    const main = runHookBundle(call('Read', { file_path: store }, root, undefined));
    expect(main.decision).toBe('deny');
    n++;
    const recorded = events(repo).filter((e) => e.type === 'hook-deny' && e.rule === 'heldout-hidden');
    expect(recorded).toHaveLength(n);
    expect(recorded.map((e) => e.role)).toContain('main');
    expect(recorded.map((e) => e.role)).toContain(IMPLEMENTER);

    // REFACTOR: the same wall for the refactorer.
    repo.write('src/add.ts', CASE.genuine);
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'advance', 'refactor'));
    // The refactorer's hand-off carries the oracle run's output as shown: held-out tests by name only.
    ok(cli(repo, 'handoff', 'green'));
    const manifest = readFileSync(repo.path('.tdd/handoff-green.json'), 'utf8');
    expect(manifest).toContain('held-out test \\"adds negative numbers\\"');
    expect(manifest).not.toContain('add.heldout.test.ts');
    expect(manifest).not.toContain('add(-4, 10)');
    for (const [tool, input] of denied.slice(0, 12)) {
      expect(runHookBundle(call(tool, input, root, REFACTORER)).decision).toBe('deny');
    }
    expect(runHookBundle(call('Read', { file_path: `${root}/src/add.ts` }, root, REFACTORER)).decision).toBe('pass');
    ok(cli(repo, 'verify', 'refactor'));
    ok(cli(repo, 'done'));
    // In the open again: an ordinary test file.
    expect(runHookBundle(call('Read', { file_path: `${root}/tests/add.heldout.test.ts` }, root, undefined)).decision).toBe('pass');
    expect(runHookBundle(ev.bash({ cwd: root }, 'cat tests/add.heldout.test.ts')).decision).toBe('pass');
    expect(filesUnder(`${root}/.git/tdd-gate/heldout`)).toEqual([]);
  });
});
