import { describe, expect, it } from 'vitest';
import { checkSpec, placeholders } from '../../src/spec/rules/specCheck.js';
import { parseSpec } from '../../src/spec/rules/specParse.js';

/** The codes of the errors (and, separately, warnings) a SPEC text gets. */
function codes(text: string, supersededFound: boolean | null = null) {
  const r = checkSpec(parseSpec(text), { supersededFound });
  return { errors: r.errors.map((e) => e.code), warnings: r.warnings.map((w) => w.code), report: r };
}

const ACTIVE = '---\nid: SPEC-7\nstatus: active\n---\n';
const GOOD_SCENARIO = `${ACTIVE}# SPEC-7\n\n#### Scenario: adds\n- GIVEN 1 and 2\n- WHEN add is called\n- THEN it returns 3\n`;

describe('format 1: #### Scenario', () => {
  it.each<[string, string, string[]]>([
    ['a complete SPEC', GOOD_SCENARIO, []],
    ['bold keywords and plain lines', `${ACTIVE}#### Scenario: x\n**GIVEN** a\n**WHEN** b\n**THEN** c\n`, []],
    ['bold keywords with the colon inside', `${ACTIVE}#### Scenario: x\n- **GIVEN:** a\n- **WHEN:** b\n- **THEN:** c\n`, []],
    ['numbered steps', `${ACTIVE}#### Scenario: x\n1. GIVEN a\n2. WHEN b\n3. THEN c\n`, []],
    ['a closing # on the heading', `${ACTIVE}#### Scenario: x ####\n- WHEN b\n- THEN c\n`, []],
    ['lower-case keywords, AND/BUT', `${ACTIVE}#### Scenario: x\n- Given a\n- When b\n- Then c\n- And d\n- But not e\n`, []],
    ['no scenario at all', `${ACTIVE}# nothing here\n`, ['no-criteria']],
    ['a ### Scenario (wrong level)', `${ACTIVE}### Scenario: a\n- THEN b\n`, ['no-criteria']],
    ['a scenario at the wrong level beside good ones', `${ACTIVE}#### Scenario: a\n- WHEN x\n- THEN 1\n### Scenario: b\n- WHEN y\n- THEN 2\n`, ['scenario-level']],
    ['a "Scenario overview" section is prose', `${ACTIVE}## Scenario overview\n#### Scenario: a\n- WHEN x\n- THEN 1\n`, []],
    ['a tdd_acceptance example in the body of a scenario SPEC', `${ACTIVE}#### Scenario: a\n- WHEN x\n- THEN 1\n\n\`\`\`yaml\ntdd_acceptance:\n  - Given a, when b, then c\n\`\`\`\n`, []],
    ['a scenario without THEN', `${ACTIVE}#### Scenario: a\n- GIVEN x\n- WHEN y\n`, ['no-then']],
    ['THEN only inside a code fence does not count', `${ACTIVE}#### Scenario: a\n- WHEN y\n\`\`\`\n#### Scenario: b\n\`\`\`\n`, ['no-then']],
    ['an empty THEN', `${ACTIVE}#### Scenario: a\n- WHEN y\n- THEN\n`, ['empty-step']],
    ['duplicate titles (case and spaces ignored)', `${ACTIVE}#### Scenario: Adds  two\n- THEN 3\n#### Scenario: adds two\n- THEN 4\n`, ['duplicate-title']],
    ['an untitled scenario', `${ACTIVE}#### Scenario\n- WHEN a\n- THEN b\n`, ['untitled']],
    ['TODO in a step', `${ACTIVE}#### Scenario: a\n- WHEN x\n- THEN TODO\n`, ['placeholder']],
    ['<x> slot', `${ACTIVE}#### Scenario: a\n- WHEN <input> is parsed\n- THEN 1\n`, ['placeholder']],
    ['an ellipsis', `${ACTIVE}#### Scenario: a\n- WHEN x\n- THEN the result is ...\n`, ['placeholder']],
    ['a placeholder in the title', `${ACTIVE}#### Scenario: TBD\n- WHEN x\n- THEN 1\n`, ['placeholder']],
    ['status draft', `---\nstatus: draft\n---\n#### Scenario: a\n- WHEN x\n- THEN 1\n`, ['status']],
    ['status superseded', `---\nstatus: superseded\n---\n#### Scenario: a\n- WHEN x\n- THEN 1\n`, ['status']],
    ['front matter never closed', `---\nstatus: active\n#### Scenario: a\n- WHEN x\n- THEN 1\n`, ['front-matter']],
  ])('%s', (_name, text, errors) => {
    expect(codes(text).errors).toEqual(errors);
  });

  it.each([
    ['"Loading..." in quotes', '- THEN the label reads "Loading..."'],
    ['`Array<string>` in code', '- THEN it returns an `Array<string>` of 2'],
    ['a todo app (lower case)', '- THEN the todo list holds 2 items'],
    ["'Loading...' in single quotes", "- THEN the label reads 'Loading...'"],
    ['a component and an HTML tag', '- THEN it renders <Button> inside a <div>'],
  ])('values are not placeholders: %s', (_n, then) => {
    expect(codes(`${ACTIVE}#### Scenario: a\n- WHEN x\n${then}\n`).errors).toEqual([]);
  });

  it('points at a scenario heading at the wrong level when there is no other', () => {
    const r = codes(`${ACTIVE}### Scenario: a\n- THEN b\n`).report;
    expect(r.errors[0]).toMatchObject({ code: 'no-criteria', line: 5 });
    expect(r.errors[0]?.message).toContain('the Scenario heading on line 5 is not at level 4');
  });

  it('numbers scenarios AC-1… in order and reads id and title', () => {
    const { report } = codes(`${ACTIVE}# SPEC-7: Cart\n#### Scenario: one\n- THEN 1\n#### Scenario: two\n- THEN 2\n`);
    expect(report.criteria).toEqual([
      { id: 'AC-1', title: 'one', line: 6 },
      { id: 'AC-2', title: 'two', line: 8 },
    ]);
    expect(report).toMatchObject({ format: 'scenario', id: 'SPEC-7', status: 'active' });
  });

  it('warns (does not refuse) on a missing status and a missing WHEN', () => {
    const r = codes('# SPEC-001\n\n#### Scenario: adds\n- GIVEN 1 and 2\n- THEN 3\n');
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual(['no-status', 'no-when']);
    expect(r.report.id).toBe('SPEC-001');
  });

  it('reads CRLF files and a BOM', () => {
    expect(codes(`\uFEFF${GOOD_SCENARIO.replace(/\n/g, '\r\n')}`).errors).toEqual([]);
  });
});

