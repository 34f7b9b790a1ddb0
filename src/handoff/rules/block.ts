import * as z from 'zod/mini';
import '../../state/schema/zod.js';
import { formatIssues } from '../../state/schema/format.js';
import { findResultBlocks } from './fences.js';
import { parseYamlSubset } from './yamlSubset.js';

/** The `tdd-result` contract every tdd-gate child ends its turn with (docs/handoff.md). Pure. */
export const ROLES = ['planner', 'test-writer', 'test-validator', 'implementer', 'refactorer'] as const;
const STATUSES = ['ok', 'failed', 'blocked'] as const;
const VERDICTS = ['PASS', 'CONCERNS', 'BLOCKER'] as const;
export type Role = (typeof ROLES)[number];
type Status = (typeof STATUSES)[number];
type Verdict = (typeof VERDICTS)[number];

/** Roles whose claims are re-verified by re-running their `command`. */
export const CODE_ROLES: readonly Role[] = ['test-writer', 'implementer', 'refactorer'];

export const AC_PATTERN = /^AC-[A-Za-z0-9._-]+$/;

const text = () => z.string().check(z.minLength(1, { error: 'must not be empty' }));
const list = z.array(text());

const blockSchema = z.strictObject({
  role: z.enum(ROLES, { error: `must be one of ${ROLES.join(', ')}` }),
  status: z.enum(STATUSES, { error: `must be one of ${STATUSES.join(', ')}` }),
  ac: z.optional(z.string().check(z.regex(AC_PATTERN, { error: 'must look like AC-1' }))),
  files: z.optional(z.union([list, z.literal('')], { error: 'must be a list of paths' })),
  command: z.optional(text()),
  output_excerpt: z.optional(z.string()),
  refactor_needed: z.optional(z.enum(['true', 'false'], { error: 'must be true or false' })),
  refactor_reasons: z.optional(z.union([list, z.literal('')], { error: 'must be a list, e.g. [duplication]' })),
  verdict: z.optional(z.enum(VERDICTS, { error: `must be one of ${VERDICTS.join(', ')}` })),
  /** Planner only: the acceptance criteria the plan covers, seeding the outer loop. */
  acs: z.optional(z.array(z.string().check(z.regex(AC_PATTERN, { error: 'must look like AC-1' })), { error: 'must be a list, e.g. [AC-1, AC-2]' })),
  notes: z.optional(z.string().check(z.refine((s) => !s.includes('\n'), { error: 'must be one line' }))),
});

export interface TddResult {
  role: Role;
  status: Status;
  ac?: string;
  files: string[];
  command?: string;
  output_excerpt?: string;
  refactor_needed?: boolean;
  refactor_reasons?: string[];
  verdict?: Verdict;
  acs?: string[];
  notes?: string;
  /** The block as written, fences included. */
  raw: string;
}

export type BlockErrorCode = 'no-block' | 'two-blocks' | 'unclosed' | 'syntax' | 'invalid' | 'missing-field' | 'wrong-role' | 'wrong-ac';

export type ParseOutcome = { ok: true; result: TddResult } | { ok: false; code: BlockErrorCode; message: string; raw?: string };

export interface Expect {
  /** The role this child was invoked as; a block naming another role is rejected. */
  role?: Role;
  /** The acceptance criterion this child was invoked for. */
  ac?: string;
}

export function isRole(s: string): s is Role {
  return (ROLES as readonly string[]).includes(s);
}

/** Which fields a role must report, and which it must not. */
function roleRules(b: TddResult): string[] {
  const missing: string[] = [];
  const need = (key: keyof TddResult, why: string) => {
    if (b[key] === undefined) missing.push(`${key} is required ${why}`);
  };
  const forbid = (key: keyof TddResult, who: string) => {
    if (b[key] !== undefined) missing.push(`${key} is only reported by ${who}`);
  };
  const working = b.status !== 'blocked';
  if (CODE_ROLES.includes(b.role) && working) {
    need('command', `for ${b.role} (the command that proves the claim)`);
    need('output_excerpt', `for ${b.role} (the first lines of that command's output)`);
    if (b.files.length === 0) missing.push(`files is required for ${b.role} (the files written or changed)`);
  }
  if (b.status === 'blocked' && b.notes === undefined) missing.push('notes is required when status is blocked (say what blocks you)');
  if (b.role === 'implementer' && working) need('refactor_needed', 'for implementer');
  if (b.role === 'implementer' && b.refactor_needed === true && (b.refactor_reasons ?? []).length === 0) {
    missing.push('refactor_reasons is required when refactor_needed is true');
  }
  if (b.role === 'test-validator') need('verdict', 'for test-validator');
  if (b.role === 'planner' && working && b.files.length === 0) missing.push('files is required for planner (the plan file)');
  if (b.role !== 'implementer') {
    forbid('refactor_needed', 'the implementer');
    forbid('refactor_reasons', 'the implementer');
  }
  if (b.role !== 'test-validator') forbid('verdict', 'the test-validator');
  if (b.role !== 'planner') forbid('acs', 'the planner');
  return missing;
}

