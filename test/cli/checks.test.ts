import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import { runHookBundle } from '../helpers/hook.js';
import { testRepo } from '../helpers/repo.js';
import { cli, ok, project, readState, startRed, writeVerdict } from './fixtures.js';

const TEST_ONE = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { one } from '../src/one.js';\ntest('one', () => { assert.equal(one(), 1); });\n";

/** A genuine RED frozen, then the real implementation: ready for `verify green`. */
function frozenGreen(stack: Record<string, unknown>) {
  const repo = project('node-test', {}, stack);
  startRed(repo);
  repo.write('test/a.test.js', TEST_ONE);
  repo.write('src/one.js', '// STUB:TDD\nexport const one = () => 0;\n');
  ok(cli(repo, 'verify', 'red'));
  writeVerdict(repo);
  ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
  repo.write('src/one.js', 'export const one = () => 1;\n');
  return repo;
}

describe('verify green: lint and coverage', () => {
  it('refuses when lint_command fails, accepts when it passes', { timeout: 60_000 }, () => {
    const repo = frozenGreen({ lint_command: 'node -e "process.exit(3)"' });
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/lint_command exited 3/);
    expect(readState(repo).receipts.green).toMatchObject({ valid: false, exit_code: 0 });
    repo.setStack({ ...readStack(repo), lint_command: 'node -e ""' });
    ok(cli(repo, 'verify', 'green'));
  });

  it('requires coverage_threshold when coverage_command is set', { timeout: 60_000 }, () => {
    const repo = frozenGreen({ coverage_command: 'node -e "console.log(\'All files | 50.00 |\')"', coverage_threshold: 80 });
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/coverage 50% is below coverage_threshold 80%/);
    repo.setStack({ ...readStack(repo), coverage_threshold: 50 });
    const r = JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout);
    expect(r).toMatchObject({ valid: true, coverage: 50 });
  });
});

function readStack(repo: ReturnType<typeof testRepo>): Record<string, unknown> {
  return JSON.parse(readFileSync(repo.path('.tdd/stack.json'), 'utf8')) as Record<string, unknown>;
}

describe('stack check', () => {
  it('explains an unknown key and a bad regex', () => {
    const repo = testRepo({ stack: { language: 'ts', test_command: 'x', test_file_glob: 't/**', source_file_glob: 's/**', red_confirm: '(', colour: 'red' } });
    const r = ok(cli(repo, 'stack', 'check'), 1);
    expect(r.stderr).toMatch(/unknown key "colour"/);
    repo.setStack({ language: 'ts', test_command: 'x', test_file_glob: 't/**', source_file_glob: 's/**', red_confirm: '(' });
    expect(ok(cli(repo, 'stack', 'check'), 1).stderr).toMatch(/red_confirm is not a valid JavaScript regular expression/);
  });
  it('warns about globs that match nothing', () => {
    const repo = testRepo({ stack: { language: 'ts', test_command: 'x', test_file_glob: 'nothing/**', source_file_glob: 'nowhere/**', red_confirm: 'x' } });
    const r = ok(cli(repo, 'stack', 'check', '--json'));
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, warnings: [expect.stringMatching(/test_file_glob/), expect.stringMatching(/source_file_glob/)] });
  });
  it('detect prints a stack and --write refuses to overwrite without --force', () => {
    const repo = testRepo({ files: { 'package.json': '{"devDependencies":{"vitest":"4"}}' } });
    expect(JSON.parse(ok(cli(repo, 'stack', 'detect')).stdout)).toMatchObject({ test_command: 'npx vitest run' });
    expect(ok(cli(repo, 'stack', 'detect', '--write'), 1).stderr).toMatch(/already exists/);
    ok(cli(repo, 'stack', 'detect', '--write', '--force'));
    ok(cli(repo, 'stack', 'check'));
  });
});

describe('log', () => {
  it('shows transitions, refusals and the hook denials of this cycle', () => {
    const repo = testRepo();
    ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md'));
    ok(cli(repo, 'verify', 'red'), 1);
    const hook = runHookBundle(ev.write({ cwd: repo.root }, 'src/a.ts'));
    expect(hook.decision).toBe('deny');
    const log = JSON.parse(ok(cli(repo, 'log', '--json')).stdout) as { counts: Record<string, number>; hook_denies_by_rule: Record<string, number>; events: { type: string; rule: string }[] };
    expect(log.counts).toMatchObject({ transition: 1, refusal: 1, 'hook-deny': 1 });
    expect(log.hook_denies_by_rule).toEqual({ [log.events.find((e) => e.type === 'hook-deny')!.rule]: 1 });
    const text = ok(cli(repo, 'log')).stdout;
    expect(text).toMatch(/none → tdd-plan \(init\)/);
    expect(text).toMatch(/refused verify red/);
  });
});