const FR = (criteria: string, fm = '---\nid: FR-AUTH-003\nstatus: active\n---\n') => `${fm}# FR-AUTH-003: Lockout\n\n## Description\nText.\n\n## Acceptance Criteria\n\n${criteria}\n## Notes\n- not a criterion\n`;

describe('format 2: FR file with ## Acceptance Criteria', () => {
  it.each<[string, string, string[]]>([
    ['plain bullets', '- AC-AUTH.1: 5 failures lock the account\n- AC-AUTH.2: a success resets the count to 0\n', []],
    ['numbered, bold ids, dashes', '1. **AC-AUTH.1** — 5 failures lock the account\n2. **AC-AUTH.2** - a success resets the count to 0\n', []],
    ['check boxes, no bullet', '- [ ] AC-AUTH.1 5 failures lock the account\nAC-AUTH.2: a success resets the count to 0\n', []],
    ['a wrapped criterion', '- AC-AUTH.1: 5 failures\n  lock the account for 900 s\n', []],
    ['a table', '| ID | Criterion |\n|----|-----------|\n| AC-AUTH.1 | 5 failures lock the account |\n| **AC-AUTH.2** | a success resets the count to 0 |\n', []],
    ['a table row without an id is prose', '| ID | Criterion |\n|---|---|\n| AC-AUTH.1 | locks |\n| note | none |\n', []],
    ['an empty section', 'Nothing yet.\n', ['no-criteria']],
    ['a bullet without id', '- AC-AUTH.1: 5 failures lock\n- a success resets the count\n', ['criterion-without-id']],
    ['an id without prefix', '- AC-1: 5 failures lock the account\n', ['criterion-id']],
    ['an id without number', '- AC-AUTH: 5 failures lock the account\n', ['criterion-id']],
    ['duplicate ids', '- AC-AUTH.1: 5 failures lock\n- AC-AUTH.1: a success resets\n', ['duplicate-id']],
    ['duplicate text', '- AC-AUTH.1: 5 failures lock\n- AC-AUTH.2: 5 failures lock\n', ['duplicate-title']],
    ['an empty criterion', '- AC-AUTH.1:\n- AC-AUTH.2: a success resets\n', ['empty-criterion']],
    ['a placeholder', '- AC-AUTH.1: the account locks after TBD failures\n', ['placeholder']],
  ])('%s', (_name, criteria, errors) => {
    expect(codes(FR(criteria)).errors).toEqual(errors);
  });

  it('reads a table row as id and text', () => {
    const { report } = codes(FR('| ID | Criterion | Priority |\n|---|---|---|\n| AC-AUTH.1 | 5 failures lock the account | high |\n'));
    expect(report.criteria.map((c) => [c.id, c.title])).toEqual([['AC-AUTH.1', '5 failures lock the account — high']]);
  });

  it('keeps the written ids and the text, ends the section at the next ## heading', () => {
    const { report } = codes(FR('- AC-AUTH.1: 5 failures lock the account\n- AC-AUTH.12: a success resets the count to 0\n'));
    expect(report.format).toBe('fr');
    expect(report.criteria.map((c) => [c.id, c.title])).toEqual([
      ['AC-AUTH.1', '5 failures lock the account'],
      ['AC-AUTH.12', 'a success resets the count to 0'],
    ]);
  });

  it('takes the id from the H1 when there is no front matter, and warns about the status', () => {
    const r = codes(FR('- AC-AUTH.1: 5 failures lock the account\n', ''));
    expect(r.report.id).toBe('FR-AUTH-003');
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual(['no-status']);
  });

  it('refuses a file that mixes formats', () => {
    expect(codes(FR('- AC-AUTH.1: locks\n') + '#### Scenario: x\n- WHEN a\n- THEN b\n').errors).toEqual(['mixed-formats']);
  });
});

