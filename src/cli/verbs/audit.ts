import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { audit } from '../../audit/run.js';
import { AuditCannotRun } from '../../audit/git.js';
import { AUDIT_EXIT, junit, markdown, textLines, type AuditReport } from '../../audit/rules/report.js';
import { GateError } from '../../state/rules/errors.js';
import { findRepo } from '../../state/repo.js';
import { parseFlags } from '../args.js';
import type { Verb } from '../verb.js';

const USAGE = 'tdd-gate audit [--base <ref>] [--head <ref>] [--require-cycles] [--json] [--junit <file>] [--markdown <file>]';

/**
 * Replays the cycle records added in base..head (docs/audit.md): for each, RED rebuilt from the
 * repository must fail on an assertion, test by test; at the head the frozen tests, the runner's
 * settings and the SPEC must be the frozen ones, every frozen test must pass, no stub may be
 * left. Exit 0 pass, 1 fail, 3 could not run (2: usage).
 */
export const auditVerb: Verb = {
  name: 'audit',
  summary: 'replay the committed cycle records of a range (CI): RED rebuilt and failing, frozen tests unchanged and passing at the head; exit 0 pass, 1 fail, 3 could not run',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseFlags(
      args,
      {
        base: { type: 'string' },
        head: { type: 'string' },
        'require-cycles': { type: 'boolean' },
        json: { type: 'boolean' },
        junit: { type: 'string' },
        markdown: { type: 'string' },
      },
      USAGE,
    );
    const head = values.head ?? 'HEAD';
    let report: AuditReport;
    const repo = (() => {
      try {
        return findRepo(io.cwd);
      } catch {
        return null;
      }
    })();
    if (repo === null) {
      report = { status: 'error', base: values.base ?? null, head, cycles: [], head_checks: [], error: `${io.cwd} is not inside a git repository; run the audit in a checkout of the project` };
    } else {
      try {
        report = await audit({ root: repo.root, base: values.base ?? null, head, requireCycles: values['require-cycles'] === true, env: io.env, progress: io.stderr });
      } catch (err) {
        if (!(err instanceof AuditCannotRun || err instanceof GateError)) throw err;
        report = { status: 'error', base: values.base ?? null, head, cycles: [], head_checks: [], error: err.message };
      }
    }
    const write = (file: string | undefined, text: string) => {
      if (file !== undefined) writeFileSync(path.resolve(io.cwd, file), text);
    };
    write(values.junit, junit(report));
    write(values.markdown, markdown(report));
    if (values.json) io.stdout.write(JSON.stringify(report) + '\n');
    else io.stdout.write(textLines(report).join('\n') + '\n');
    return AUDIT_EXIT[report.status];
  },
};
