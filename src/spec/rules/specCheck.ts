/**
 * The C1 gate's judgement of a SPEC (docs/spec-formats.md): is it ready to start a cycle, and if
 * not, what exactly to fix. Pure: the parsed SPEC and the one fact that needs the file system (does
 * the superseded SPEC exist) in, findings out. `tdd-gate spec check` prints them; `init` refuses on
 * any error.
 */
import { clip, type Criterion, type ParsedSpec, type SpecFormat } from './specParse.js';

type Severity = 'error' | 'warning';

interface Finding {
  severity: Severity;
  code: string;
  /** 1-based line in the SPEC, when the finding has one. */
  line: number | null;
  message: string;
}

export interface SpecReport {
  ok: boolean;
  format: SpecFormat | null;
  id: string | null;
  title: string | null;
  status: string | null;
  supersedes: string | null;
  criteria: { id: string; title: string; line: number }[];
  errors: Finding[];
  warnings: Finding[];
}

interface CheckFacts {
  /** Whether the SPEC named in `supersedes:` was found; null when the SPEC is not a delta. */
  supersededFound: boolean | null;
  /** Checking a draft (`spec check --draft`): `status: draft` is expected, not an error. */
  draft?: boolean;
}

const FORMAT_NAME: Record<SpecFormat, string> = {
  scenario: '`#### Scenario` SPEC',
  fr: 'FR file (## Acceptance Criteria)',
  'task-card': 'task card (tdd_acceptance:)',
};

export function checkSpec(spec: ParsedSpec, facts: CheckFacts): SpecReport {
  const findings: Finding[] = [];
  const error = (code: string, line: number | null, message: string) => findings.push({ severity: 'error', code, line, message });
  const warn = (code: string, line: number | null, message: string) => findings.push({ severity: 'warning', code, line, message });

  for (const issue of spec.issues) error(issue.code, issue.line, issue.message);
  checkFormat(spec, error);
  checkStatus(spec, facts.draft === true, error, warn);
  for (const c of spec.criteria) checkCriterion(spec.format, c, error, warn);
  checkDuplicates(spec.criteria, error);
  if (spec.title !== null) {
    const p = placeholders(spec.title);
    if (p.length > 0) error('placeholder', null, `the title "${clip(spec.title)}" holds the placeholder ${p.join(', ')}; write the real title`);
  }
  checkDelta(spec, facts, error, warn);

  findings.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const errors = findings.filter((f) => f.severity === 'error');
  return {
    ok: errors.length === 0,
    format: spec.format,
    id: spec.id,
    title: spec.title,
    status: spec.status,
    supersedes: spec.supersedes,
    criteria: spec.criteria.map((c) => ({ id: c.id, title: c.title, line: c.line })),
    errors,
    warnings: findings.filter((f) => f.severity === 'warning'),
  };
}

type Report = (code: string, line: number | null, message: string) => void;

function checkFormat(spec: ParsedSpec, error: Report): void {
  if (spec.formats.length > 1) {
    error(
      'mixed-formats',
      null,
      `the SPEC holds ${spec.formats.map((f) => FORMAT_NAME[f]).join(' and ')}; use one format per file, so every criterion is planned exactly once`,
    );
  }
  if (spec.format === null) {
    const wrong = spec.misleveledScenarios[0];
    error(
      'no-criteria',
      wrong ?? null,
      `no \`#### Scenario\` heading, no \`## Acceptance Criteria\` section with AC-<prefix>.<N> lines and no \`tdd_acceptance:\` list; ${
        wrong !== undefined ? `the Scenario heading on line ${wrong} is not at level 4: write it as \`#### Scenario: <title>\`` : 'add at least one scenario (`#### Scenario: <title>` with GIVEN / WHEN / THEN lines) before starting a cycle'
      }`,
    );
    return;
  }
  for (const line of spec.misleveledScenarios) {
    error('scenario-level', line, 'a Scenario heading that is not at level 4 is not read as a scenario; write it as `#### Scenario: <title>`');
  }
  if (spec.criteria.length > 0) return;
  if (spec.format === 'fr') error('no-criteria', null, 'the `## Acceptance Criteria` section holds no `AC-<prefix>.<N>: <criterion>` line; add one line per criterion');
  if (spec.format === 'task-card') error('no-criteria', null, '`tdd_acceptance:` holds no item; add one `- Given … when … then …` item per criterion');
}

