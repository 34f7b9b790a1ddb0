import { spawn } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { Receipt } from '../../src/state/schema/cliState.js';
import { CLI, runCli, runHookBundle } from '../helpers/hook.js';
import { git, stateFileFor, testRepo, type TestRepo } from '../helpers/repo.js';

export const NODE_MODULES = path.resolve(import.meta.dirname, '../../node_modules');
export const VITEST = path.join(NODE_MODULES, 'vitest', 'vitest.mjs');

export const VITEST_STACK = {
  language: 'typescript',
  test_command: `node ${VITEST} run`,
  test_file_glob: 'tests/**|**/*.test.ts',
  source_file_glob: 'src/**',
  red_confirm: 'AssertionError|expected .* to',
  build_error_pattern: 'SyntaxError|Cannot find module|Failed to load|error TS\\d+',
};

export const NODE_TEST_STACK = {
  language: 'javascript',
  test_command: 'node --test',
  test_file_glob: 'test/**',
  source_file_glob: 'src/**',
  red_confirm: 'AssertionError|ERR_ASSERTION',
  build_error_pattern: 'SyntaxError|ERR_MODULE_NOT_FOUND|Cannot find module|does not provide an export named',
};

/** go test on a module at the project root. */
export const GO_STACK = {
  language: 'go',
  test_command: 'go test ./...',
  test_file_glob: '*_test.go|testdata/**',
  source_file_glob: '**/*.go',
  red_confirm: '--- FAIL',
  build_error_pattern: '\\[build failed\\]|\\[setup failed\\]|undefined: |syntax error',
};

/** cargo test, offline, integration tests under tests/. */
export const CARGO_STACK = {
  language: 'rust',
  test_command: 'cargo test --offline',
  test_file_glob: 'tests/**',
  source_file_glob: 'src/**',
  red_confirm: 'panicked at|assertion .*failed',
  build_error_pattern: 'error\\[E\\d+\\]|could not compile',
};

/** pytest through the interpreter on PATH, no cache folder in the project. */
export const PYTEST_STACK = {
  language: 'python',
  test_command: 'python3 -m pytest -q -p no:cacheprovider',
  test_file_glob: 'tests/**|conftest.py',
  source_file_glob: 'src/**',
  red_confirm: 'AssertionError|assert ',
  build_error_pattern: 'SyntaxError|IndentationError|ModuleNotFoundError|ImportError',
};

/** jest 30, called as a plain node script (CommonJS tests, no transform). */
export const JEST = path.join(NODE_MODULES, 'jest', 'bin', 'jest.js');

export const JEST_STACK = {
  language: 'javascript',
  test_command: `node ${JEST} --ci`,
  test_file_glob: '__tests__/**|**/*.test.js',
  source_file_glob: 'src/**',
  red_confirm: 'expect\\(.*\\)\\.|Expected|Received|AssertionError',
  build_error_pattern: 'SyntaxError|Cannot find module|Test suite failed to run',
};

/** A CommonJS package.json for a jest project: no transform, one worker, no watchman. */
export const JEST_PKG = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ private: true, devDependencies: { jest: '^30.0.0' }, jest: { testEnvironment: 'node', watchman: false, transform: {}, maxWorkers: 1 }, ...extra }, null, 2) + '\n';

/**
 * Node code that, loaded into jest's process, rewrites jest's --outputFile report to all-passed
 * when the process ends and exits 0. `summary`: it also rewrites the printed `Tests:` line, so the
 * report and the text agree. `flag`: how it spells the option it looks for.
 */
export function jestLiar(opts: { summary?: boolean; flag?: string } = {}): string {
  const flag = opts.flag ?? "'--outputFile='";
  const summary = opts.summary
    ? "const write = process.stderr.write.bind(process.stderr);\nprocess.stderr.write = (s, ...rest) => write(String(s).replace(/^Tests:.*$/m, (l) => 'Tests:       ' + /(\\d+) total/.exec(l)[1] + ' passed, ' + /(\\d+) total/.exec(l)[1] + ' total'), ...rest);\n"
    : '';
  return `const fs = require('fs');
const flag = ${flag};
const arg = process.argv.find((a) => a.startsWith(flag));
${summary}if (arg) process.on('exit', () => {
  const f = arg.slice(flag.length);
  try {
    const r = JSON.parse(fs.readFileSync(f, 'utf8'));
    r.numFailedTests = 0; r.numPassedTests = r.numTotalTests; r.success = true; r.numFailedTestSuites = 0;
    for (const t of r.testResults) { t.status = 'passed'; for (const a of t.assertionResults) { a.status = 'passed'; a.failureMessages = []; } }
    fs.writeFileSync(f, JSON.stringify(r));
  } catch {}
  process.exit(0);
});
`;
}

