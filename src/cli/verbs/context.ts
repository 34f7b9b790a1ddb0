import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { appendEvent } from '../../state/eventLog.js';
import { RefusalError, UsageError } from '../../state/rules/errors.js';
import { AC_PATTERN, isRole, ROLES, type Role } from '../../handoff/rules/block.js';
import { activeCycle, canonicalRel } from '../../handoff/io.js';
import { NO_AC, readLoop } from '../../handoff/rules/loop.js';
import { isolationViolations, manifestSchema, type HandoffKind, type Manifest } from '../../handoff/rules/manifest.js';
import { formatIssues } from '../../state/schema/format.js';
import { parseFlags } from '../args.js';
import { openSession, type Session } from '../session.js';
import type { CliIo, Verb } from '../verb.js';
import { manifestRel } from './handoff.js';

const USAGE = 'tdd-gate context --role <role> [--ac AC-n] [--include <path>]... [--json]';
const FILE_MAX = 200_000;

/** Which manifest feeds which child; the others get the SPEC-side files. */
const MANIFEST_FOR: Partial<Record<Role, HandoffKind>> = { implementer: 'red', refactorer: 'green' };

function readManifest(s: Session, kind: HandoffKind, role: Role): Manifest {
  const rel = manifestRel(kind);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path.join(s.root, rel), 'utf8'));
  } catch (err) {
    throw new RefusalError(`the ${role}'s context comes from ${rel}, which is missing or unreadable (${(err as Error).message}); run \`tdd-gate handoff ${kind}\` first`, { cause: err });
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) throw new RefusalError(`${rel} is invalid (${formatIssues(parsed.error)}); run \`tdd-gate handoff ${kind}\` again`);
  return parsed.data;
}

/** A fence longer than any backtick run in the content, so pasted code cannot close it. */
function fenced(content: string, lang = ''): string {
  const longest = Math.max(2, ...(content.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${content.replace(/\n$/, '')}\n${fence}`;
}

export const contextVerb: Verb = {
  name: 'context',
  summary: "print the next child's prompt context, built from its allowlisted files only (read-only)",
  usage: USAGE,
  run(args: string[], io: CliIo): Promise<number> {
    const { values } = parseFlags(args, { role: { type: 'string' }, ac: { type: 'string' }, include: { type: 'string', multiple: true }, json: { type: 'boolean' } }, USAGE);
    const roleArg = values.role;
    if (roleArg === undefined || !isRole(roleArg)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}. Usage: ${USAGE}`);
    const role: Role = roleArg;
    if (values.ac !== undefined && !AC_PATTERN.test(values.ac)) throw new UsageError(`--ac must look like AC-1. Usage: ${USAGE}`);
    const s = openSession(io);
    const { state, rules } = activeCycle(s);
    const loop = readLoop(state);
    const ac = values.ac ?? loop.current_ac ?? NO_AC;

    const kind = MANIFEST_FOR[role];
    const manifest = kind === undefined ? null : readManifest(s, kind, role);
    let allowlist: string[];
    if (manifest !== null) allowlist = manifest.allowlist;
    else {
      // Requirement-side children see the SPEC and the plan; the validator also sees the tests.
      const sideFiles = [rules.specRel, ...(rules.planRel !== '' && role !== 'planner' ? [rules.planRel] : [])];
      const tests = role === 'test-writer' || role === 'test-validator' ? (loop.acs[ac]?.test_files ?? []) : [];
      allowlist = [...new Set([...sideFiles, ...tests])];
    }

    const requested = (values.include ?? []).map((p) => canonicalRel(s.root, io.cwd, p));
    const violations = isolationViolations(requested, allowlist);
    if (violations.length > 0) {
      appendEvent(s.root, { type: 'isolation-violation', role, ac, paths: violations });
      throw new RefusalError(
        `isolation violation: ${violations.join(', ')} ${violations.length === 1 ? 'is' : 'are'} not in the ${role}'s allowlist${kind ? ` (${manifestRel(kind)})` : ''}. Allowed: ${allowlist.join(', ') || '(none)'}`,
      );
    }
    const chosen = requested.length > 0 ? requested : allowlist;
    const files = chosen
      .filter((rel) => existsSync(path.join(s.root, rel)))
      .map((rel) => {
        const text = readFileSync(path.join(s.root, rel), 'utf8');
        return { path: rel, content: text.length > FILE_MAX ? `${text.slice(0, FILE_MAX)}\n[… truncated at ${FILE_MAX} characters]` : text };
      });
    const missing = chosen.filter((rel) => !files.some((f) => f.path === rel));

    if (values.json) {
      io.stdout.write(JSON.stringify({ role, ac, manifest: kind ? manifestRel(kind) : null, runner_output: manifest?.runner_output ?? null, exit_code: manifest?.exit_code ?? null, files, missing }) + '\n');
      return Promise.resolve(0);
    }
    const out = [`# Context for the ${role}${ac !== NO_AC ? ` (${ac})` : ''}`, '', `Built by tdd-gate from ${kind ? manifestRel(kind) : 'the SPEC side of the cycle'}: only allowlisted files are included.`];
    if (manifest) out.push('', `## Test run: \`${manifest.command}\` (exit code ${String(manifest.exit_code)})`, '', fenced(manifest.runner_output, 'text'));
    for (const f of files) out.push('', `## ${f.path}`, '', fenced(f.content));
    if (missing.length > 0) out.push('', `(not found on disk: ${missing.join(', ')})`);
    io.stdout.write(out.join('\n') + '\n');
    return Promise.resolve(0);
  },
};
