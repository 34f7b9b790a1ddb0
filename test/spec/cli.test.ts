import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { cli, ok, readState } from '../cli/fixtures.js';
import { testRepo } from '../helpers/repo.js';

const EXAMPLES = path.resolve(import.meta.dirname, '../../examples');
const example = (name: string) => readFileSync(path.join(EXAMPLES, name), 'utf8');

/** Good and bad SPECs of every format, as files a team would have. */
const GOOD: Record<string, { text: string; format: string; ids: string[]; id: string }> = {
  scenario: { text: example('SPEC-001-example.md'), format: 'scenario', ids: ['AC-1', 'AC-2', 'AC-3', 'AC-4'], id: 'SPEC-001' },
  fr: { text: example('FR-AUTH-003-example.md'), format: 'fr', ids: ['AC-AUTH.1', 'AC-AUTH.2', 'AC-AUTH.3', 'AC-AUTH.4'], id: 'FR-AUTH-003' },
  'task-card': { text: example('TASK-142-example.md'), format: 'task-card', ids: ['AC-1', 'AC-2', 'AC-3'], id: 'TASK-142' },
};

const BAD: [string, string, RegExp][] = [
  ['scenario without THEN', '---\nstatus: active\n---\n#### Scenario: adds\n- GIVEN 1 and 2\n- WHEN add\n', /:4: error \[no-then\] scenario "adds" has no THEN step/],
  ['no scenario', '# a plain note\n\nadd a --dry-run flag\n', /error \[no-criteria\] no `#### Scenario` heading/],
  ['draft status', '---\nstatus: draft\n---\n#### Scenario: a\n- WHEN x\n- THEN 1\n', /error \[status\] front-matter status "draft"/],
  ['duplicate titles', '#### Scenario: a\n- WHEN x\n- THEN 1\n#### Scenario: a\n- WHEN y\n- THEN 2\n', /:4: error \[duplicate-title\] "a" is written twice \(lines 1 and 4\)/],
  ['placeholder', '#### Scenario: a\n- WHEN x\n- THEN it returns <value>\n', /:1: error \[placeholder\] .*<value>/],
  ['FR bullet without id', '## Acceptance Criteria\n- AC-X.1: one\n- two\n', /:3: error \[criterion-without-id\]/],
  ['FR id not AC-<prefix>.<N>', '## Acceptance Criteria\n- AC-1: one\n', /:2: error \[criterion-id\] "AC-1" is not a criterion id of the form AC-<prefix>\.<N>/],
  ['task card item without then', '---\ntdd_acceptance:\n  - Given a, when b\n---\n', /:3: error \[no-then\] criterion AC-1 has no "then"/],
  ['task card empty list', '---\ntdd_acceptance:\n---\n', /error \[no-criteria\] `tdd_acceptance:` holds no item/],
];

