/**
 * The three SPEC formats tdd-gate reads (docs/spec-formats.md), as one shape: front matter, the
 * format, and the acceptance criteria with their ids. Pure: text in, facts out. What is wrong with
 * a SPEC is judged by specCheck.ts; this module only records what it saw, with line numbers.
 */

export type SpecFormat = 'scenario' | 'fr' | 'task-card';
type StepKeyword = 'GIVEN' | 'WHEN' | 'THEN' | 'AND' | 'BUT';

interface Step {
  keyword: StepKeyword;
  text: string;
  line: number;
}

/** One acceptance criterion: a scenario, an FR `AC-<prefix>.<N>` line, or a task card item. */
export interface Criterion {
  id: string;
  /** The scenario title, the FR criterion text, or the task card item as written. */
  title: string;
  line: number;
  /** GIVEN/WHEN/THEN steps (scenarios and task card items; FR criteria are one free line). */
  steps: Step[];
  /** Where the id came from: written in the SPEC, or numbered by position (AC-1, AC-2, …). */
  idSource: 'written' | 'position';
  /** For a delta SPEC: the section the scenario sits in. */
  deltaSection?: DeltaSection | null;
}

type DeltaSection = 'ADDED' | 'MODIFIED' | 'REMOVED';

/** Something the parser could not read as the format says; specCheck turns these into findings. */
interface ParseIssue {
  code: string;
  line: number;
  message: string;
}

export interface ParsedSpec {
  /** null when the text holds none of the three formats. */
  format: SpecFormat | null;
  /** Every format the text holds (more than one is an error: the criteria would be ambiguous). */
  formats: SpecFormat[];
  frontMatter: { present: boolean; fields: Record<string, string>; endLine: number };
  id: string | null;
  title: string | null;
  status: string | null;
  supersedes: string | null;
  criteria: Criterion[];
  /** Delta SPEC sections: each `## ADDED|MODIFIED|REMOVED Requirements` heading, its extent and whether it has content. */
  deltaSections: { name: DeltaSection; line: number; /** First line after the section (1-based). */ end: number; hasContent: boolean }[];
  issues: ParseIssue[];
  /** Text lines, for checks that scan prose (1-based: lines[0] is line 1). */
  lines: string[];
  /** 1-based lines of `Scenario` headings at a level other than 4 (they do not count). */
  misleveledScenarios: number[];
}

/** `AC-<prefix>.<N>`: the FR criterion id, also accepted as a written id on a task card item. */
const FR_ID = /^AC-[A-Za-z0-9][A-Za-z0-9_-]*\.\d+$/;
const ANY_AC_ID = /^AC-[A-Za-z0-9._-]+$/;

