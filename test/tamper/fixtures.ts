import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, onTestFinished } from 'vitest';
import { ev, type EventOverrides } from '../helpers/events.js';
import { CLI, runCli, runHookBundle, type HookRun } from '../helpers/hook.js';
import { stateFileFor, type TestRepo } from '../helpers/repo.js';
import { NODE_TEST_STACK, PASS_VERDICT, project } from '../cli/fixtures.js';

export { ev, CLI };

export const IMPL = { agent_type: 'tdd-gate:implementer', agent_id: 'impl-1' };
export const WRITER = { agent_type: 'tdd-gate:test-writer', agent_id: 'tw-1' };

export const ADD_TEST = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds', () => { assert.equal(add(1, 2), 3); });\n";

/**
 * A project whose cycle the real CLI drives (so the anchor exists), with its own HOME and plugin
 * data directory: the hook and the CLI see the same ones, and nothing touches the real home.
 */
export interface Lab {
  repo: TestRepo;
  home: string;
  data: string;
  env: NodeJS.ProcessEnv;
  cli(...args: string[]): { status: number; stdout: string; stderr: string };
  pre(input: Record<string, unknown>): HookRun;
  post(command: string, extra?: Partial<EventOverrides>): { stdout: string; out: { decision?: string; reason?: string; systemMessage?: string } | null };
  hook(input: Record<string, unknown>, event: string): HookRun;
  statePath: string;
  o(extra?: Partial<EventOverrides>): EventOverrides;
}

export function lab(opts: { data?: boolean; home?: string; stack?: Record<string, unknown> } = {}): Lab {
  // The walls behind the OS wall, on their own: where no sandbox runs (or a project opts out), the
  // tamper check and the static check are the last word (the OS wall's own tests: test/wall).
  const repo = project('node-test', {}, { os_wall: 'off', ...opts.stack });
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-lab-')));
  onTestFinished(() => rmSync(base, { recursive: true, force: true }));
  const home = opts.home ?? path.join(base, 'home');
  const data = path.join(base, 'plugin-data');
  mkdirSync(path.join(home, '.claude', 'shell-snapshots'), { recursive: true });
  const env: NodeJS.ProcessEnv = { HOME: home, ...(opts.data === false ? {} : { CLAUDE_PLUGIN_DATA: data }) };
  const l: Lab = {
    repo,
    home,
    data,
    env,
    statePath: repo.path(`.tdd/${stateFileFor('main')}`),
    cli: (...args) => {
      const r = runCli(repo.root, args, env);
      return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
    },
    pre: (input) => runHookBundle(input, { env, event: 'PreToolUse' }),
    hook: (input, event) => runHookBundle(input, { env, event }),
    post: (command, extra = {}) => {
      const r = runHookBundle({ ...ev.bash({ cwd: repo.root, ...extra }, command), hook_event_name: 'PostToolUse', tool_response: { stdout: '', stderr: '' } }, { env, event: 'PostToolUse' });
      return { stdout: r.stdout, out: r.stdout.trim() === '' ? null : (JSON.parse(r.stdout) as { decision?: string; reason?: string; systemMessage?: string }) };
    },
    o: (extra = {}) => ({ cwd: repo.root, ...extra }),
  };
  return l;
}

export function ok(r: { status: number; stdout: string; stderr: string }, status = 0): { status: number; stdout: string; stderr: string } {
  expect({ status: r.status, out: r.stdout + r.stderr }).toMatchObject({ status });
  return r;
}

/** init → plan → advance red, through the CLI: an anchored tdd-red cycle. */
export function toRed(l: Lab): void {
  ok(l.cli('init', '--spec', 'specs/SPEC-001.md'));
  l.repo.write('.tdd/plans/SPEC-001.md', '# Plan\n- AC-1: add(1, 2) is 3\n');
  ok(l.cli('advance', 'red', '--plan', '.tdd/plans/SPEC-001.md'));
}

/** … → valid RED → validator PASS → freeze: an anchored tdd-green cycle with frozen tests. */
export function toGreen(l: Lab): void {
  toRed(l);
  l.repo.write('test/add.test.js', ADD_TEST);
  l.repo.write('src/add.js', '// STUB:TDD\nexport function add() { return 0; }\n');
  ok(l.cli('verify', 'red'));
  const stop = l.hook(
    { session_id: 's', cwd: l.repo.root, hook_event_name: 'SubagentStop', stop_hook_active: false, agent_id: 'validator-1', agent_type: 'tdd-gate:test-validator', last_assistant_message: PASS_VERDICT },
    'SubagentStop',
  );
  expect(stop.stdout).toBe('');
  l.repo.write('verdict.md', PASS_VERDICT);
  ok(l.cli('freeze', '--verdict', 'verdict.md'));
}

export function phaseOf(l: Lab): string {
  return (JSON.parse(readFileSync(l.statePath, 'utf8')) as { phase: string }).phase;
}

export { NODE_TEST_STACK };