describe('tdd-gate spec check', () => {
  it.each(Object.entries(GOOD))('accepts the %s example as it is', (_name, g) => {
    const repo = testRepo();
    repo.write('specs/S.md', g.text);
    const text = ok(cli(repo, 'spec', 'check', 'specs/S.md'));
    expect(text.stdout).toContain(`format ${g.format}, ${g.ids.length} criteria`);
    expect(text.stdout).toMatch(/ready to start a cycle\.\n$/);
    const json = JSON.parse(ok(cli(repo, 'spec', 'check', 'specs/S.md', '--json')).stdout) as Record<string, unknown> & { criteria: { id: string }[] };
    expect(json).toMatchObject({ ok: true, file: 'specs/S.md', format: g.format, id: g.id, status: 'active', errors: [], warnings: [] });
    expect(json.criteria.map((c) => c.id)).toEqual(g.ids);
  });

  it.each(BAD)('refuses %s with a finding that says where and what to do', (_name, text, finding) => {
    const repo = testRepo();
    repo.write('specs/bad.md', text);
    const r = ok(cli(repo, 'spec', 'check', 'specs/bad.md'), 1);
    expect(r.stdout).toMatch(finding);
    expect(r.stderr).toMatch(/^tdd-gate spec check: refused: specs\/bad\.md is not ready to start a cycle \(\d+ errors?; first: /);
    const json = JSON.parse(ok(cli(repo, 'spec', 'check', 'specs/bad.md', '--json'), 1).stdout) as { ok: boolean; errors: unknown[] };
    expect(json.ok).toBe(false);
    expect(json.errors.length).toBeGreaterThan(0);
  });

  it('finds the superseded SPEC by file name or front-matter id, and refuses when it is missing', () => {
    const repo = testRepo();
    const delta = (base: string) =>
      `---\nid: SPEC-002\nstatus: active\nsupersedes: ${base}\n---\n## ADDED Requirements\n\n#### Scenario: subtracts\n- WHEN sub(3, 1)\n- THEN 2\n`;
    repo.write('specs/v2/SPEC-002-sub.md', delta('SPEC-001'));
    ok(cli(repo, 'spec', 'check', 'specs/v2/SPEC-002-sub.md'));
    repo.write('specs/legacy/adding.md', '---\nid: ADD-7\nstatus: superseded\n---\n#### Scenario: a\n- THEN 1\n');
    repo.write('specs/v2/SPEC-002-sub.md', delta('ADD-7'));
    ok(cli(repo, 'spec', 'check', 'specs/v2/SPEC-002-sub.md'));
    repo.write('specs/v2/SPEC-002-sub.md', delta('SPEC-404'));
    expect(ok(cli(repo, 'spec', 'check', 'specs/v2/SPEC-002-sub.md'), 1).stdout).toMatch(/error \[delta-unknown-base\] supersedes: SPEC-404, but no SPEC with that id was found/);
    repo.write('specs/v2/SPEC-002-sub.md', delta('SPEC-001').replace('## ADDED Requirements', '## Requirements'));
    expect(ok(cli(repo, 'spec', 'check', 'specs/v2/SPEC-002-sub.md'), 1).stdout).toMatch(/error \[delta-sections\]/);
  });

  it('is read-only: no state, no event log, works outside a git repository', () => {
    const repo = testRepo();
    repo.write('specs/S.md', GOOD.fr!.text);
    const before = readdirSync(repo.path('.tdd')).sort();
    ok(cli(repo, 'spec', 'check', 'specs/S.md'));
    ok(cli(repo, 'spec', 'check', 'specs/nope.md'), 1);
    expect(readdirSync(repo.path('.tdd')).sort()).toEqual(before);

    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-nogit-')));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(path.join(dir, 'TASK.md'), GOOD['task-card']!.text);
    expect(ok(cli(dir, 'spec', 'check', 'TASK.md')).stdout).toContain('format task-card, 3 criteria');
  });

  it.each(readdirSync(EXAMPLES).filter((f) => f.endsWith('.md')))('the shipped example %s is ready as it is', (name) => {
    const r = ok(cli(path.dirname(EXAMPLES), 'spec', 'check', `examples/${name}`, '--json'));
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, errors: [], warnings: [] });
  });

  it('--draft checks a draft: status draft is expected, everything else as init checks it', () => {
    const repo = testRepo();
    const draft = '---\nid: SPEC-002\ntitle: Dry run\nstatus: draft\n---\n#### Scenario: lists files\n- WHEN deploy --dry-run\n- THEN it prints 3 paths\n';
    repo.write('specs/SPEC-002-dry-run.md', draft);
    expect(ok(cli(repo, 'spec', 'check', 'specs/SPEC-002-dry-run.md', '--draft')).stdout).toContain('a complete draft, ready to show for approval');
    expect(ok(cli(repo, 'spec', 'check', 'specs/SPEC-002-dry-run.md'), 1).stdout).toContain('error [status] front-matter status "draft"');
    repo.write('specs/SPEC-002-dry-run.md', draft.replace('- THEN it prints 3 paths', '- THEN it prints ...'));
    expect(ok(cli(repo, 'spec', 'check', 'specs/SPEC-002-dry-run.md', '--draft'), 1).stdout).toContain('error [placeholder]');
    repo.write('specs/SPEC-002-dry-run.md', draft.replace('status: draft', 'status: active'));
    expect(ok(cli(repo, 'spec', 'check', 'specs/SPEC-002-dry-run.md', '--draft'), 1).stdout).toContain('a draft has front-matter status "draft" (found "active")');
  });

  it('usage: a file is required, one only', () => {
    const repo = testRepo();
    expect(ok(cli(repo, 'spec', 'check'), 2).stderr).toMatch(/name the SPEC file to check/);
    expect(ok(cli(repo, 'spec', 'check', 'a.md', 'b.md'), 2).stderr).toMatch(/unexpected argument "b\.md"/);
    expect(ok(cli(repo, 'spec', 'check', 'specs/nope.md'), 1).stderr).toMatch(/cannot read the SPEC specs\/nope\.md \(ENOENT\)/);
  });
});

describe('init applies the same check', () => {
  it.each(Object.entries(GOOD))('starts a cycle on the %s example, with its id', (_name, g) => {
    const repo = testRepo();
    repo.write('specs/S.md', g.text);
    const r = ok(cli(repo, 'init', '--spec', 'specs/S.md'));
    expect(r.stdout).toContain(`cycle started for ${g.id} (specs/S.md, ${g.ids.length} scenarios`);
    expect(readState(repo)).toMatchObject({ phase: 'tdd-plan', spec_id: g.id });
  });

  it.each(BAD)('refuses %s, naming the same problem', (_name, text) => {
    const repo = testRepo();
    repo.write('specs/bad.md', text);
    const check = JSON.parse(ok(cli(repo, 'spec', 'check', 'specs/bad.md', '--json'), 1).stdout) as { errors: { message: string }[] };
    const r = ok(cli(repo, 'init', '--spec', 'specs/bad.md'), 1);
    expect(r.stderr).toMatch(/^tdd-gate init: refused: specs\/bad\.md is not ready to start a cycle: /);
    for (const e of check.errors) expect(r.stderr).toContain(e.message);
    expect(readdirSync(repo.path('.tdd')).filter((f) => f.startsWith('state-'))).toEqual([]);
  });
});
