import { devNull } from 'node:os';
import path from 'node:path';
import { isEnvironmentBin, type EnvProbe } from '../../state/rules/envDirs.js';
import { isManagerVar } from '../rules/toolchain.js';
import { envProbe } from '../../state/envProbe.js';

/**
 * The environment a test command runs in: only what a toolchain needs to be found and to work,
 * never what changes what the runner collects or how it reports (NODE_OPTIONS, PYTEST_ADDOPTS,
 * GOFLAGS, npm_config_*, LD_PRELOAD, …). A project that needs more names them in stack.json
 * `test_env_allow`. Version managers' and Python project tools' variables (src/verify/rules/toolchain.ts
 * MANAGER_VARS) pass too: they pick the toolchain, which the toolchain record pins.
 */
const BASE_ENV_ALLOW = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TZ',
  'TMPDIR',
  'TMP',
  'TEMP',
  'CI',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  // where toolchains live (not how they behave)
  'GOROOT',
  'GOPATH',
  'GOCACHE',
  'GOMODCACHE',
  'GOPROXY',
  'GOPRIVATE',
  'GONOSUMDB',
  'GOTOOLCHAIN',
  'CARGO_HOME',
  'RUSTUP_HOME',
  'RUSTUP_TOOLCHAIN',
  'PYENV_ROOT',
  'PYENV_VERSION',
  'VIRTUAL_ENV',
  'CONDA_PREFIX',
  'NVM_DIR',
  'JAVA_HOME',
  'XDG_CACHE_HOME',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'SYSTEMROOT',
  'COMSPEC',
  'PATHEXT',
  'APPDATA',
  'LOCALAPPDATA',
  'USERPROFILE',
];

/**
 * Set for every run: no colour codes in the evidence, no Go env file (`go env -w GOFLAGS=…`), and
 * no npm config from outside the project (a `~/.npmrc` or the global npmrc with `node-options`
 * would preload code into the runner; the project's own .npmrc is frozen and still read). The
 * global path lies under the null device, so it can never exist (npm refuses the same file twice).
 */
const FORCED: Record<string, string> = {
  NO_COLOR: '1',
  GOENV: 'off',
  CARGO_TERM_COLOR: 'never',
  PYTHONNOUSERSITE: '1',
  // Python trusts a cached .pyc while its source keeps the size and time it recorded: a stub put
  // back padded to the length and time of a real implementation would run the real one's bytecode.
  // Under the null device no cache is ever found (or written): every module compiles from source.
  PYTHONPYCACHEPREFIX: path.join(devNull, 'pycache'),
  npm_config_userconfig: devNull,
  npm_config_globalconfig: path.join(devNull, 'npmrc'),
  // Nor git's or pip's configuration from the home directory: a test that runs git (or pip) would
  // run the fsmonitor, hooks or filters planted there.
  GIT_CONFIG_GLOBAL: devNull,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_ATTR_NOSYSTEM: '1',
  PIP_CONFIG_FILE: devNull,
};

/** The entry relative to the project root (posix separators), or null when it lies outside. */
function insideRel(root: string, p: string): string | null {
  const rel = path.relative(root, path.resolve(root, p));
  if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return rel.split(path.sep).join('/');
}

/**
 * The PATH of a project command: the caller's, without the entries inside the project other than
 * an environment's programs (a virtualenv's `bin`, `node_modules/.bin`: src/state/rules/envDirs.ts).
 * Any other folder inside the project is the agent's to write, where a look-alike could stand in
 * for the runner; the programs an environment resolves are in the toolchain record, compared at
 * every verify. Pure apart from `probe`.
 */
export function projectPath(pathVar: string, root: string, probe: EnvProbe): string {
  return pathVar
    .split(path.delimiter)
    .filter((p) => {
      if (p === '') return false;
      const rel = insideRel(root, p);
      return rel === null || (rel !== '' && isEnvironmentBin(rel, probe));
    })
    .join(path.delimiter);
}

export function cleanEnv(env: NodeJS.ProcessEnv, root: string, allow: readonly string[] = [], probe: EnvProbe = envProbe(root)): NodeJS.ProcessEnv {
  const names = new Set([...BASE_ENV_ALLOW, ...allow]);
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (names.has(k) || isManagerVar(k) || /^LC_[A-Z]+$/.test(k)) out[k] = v;
  }
  if (out.PATH !== undefined && !allow.includes('PATH')) out.PATH = projectPath(out.PATH, root, probe);
  return { ...out, ...Object.fromEntries(Object.entries(FORCED).filter(([k]) => !allow.includes(k))) };
}