/** Parse the one `tdd-result` block of a child's final message. */
export function parseResult(message: string, expect: Expect = {}): ParseOutcome {
  const scan = findResultBlocks(message);
  if (scan.unclosed !== null) {
    return { ok: false, code: 'unclosed', message: `the tdd-result block opened on line ${scan.unclosed} is never closed with a matching fence` };
  }
  if (scan.blocks.length === 0) return { ok: false, code: 'no-block', message: 'no ```tdd-result fenced block found' };
  if (scan.blocks.length > 1) {
    return { ok: false, code: 'two-blocks', message: `${scan.blocks.length} tdd-result blocks found (lines ${scan.blocks.map((b) => b.startLine).join(', ')}); end with exactly one` };
  }
  const block = scan.blocks[0]!;
  const raw = block.raw;
  const yaml = parseYamlSubset(block.body);
  if (!yaml.ok) return { ok: false, code: 'syntax', message: `line ${yaml.line} of the block: ${yaml.message}`, raw };
  for (const key of ['role', 'status'] as const) {
    if (!Object.hasOwn(yaml.value, key)) return { ok: false, code: 'missing-field', message: `${key} is required`, raw };
  }
  const parsed = blockSchema.safeParse(yaml.value);
  if (!parsed.success) return { ok: false, code: 'invalid', message: formatIssues(parsed.error), raw };
  const d = parsed.data;
  const result: TddResult = {
    role: d.role,
    status: d.status,
    files: d.files === undefined || d.files === '' ? [] : d.files,
    raw,
    ...(d.ac !== undefined && { ac: d.ac }),
    ...(d.command !== undefined && { command: d.command }),
    ...(d.output_excerpt !== undefined && { output_excerpt: d.output_excerpt }),
    ...(d.refactor_needed !== undefined && { refactor_needed: d.refactor_needed === 'true' }),
    ...(d.refactor_reasons !== undefined && { refactor_reasons: d.refactor_reasons === '' ? [] : d.refactor_reasons }),
    ...(d.verdict !== undefined && { verdict: d.verdict }),
    ...(d.acs !== undefined && { acs: d.acs }),
    ...(d.notes !== undefined && { notes: d.notes }),
  };
  const problems = roleRules(result);
  if (problems.length > 0) {
    const code = problems.some((p) => p.includes(' is required')) ? 'missing-field' : 'invalid';
    return { ok: false, code, message: problems.join('; '), raw };
  }
  if (expect.role !== undefined && result.role !== expect.role) {
    return { ok: false, code: 'wrong-role', message: `the block says role: ${result.role}, but this child was invoked as ${expect.role}`, raw };
  }
  if (expect.ac !== undefined && result.ac !== undefined && result.ac !== expect.ac) {
    return { ok: false, code: 'wrong-ac', message: `the block says ac: ${result.ac}, but this child was invoked for ${expect.ac}`, raw };
  }
  return { ok: true, result };
}

/** A minimal valid block for a role, shown in format-retry instructions. */
export function blockTemplate(role: Role, ac?: string): string {
  const lines = ['```tdd-result', `role: ${role}`, 'status: ok'];
  if (ac !== undefined) lines.push(`ac: ${ac}`);
  if (role === 'planner') lines.push('files:', '  - .tdd/plans/<plan>.md', 'acs: [AC-1, AC-2]');
  if (CODE_ROLES.includes(role)) {
    lines.push('files:', '  - path/you/changed', 'command: <the test command you ran>', 'output_excerpt: |', '  <first 40 lines of its output, indented two spaces>');
  }
  if (role === 'implementer') lines.push('refactor_needed: false');
  if (role === 'test-validator') lines.push('verdict: PASS');
  lines.push('notes: <optional one line>', '```');
  return lines.join('\n');
}