function checkStatus(spec: ParsedSpec, draft: boolean, error: Report, warn: Report): void {
  if (draft) {
    if (spec.status !== 'draft') error('status', null, `a draft has front-matter status "draft" (found ${spec.status === null ? 'none' : `"${spec.status}"`}); it becomes active only when the person approves it`);
    return;
  }
  if (spec.status === null) {
    warn('no-status', null, 'no front-matter `status`; tdd-gate treats the SPEC as active. Add `status: active` once it is agreed (`status: draft` while it is not)');
    return;
  }
  if (spec.status !== 'active') {
    error('status', null, `front-matter status "${spec.status}"; only an active SPEC can start a cycle (set status: active when it is agreed)`);
  }
}

function checkCriterion(format: SpecFormat | null, c: Criterion, error: Report, warn: Report): void {
  const what = format === 'scenario' ? `scenario "${clip(c.title)}"` : `criterion ${c.id}`;
  if (format === 'scenario' && c.title.trim() === '') error('untitled', c.line, `a \`#### Scenario\` heading without a title; write \`#### Scenario: <what happens>\``);
  if (format === 'fr') {
    if (c.title.trim() === '') error('empty-criterion', c.line, `${c.id} has no text; write the criterion on the same line (\`${c.id}: <observable result, with concrete values>\`)`);
  } else {
    const has = (k: string) => c.steps.some((s) => s.keyword === k);
    if (!has('THEN')) {
      error(
        'no-then',
        c.line,
        format === 'scenario'
          ? `${what} has no THEN step; add a line \`- THEN <the observable result, with a concrete value>\``
          : `${what} has no "then"; write it as \`Given <state>, when <action>, then <observable result>\``,
      );
    }
    if (!has('WHEN') && has('THEN')) warn('no-when', c.line, `${what} has no WHEN step; name the action under test`);
    for (const s of c.steps) {
      if (s.text.trim() === '') error('empty-step', s.line, `${what}: the ${s.keyword} step is empty; say what it stands for, with concrete values`);
    }
  }
  const texts = [c.title, ...c.steps.map((s) => s.text)];
  const found = [...new Set(texts.flatMap(placeholders))];
  if (found.length > 0) {
    error('placeholder', c.line, `${what} holds the placeholder ${found.join(', ')}; replace it with the concrete value the test will check`);
  }
}

function checkDuplicates(criteria: Criterion[], error: Report): void {
  const titles = new Map<string, Criterion>();
  const ids = new Map<string, Criterion>();
  for (const c of criteria) {
    const key = c.title.toLowerCase().replace(/\s+/g, ' ').trim();
    const first = key === '' ? undefined : titles.get(key);
    if (first) error('duplicate-title', c.line, `"${clip(c.title)}" is written twice (lines ${first.line} and ${c.line}); give each criterion its own title, or merge them`);
    else if (key !== '') titles.set(key, c);
    const sameId = ids.get(c.id);
    if (sameId) error('duplicate-id', c.line, `the id ${c.id} is used twice (lines ${sameId.line} and ${c.line}); each criterion needs its own id`);
    else ids.set(c.id, c);
  }
}