const FENCE = /^\s*(```|~~~)/;
// Every pattern runs on one line and ends in `(.*)$` (trimmed in code), never `(.*?)\s*$`: lazy
// text before optional trailing space backtracks quadratically on a long line.
const HEADING = /^(#{1,6})\s+(.*)$/;
const SCENARIO = /^Scenario\b:?(.*)$/i;
/** On a trimmed line: `- GIVEN x`, `1. **When:** x`, `Then x`. */
const STEP = /^(?:[-*+]\s+|\d+[.)]\s+)?(?:\*\*|__)?(GIVEN|WHEN|THEN|AND|BUT)(?:\*\*|__)?(?=[\s:*_]|$)(.*)$/i;
const AC_SECTION = /^acceptance criteria\b/i;
const DELTA = /^(ADDED|MODIFIED|REMOVED)(?:\s+requirements)?:?$/i;
const KEY = 'tdd_acceptance';

export function parseSpec(input: string): ParsedSpec {
  const text = input.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const lines = text.split('\n');
  const issues: ParseIssue[] = [];
  const fm = readFrontMatter(lines, issues);
  const body = { from: fm.endLine, to: lines.length };
  const headings = readHeadings(lines, body.from);

  const scenarios = readScenarios(lines, headings);
  const fr = readFrCriteria(lines, headings, issues);
  // A list in the body counts only in a file with no other format: elsewhere it is an example.
  const card = readTaskCard(lines, fm, scenarios.length === 0 && fr === null ? body.from : lines.length, issues);

  const formats: SpecFormat[] = [];
  if (scenarios.length > 0) formats.push('scenario');
  if (fr !== null) formats.push('fr');
  if (card !== null) formats.push('task-card');
  const format = formats[0] ?? null;
  const criteria = format === 'fr' ? (fr ?? []) : format === 'task-card' ? (card ?? []) : scenarios;

  const deltaSections = readDeltaSections(lines, headings);
  if (format === 'scenario' && deltaSections.length > 0) {
    for (const c of criteria) c.deltaSection = sectionAt(deltaSections, c.line);
  }

  const h1 = headings.find((h) => h.level === 1);
  // `# FR-AUTH-003: title`: the leading token is an id when it is upper-case words and digits joined by `-`.
  const token = h1 ? (/^[A-Za-z0-9-]+/.exec(h1.text)?.[0] ?? '') : '';
  const idFromH1 = /^[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+$/.test(token) ? token : null;
  const titleFromH1 = h1 ? (idFromH1 ? h1.text.slice(token.length).replace(/^\s*[:—–-]?\s*/, '') : '') || h1.text : null;
  const field = (k: string) => (fm.fields[k] === undefined || fm.fields[k] === '' ? null : fm.fields[k]);
  return {
    format,
    formats,
    frontMatter: fm,
    id: field('id') ?? idFromH1,
    title: field('title') ?? titleFromH1,
    status: field('status'),
    supersedes: field('supersedes'),
    criteria,
    deltaSections,
    issues,
    lines,
    misleveledScenarios: headings.filter((h) => h.level !== 4 && /^Scenario\s*:/i.test(h.text)).map((h) => h.index + 1),
  };
}

// ---- front matter -------------------------------------------------------------------------------

interface FrontMatter {
  present: boolean;
  fields: Record<string, string>;
  /** Index of the first body line (0 without front matter). */
  endLine: number;
  /** The raw front-matter lines with their 0-based index, for the task card list. */
  raw: { text: string; index: number }[];
}

/** Top-level `key: value` pairs only; nested YAML is kept raw and otherwise ignored (task cards carry plenty). */
function readFrontMatter(lines: string[], issues: ParseIssue[]): FrontMatter {
  const empty: FrontMatter = { present: false, fields: {}, endLine: 0, raw: [] };
  if (lines[0]?.trim() !== '---') return empty;
  const end = lines.findIndex((l, i) => i > 0 && (l.trim() === '---' || l.trim() === '...'));
  if (end < 0) {
    issues.push({ code: 'front-matter', line: 1, message: 'the front matter opened with `---` on line 1 is never closed; end it with a `---` line' });
    return empty;
  }
  const fields: Record<string, string> = {};
  const raw: FrontMatter['raw'] = [];
  for (let i = 1; i < end; i++) {
    const line = lines[i] ?? '';
    raw.push({ text: line, index: i });
    const m = /^([A-Za-z_][\w-]*)\s*:(.*)$/.exec(line);
    if (!m) continue;
    const value = m[2] ?? '';
    // `key:value` without a space is not a YAML key (`url:http://…` continues a scalar).
    if (value !== '' && !/^\s/.test(value)) continue;
    fields[m[1] ?? ''] = unquote(stripComment(value.trim()));
  }
  return { present: true, fields, endLine: end + 1, raw };
}

function stripComment(v: string): string {
  if (/^["']/.test(v)) return v;
  if (v.startsWith('#')) return '';
  const hash = /\s#/.exec(v);
  return (hash ? v.slice(0, hash.index) : v).trim();
}

function unquote(v: string): string {
  const s = v.trim();
  if (s.length >= 2 && (s[0] === '"' || s[0] === "'") && s.at(-1) === s[0]) return s.slice(1, -1);
  return s;
}

// ---- headings ------------------------------------------------------------------------------------

interface Heading {
  level: number;
  text: string;
  index: number;
}

/** Markdown headings of the body, outside fenced code blocks. */
function readHeadings(lines: string[], from: number): Heading[] {
  const out: Heading[] = [];
  let fence: string | null = null;
  for (let i = from; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const f = FENCE.exec(line);
    if (f) {
      if (fence === null) fence = f[1] ?? null;
      else if (line.trim().startsWith(fence)) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const h = HEADING.exec(line);
    if (h) out.push({ level: (h[1] ?? '').length, text: headingText(h[2] ?? ''), index: i });
  }
  return out;
}

/** A heading's text without the optional closing `#`s. */
function headingText(raw: string): string {
  const t = raw.trim();
  const closed = /\s#+$/.exec(t);
  return (closed ? t.slice(0, closed.index) : t).trim();
}

/** The lines after heading k up to the next heading (of any level). */
function blockAfter(lines: string[], headings: Heading[], k: number): { text: string; index: number }[] {
  const h = headings[k];
  if (!h) return [];
  const end = headings[k + 1]?.index ?? lines.length;
  const out: { text: string; index: number }[] = [];
  for (let i = h.index + 1; i < end; i++) out.push({ text: lines[i] ?? '', index: i });
  return out;
}

// ---- format 1: `#### Scenario` ----------------------------------------------------------------------

function readScenarios(lines: string[], headings: Heading[]): Criterion[] {
  const out: Criterion[] = [];
  headings.forEach((h, k) => {
    if (h.level !== 4) return;
    const m = SCENARIO.exec(h.text);
    if (!m) return;
    const steps: Step[] = [];
    for (const { text, index } of blockAfter(lines, headings, k)) {
      const step = readStep(text);
      if (step) steps.push({ ...step, line: index + 1 });
    }
    out.push({ id: `AC-${out.length + 1}`, title: (m[1] ?? '').trim(), line: h.index + 1, steps, idSource: 'position' });
  });
  return out;
}

function readStep(line: string): { keyword: StepKeyword; text: string } | null {
  const s = STEP.exec(line.trim());
  if (!s) return null;
  // What follows the keyword: `:`, closing emphasis (`**GIVEN:**`), then the text.
  const text = (s[2] ?? '').replace(/^[\s:]*(?:\*\*|__)?[\s:]*/, '').trim();
  return { keyword: (s[1] ?? '').toUpperCase() as StepKeyword, text };
}

// ---- format 2: an FR file's `## Acceptance Criteria` ------------------------------------------------

/** A trimmed line that opens with a criterion id: `- AC-AUTH.1: text`, `1. **AC-AUTH.1** — text`, `- [ ] AC-AUTH.1 text`. */
const AC_LINE = /^(?:[-*+]\s*|\d+[.)]\s*)?(?:\[[ xX]\]\s*)?(?:\*\*|__)?(AC[-_.\d][A-Za-z0-9._-]*)(.*)$/;
/** A trimmed list item. */
const BULLET = /^(?:[-*+]|\d+[.)])\s+(.*)$/;
/** A table row `| AC-AUTH.1 | text |` (header and separator rows have no id). */
const TABLE_ROW = /^\|(.*)\|$/;

/** null when there is no Acceptance Criteria section at level 2 or 3. */
function readFrCriteria(lines: string[], headings: Heading[], issues: ParseIssue[]): Criterion[] | null {
  const k = headings.findIndex((h) => (h.level === 2 || h.level === 3) && AC_SECTION.test(h.text.replace(/[*_]/g, '').trim()));
  if (k < 0) return null;
  const section = headings[k];
  if (!section) return null;
  const next = headings.slice(k + 1).find((h) => h.level <= section.level);
  const end = next?.index ?? lines.length;
  const out: Criterion[] = [];
  let current: { criterion: Criterion; indent: number } | null = null;
  let fence = false;
  for (let i = section.index + 1; i < end; i++) {
    const line = lines[i] ?? '';
    if (FENCE.test(line)) {
      fence = !fence;
      continue;
    }
    if (fence || line.trim() === '') continue;
    if (HEADING.test(line)) {
      current = null;
      continue;
    }
    const trimmed = line.trim();
    const indent = line.length - line.trimStart().length;
    const ac = readAcLine(trimmed);
    if (ac) {
      const id = ac.token.replace(/\.+$/, '');
      const rest = `${ac.token.slice(id.length)}${ac.rest}`.replace(/^(?:\*\*|__)/, '').replace(/^[\s.:)—–-]+/, '').trim();
      if (!FR_ID.test(id)) {
        issues.push({ code: 'criterion-id', line: i + 1, message: `"${id}" is not a criterion id of the form AC-<prefix>.<N> (for example AC-AUTH.1); write one id per criterion` });
      }
      const criterion: Criterion = { id, title: rest, line: i + 1, steps: [], idSource: 'written' };
      out.push(criterion);
      current = { criterion, indent };
      continue;
    }
    if (current && indent > current.indent) {
      // An indented line under a criterion continues it (a wrapped line, a note).
      const more = (BULLET.exec(trimmed)?.[1] ?? trimmed).trim();
      current.criterion.title = `${current.criterion.title} ${more}`.trim();
      continue;
    }
    current = null;
    const bullet = BULLET.exec(trimmed);
    if (bullet) {
      issues.push({
        code: 'criterion-without-id',
        line: i + 1,
        message: `a list item in the Acceptance Criteria section has no AC-<prefix>.<N> id ("${clip(bullet[1] ?? '')}"); give it one, or move it out of the section (it would not be tested)`,
      });
    }
  }
  return out;
}

/** A criterion line as its id token and the text after it, or null when the line has no id. */
function readAcLine(trimmed: string): { token: string; rest: string } | null {
  const m = AC_LINE.exec(trimmed);
  if (m) return { token: m[1] ?? '', rest: m[2] ?? '' };
  // A table row `| AC-AUTH.1 | text | … |`; header and separator rows have no id.
  const row = TABLE_ROW.exec(trimmed);
  if (!row) return null;
  const cells = (row[1] ?? '').split('|').map((c) => c.trim().replace(/^(?:\*\*|__)|(?:\*\*|__)$/g, ''));
  const first = cells[0] ?? '';
  if (!/^AC[-_.\d][A-Za-z0-9._-]*$/.test(first)) return null;
  return { token: first, rest: ` ${cells.slice(1).filter((c) => c !== '').join(' — ')}` };
}

// ---- format 3: a task card's `tdd_acceptance:` list -------------------------------------------------

interface RawItem {
  text: string;
  line: number;
  /** Set for mapping items (`- given: … / when: … / then: …`). */
  map?: Record<string, { text: string; line: number }>;
}

/** null when neither the front matter nor the body holds a `tdd_acceptance:` key. */
function readTaskCard(lines: string[], fm: FrontMatter, bodyFrom: number, issues: ParseIssue[]): Criterion[] | null {
  const fromFm = fm.raw.findIndex((r) => new RegExp(`^${KEY}\\s*:`).test(r.text));
  let bodyKey = -1;
  for (let i = bodyFrom; i < lines.length; i++) {
    if (new RegExp(`^\\s*${KEY}\\s*:`).test(lines[i] ?? '')) {
      bodyKey = i;
      break;
    }
  }
  if (fromFm < 0 && bodyKey < 0) return null;
  if (fromFm >= 0 && bodyKey >= 0) {
    issues.push({ code: 'task-card-twice', line: bodyKey + 1, message: `${KEY}: appears in the front matter and again in the body; keep one list` });
  }
  const source = fromFm >= 0 ? fm.raw.slice(fromFm) : lines.slice(bodyKey).map((text, j) => ({ text, index: bodyKey + j }));
  const head = source[0];
  if (!head) return [];
  const inline = stripComment((new RegExp(`^\\s*${KEY}\\s*:(.*)$`).exec(head.text)?.[1] ?? '').trim());
  if (inline !== '') {
    issues.push({
      code: 'task-card-list',
      line: head.index + 1,
      message: `${KEY}: must be followed by a block list, one "- Given … when … then …" item per line (found "${clip(inline)}" on the same line)`,
    });
    return [];
  }
  const keyIndent = head.text.length - head.text.trimStart().length;
  const items = readYamlList(source.slice(1), keyIndent);
  const out: Criterion[] = [];
  items.forEach((item, n) => {
    const c = item.map ? criterionFromMap(item, n) : criterionFromText(item, n);
    if (c.steps.length === 0 && item.text.trim() !== '' && !item.map) {
      issues.push({ code: 'not-gwt', line: item.line, message: `task card item ${c.id} is not written as Given … when … then …: "${clip(item.text)}"` });
    }
    out.push(c);
  });
  return out;
}

/** Block-list items under a key: `- text` (continued by deeper-indented lines) or `- given: …` maps. */
function readYamlList(rows: { text: string; index: number }[], keyIndent: number): RawItem[] {
  const items: RawItem[] = [];
  let itemIndent = -1;
  let current: RawItem | null = null;
  let lastKey: string | null = null;
  for (const { text, index } of rows) {
    if (text.trim() === '' || text.trim().startsWith('#')) continue;
    if (FENCE.test(text)) break;
    const indent = text.length - text.trimStart().length;
    const item = /^-(\s.*)?$/.exec(text.trim());
    if (item && indent >= keyIndent && (itemIndent < 0 || indent === itemIndent)) {
      itemIndent = indent;
      // A block scalar indicator (`- >`, `- |-`) only says the text follows on the next lines.
      const rest = (item[1] ?? '').trim().replace(/^[>|][+-]?$/, '');
      current = { text: '', line: index + 1 };
      lastKey = null;
      const kv = mapEntry(rest);
      if (kv) {
        current.map = { [kv.key]: { text: kv.value, line: index + 1 } };
        lastKey = kv.key;
      } else current.text = unquote(rest);
      items.push(current);
      continue;
    }
    if (current && indent > itemIndent) {
      const kv = mapEntry(text.trim());
      if (current.map && kv) {
        current.map[kv.key] = { text: kv.value, line: index + 1 };
        lastKey = kv.key;
      } else if (current.map && lastKey) {
        const entry = current.map[lastKey];
        if (entry) entry.text = `${entry.text} ${unquote(text.trim())}`.trim();
      } else current.text = `${current.text} ${unquote(text.trim())}`.trim();
      continue;
    }
    break;
  }
  for (const it of items) it.text = unquote(it.text);
  return items;
}

function mapEntry(s: string): { key: string; value: string } | null {
  const m = /^(id|given|when|then|and|but)\s*:(\s.*)?$/i.exec(s.trim());
  return m ? { key: (m[1] ?? '').toLowerCase(), value: unquote((m[2] ?? '').trim()) } : null;
}

function criterionFromMap(item: RawItem, n: number): Criterion {
  const map = item.map ?? {};
  const steps: Step[] = [];
  for (const k of ['given', 'when', 'then', 'and', 'but'] as const) {
    const e = map[k];
    if (e) steps.push({ keyword: k.toUpperCase() as StepKeyword, text: e.text, line: e.line });
  }
  const written = map.id?.text;
  const title = steps.map((s) => `${s.keyword.toLowerCase()} ${s.text}`).join(', ');
  return { id: written ?? `AC-${n + 1}`, title: title.charAt(0).toUpperCase() + title.slice(1), line: item.line, steps, idSource: written ? 'written' : 'position' };
}

/** "AC-X.1: Given a, when b, then c" → steps GIVEN a / WHEN b / THEN c, id AC-X.1. */
function criterionFromText(item: RawItem, n: number): Criterion {
  let text = item.text;
  let written: string | null = null;
  const idm = /^(AC-[A-Za-z0-9._-]+?)\s*[:—–]\s*(.*)$/.exec(text) ?? /^\[(AC-[A-Za-z0-9._-]+)\]\s*(.*)$/.exec(text);
  if (idm && ANY_AC_ID.test(idm[1] ?? '')) {
    written = idm[1] ?? null;
    text = idm[2] ?? '';
  }
  const steps: Step[] = [];
  const order: StepKeyword[] = ['GIVEN', 'WHEN', 'THEN'];
  const at: { keyword: StepKeyword; start: number; end: number }[] = [];
  let from = 0;
  for (const keyword of order) {
    const re = new RegExp(`(^|[\\s,;(])${keyword}\\b`, 'ig');
    re.lastIndex = from;
    const m = re.exec(text);
    if (!m) continue;
    const start = m.index + (m[1] ?? '').length;
    at.push({ keyword, start, end: start + keyword.length });
    from = start + keyword.length;
  }
  at.forEach((a, k) => {
    const stop = at[k + 1]?.start ?? text.length;
    const part = trimEndOf(text.slice(a.end, stop).replace(/^[\s:]+/, ''), ' \t,;');
    steps.push({ keyword: a.keyword, text: part, line: item.line });
  });
  return { id: written ?? `AC-${n + 1}`, title: text, line: item.line, steps, idSource: written ? 'written' : 'position' };
}

// ---- delta SPECs --------------------------------------------------------------------------------

function readDeltaSections(lines: string[], headings: Heading[]): ParsedSpec['deltaSections'] {
  const out: ParsedSpec['deltaSections'] = [];
  headings.forEach((h, k) => {
    if (h.level !== 2) return;
    const m = DELTA.exec(h.text.replace(/[*_]/g, '').trim());
    if (!m) return;
    const next = headings.slice(k + 1).find((x) => x.level <= 2);
    const end = next?.index ?? lines.length;
    let hasContent = false;
    for (let i = h.index + 1; i < end; i++) if ((lines[i] ?? '').trim() !== '') hasContent = true;
    out.push({ name: (m[1] ?? '').toUpperCase() as DeltaSection, line: h.index + 1, end: end + 1, hasContent });
  });
  return out;
}

/** The delta section a line (1-based) falls in, or null when it sits outside all of them. */
function sectionAt(sections: ParsedSpec['deltaSections'], line: number): DeltaSection | null {
  return sections.find((s) => s.line < line && line < s.end)?.name ?? null;
}

function trimEndOf(s: string, chars: string): string {
  let end = s.length;
  while (end > 0 && chars.includes(s.charAt(end - 1))) end--;
  return s.slice(0, end);
}

export function clip(s: string, n = 60): string {
  const t = s.trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}
