import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli, ok, project, startRed, writeVerdict } from '../cli/fixtures.js';
import { runHookBundle } from '../helpers/hook.js';
import { auditRun, commitAll, failures, forge, forgeRedSource, head, recordJson, tamper } from './fixtures.js';

const ADD_TEST = "import { expect, test } from 'vitest';\nimport { add } from '../src/add.js';\ntest('adds', () => { expect(add(1, 2)).toBe(3); });\n";
const STUB = '// STUB:TDD\nexport function add(_a: number, _b: number): number { return 0; }\n';
const REAL = 'export function add(a: number, b: number): number { return a + b; }\n';
const TIDY = 'export const add = (a: number, b: number): number => a + b;\n';
const OLD = "import { expect, test } from 'vitest';\ntest('old', () => { expect(1).toBe(1); });\n";

describe('tdd-gate audit on a vitest project', () => {
  it('an honest cycle with a refactor passes; its hook denial and refusal are in the record; a forged RED and a vitest config added fail', { timeout: 240_000 }, () => {
    const repo = project('vitest', { 'tests/old.test.ts': OLD });
    const base = head(repo);
    startRed(repo);
    repo.write('tests/add.test.ts', ADD_TEST);
    repo.write('src/add.ts', STUB);
    ok(cli(repo, 'verify', 'red'));
    writeVerdict(repo);
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
    // the gate denies an edit of a frozen test in GREEN: the record carries the denial
    expect(runHookBundle({ session_id: 's', cwd: repo.root, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: repo.path('tests/add.test.ts'), content: 'x' } }).decision).toBe('deny');
    repo.write('src/add.ts', REAL);
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'advance', 'refactor'));
    repo.write('src/add.ts', TIDY);
    ok(cli(repo, 'verify', 'refactor'));
    // and a refused verb
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'), 1);
    const out = ok(cli(repo, 'done')).stdout;
    const record = /cycle record .*: (\.tdd\/cycles\/\S+\.json)/.exec(out)?.[1] ?? '';
    expect(record).toMatch(/^\.tdd\/cycles\/SPEC-001-/);
    commitAll(repo, 'cycle');
    const honest = head(repo);

    const rec = recordJson(repo, record) as { refactor: { tests: Record<string, string> }; events: { type: string }[]; runner: { version: string }; changed: { sources: Record<string, string> } };
    expect(rec.refactor.tests).toEqual({ 'tests/add.test.ts::adds': 'passed', 'tests/old.test.ts::old': 'passed' });
    expect(rec.events).toContainEqual(expect.objectContaining({ type: 'refusal', verb: 'freeze' }));
    expect(rec.events).toContainEqual(expect.objectContaining({ type: 'hook-deny', tool: 'Write', phase: 'tdd-green' }));
    // the record travels: no path of this machine in it
    expect(readFileSync(repo.path(record), 'utf8')).not.toContain(repo.root);
    expect(rec.runner.version).toMatch(/^vitest \d+\.\d+\.\d+/);
    expect(Object.keys(rec.changed.sources)).toEqual(['src/add.ts']);

    const md = repo.path('../summary.md');
    const good = auditRun(repo, base, '--require-cycles', '--markdown', md);
    expect(failures(good.report)).toEqual([]);
    expect(good.status).toBe(0);
    expect(readFileSync(md, 'utf8')).toMatch(/\| `SPEC-001-\d{8}-[0-9a-f]{8}\.json` \| SPEC-001 \| `[0-9a-f]{12}` \| ✅ replayed \|/);

    // the recorded stub is the implementation
    forge(repo, base, honest, 'red-passes', () => forgeRedSource(repo, record, 'src/add.ts', REAL));
    const passes = auditRun(repo, base, '--markdown', md);
    expect(passes.status).toBe(1);
    expect(failures(passes.report)).toEqual([expect.stringMatching(/^red-replayed: RED could not fail: tests\/add\.test\.ts::adds passed at the rebuilt RED/)]);
    expect(readFileSync(md, 'utf8')).toMatch(/### Failures\n\n- \*\*red-replayed\*\*/);

    // a vitest config added after the freeze (it could exclude the frozen tests)
    tamper(repo, honest, 'config', () => repo.write('vitest.config.ts', "export default { test: { include: ['tests/old.test.ts'] } };\n"));
    const config = auditRun(repo, base);
    expect(config.status).toBe(1);
    expect(failures(config.report)).toContainEqual(expect.stringMatching(/^runner-config-unchanged: .*vitest\.config\.ts added, frozen by no cycle/));
  });
});
