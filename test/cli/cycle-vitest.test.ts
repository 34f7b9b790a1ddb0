import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli, events, ok, project, readState, startRed, writeVerdict, PASS_VERDICT } from './fixtures.js';

const ADD_TEST = "import { expect, test } from 'vitest';\nimport { add } from '../src/add.js';\ntest('adds', () => { expect(add(1, 2)).toBe(3); });\n";
const STUB = '// STUB:TDD\nexport function add(_a: number, _b: number): number { return 0; }\n';
const REAL = 'export function add(a: number, b: number): number { return a + b; }\n';
const PASSING_OLD = "import { expect, test } from 'vitest';\ntest('old', () => { expect(1).toBe(1); });\n";

describe('CLI cycle with a real vitest project', () => {
  it('walks RED → GREEN → REFACTOR → done, refusing every step whose evidence does not hold', { timeout: 180_000 }, () => {
    const repo = project('vitest', { 'tests/old.test.ts': PASSING_OLD });
    startRed(repo);

    // invalid RED: the new test cannot even import its subject
    repo.write('tests/add.test.ts', ADD_TEST);
    let r = ok(cli(repo, 'verify', 'red'), 1);
    expect(r.stderr).toMatch(/^tdd-gate verify red: refused: invalid RED: .*(compile or import error|failed to load)/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(readState(repo).receipts.red.valid).toBe(false);

    // freeze needs a valid RED
    writeVerdict(repo);
    expect(ok(cli(repo, 'freeze', '--verdict', 'verdict.md'), 1).stderr).toMatch(/last RED run was not valid/);

    // valid RED: a stub lets it load, the assertion fails
    repo.write('src/add.ts', STUB);
    r = ok(cli(repo, 'verify', 'red'));
    expect(r.stdout).toMatch(/valid RED .*tests\/add\.test\.ts/);
    const red = readState(repo).receipts.red;
    expect(red).toMatchObject({ valid: true, exit_code: 1, counts: { total: 2, failed: 1, passed: 1 }, failing_files: ['tests/add.test.ts'] });
    expect(existsSync(repo.path(red.log))).toBe(true);

    // freeze refused without a PASS verdict
    repo.write('concerns.md', '```tdd-result\nrole: test-validator\nstatus: ok\nverdict: CONCERNS\n```\n');
    expect(ok(cli(repo, 'freeze', '--verdict', 'concerns.md'), 1).stderr).toMatch(/verdict is CONCERNS, not PASS/);
    repo.write('noblock.md', 'looks good to me\n');
    expect(ok(cli(repo, 'freeze', '--verdict', 'noblock.md'), 1).stderr).toMatch(/not a test-validator verdict/);
    expect(readState(repo).phase).toBe('tdd-red');

    // a PASS the orchestrator wrote itself: no test-validator returned it, so standard mode refuses
    repo.write('forged.md', PASS_VERDICT.replace('verdict: PASS', 'verdict: PASS\nnotes: approved by the orchestrator'));
    expect(ok(cli(repo, 'freeze', '--verdict', 'forged.md'), 1).stderr).toMatch(/not one the tdd-gate:test-validator subagent returned/);
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
    let st = readState(repo);
    expect(st.phase).toBe('tdd-green');
    expect(st.spec_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(st.frozen.files).sort()).toEqual(['specs/SPEC-001.md', 'tests/add.test.ts', 'tests/old.test.ts']);
    expect(readFileSync(repo.path('.tdd/snapshots/frozen/tests/add.test.ts.copy'), 'utf8')).toBe(ADD_TEST);

    // green refused after a test edit (the oracle moved), before anything runs
    repo.write('src/add.ts', REAL);
    repo.write('tests/add.test.ts', ADD_TEST.replace('toBe(3)', 'toBeGreaterThan(0)'));
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/the oracle moved: frozen files changed: tests\/add\.test\.ts/);
    repo.write('tests/add.test.ts', ADD_TEST);

    // done refused with a stub marker left (even though the tests pass)
    repo.write('src/add.ts', '// STUB:TDD\n' + REAL);
    ok(cli(repo, 'verify', 'green'));
    expect(ok(cli(repo, 'done'), 1).stderr).toMatch(/STUB:TDD markers are left in src\/add\.ts/);
    repo.write('src/add.ts', REAL);
    // the receipt is for other bytes now: not fresh
    expect(ok(cli(repo, 'done'), 1).stderr).toMatch(/no GREEN receipt matches/);
    ok(cli(repo, 'verify', 'green'));

    // refactor that breaks the tests is rolled back
    ok(cli(repo, 'advance', 'refactor'));
    expect(readState(repo).refactor_base.head).toMatch(/^[0-9a-f]{40}$/);
    repo.write('src/add.ts', 'export function add(a: number, b: number): number { return a - b; }\n');
    repo.write('src/extra.ts', 'export const x = 1;\n');
    r = ok(cli(repo, 'verify', 'refactor', '--revert'), 1);
    expect(r.stderr).toMatch(/refactor broke the suite: .*reverted 2 source files/);
    expect(readFileSync(repo.path('src/add.ts'), 'utf8')).toBe(REAL);
    expect(existsSync(repo.path('src/extra.ts'))).toBe(false);
    ok(cli(repo, 'verify', 'refactor'));

    r = ok(cli(repo, 'done'));
    expect(r.stdout).toMatch(/SPEC-001 done/);
    st = readState(repo);
    expect(st.phase).toBe('done');
    const [evidenceFile] = readdirSync(repo.path('.tdd/evidence'));
    expect(evidenceFile).toMatch(/^SPEC-001-.*\.json$/);
    const evidence: unknown = JSON.parse(readFileSync(repo.path(`.tdd/evidence/${evidenceFile}`), 'utf8'));
    expect(evidence).toMatchObject({
      spec_id: 'SPEC-001',
      spec_hash: st.spec_hash,
      validator: { role: 'test-validator', verdict: 'PASS', agent: 'agent-42', file: 'verdict.md' },
      runs: { red: { valid: true, exit_code: 1 }, final: { valid: true, exit_code: 0 } },
      files_changed: { tests: ['tests/add.test.ts'], sources: ['src/add.ts'] },
    });
    expect(st.history.map((h) => h.verb)).toEqual(['init', 'advance red', 'freeze', 'advance refactor', 'done']);
    // 'hardening': the OS wall's settings went up and came down, where the sandbox can run here.
    const types = new Set(events(repo).map((e) => e.type).filter((t) => t !== 'hardening'));
    expect([...types].sort()).toEqual(['receipt', 'refusal', 'result', 'revert', 'transition']);
    expect(readFileSync(repo.path('.tdd/.gitignore'), 'utf8')).toMatch(/^\*$/m);
  });

  it('refuses a RED whose only failure is a pre-existing one', { timeout: 60_000 }, () => {
    const failingOld = "import { expect, test } from 'vitest';\ntest('old', () => { expect(1).toBe(2); });\n";
    const repo = project('vitest', { 'tests/old.test.ts': failingOld });
    startRed(repo);
    repo.write('tests/add.test.ts', "import { expect, test } from 'vitest';\ntest('new', () => { expect(3).toBe(3); });\n");
    const r = ok(cli(repo, 'verify', 'red'), 1);
    expect(r.stderr).toMatch(/not written or changed in this cycle \(failing: tests\/old\.test\.ts::old\)/);
  });

  it('refuses to freeze tests changed after the last valid RED', { timeout: 60_000 }, () => {
    const repo = project('vitest');
    startRed(repo);
    repo.write('tests/add.test.ts', ADD_TEST);
    repo.write('src/add.ts', STUB);
    ok(cli(repo, 'verify', 'red'));
    repo.write('tests/add.test.ts', ADD_TEST + '// sneaky\n');
    writeVerdict(repo);
    expect(ok(cli(repo, 'freeze', '--verdict', 'verdict.md'), 1).stderr).toMatch(/tests changed after the last valid RED/);
  });

  it('revert puts the sources back as they were at GREEN entry', { timeout: 60_000 }, () => {
    const repo = project('vitest');
    startRed(repo);
    repo.write('tests/add.test.ts', ADD_TEST);
    repo.write('src/add.ts', STUB);
    ok(cli(repo, 'verify', 'red'));
    writeVerdict(repo);
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
    repo.write('src/add.ts', 'garbage');
    repo.write('src/new.ts', 'export {};\n');
    expect(ok(cli(repo, 'revert')).stdout).toMatch(/restored 1, deleted 1 source files/);
    expect(readFileSync(repo.path('src/add.ts'), 'utf8')).toBe(STUB);
    expect(existsSync(repo.path('src/new.ts'))).toBe(false);
    expect(readState(repo).phase).toBe('tdd-green');
  });
});

describe('drift', () => {
  it('a test file added after the freeze counts as the oracle moving', { timeout: 60_000 }, () => {
    const repo = project('vitest');
    startRed(repo);
    repo.write('tests/add.test.ts', ADD_TEST);
    repo.write('src/add.ts', STUB);
    ok(cli(repo, 'verify', 'red'));
    writeVerdict(repo);
    ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
    repo.write('tests/extra.test.ts', "import { test } from 'vitest';\ntest('x', () => {});\n");
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/test files added after the freeze: tests\/extra\.test\.ts/);
    repo.write('specs/SPEC-001.md', '# changed\n#### Scenario: other\n');
    expect(ok(cli(repo, 'done'), 1).stderr).toMatch(/the SPEC changed since the freeze/);
  });
});