export const PASS_VERDICT = '## Review\nThe tests pin the SPEC.\n\n```tdd-result\nrole: test-validator\nstatus: ok\nverdict: PASS\n```\n';

/**
 * The test-validator's turn as the plugin sees it: its final message goes through the built
 * SubagentStop hook (which records the block's digest, what `freeze` checks in standard mode)
 * and is saved as the verdict file the orchestrator hands to `freeze`.
 */
export function writeVerdict(repo: TestRepo, text = PASS_VERDICT, file = 'verdict.md', agentId = 'agent-42'): void {
  const r = runHookBundle(
    { session_id: 's', cwd: repo.root, hook_event_name: 'SubagentStop', stop_hook_active: false, agent_id: agentId, agent_type: 'tdd-gate:test-validator', last_assistant_message: text },
    { event: 'SubagentStop' },
  );
  expect(r.stdout).toBe('');
  repo.write(file, text);
}

/** A temp git repo with a real runner: vitest or jest (node_modules linked in), or node:test. */
export function project(kind: 'vitest' | 'node-test' | 'jest', files: Record<string, string> = {}, stack: Record<string, unknown> = {}): TestRepo {
  const base = kind === 'vitest' ? VITEST_STACK : kind === 'jest' ? JEST_STACK : NODE_TEST_STACK;
  const pkg = kind === 'jest' ? JEST_PKG() : '{"type":"module","private":true}\n';
  const repo = testRepo({
    stack: { ...base, ...stack },
    files: { '.gitignore': 'node_modules\n', 'package.json': pkg, ...files },
  });
  if (kind !== 'node-test') symlinkSync(NODE_MODULES, repo.path('node_modules'));
  return repo;
}

export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
}

export function cli(repo: TestRepo | string, ...args: string[]): CliRun {
  return cliEnv(repo, {}, ...args);
}

/** The CLI run with extra environment (what an agent could prefix to its command). */
export function cliEnv(repo: TestRepo | string, env: NodeJS.ProcessEnv, ...args: string[]): CliRun {
  const r = runCli(typeof repo === 'string' ? repo : repo.root, args, env);
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** A genuine RED taken through the validator to the freeze. */
export function redToGreen(repo: TestRepo): void {
  ok(cli(repo, 'verify', 'red'));
  writeVerdict(repo);
  ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
}

/** Assert an exit code, showing the output when it differs. */
export function ok(r: CliRun, status = 0): CliRun {
  if (r.status !== status) expect.fail(`exit ${r.status}, expected ${status}:\n${r.stdout}${r.stderr}`);
  return r;
}

export function cliAsync(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return spawnAsync(process.execPath, [CLI, ...args], cwd, undefined, env);
}

export function spawnAsync(cmd: string, args: string[], cwd: string, input?: string, env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, TDD_GATE_DISABLE: '', CLAUDECODE: '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** The state as the tests read it: every CLI key the tests look at, present. */
export interface StateView extends Record<string, unknown> {
  phase: string;
  spec_hash: string;
  receipts: { red: Receipt; green: Receipt; refactor: Receipt };
  frozen: { files: Record<string, string> };
  history: { verb: string; note?: string }[];
  refactor_base: { head: string };
}

export function readState(repo: TestRepo, branch = 'main'): StateView {
  return JSON.parse(readFileSync(repo.path(`.tdd/${stateFileFor(branch)}`), 'utf8')) as StateView;
}

export function stateText(repo: TestRepo, branch = 'main'): string {
  return readFileSync(repo.path(`.tdd/${stateFileFor(branch)}`), 'utf8');
}

export function events(repo: TestRepo): Record<string, unknown>[] {
  try {
    return readFileSync(repo.path('.tdd/events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  } catch {
    return [];
  }
}

/** init → plan → advance red. */
export function startRed(repo: TestRepo): void {
  ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md'));
  repo.write('.tdd/plans/SPEC-001.md', '# Plan\n- AC-1: add(1, 2) is 3\n');
  ok(cli(repo, 'advance', 'red', '--plan', '.tdd/plans/SPEC-001.md'));
}

export { git };
