import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { namesId } from '../../src/spec/spec.js';
import { cli, cliAsync, NODE_TEST_STACK, ok, writeVerdict } from '../cli/fixtures.js';
import { runCli } from '../helpers/hook.js';
import { testRepo } from '../helpers/repo.js';

const F = '```';
const FR = `---
id: FR-CALC-001
title: Add and subtract
status: active
---

# FR-CALC-001: Add and subtract

## Acceptance Criteria

- AC-CALC.1: add(1, 2) returns 3
- AC-CALC.2: sub(5, 3) returns 2
`;
const TEST = (fn: string, name: string, call: string, want: number) =>
  `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { ${fn} } from '../src/calc.mjs';\ntest('${name}', () => { assert.equal(${call}, ${want}); });\n`;

describe('an FR file as it is: its AC-<prefix>.<N> ids flow through plan, hand-offs and evidence', () => {
  it('init → plan → red → freeze → one hand-off per criterion id → done, evidence lists each criterion', () => {
    const repo = testRepo({ stack: NODE_TEST_STACK, files: { 'specs/FR-CALC-001.md': FR } });
    const cli = (...args: string[]) => {
      const r = runCli(repo.root, args);
      if (r.status !== 0) throw new Error(`tdd-gate ${args.join(' ')} → ${r.status}\n${r.stdout}${r.stderr}`);
      return r.stdout;
    };
    const hand = (role: string, body: string, ac?: string) => {
      repo.write('out.md', `Report.\n\n${F}tdd-result\nrole: ${role}\nstatus: ok\n${body}\n${F}\n`);
      return cli('result', 'out.md', '--role', role, ...(ac ? ['--ac', ac] : [])).split('\n')[0];
    };
    const proof = (files: string, test: string, ac?: string) => `${ac ? `ac: ${ac}\n` : ''}files: [${files}]\ncommand: node --test ${test}\noutput_excerpt: |\n  (excerpt)`;

    expect(cli('init', '--spec', 'specs/FR-CALC-001.md')).toContain('cycle started for FR-CALC-001');
    repo.write('.tdd/plans/FR-CALC-001.md', '# Test plan: FR-CALC-001\n\n## AC-CALC.1: add(1, 2) returns 3\n\n## AC-CALC.2: sub(5, 3) returns 2\n');
    expect(hand('planner', 'files: [.tdd/plans/FR-CALC-001.md]\nacs: [AC-CALC.1, AC-CALC.2]')).toBe('proceed');
    cli('advance', 'red', '--plan', '.tdd/plans/FR-CALC-001.md');
    repo.write('src/calc.mjs', '// STUB:TDD\nexport function add() { return 0; }\nexport function sub() { return 0; }\n');
    repo.write('test/add.test.mjs', TEST('add', 'AC-CALC.1: adds', 'add(1, 2)', 3));
    repo.write('test/sub.test.mjs', TEST('sub', 'AC-CALC.2: subtracts', 'sub(5, 3)', 2));
    expect(hand('test-writer', proof('test/add.test.mjs, test/sub.test.mjs, src/calc.mjs', 'test/'))).toBe('proceed');
    cli('verify', 'red');
    writeVerdict(repo, `${F}tdd-result\nrole: test-validator\nstatus: ok\nverdict: PASS\n${F}\n`);
    expect(hand('test-validator', 'verdict: PASS')).toBe('proceed');
    cli('freeze', '--verdict', 'verdict.md');

    cli('handoff', 'red', '--ac', 'AC-CALC.1');
    expect(cli('context', '--role', 'implementer', '--ac', 'AC-CALC.1')).toContain('(AC-CALC.1)');
    repo.write('src/calc.mjs', 'export function add(a, b) { return a + b; }\nexport function sub() { return 0; }\n');
    expect(hand('implementer', `${proof('src/calc.mjs', 'test/add.test.mjs', 'AC-CALC.1')}\nrefactor_needed: false`, 'AC-CALC.1')).toBe('proceed');
    cli('handoff', 'red', '--ac', 'AC-CALC.2');
    repo.write('src/calc.mjs', 'export function add(a, b) { return a + b; }\nexport function sub(a, b) { return a - b; }\n');
    expect(hand('implementer', `${proof('src/calc.mjs', 'test/sub.test.mjs', 'AC-CALC.2')}\nrefactor_needed: false`, 'AC-CALC.2')).toBe('proceed');
    cli('verify', 'green');
    const done = JSON.parse(cli('done', '--json')) as { spec_id: string; criteria: unknown; evidence: string };
    expect(done.spec_id).toBe('FR-CALC-001');
    const expected = [
      { id: 'AC-CALC.1', title: 'add(1, 2) returns 3', in_plan: true, status: 'passing' },
      { id: 'AC-CALC.2', title: 'sub(5, 3) returns 2', in_plan: true, status: 'passing' },
    ];
    expect(done.criteria).toEqual(expected);
    expect((JSON.parse(readFileSync(repo.path(done.evidence), 'utf8')) as { criteria: unknown }).criteria).toEqual(expected);
  });
});

describe('advance red names the criteria a plan leaves out', () => {
  it('warns with the missing ids, and still moves on', async () => {
    const repo = testRepo({ stack: NODE_TEST_STACK, files: { 'specs/FR-CALC-001.md': FR } });
    ok(cli(repo, 'init', '--spec', 'specs/FR-CALC-001.md'));
    repo.write('.tdd/plans/FR-CALC-001.md', '# Test plan\n\n## AC-CALC.1: add\n\n## AC-CALC.20: not a criterion\n');
    const r = await cliAsync(repo.root, ['advance', 'red', '--plan', '.tdd/plans/FR-CALC-001.md']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('tdd-plan → tdd-red');
    expect(withoutWall(r.stderr)).toBe('tdd-gate advance red: warning: the plan does not name AC-CALC.2; every criterion of the SPEC gets a section headed with its id (the evidence record shows which ones the plan missed)\n');
  });

  it('says nothing when the plan names every criterion', async () => {
    const repo = testRepo({ stack: NODE_TEST_STACK, files: { 'specs/FR-CALC-001.md': FR } });
    ok(cli(repo, 'init', '--spec', 'specs/FR-CALC-001.md'));
    repo.write('.tdd/plans/FR-CALC-001.md', '## AC-CALC.1: add\n## AC-CALC.2: sub\n');
    const r = await cliAsync(repo.root, ['advance', 'red', '--plan', '.tdd/plans/FR-CALC-001.md']);
    expect({ status: r.status, stderr: withoutWall(r.stderr) }).toEqual({ status: 0, stderr: '' });
  });
});

describe('namesId', () => {
  it.each<[string, string, boolean]>([
    ['## AC-1: adds', 'AC-1', true],
    ['## AC-10: adds', 'AC-1', false],
    ['## AC-AUTH.12: x', 'AC-AUTH.1', false],
    ['covers AC-AUTH.1.', 'AC-AUTH.1', true],
    ['(AC-AUTH.1, AC-AUTH.2)', 'AC-AUTH.2', true],
    ['AC-1.2', 'AC-1', false],
  ])('%j names %s: %s', (text, id, yes) => {
    expect(namesId(text, id)).toBe(yes);
  });
});

/** The OS wall's own line (where the sandbox can run here) is not this test's subject. */
function withoutWall(stderr: string): string {
  return stderr
    .split('\n')
    .filter((l) => !l.startsWith('tdd-gate: OS wall'))
    .join('\n');
}
