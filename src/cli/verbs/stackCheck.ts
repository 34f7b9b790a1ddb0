import { existsSync } from 'node:fs';
import path from 'node:path';
import { GateError, RefusalError } from '../../state/rules/errors.js';
import { isCaseInsensitive } from '../../state/canonicalPath.js';
import { compileStack, readStack, STACK_REL } from '../../state/loadStack.js';
import { backslashGlobProblems } from '../../state/schema/stackGlobs.js';
import { envProbe } from '../../state/envProbe.js';
import { classifyFiles, listProjectFiles } from '../../state/projectFiles.js';
import { parseFlags } from '../args.js';
import { openSession, out } from '../session.js';
import type { Verb } from '../verb.js';

const USAGE = 'tdd-gate stack check [--json]';

export const stackCheck: Verb = {
  name: 'stack check',
  summary: 'validate .tdd/stack.json: keys, regexes, globs that match nothing (read-only)',
  usage: USAGE,
  // eslint-disable-next-line @typescript-eslint/require-await
  async run(args, io) {
    const { values } = parseFlags(args, { json: { type: 'boolean' } }, USAGE);
    const s = openSession(io);
    if (!existsSync(path.join(s.root, STACK_REL))) {
      throw new RefusalError(`there is no ${STACK_REL} in this project yet. Create it with \`tdd-gate stack detect --write\` (in Claude Code: /tdd-gate:setup), then run \`tdd-gate stack check\` again`);
    }
    const errors: string[] = [];
    const warnings: string[] = [];
    let summary = '';
    try {
      const config = readStack(s.root);
      errors.push(...backslashGlobProblems(config));
      const stack = compileStack(config, isCaseInsensitive(s.root), envProbe(s.root));
      const files = listProjectFiles(s.root);
      const { tests, sources } = classifyFiles(stack, files);
      const realTests = tests.filter((f) => stack.isTest(f));
      if (realTests.length === 0) warnings.push('test_file_glob matches no file yet (fine before the first test; check the pattern otherwise)');
      if (sources.length === 0) warnings.push('source_file_glob matches no file (outside tests); check the pattern');
      if (config.coverage_threshold !== undefined && config.coverage_command === undefined) errors.push('coverage_threshold is set but coverage_command is not');
      if (config.coverage_pattern !== undefined) {
        try {
          const re = new RegExp(config.coverage_pattern);
          if (!/\((?!\?)/.test(re.source)) warnings.push('coverage_pattern has no capture group; the whole match is read as the percentage');
        } catch (err) {
          errors.push(`coverage_pattern is not a valid regular expression (${(err as Error).message})`);
        }
      }
      summary = `${realTests.length} test files, ${tests.length - realTests.length} test-config files, ${sources.length} source files`;
    } catch (err) {
      if (!(err instanceof GateError)) throw err;
      errors.push(err.fix === undefined ? err.message : `${err.problem}.`);
    }
    if (values.json) out(s, JSON.stringify({ ok: errors.length === 0, errors, warnings, summary }));
    else {
      for (const w of warnings) io.stderr.write(`tdd-gate stack check: warning: ${w}\n`);
      if (errors.length === 0) out(s, `tdd-gate: ${STACK_REL} is valid (${summary}).`);
    }
    if (errors.length > 0) throw new RefusalError(errors.join('; '));
    return 0;
  },
};
