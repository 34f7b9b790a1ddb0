import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RefusalError } from '../../io/errors.js';
import { STACK_REL } from '../../io/loadStack.js';
import { listProjectFiles } from '../../io/projectFiles.js';
import { parseFlags } from '../args.js';
import { detectStack } from '../stackDetect.js';
import { openSession, out } from '../session.js';
import type { Verb } from '../verb.js';
import { ensureTddDir } from '../../io/tddDir.js';

const USAGE = 'tdd-gate stack detect [--write [--force]]';

function onPath(program: string, pathVar: string): boolean {
  const exts = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  return pathVar
    .split(path.delimiter)
    .filter(Boolean)
    .some((dir) => exts.some((e) => existsSync(path.join(dir, program + e))));
}

export const stackDetect: Verb = {
  name: 'stack detect',
  summary: 'guess .tdd/stack.json from the project (vitest, jest, node:test, pytest, go test, cargo test); --write saves it',
  usage: USAGE,
  mutates: true,
  // eslint-disable-next-line @typescript-eslint/require-await
  async run(args, io) {
    const { values } = parseFlags(args, { write: { type: 'boolean' }, force: { type: 'boolean' } }, USAGE);
    const s = openSession(io);
    const files = listProjectFiles(s.root);
    const names = new Set(files);
    let packageJson: string | null = null;
    try {
      packageJson = readFileSync(path.join(s.root, 'package.json'), 'utf8');
    } catch {
      packageJson = null;
    }
    const found = detectStack({
      has: (rel) => names.has(rel) || existsSync(path.join(s.root, rel)),
      packageJson,
      anyFile: (re) => files.some((f) => re.test(path.posix.basename(f))),
      files,
      onPath: (program) => onPath(program, io.env.PATH ?? ''),
      read: (rel) => {
        try {
          return readFileSync(path.join(s.root, rel), 'utf8');
        } catch {
          return null;
        }
      },
    });
    if (!found) throw new RefusalError(`no known test runner found in ${s.root}; write ${STACK_REL} by hand (see \`tdd-gate stack check\` for the keys)`);
    const text = JSON.stringify(found.stack, null, 2) + '\n';
    if (!values.write) {
      out(s, text.trimEnd());
      io.stderr.write(`tdd-gate: detected ${found.runner}; review it, then save it with \`tdd-gate stack detect --write\`\n`);
      return 0;
    }
    const file = path.join(s.root, STACK_REL);
    if (existsSync(file) && !values.force) throw new RefusalError(`${STACK_REL} already exists; compare with \`tdd-gate stack detect\` and overwrite with --write --force`);
    ensureTddDir(s.root);
    writeFileSync(file, text);
    out(s, `tdd-gate: wrote ${STACK_REL} for ${found.runner}. Check it with \`tdd-gate stack check\` and commit it.`);
    return 0;
  },
};