function checkDelta(spec: ParsedSpec, facts: CheckFacts, error: Report, warn: Report): void {
  if (spec.supersedes === null) {
    if (spec.deltaSections.length > 0) {
      warn('delta-no-base', spec.deltaSections[0]?.line ?? null, 'the SPEC has ADDED/MODIFIED/REMOVED sections but no `supersedes:` in its front matter; name the SPEC it changes');
    }
    return;
  }
  const base = spec.supersedes;
  if (spec.format !== null && spec.format !== 'scenario') {
    error('delta-format', null, `a delta SPEC (supersedes: ${base}) is written in the \`#### Scenario\` format with ADDED / MODIFIED / REMOVED sections; rewrite it that way`);
    return;
  }
  if (spec.id !== null && base === spec.id) error('delta-self', null, `the SPEC supersedes itself (${base}); name the earlier SPEC it changes`);
  if (facts.supersededFound === false) {
    error('delta-unknown-base', null, `supersedes: ${base}, but no SPEC with that id was found (front-matter id, or a file named ${base}*.md under specs/ or beside this one); fix the id or restore the earlier SPEC`);
  }
  if (spec.deltaSections.length === 0) {
    error(
      'delta-sections',
      null,
      `a delta SPEC (supersedes: ${base}) needs its changes in \`## ADDED Requirements\`, \`## MODIFIED Requirements\` and/or \`## REMOVED Requirements\` sections`,
    );
    return;
  }
  const seen = new Set<string>();
  for (const s of spec.deltaSections) {
    if (seen.has(s.name)) error('delta-sections', s.line, `a second ## ${s.name} Requirements section; keep one per kind`);
    seen.add(s.name);
    if (!s.hasContent) error('delta-empty-section', s.line, `## ${s.name} Requirements is empty; fill it or remove the heading`);
    else if (s.name !== 'REMOVED' && !spec.criteria.some((c) => c.deltaSection === s.name)) {
      error('delta-no-scenario', s.line, `## ${s.name} Requirements has no \`#### Scenario\`; every added or modified requirement needs its scenarios`);
    }
  }
  for (const c of spec.criteria) {
    if (c.deltaSection === 'ADDED' || c.deltaSection === 'MODIFIED') continue;
    const where = c.deltaSection === 'REMOVED' ? 'under REMOVED' : 'outside the ADDED / MODIFIED sections';
    error('delta-scenario-outside', c.line, `scenario "${clip(c.title)}" sits ${where}; in a delta SPEC every scenario belongs to an added or modified requirement`);
  }
  if (spec.criteria.length === 0 && spec.deltaSections.every((s) => s.name === 'REMOVED')) {
    warn('delta-only-removed', null, 'the delta only removes requirements: there is nothing to test first; change the code outside a TDD cycle');
  }
}

/** HTML tags whose names are not also slot words (`<input>` and `<value>` stay slots). */
const HTML_TAGS = new Set(
  'a abbr b body br div em h1 h2 h3 h4 h5 h6 head hr html i img li ol p pre script span strong style tbody td textarea th thead tr u ul'.split(' '),
);

/**
 * Placeholders a test cannot check: TODO/TBD/FIXME/XXX, `<x>` slots, `...`/`…`, `???`.
 * Code spans and quoted strings are values, not placeholders ("Loading..." and 'Loading...' are fine).
 */
export function placeholders(s: string): string[] {
  const t = s
    .replace(/`[^`]*`/g, ' ')
    .replace(/"[^"]*"/g, ' ')
    .replace(/“[^”]*”/g, ' ')
    // 'single-quoted' values, but not apostrophes inside words (the user's cart)
    .replace(/(^|[\s([{=:,])'[^'\n]*'(?=$|[\s)\]}.,;:!?])/g, '$1 ');
  const out: string[] = [];
  for (const m of t.matchAll(/\b(TODO|TBD|TBA|FIXME|XXX)\b/g)) out.push(m[1] ?? '');
  // `<value>`, `<user name>`: a lower-case slot; `<Button>` and `<div>` are names, not slots.
  for (const m of t.matchAll(/<([a-z][a-z0-9 _.-]*)>/g)) if (!HTML_TAGS.has(m[1] ?? '')) out.push(m[0]);
  if (/\.{3}|…/.test(t)) out.push('...');
  if (/\?{3}/.test(t)) out.push('???');
  return [...new Set(out)];
}

/** The report as text lines (`file:line: error [code] message`), errors first. */
export function renderFindings(file: string, report: SpecReport): string[] {
  return [...report.errors, ...report.warnings].map((f) => `${file}${f.line !== null ? `:${f.line}` : ''}: ${f.severity} [${f.code}] ${f.message}`);
}

/** One line for a refusal: what is wrong, all of it. */
export function refusalLine(file: string, report: SpecReport): string {
  return `${file} is not ready to start a cycle: ${report.errors.map((e) => `${e.line !== null ? `line ${e.line}: ` : ''}${e.message}`).join('; ')} (\`tdd-gate spec check ${file}\` lists every finding)`;
}
