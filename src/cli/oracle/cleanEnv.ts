import { devNull } from 'node:os';
import path from 'node:path';

/**
 * The environment a test command runs in: only what a toolchain needs to be found and to work,
 * never what changes what the runner collects or how it reports (NODE_OPTIONS, PYTEST_ADDOPTS,
 * GOFLAGS, npm_config_*, LD_PRELOAD, …). A project that needs more names them in stack.json
 * `test_env_allow`.
 */
export const BASE_ENV_ALLOW = [
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
};

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, path.resolve(root, p));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export function cleanEnv(env: NodeJS.ProcessEnv, root: string, allow: readonly string[] = []): NodeJS.ProcessEnv {
  const names = new Set([...BASE_ENV_ALLOW, ...allow]);
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (names.has(k) || /^LC_[A-Z]+$/.test(k)) out[k] = v;
  }
  // A PATH entry inside the project would let the project stand in for the runner itself;
  // node_modules/.bin is where npx looks anyway.
  if (out.PATH !== undefined && !allow.includes('PATH')) {
    out.PATH = out.PATH.split(path.delimiter)
      .filter((p) => p !== '' && (!inside(root, p) || /(^|[\\/])node_modules[\\/]\.bin$/.test(p)))
      .join(path.delimiter);
  }
  return { ...out, ...Object.fromEntries(Object.entries(FORCED).filter(([k]) => !allow.includes(k))) };
}