const CARD = (list: string, extra = '') => `---\nid: TASK-142\ntitle: Dry run\nstatus: active\nlabels: [cli]\n${list}${extra}---\n\n# TASK-142\n`;

describe('format 3: task card with tdd_acceptance:', () => {
  it.each<[string, string, string[]]>([
    ['string items', 'tdd_acceptance:\n  - Given 3 changed files, when deploy --dry-run runs, then it prints 3 paths\n  - "Given no changes, when deploy --dry-run runs, then it exits 0"\n', []],
    ['an item wrapped over lines', 'tdd_acceptance:\n  - Given 3 changed files,\n    when deploy --dry-run runs,\n    then it prints 3 paths\n', []],
    ['mapping items', 'tdd_acceptance:\n  - given: 3 changed files\n    when: deploy --dry-run runs\n    then: it prints 3 paths\n', []],
    ['written ids', 'tdd_acceptance:\n  - AC-DEPLOY.1: Given a, when b, then c\n  - AC-DEPLOY.2: Given d, when e, then f\n', []],
    ['a folded block item', 'tdd_acceptance:\n  - >\n    Given 3 changed files,\n    when deploy --dry-run runs, then it prints 3 paths\n', []],
    ['a trailing comment on the key', 'tdd_acceptance:   # acceptance, for tdd-gate\n  - Given a, when b, then c\n', []],
    ['an empty list', 'tdd_acceptance:\n', ['no-criteria']],
    ['an item without then', 'tdd_acceptance:\n  - Given 3 changed files, when deploy --dry-run runs\n', ['no-then']],
    ['an item that is not Given-When-Then', 'tdd_acceptance:\n  - prints the files\n', ['no-then', 'not-gwt']],
    ['a flow list', 'tdd_acceptance: [a, b]\n', ['task-card-list', 'no-criteria']],
    ['duplicate items', 'tdd_acceptance:\n  - Given a, when b, then c\n  - Given a, when b, then c\n', ['duplicate-title']],
    ['a placeholder', 'tdd_acceptance:\n  - Given a, when b, then it returns <result>\n', ['placeholder']],
    ['a mapping item without then', 'tdd_acceptance:\n  - given: a\n    when: b\n', ['no-then']],
  ])('%s', (_name, list, errors) => {
    expect(codes(CARD(list)).errors.sort()).toEqual([...errors].sort());
  });

  it('numbers items AC-1… and splits Given / when / then', () => {
    const p = parseSpec(CARD('tdd_acceptance:\n  - Given 3 changed files, when deploy --dry-run runs, then it prints 3 paths\n'));
    expect(p.format).toBe('task-card');
    expect(p.criteria[0]).toMatchObject({ id: 'AC-1', line: 7 });
    expect(p.criteria[0]?.steps.map((s) => [s.keyword, s.text])).toEqual([
      ['GIVEN', '3 changed files'],
      ['WHEN', 'deploy --dry-run runs'],
      ['THEN', 'it prints 3 paths'],
    ]);
  });

  it('reads the list from the body too (a card pasted from a tracker)', () => {
    const text = '# PROJ-9: Dry run\n\nSome text.\n\n```yaml\ntdd_acceptance:\n  - Given a, when b, then c\n  - Given d, when e, then f\n```\n\nMore text.\n';
    const r = codes(text);
    expect(r.errors).toEqual([]);
    expect(r.report).toMatchObject({ format: 'task-card', id: 'PROJ-9', criteria: [{ id: 'AC-1' }, { id: 'AC-2' }] });
  });

  it('refuses a list in both the front matter and the body', () => {
    expect(codes(CARD('tdd_acceptance:\n  - Given a, when b, then c\n') + 'tdd_acceptance:\n  - Given d, when e, then f\n').errors).toContain('task-card-twice');
  });
});

