import path from 'node:path';
import { writeAtomic } from '../../state/atomicWrite.js';
import { appendEvent } from '../../state/eventLog.js';
import { RefusalError, UsageError } from '../../state/rules/errors.js';
import { AC_PATTERN } from '../../handoff/rules/block.js';
import { activeCycle, changedFiles, rerun } from '../../handoff/io.js';
import { NO_AC, readLoop } from '../../handoff/rules/loop.js';
import { buildManifest, type HandoffKind } from '../../handoff/rules/manifest.js';
import { parseFlags } from '../args.js';
import { openSession } from '../session.js';
import type { CliIo, Verb } from '../verb.js';

const USAGE = 'tdd-gate handoff <red|green> [--ac AC-n] [--component NAME] [--json]';

const PHASES: Record<HandoffKind, string[]> = { red: ['tdd-red', 'tdd-green'], green: ['tdd-green', 'tdd-refactor'] };

export function manifestRel(kind: HandoffKind): string {
  return `.tdd/handoff-${kind}.json`;
}

export const handoffVerb: Verb = {
  name: 'handoff',
  summary: 'run the tests and write .tdd/handoff-<red|green>.json: the evidence and the allowlist for the next child',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseFlags(args, { ac: { type: 'string' }, component: { type: 'string' }, json: { type: 'boolean' } }, USAGE, 1);
    const kind = positionals[0];
    if (kind !== 'red' && kind !== 'green') throw new UsageError(`say which hand-off: red (to the implementer) or green (to the refactorer). Usage: ${USAGE}`);
    if (values.ac !== undefined && !AC_PATTERN.test(values.ac)) throw new UsageError(`--ac must look like AC-1. Usage: ${USAGE}`);
    const s = openSession(io);
    const cycle = activeCycle(s);
    const { state, stack, rules } = cycle;
    if (!PHASES[kind].includes(state.phase)) {
      throw new RefusalError(`handoff ${kind} needs phase ${PHASES[kind].join(' or ')}, but the cycle is in ${state.phase}`);
    }
    const loop = readLoop(state);
    const ac = values.ac ?? loop.current_ac ?? NO_AC;
    const entry = loop.acs[ac];
    const changed = changedFiles(s.root);
    const testFiles = [...(entry?.test_files ?? []), ...changed.filter((f) => rules.isTest(f))];
    const implFiles = [...(entry?.source_files ?? []), ...changed.filter((f) => rules.isSource(f) && !rules.isTest(f))];
    if (testFiles.length === 0) throw new RefusalError(`no test files for ${ac}: none reported by the test-writer and none changed since HEAD`);

    // The manifest is evidence: the suite must really be RED (or GREEN) right now.
    const run = await rerun(s, cycle, stack.config.test_command, `handoff-${kind}`, kind);
    const problem = run.problem;
    if (problem !== null) throw new RefusalError(`handoff ${kind}: ${problem}; the manifest was not written (see the log under .tdd/runs/)`);

    const { manifest, excluded } = buildManifest(
      {
        kind,
        phase: state.phase,
        now: s.now().toISOString(),
        component: values.component ?? state.spec_id,
        cycle: { ac, n: entry?.cycles.length ?? 0, total: loop.cycles_total },
        testFiles,
        implementationFiles: implFiles,
        command: run.command,
        exitCode: run.exitCode,
        output: run.output,
      },
      rules,
    );
    const rel = manifestRel(kind);
    const file = path.join(s.root, rel);
    writeAtomic(file, JSON.stringify(manifest, null, 2) + '\n');
    appendEvent(s.root, { type: 'handoff', kind, ac, files: manifest.allowlist.length, excluded: excluded.map((e) => e.path) });
    if (values.json) io.stdout.write(JSON.stringify({ path: rel, manifest, excluded }) + '\n');
    else {
      io.stdout.write(`wrote ${rel} for the ${manifest.for_role}: ${manifest.allowlist.length} allowlisted file(s)\n`);
      for (const f of manifest.allowlist) io.stdout.write(`  ${f}\n`);
      for (const e of excluded) io.stdout.write(`  left out ${e.path}: ${e.why}\n`);
    }
    return 0;
  },
};
