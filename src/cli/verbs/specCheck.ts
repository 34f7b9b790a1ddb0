import { readFileSync } from 'node:fs';
import path from 'node:path';
import { renderFindings } from '../../spec/rules/specCheck.js';
import { RefusalError, UsageError } from '../../state/rules/errors.js';
import { findRepo } from '../../state/repo.js';
import { parseFlags } from '../args.js';
import { checkSpecFacts, readSpecFacts } from '../../spec/spec.js';
import type { Verb } from '../verb.js';

const USAGE = 'tdd-gate spec check <file> [--draft] [--json]';

/** The C1 gate as a read-only verb: the same judgement `init` applies, every finding with its fix. */
export const specCheck: Verb = {
  name: 'spec check',
  summary: 'check a SPEC (scenarios, FR acceptance criteria or a task card) the way init will (read-only)',
  usage: USAGE,
  // eslint-disable-next-line @typescript-eslint/require-await
  async run(args, io) {
    const { values, positionals } = parseFlags(args, { json: { type: 'boolean' }, draft: { type: 'boolean' } }, USAGE, 1);
    const file = positionals[0];
    if (file === undefined || file.trim() === '') throw new UsageError(`name the SPEC file to check. Usage: ${USAGE}`);
    const abs = path.resolve(io.cwd, file);
    let text: string;
    try {
      text = readFileSync(abs, 'utf8');
    } catch (err) {
      throw new RefusalError(`cannot read the SPEC ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); give the path of an existing file`, { cause: err });
    }
    // Outside a repository the SPEC's own directory stands in for the project (for `supersedes:`).
    let root = path.dirname(abs);
    try {
      const repo = findRepo(io.cwd);
      if (repo !== null && !path.relative(repo.root, abs).startsWith('..')) root = repo.root;
    } catch {
      // not a readable repository: keep the SPEC's directory
    }
    const rel = path.relative(root, abs).split(path.sep).join('/');
    const report = checkSpecFacts(readSpecFacts(text), rel, root, values.draft === true);

    if (values.json) {
      io.stdout.write(`${JSON.stringify({ file: rel, ...report })}\n`);
    } else {
      for (const line of renderFindings(file, report)) io.stdout.write(`${line}\n`);
      const ids = report.criteria.map((c) => c.id);
      const list = ids.length > 6 ? `${ids.slice(0, 6).join(', ')}, … ${ids.at(-1) ?? ''}` : ids.join(', ');
      const kind = report.format === null ? 'no format recognised' : `format ${report.format}`;
      const head = `${file}: ${kind}, ${ids.length} criteri${ids.length === 1 ? 'on' : 'a'}${ids.length > 0 ? ` (${list})` : ''}${report.id !== null ? `, id ${report.id}` : ''}`;
      const verdict = values.draft ? 'a complete draft, ready to show for approval' : 'ready to start a cycle';
      if (report.ok) io.stdout.write(`tdd-gate: ${head}: ${verdict}${report.warnings.length > 0 ? ` (${report.warnings.length} warning${report.warnings.length === 1 ? '' : 's'})` : ''}.\n`);
      else io.stdout.write(`tdd-gate: ${head}: ${report.errors.length} error${report.errors.length === 1 ? '' : 's'}.\n`);
    }
    if (!report.ok) {
      const first = report.errors[0];
      throw new RefusalError(`${file} is not ${values.draft ? 'a complete draft' : 'ready to start a cycle'} (${report.errors.length} error${report.errors.length === 1 ? '' : 's'}; first: ${first?.message ?? ''})`);
    }
    return 0;
  },
};
