import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/hook.js';
import { testRepo } from '../helpers/repo.js';
import { NODE_TEST_STACK, writeVerdict } from '../cli/fixtures.js';

// One criterion through the whole loop with the phase verbs, as the /tdd skill drives it.
const STACK = NODE_TEST_STACK;
const F = '```';
const TEST = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.mjs';\ntest('adds', () => { assert.equal(add(1, 2), 3); });\n";

describe('a full cycle with hand-offs (built CLI)', () => {
  it('plan → red → validator → freeze → handoff red → green → handoff green → refactor → done', () => {
    const repo = testRepo({ stack: STACK });
    const cli = (...args: string[]) => {
      const r = runCli(repo.root, args);
      if (r.status !== 0) throw new Error(`tdd-gate ${args.join(' ')} → ${r.status}\n${r.stdout}${r.stderr}`);
      return r.stdout;
    };
    const hand = (role: string, body: string) => {
      repo.write('out.md', `Report.\n\n${F}tdd-result\nrole: ${role}\nstatus: ok\n${body}\n${F}\n`);
      return cli('result', 'out.md', '--role', role).split('\n')[0];
    };
    const proof = (files: string) => `ac: AC-1\nfiles: [${files}]\ncommand: node --test test/add.test.mjs\noutput_excerpt: |\n  (excerpt)`;

    cli('init', '--spec', 'specs/SPEC-001.md');
    repo.write('.tdd/plans/SPEC-001.md', '# plan\n- AC-1 adds two numbers\n');
    expect(hand('planner', 'files: [.tdd/plans/SPEC-001.md]\nacs: [AC-1]')).toBe('proceed');
    cli('advance', 'red', '--plan', '.tdd/plans/SPEC-001.md');
    repo.write('src/add.mjs', 'export function add(a, b) { return 0; } // STUB:TDD\n');
    repo.write('test/add.test.mjs', TEST);
    expect(hand('test-writer', proof('test/add.test.mjs, src/add.mjs'))).toBe('proceed');
    cli('verify', 'red');
    writeVerdict(repo, `${F}tdd-result\nrole: test-validator\nstatus: ok\nverdict: PASS\n${F}\n`);
    expect(hand('test-validator', 'verdict: PASS')).toBe('proceed');
    cli('freeze', '--verdict', 'verdict.md');
    cli('handoff', 'red');
    expect(cli('context', '--role', 'implementer')).not.toContain('Scenario');

    repo.write('src/add.mjs', 'export function add(a, b) { const sum = a + b; return sum; }\n');
    expect(hand('implementer', `${proof('src/add.mjs')}\nrefactor_needed: true\nrefactor_reasons: [naming]`)).toBe('proceed');
    cli('verify', 'green');
    cli('handoff', 'green');
    cli('advance', 'refactor');
    repo.write('src/add.mjs', 'export function add(a, b) { return a + b; }\n');
    expect(hand('refactorer', proof('src/add.mjs'))).toBe('proceed');
    cli('verify', 'refactor');
    const status = cli('status');
    expect(status).toContain('loop: 1 of at most 10 cycles, current AC-1');
    expect(status).toContain('AC-1 passing, 1 cycle completed; cycle 1: red ok, green ok, refactor ok');
    expect(status).not.toMatch(/^\s+- /m);
    cli('done');

    const green = JSON.parse(readFileSync(repo.path('.tdd/handoff-green.json'), 'utf8')) as Record<string, unknown>;
    expect(green).toMatchObject({ kind: 'green', phase: 'tdd-green', implementation_files: ['src/add.mjs'], test_files: ['test/add.test.mjs'], exit_code: 0 });
  });
});
