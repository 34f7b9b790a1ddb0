import { describe, expect, it } from 'vitest';
import { buildManifest, isolationProblem, isolationViolations, RUNNER_OUTPUT_MAX, type PathRules } from '../../src/handoff/rules/manifest.js';
import { decideStop, type StopFacts } from '../../src/handoff/rules/stopDecision.js';

const rules: PathRules = {
  isTest: (f) => f.startsWith('tests/') || f.endsWith('.test.ts'),
  isSource: (f) => f.startsWith('src/'),
  specRel: 'specs/SPEC-001.md',
  planRel: '.tdd/plans/SPEC-001.md',
};

describe('isolation rule', () => {
  it.each([
    ['tests/a.test.ts', null],
    ['src/a.ts', null],
    ['specs/SPEC-001.md', 'it is the SPEC'],
    ['.tdd/plans/SPEC-001.md', 'test plan'],
    ['.tdd/handoff-red.json', "tdd-gate's own state"],
    ['.claude/settings.json', 'outside the project or a control file'],
    ['../elsewhere/a.ts', 'outside the project'],
    ['README.md', 'neither a test file nor a source file'],
  ])('%s → %s', (rel, problem) => {
    const got = isolationProblem(rel, rules);
    if (problem === null) expect(got).toBeNull();
    else expect(got).toContain(problem);
  });

  it('lists every requested path outside the allowlist', () => {
    expect(isolationViolations(['tests/a.test.ts', 'specs/SPEC-001.md', '.tdd/plans/SPEC-001.md'], ['tests/a.test.ts', 'src/a.ts'])).toEqual([
      'specs/SPEC-001.md',
      '.tdd/plans/SPEC-001.md',
    ]);
  });
});

describe('hand-off manifests', () => {
  const base = {
    phase: 'tdd-red',
    now: '2026-11-22T03:00:00.000Z',
    component: 'SPEC-001',
    cycle: { ac: 'AC-1', n: 1, total: 1 },
    command: 'npx vitest run',
    exitCode: 1,
  };

  it('red: the failing tests and their stubs, for the implementer, output cut to 2,000 characters', () => {
    const { manifest, excluded } = buildManifest(
      { ...base, kind: 'red', testFiles: ['tests/a.test.ts', 'tests/a.test.ts'], implementationFiles: ['src/a.ts', 'specs/SPEC-001.md', 'notes.md'], output: 'x'.repeat(5000) + 'TAIL' },
      rules,
    );
    expect(manifest).toMatchObject({ kind: 'red', for_role: 'implementer', test_files: ['tests/a.test.ts'], allowlist: ['src/a.ts', 'tests/a.test.ts'], exit_code: 1, cycle: { ac: 'AC-1', n: 1 } });
    expect(manifest.implementation_files).toBeUndefined();
    expect(manifest.runner_output.length).toBeLessThanOrEqual(RUNNER_OUTPUT_MAX);
    expect(manifest.runner_output.endsWith('TAIL')).toBe(true);
    expect(excluded.map((e) => e.path)).toEqual(['notes.md', 'specs/SPEC-001.md']);
  });

  it('green: adds the implementation files, for the refactorer', () => {
    const { manifest } = buildManifest({ ...base, phase: 'tdd-green', kind: 'green', exitCode: 0, testFiles: ['tests/a.test.ts'], implementationFiles: ['src/a.ts', 'src/b.ts'], output: 'ok' }, rules);
    expect(manifest).toMatchObject({ kind: 'green', for_role: 'refactorer', implementation_files: ['src/a.ts', 'src/b.ts'], allowlist: ['src/a.ts', 'src/b.ts', 'tests/a.test.ts'], runner_output: 'ok' });
  });
});

describe('SubagentStop decision', () => {
  const F = '```';
  const good = `${F}tdd-result\nrole: test-validator\nstatus: ok\nverdict: PASS\n${F}`;
  const facts = (o: Partial<StopFacts>): StopFacts => ({ agentType: 'tdd-gate:test-validator', message: good, stopHookActive: false, ac: 'AC-1', formatUsed: 0, formatLimit: 1, ...o });

  it.each<[string, Partial<StopFacts>, string]>([
    ['ignores agents that are not ours', { agentType: 'general-purpose', message: 'hi' }, 'ignore'],
    ['ignores a main-thread stop (no agent_type)', { agentType: undefined, message: 'hi' }, 'ignore'],
    ['ignores an unknown tdd-gate agent', { agentType: 'tdd-gate:helper', message: 'hi' }, 'ignore'],
    ['accepts a valid block', {}, 'valid'],
    ['blocks a missing block', { message: 'done' }, 'block'],
    ['blocks a block for another role', { agentType: 'tdd-gate:implementer' }, 'block'],
    ['lets the stop through on the second stop (stop_hook_active)', { message: 'done', stopHookActive: true }, 'let-stop'],
    ['lets the stop through when the format budget is spent', { message: 'done', formatUsed: 1 }, 'let-stop'],
  ])('%s', (_n, o, kind) => {
    expect(decideStop(facts(o)).kind).toBe(kind);
  });

  it('the block reason is a narrow re-emit instruction with a template for the role', () => {
    const d = decideStop(facts({ agentType: 'tdd-gate:implementer', message: 'All green.' }));
    expect(d.kind).toBe('block');
    if (d.kind !== 'block') return;
    expect(d.reason).toContain('tdd-gate [result-format]');
    expect(d.reason).toContain('Do not redo or change the work; only report it.');
    expect(d.reason).toContain('```tdd-result\nrole: implementer\nstatus: ok\nac: AC-1');
  });
});
