import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { checkSpec, refusalLine, type SpecReport } from './rules/specCheck.js';
import { parseSpec, type ParsedSpec } from './rules/specParse.js';

/** What the C1 entry gate reads from a SPEC (any of the formats in docs/spec-formats.md). */
interface SpecFacts {
  /** The number of acceptance criteria (scenarios, FR criteria or task card items). */
  scenarios: number;
  status: string | null;
  id: string | null;
  parsed: ParsedSpec;
}

export function readSpecFacts(text: string): SpecFacts {
  const parsed = parseSpec(text);
  return { scenarios: parsed.criteria.length, status: parsed.status, id: parsed.id, parsed };
}

/**
 * The full check of a SPEC file at `specRel` (root-relative). `root` lets a delta SPEC's
 * `supersedes:` be looked up; without it that one check is skipped.
 */
export function checkSpecFacts(facts: SpecFacts, specRel: string, root?: string, draft = false): SpecReport {
  const base = facts.parsed.supersedes;
  const supersededFound = base === null || root === undefined ? null : findSpecById(root, specRel, base) !== null;
  return checkSpec(facts.parsed, { supersededFound, draft });
}

/** The C1 gate's refusal, or null when the SPEC may start a cycle (`init` and `spec check` agree). */
export function specEntryProblem(facts: SpecFacts, specRel: string, root?: string): string | null {
  const report = checkSpecFacts(facts, specRel, root);
  return report.ok ? null : refusalLine(specRel, report);
}

const MAX_FILES = 5000;
const MAX_BYTES = 512 * 1024;

/**
 * A SPEC by id: a `.md` file beside `specRel` or under `specs/` whose name is the id (or starts
 * with `<id>-`, `<id>_`, `<id>.`), or whose front matter says `id: <id>`. Root-relative, or null.
 */
function findSpecById(root: string, specRel: string, id: string): string | null {
  // Siblings of the SPEC, and the specs/ tree (a few levels deep).
  const dirs: [string, number][] = [[path.dirname(specRel), 0], ['specs', 4]];
  const self = path.normalize(specRel);
  let budget = MAX_FILES;
  const byContent: string[] = [];
  const seen = new Set<string>();
  for (const [dir, depth] of dirs) {
    for (const rel of walk(root, dir, depth, () => budget-- > 0)) {
      if (path.normalize(rel) === self || seen.has(rel)) continue;
      seen.add(rel);
      const stem = path.basename(rel).replace(/\.md$/i, '');
      if (stem === id || [`${id}-`, `${id}_`, `${id}.`].some((p) => stem.startsWith(p))) return rel;
      byContent.push(rel);
    }
  }
  for (const rel of byContent) {
    try {
      const abs = path.join(root, rel);
      if (statSync(abs).size > MAX_BYTES) continue;
      if (parseSpec(readFileSync(abs, 'utf8')).frontMatter.fields.id === id) return rel;
    } catch {
      // unreadable: not the one
    }
  }
  return null;
}

function* walk(root: string, dir: string, depth: number, more: () => boolean): Generator<string> {
  let entries;
  try {
    entries = readdirSync(path.join(root, dir), { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (!more()) return;
    const rel = dir === '.' ? e.name : path.join(dir, e.name);
    if (e.isFile() && /\.md$/i.test(e.name)) yield rel;
    else if (e.isDirectory() && depth > 0 && !e.name.startsWith('.') && e.name !== 'node_modules') yield* walk(root, rel, depth - 1, more);
  }
}

/** One acceptance criterion as the evidence record keeps it (docs/spec-formats.md). */
interface CriterionEvidence {
  id: string;
  title: string;
  /** The plan names the id (the planner kept the SPEC's ids). */
  in_plan: boolean;
  /** The outer loop's status for the id (`pending`, `failing`, `passing`), or `not tracked` (no hand-offs ran for it). */
  status: string;
}

/**
 * The SPEC's criteria with what the cycle did about each, for the evidence record. The SPEC is
 * frozen by then; null when it cannot be read or parsed into criteria.
 */
export function criteriaEvidence(root: string, state: { spec_path: string; plan_artifact: string }, acs: Record<string, { status: string }>): CriterionEvidence[] | null {
  let spec: string;
  try {
    spec = readFileSync(path.resolve(root, state.spec_path), 'utf8');
  } catch {
    return null;
  }
  let plan = '';
  try {
    if (state.plan_artifact !== '') plan = readFileSync(path.resolve(root, state.plan_artifact), 'utf8');
  } catch {
    // no plan to compare with
  }
  const criteria = parseSpec(spec).criteria;
  if (criteria.length === 0) return null;
  return criteria.map((c) => ({ id: c.id, title: c.title, in_plan: namesId(plan, c.id), status: acs[c.id]?.status ?? 'not tracked' }));
}

/** `AC-1` in the text as a whole id (not the start of `AC-10` or `AC-1.2`). */
export function namesId(text: string, id: string): boolean {
  const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9._-])${escaped}(?![A-Za-z0-9_-]|\\.[A-Za-z0-9])`).test(text);
}

/** The SPEC's criterion ids the plan does not name (empty when the SPEC cannot be read). */
export function criteriaMissingFromPlan(root: string, specPath: string, plan: string): string[] {
  let spec: string;
  try {
    spec = readFileSync(path.resolve(root, specPath), 'utf8');
  } catch {
    return [];
  }
  return parseSpec(spec).criteria.map((c) => c.id).filter((id) => !namesId(plan, id));
}
