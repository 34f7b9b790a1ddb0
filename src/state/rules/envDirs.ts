import type { PathMatcher } from './globs.js';

/**
 * Environment folders: what a package manager, an interpreter or a runner made inside the
 * project (installed dependencies, a virtualenv, bytecode and runner caches). Their files are
 * never the project's tests, test configs or sources, whatever the stack's globs say: a
 * virtualenv's `site-packages/distutils-precedence.pth` is no test file added after the freeze,
 * and `rm -rf node_modules` is no test write. The test runners agree: pytest does not collect
 * inside a virtualenv or a dot folder, the JavaScript runners skip node_modules.
 *
 * One decision for the hook and the CLI (src/state/loadStack.ts wraps the stack's matchers with it).
 * What a virtualenv's interpreter runs at start-up is part of the toolchain record instead
 * (src/verify/rules/toolchain.ts).
 */

/** Folder names that are an environment or a cache wherever they are. */
const ENV_DIR_NAMES: ReadonlySet<string> = new Set(['node_modules', '__pycache__', '.pytest_cache', '.mypy_cache', '.ruff_cache', '.hypothesis', '.tox', '.nox', '.venv', 'venv']);

/**
 * Whether the folder at this root-relative path is an environment by what it holds: a
 * virtualenv's `pyvenv.cfg` (venv, virtualenv, uv, poetry and pipenv all write it), a conda
 * environment's `conda-meta/`, cargo's `target/` with its `CACHEDIR.TAG`. Asked only for folders
 * a matched path lies in; the I/O side memoizes it.
 */
export type EnvProbe = (dirRel: string) => boolean;

/** The marker files and folders an EnvProbe looks for (`CACHEDIR.TAG` only in a folder named `target`). */
export const ENV_MARKERS = ['pyvenv.cfg', 'conda-meta'] as const;
export const CACHE_TAG = 'CACHEDIR.TAG';

/** The root-relative environment folder that holds `rel` (posix separators), or null. */
export function environmentOf(rel: string, probe?: EnvProbe): string | null {
  let start = 0;
  for (;;) {
    const slash = rel.indexOf('/', start);
    if (slash === -1) return null;
    const name = rel.slice(start, slash);
    const dir = rel.slice(0, slash);
    if (ENV_DIR_NAMES.has(name)) return dir;
    if (probe !== undefined && name !== '' && name !== '.' && name !== '..' && probe(dir)) return dir;
    start = slash + 1;
  }
}

/** Bytecode files: rewritten by every run, never tests or sources. */
function isBytecode(rel: string): boolean {
  return rel.endsWith('.pyc') || rel.endsWith('.pyo');
}

/** Is this root-relative path inside an environment folder, or a bytecode file? */
export function isEnvironmentPath(rel: string, probe?: EnvProbe): boolean {
  return isBytecode(rel) || environmentOf(rel, probe) !== null;
}

/** A matcher that never matches inside an environment folder. The folder test runs only after the globs matched. */
export function outsideEnvironments(match: PathMatcher, probe?: EnvProbe): PathMatcher {
  return (rel) => match(rel) && !isEnvironmentPath(rel, probe);
}

/**
 * The folders of a PATH entry inside the project that hold an environment's programs: a
 * virtualenv's or a conda environment's `bin` (or `Scripts`), known by its marker, and
 * `node_modules/.bin`. `rel` is the entry relative to the project root, posix separators. Any
 * other entry inside the project is dropped from the test run's PATH.
 */
export function isEnvironmentBin(rel: string, probe?: EnvProbe): boolean {
  const slash = rel.lastIndexOf('/');
  if (slash <= 0) return false;
  const base = rel.slice(slash + 1);
  const parent = rel.slice(0, slash);
  if (base === '.bin') return parent === 'node_modules' || parent.endsWith('/node_modules');
  return (base === 'bin' || base === 'Scripts') && probe?.(parent) === true;
}

/**
 * Installed dependencies: `node_modules`, and a Python environment (a virtualenv or conda
 * environment, `.tox`/`.nox` ones included). They hold the test runner and its assertions, so a
 * hand edit of them is denied while the tests are frozen (dependency-edit); the package manager
 * installs through its own commands. Caches and build output are not dependencies.
 */
export function isInstalledDependency(rel: string, probe?: EnvProbe): boolean {
  const env = environmentOf(rel, probe);
  if (env === null) return false;
  const name = env.slice(env.lastIndexOf('/') + 1);
  return name === 'node_modules' || name === '.venv' || name === 'venv' || name === '.tox' || name === '.nox' || (name !== 'target' && !name.startsWith('__') && !name.endsWith('_cache') && name !== '.hypothesis');
}