const DELTA = (body: string, fm = 'supersedes: SPEC-001\n') => `---\nid: SPEC-002\nstatus: active\n${fm}---\n# SPEC-002\n\n${body}`;
const ADDED = '## ADDED Requirements\n\n### Requirement: dry run\n\n#### Scenario: lists files\n- WHEN deploy --dry-run\n- THEN it prints 3 paths\n\n';
const MODIFIED = '## MODIFIED Requirements\n\n### Requirement: deploy output (replaces "deploy prints a summary")\n\n#### Scenario: summary names the count\n- WHEN deploy runs\n- THEN it prints "3 files"\n\n';
const REMOVED = '## REMOVED Requirements\n\n### Requirement: --quiet\nReason: nobody used it.\n';

describe('delta SPECs (supersedes:)', () => {
  it.each<[string, string, boolean | null, string[]]>([
    ['ADDED, MODIFIED and REMOVED', DELTA(ADDED + MODIFIED + REMOVED), true, []],
    ['only ADDED', DELTA(ADDED), true, []],
    ['the superseded SPEC does not exist', DELTA(ADDED), false, ['delta-unknown-base']],
    ['no delta sections', DELTA('#### Scenario: x\n- WHEN a\n- THEN b\n'), true, ['delta-sections']],
    ['a scenario outside the sections', DELTA(`#### Scenario: early\n- WHEN a\n- THEN b\n\n${ADDED}`), true, ['delta-scenario-outside']],
    ['a scenario under REMOVED', DELTA(`${ADDED}${REMOVED}\n#### Scenario: gone\n- WHEN a\n- THEN b\n`), true, ['delta-scenario-outside']],
    ['an ADDED section without a scenario', DELTA('## ADDED Requirements\n\n### Requirement: x\nText.\n\n' + MODIFIED), true, ['delta-no-scenario']],
    ['an empty section', DELTA(`${ADDED}## REMOVED Requirements\n\n`), true, ['delta-empty-section']],
    ['it supersedes itself', DELTA(ADDED, 'supersedes: SPEC-002\n'), true, ['delta-self']],
    ['a delta in the FR format', DELTA('## ADDED Requirements\n\n## Acceptance Criteria\n- AC-X.1: y\n'), true, ['delta-format']],
  ])('%s', (_name, text, found, errors) => {
    expect(codes(text, found).errors).toEqual(errors);
  });

  it('warns when sections are there but supersedes: is not', () => {
    expect(codes(DELTA(ADDED, '')).warnings).toContain('delta-no-base');
  });
});

describe('long lines stay linear', () => {
  it.each([
    ['a task card item', (n: number) => `---\ntdd_acceptance:\n  - Given${' '.repeat(n)}x\n---\n`],
    ['a scenario step', (n: number) => `#### Scenario: a\n- THEN ${' '.repeat(n)}x\n`],
    ['a heading', (n: number) => `# ${' '.repeat(n)}x\n`],
    ['an indented FR line', (n: number) => `## Acceptance Criteria\n${' '.repeat(n)}x\n`],
    ['front matter', (n: number) => `---\nkey: a${' '.repeat(n)}b\n---\n`],
    ['an H1 id', (n: number) => `# A-${'B'.repeat(n)}c\n`],
  ])('%s of 200 000 characters parses in well under a second', (_n, make) => {
    const text = make(200_000);
    const t = performance.now();
    checkSpec(parseSpec(text), { supersededFound: null });
    expect(performance.now() - t).toBeLessThan(1000);
  });
});

describe('placeholders', () => {
  it.each<[string, string[]]>([
    ['returns 3', []],
    ['TODO: decide', ['TODO']],
    ['FIXME and XXX', ['FIXME', 'XXX']],
    ['<user name> logs in', ['<user name>']],
    ['it shows … and ???', ['...', '???']],
    ['a < b > c', []],
    ["the user's cart holds ... items", ['...']],
    ['<Value> is a name, <value> a slot', ['<value>']],
  ])('%j → %j', (s, found) => {
    expect(placeholders(s)).toEqual(found);
  });
});
