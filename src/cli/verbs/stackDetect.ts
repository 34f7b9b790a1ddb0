import { accessSync, constants, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RefusalError } from '../../state/rules/errors.js';
import { STACK_REL } from '../../state/loadStack.js';
import { listProjectFiles } from '../../state/projectFiles.js';
import { parseFlags } from '../args.js';
import { DetectProblem, detectPackageStack, detectStack, type Detected, type ProjectFacts } from '../../stack/rules/detect.js';
import { openSession, out } from '../session.js';
import type { Verb } from '../verb.js';
import { ensureTddDir } from '../../state/tddDir.js';

const USAGE = 'tdd-gate stack detect [--package <dir>] [--write [--force]]';

function onPath(program: string, pathVar: string): boolean {
  const exts = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  return pathVar
    .split(path.delimiter)
    .filter(Boolean)
    .some((dir) => exts.some((e) => existsSync(path.join(dir, program + e))));
}

/** A file there (a link followed) that this user may execute. */
function executable(abs: string): boolean {
  try {
    if (!statSync(abs).isFile()) return false;
    accessSync(abs, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `--package`: a folder as given from where the CLI runs, made root-relative ("/" separated). */
function packageDir(root: string, cwd: string, given: string): string {
  const rel = path.relative(root, path.resolve(cwd, given));
  return path.isAbsolute(rel) ? given : rel.split(path.sep).join('/');
}

/** What detection reads of the project at `root`. */
export function projectFacts(root: string, env: NodeJS.ProcessEnv): ProjectFacts {
  const files = listProjectFiles(root);
  const names = new Set(files);
  const read = (rel: string): string | null => {
    try {
      return readFileSync(path.join(root, rel), 'utf8');
    } catch {
      return null;
    }
  };
  return {
    has: (rel) => names.has(rel) || existsSync(path.join(root, rel)),
    packageJson: read('package.json'),
    anyFile: (re) => files.some((f) => re.test(path.posix.basename(f))),
    files,
    onPath: (program) => onPath(program, env.PATH ?? ''),
    read,
    executable: (rel) => executable(path.join(root, rel)),
    env,
    inProject: (p) => {
      const rel = path.relative(root, path.resolve(root, p));
      return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? null : rel.split(path.sep).join('/');
    },
    nodeMajor: Number(process.versions.node.split('.')[0]),
    windows: process.platform === 'win32',
  };
}

export const stackDetect: Verb = {
  name: 'stack detect',
  summary: 'detect .tdd/stack.json from the project (vitest, jest, node:test, mocha, pytest, go test, cargo test; in-project virtualenvs; workspaces, or one package of one with --package); --write saves it',
  usage: USAGE,
  // eslint-disable-next-line @typescript-eslint/require-await
  async run(args, io) {
    const { values } = parseFlags(args, { write: { type: 'boolean' }, force: { type: 'boolean' }, package: { type: 'string' } }, USAGE);
    const s = openSession(io);
    const facts = projectFacts(s.root, io.env);
    let found: Detected | null;
    try {
      found = values.package === undefined ? detectStack(facts) : detectPackageStack(facts, packageDir(s.root, io.cwd, values.package));
    } catch (err) {
      if (err instanceof DetectProblem) throw new RefusalError(err.message, { cause: err });
      throw err;
    }
    if (!found) throw new RefusalError(`no known test runner found in ${s.root}; write ${STACK_REL} by hand (see \`tdd-gate stack check\` for the keys)`);
    for (const note of found.notes) io.stderr.write(`tdd-gate: note: ${note}\n`);
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
