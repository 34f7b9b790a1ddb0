import * as z from 'zod/mini';
import '../../state/schema/zod.js';
import { truncateTail } from './output.js';
import type { Role } from './block.js';
import { TDD_DIR } from '../../state/rules/tddDir.js';

/**
 * Hand-off manifests (`.tdd/handoff-red.json`, `.tdd/handoff-green.json`) and the isolation rule
 * they carry: the next child's prompt is built from the allowlisted files only. Pure.
 */
export const RUNNER_OUTPUT_MAX = 2000;
export type HandoffKind = 'red' | 'green';

/** Who reads each manifest. */
const NEXT_ROLE: Record<HandoffKind, Role> = { red: 'implementer', green: 'refactorer' };

export const manifestSchema = z.object({
  version: z.literal(1),
  kind: z.enum(['red', 'green']),
  phase: z.string(),
  timestamp: z.string(),
  component: z.string(),
  cycle: z.object({ ac: z.string(), n: z.number(), total: z.number() }),
  test_files: z.array(z.string()),
  implementation_files: z.optional(z.array(z.string())),
  command: z.string(),
  exit_code: z.nullable(z.number()),
  runner_output: z.string(),
  for_role: z.string(),
  allowlist: z.array(z.string()),
});
export type Manifest = z.infer<typeof manifestSchema>;

/** What may appear in a child's context: the project's tests and sources, never our own control files. */
export interface PathRules {
  isTest: (rel: string) => boolean;
  isSource: (rel: string) => boolean;
  specRel: string;
  planRel: string;
}

/** Why `rel` must not reach an implementer's or refactorer's context; null when it may. */
export function isolationProblem(rel: string, rules: PathRules): string | null {
  if (rel === rules.specRel) return 'it is the SPEC (requirements reach the implementer only through the tests)';
  if (rules.planRel !== '' && rel === rules.planRel) return "it is the test plan (the test-writer's reasoning)";
  if (rel === TDD_DIR || rel.startsWith(`${TDD_DIR}/`)) return "it is tdd-gate's own state (plans, results, reasoning)";
  if (rel.startsWith('.claude/') || rel.startsWith('../') || rel.startsWith('/')) return 'it is outside the project or a control file';
  if (!rules.isTest(rel) && !rules.isSource(rel)) return 'it is neither a test file nor a source file';
  return null;
}

interface ManifestInput {
  kind: HandoffKind;
  phase: string;
  now: string;
  component: string;
  cycle: { ac: string; n: number; total: number };
  testFiles: string[];
  implementationFiles: string[];
  command: string;
  exitCode: number | null;
  output: string;
}

function sorted(list: string[]): string[] {
  return [...new Set(list)].sort();
}

/** Build the manifest; files that may not cross the hand-off are left out and listed. */
export function buildManifest(input: ManifestInput, rules: PathRules): { manifest: Manifest; excluded: { path: string; why: string }[] } {
  const excluded: { path: string; why: string }[] = [];
  const keep = (rel: string) => {
    const why = isolationProblem(rel, rules);
    if (why !== null) excluded.push({ path: rel, why });
    return why === null;
  };
  const tests = sorted(input.testFiles.filter((f) => rules.isTest(f))).filter(keep);
  const impl = sorted(input.implementationFiles.filter((f) => !rules.isTest(f))).filter(keep);
  const manifest: Manifest = {
    version: 1,
    kind: input.kind,
    phase: input.phase,
    timestamp: input.now,
    component: input.component,
    cycle: input.cycle,
    test_files: tests,
    ...(input.kind === 'green' && { implementation_files: impl }),
    command: input.command,
    exit_code: input.exitCode,
    runner_output: truncateTail(input.output, RUNNER_OUTPUT_MAX),
    for_role: NEXT_ROLE[input.kind],
    // RED hands the implementer the failing tests and the stubs they import; GREEN adds the code.
    allowlist: sorted([...tests, ...impl]),
  };
  return { manifest, excluded };
}

/** The paths a context request asks for that the allowlist does not hold. */
export function isolationViolations(requested: string[], allowlist: readonly string[]): string[] {
  const allowed = new Set(allowlist);
  return requested.filter((r) => !allowed.has(r));
}
