import { minimatch } from 'minimatch';

/**
 * What `stack detect` reads of a project's layout, pure: where its packages are (a workspace, a
 * repository of several Python packages, Go modules, member crates), which in-project interpreter
 * its Python runs with, and where its Python code lives. The facts come from the project's file
 * list and a few reads; nothing here guesses what is not on disk.
 */

/** What detection looks at: which marker files exist, and package.json's text if any. */
export interface ProjectFacts {
  has(rel: string): boolean;
  packageJson: string | null;
  /** Any file name in the project matching the regex (for tests/test_*.py and friends). */
  anyFile(re: RegExp): boolean;
  /** Is this program on PATH (`python` or only `python3`)? Absent: assume it is. */
  onPath?(program: string): boolean;
  /** A file's text (Cargo.toml), when detection needs more than its existence. */
  read?(rel: string): string | null;
  /** The project's files, root-relative with "/" (where its code lives); absent: not known. */
  files?: readonly string[];
  /** Is this a file the person may execute (a link followed)? Absent: nothing is. */
  executable?(rel: string): boolean;
  /** The environment detection runs in (VIRTUAL_ENV, UV_PROJECT_ENVIRONMENT, PIPENV_VENV_IN_PROJECT, …). */
  env?: Readonly<Record<string, string | undefined>>;
  /** A path from the environment as a root-relative path with "/", or null when it is outside the project. */
  inProject?(pathFromEnv: string): string | null;
  /** The major version of the node that runs detection (how `node --test` takes its paths). */
  nodeMajor?: number;
  /** Windows layout of virtualenvs (`Scripts/python.exe`). */
  windows?: boolean;
}

/** `dir` joined to a root-relative path ('' is the root). */
export function under(dir: string, rel: string): string {
  return dir === '' ? rel : `${dir}/${rel}`;
}

/** The facts of one package folder, as if it were the project. */
export function subFacts(p: ProjectFacts, dir: string): ProjectFacts {
  if (dir === '') return p;
  const prefix = `${dir}/`;
  const files = p.files?.filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length));
  const read = p.read ? (rel: string) => p.read!(rel) : undefined;
  return {
    ...p,
    has: (rel) => p.has(prefix + rel),
    packageJson: read?.(prefix + 'package.json') ?? null,
    anyFile: (re) => (files ?? []).some((f) => re.test(f.slice(f.lastIndexOf('/') + 1))),
    ...(read ? { read: (rel: string) => read(prefix + rel) } : {}),
    ...(files ? { files } : {}),
    ...(p.executable ? { executable: (rel: string) => p.executable!(prefix + rel) } : {}),
  };
}

/** Folders that hold no package of the project's own: dependencies, environments, build output, fixtures. */
const NOT_PACKAGE_SEGMENT = /^(?:\..*|node_modules|venv|env|site-packages|__pycache__|build|dist|target|vendor|testdata|fixtures?|tests?|testing|examples?|docs?)$/;

function inPackageTree(rel: string, venvs: readonly string[]): boolean {
  const parts = rel.split('/');
  if (parts.slice(0, -1).some((s) => NOT_PACKAGE_SEGMENT.test(s))) return false;
  return !venvs.some((v) => rel.startsWith(`${v}/`));
}

/** Folders holding a virtualenv (a `pyvenv.cfg`), whatever their name. */
function venvDirs(files: readonly string[]): string[] {
  return files.filter((f) => f === 'pyvenv.cfg' || f.endsWith('/pyvenv.cfg')).map((f) => f.slice(0, Math.max(0, f.lastIndexOf('/'))));
}

function dirOf(rel: string): string {
  const i = rel.lastIndexOf('/');
  return i < 0 ? '' : rel.slice(0, i);
}

function cleanPattern(p: string): string {
  return p.trim().replace(/^\.\//, '').replace(/\/+$/, '');
}

/** The package folders a list of workspace patterns names (`packages/*`, `!packages/old`), among the folders holding `manifest`. */
function matchPackages(patterns: readonly string[], files: readonly string[], manifest: string): string[] {
  const dirs = [...new Set(files.filter((f) => f.endsWith(`/${manifest}`) && inPackageTreeLoose(f)).map(dirOf))];
  const include = patterns.filter((p) => !p.trim().startsWith('!')).map(cleanPattern).filter((p) => p !== '' && p !== '.');
  const exclude = patterns.filter((p) => p.trim().startsWith('!')).map((p) => cleanPattern(p.trim().slice(1)));
  return dirs.filter((d) => include.some((p) => minimatch(d, p)) && !exclude.some((p) => minimatch(d, p))).sort();
}

/** A workspace may keep its packages anywhere but in dependencies and hidden folders. */
function inPackageTreeLoose(rel: string): boolean {
  return !rel.split('/').some((s) => s === 'node_modules' || s.startsWith('.'));
}

/** The package list of a pnpm-workspace.yaml (`packages:` and its `- 'glob'` items). */
export function pnpmWorkspacePatterns(yaml: string): string[] {
  const out: string[] = [];
  let inPackages = false;
  for (const raw of yaml.split(/\r?\n/)) {
    const line = raw.replace(/\s+#.*$/, '');
    if (/^packages\s*:/.test(line)) {
      inPackages = true;
      const inline = /\[(.*)\]/.exec(line);
      if (inline) out.push(...(inline[1] ?? '').split(',').map((s) => s.trim().replace(/^['"]|['"]$/g, '')).filter(Boolean));
      continue;
    }
    if (inPackages && /^\S/.test(line)) inPackages = false;
    const item = inPackages ? /^\s*-\s*(.+?)\s*$/.exec(line) : null;
    if (item) out.push((item[1] ?? '').replace(/^['"]|['"]$/g, ''));
  }
  return out;
}

/** The packages of an npm/yarn (`workspaces` in package.json) or pnpm (pnpm-workspace.yaml) workspace; [] when it is none. */
export function jsWorkspacePackages(p: ProjectFacts, pkgWorkspaces: unknown): string[] {
  const patterns: string[] = [];
  if (Array.isArray(pkgWorkspaces)) patterns.push(...pkgWorkspaces.filter((w): w is string => typeof w === 'string'));
  else if (pkgWorkspaces !== null && typeof pkgWorkspaces === 'object') {
    const packages = (pkgWorkspaces as { packages?: unknown }).packages;
    if (Array.isArray(packages)) patterns.push(...packages.filter((w): w is string => typeof w === 'string'));
  }
  const yaml = p.read?.('pnpm-workspace.yaml') ?? null;
  if (yaml !== null) patterns.push(...pnpmWorkspacePatterns(yaml));
  return patterns.length === 0 ? [] : matchPackages(patterns, p.files ?? [], 'package.json');
}

/** The module folders of a go.work (`use ./a` and `use ( ./a ./b )`), root-relative ('' for the root). */
export function goWorkUses(text: string): string[] {
  const out: string[] = [];
  let block = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (block) {
      if (line === ')') block = false;
      else if (line !== '') out.push(line);
      continue;
    }
    const m = /^use\s+(.*)$/.exec(line);
    if (!m) continue;
    const arg = (m[1] ?? '').trim();
    if (arg === '(') block = true;
    else if (arg.startsWith('(') && arg.endsWith(')')) out.push(...arg.slice(1, -1).trim().split(/\s+/).filter(Boolean));
    else out.push(arg);
  }
  return [...new Set(out.map((u) => cleanPattern(u.replace(/^"|"$/g, ''))).map((u) => (u === '.' ? '' : u)))];
}

/** Folders below the root holding a Go module of their own (not test data or vendored code). */
export function nestedGoModules(files: readonly string[]): string[] {
  return files.filter((f) => f.endsWith('/go.mod') && inPackageTree(f, [])).map(dirOf).sort();
}

/** Folders below the root holding a crate of their own. */
export function nestedCrates(files: readonly string[]): string[] {
  return files.filter((f) => f.endsWith('/Cargo.toml') && inPackageTree(f, [])).map(dirOf).sort();
}

/** `name` of a Cargo.toml's `[package]`. */
export function cargoPackageName(text: string): string | null {
  let inPackage = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('[')) inPackage = line === '[package]';
    const m = inPackage ? /^name\s*=\s*["']([^"']+)["']/.exec(line) : null;
    if (m) return m[1] ?? null;
  }
  return null;
}

/** Python packages of the repository: every folder with its own pyproject.toml or setup.py ('' for the root). */
export function pythonPackages(files: readonly string[]): string[] {
  const venvs = venvDirs(files);
  const dirs = files.filter((f) => /(?:^|\/)(?:pyproject\.toml|setup\.py)$/.test(f) && inPackageTree(f, venvs)).map(dirOf);
  return [...new Set(dirs)].sort();
}

/** Tooling at a Python project's root: code, but not its sources. */
const PY_TOOLING = /^(?:setup|conftest|noxfile|fabfile|tasks|dodo)\.py$/;
const PY_TEST_FILE = /^(?:test_.*|.*_test|conftest)\.py$/;
/** Top-level folders whose Python code is tooling or tests, not the project's sources. */
const NOT_PY_SOURCE = /^(?:\..*|src|tests?|testing|docs?|examples?|samples?|scripts?|tools?|benchmarks?|bench(?:es)?|build|dist|venv|env|site-packages|typings|stubs|node_modules|__pycache__)$/;

/**
 * Where a Python project's code lives, as globs relative to its folder: `src/**` (a src layout),
 * each top-level package or folder of code (`mylib/**`), each module at the root. Virtualenvs,
 * tests and tooling are left out. Null when it has no code yet.
 */
export function pythonSourceGlobs(files: readonly string[]): string[] | null {
  const venvs = venvDirs(files);
  const py = files.filter((f) => f.endsWith('.py') && !venvs.some((v) => v === '' || f.startsWith(`${v}/`)));
  const globs: string[] = [];
  if (py.some((f) => f.startsWith('src/'))) globs.push('src/**');
  const tops = new Map<string, string[]>();
  for (const f of py) {
    const i = f.indexOf('/');
    if (i < 0) continue;
    const top = f.slice(0, i);
    if (NOT_PY_SOURCE.test(top)) continue;
    tops.set(top, [...(tops.get(top) ?? []), f]);
  }
  for (const [top, inside] of [...tops].sort()) {
    if (inside.some((f) => !PY_TEST_FILE.test(f.slice(f.lastIndexOf('/') + 1)) && !/(?:^|\/)tests?\//.test(f.slice(top.length + 1)))) globs.push(`${top}/**`);
  }
  globs.push(...py.filter((f) => !f.includes('/') && !PY_TOOLING.test(f) && !PY_TEST_FILE.test(f)).sort());
  return globs.length === 0 ? null : globs;
}

/** Where a Python package's imports resolve from: its `src/` in a src layout, else its own folder. */
export function pythonImportRoot(files: readonly string[], dir: string): string {
  const prefix = dir === '' ? '' : `${dir}/`;
  const src = files.some((f) => f.startsWith(`${prefix}src/`) && f.endsWith('.py'));
  return src ? under(dir, 'src') : dir === '' ? '.' : dir;
}

/** The file that configures pytest in a folder, and what it sets. */
interface PytestConfig {
  file: string;
  pythonpath: boolean;
  testpaths: boolean;
  importMode: boolean;
}

export function pytestConfig(p: ProjectFacts, dir: string): PytestConfig | null {
  const sections: [string, RegExp][] = [
    ['pytest.ini', /./],
    ['.pytest.ini', /./],
    ['pytest.toml', /./],
    ['.pytest.toml', /./],
    ['pyproject.toml', /^\s*\[tool\.pytest(?:\.ini_options)?\]/m],
    ['tox.ini', /^\s*\[pytest\]/m],
    ['setup.cfg', /^\s*\[tool:pytest\]/m],
  ];
  for (const [name, section] of sections) {
    const rel = under(dir, name);
    if (!p.has(rel)) continue;
    const text = p.read?.(rel) ?? '';
    if (!section.test(text)) continue;
    return { file: rel, pythonpath: /^\s*pythonpath\s*=/m.test(text), testpaths: /^\s*testpaths\s*=/m.test(text), importMode: /import-mode/.test(text) };
  }
  return null;
}

/** The Python test files of several packages that would clash under pytest's default import mode (same name, no package around them). */
export function clashingTestModules(files: readonly string[], dirs: readonly string[]): string[] {
  const seen = new Map<string, Set<string>>();
  const names = new Set(files);
  for (const f of files) {
    const base = f.slice(f.lastIndexOf('/') + 1);
    if (!PY_TEST_FILE.test(base)) continue;
    if (!dirs.some((d) => d === '' || f.startsWith(`${d}/`))) continue;
    const folder = dirOf(f);
    if (names.has(under(folder, '__init__.py'))) continue;
    seen.set(base, new Set([...(seen.get(base) ?? []), folder]));
  }
  return [...seen].filter(([, folders]) => folders.size > 1).map(([base]) => base).sort();
}

/** An in-project interpreter: the virtualenv folder, its python, and what said it is the project's. */
interface Interpreter {
  venv: string;
  python: string;
  via: string;
}

function truthy(v: string | undefined): boolean {
  return v !== undefined && /^(?:1|true|yes|on)$/i.test(v.trim());
}

/** Does a poetry.toml put the virtualenv in the project (`[virtualenvs]` `in-project = true`)? */
function poetryInProject(text: string | null): boolean {
  if (text === null) return false;
  let section = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('[')) section = line;
    if (/^virtualenvs\.in-project\s*=\s*true\b/.test(line) && section === '') return true;
    if (section === '[virtualenvs]' && /^in-project\s*=\s*true\b/.test(line)) return true;
  }
  return false;
}

/**
 * The virtualenv folders a project's tools put in it, most specific first: the activated one,
 * uv's (`.venv`, or UV_PROJECT_ENVIRONMENT), poetry's with `virtualenvs.in-project`, pipenv's with
 * PIPENV_VENV_IN_PROJECT, then the usual `.venv` and `venv`. `declared`: a tool says one belongs here.
 */
export function venvCandidates(p: ProjectFacts, dir: string): { venv: string; via: string; declared: boolean }[] {
  const env = p.env ?? {};
  const out: { venv: string; via: string; declared: boolean }[] = [];
  const active = env.VIRTUAL_ENV ? (p.inProject?.(env.VIRTUAL_ENV) ?? null) : null;
  if (active !== null && active !== '' && (dir === '' || active.startsWith(`${dir}/`))) out.push({ venv: active, via: 'the activated virtualenv (VIRTUAL_ENV)', declared: false });
  const pyproject = p.read?.(under(dir, 'pyproject.toml')) ?? '';
  if (p.has(under(dir, 'uv.lock')) || /^\s*\[tool\.uv[\].]/m.test(pyproject)) {
    const custom = env.UV_PROJECT_ENVIRONMENT ? (p.inProject?.(env.UV_PROJECT_ENVIRONMENT) ?? null) : null;
    out.push({ venv: custom ?? under(dir, '.venv'), via: 'uv', declared: true });
  }
  if (poetryInProject(p.read?.(under(dir, 'poetry.toml')) ?? null) || (p.has(under(dir, 'poetry.lock')) && truthy(env.POETRY_VIRTUALENVS_IN_PROJECT))) {
    out.push({ venv: under(dir, '.venv'), via: 'poetry (virtualenvs.in-project)', declared: true });
  }
  if (p.has(under(dir, 'Pipfile')) && truthy(env.PIPENV_VENV_IN_PROJECT)) out.push({ venv: under(dir, '.venv'), via: 'pipenv (PIPENV_VENV_IN_PROJECT)', declared: true });
  out.push({ venv: under(dir, '.venv'), via: 'an in-project virtualenv', declared: false }, { venv: under(dir, 'venv'), via: 'an in-project virtualenv', declared: false });
  const seen = new Set<string>();
  return out.filter((c) => !seen.has(c.venv) && seen.add(c.venv));
}

/** The first candidate virtualenv whose interpreter is there and executable; null when none is. */
export function pythonInterpreter(p: ProjectFacts, dir: string): Interpreter | null {
  const names = p.windows ? ['Scripts/python.exe'] : ['bin/python', 'bin/python3'];
  for (const c of venvCandidates(p, dir)) {
    for (const name of names) {
      const python = `${c.venv}/${name}`;
      if (p.executable?.(python)) return { venv: c.venv, python, via: c.via };
    }
  }
  return null;
}

/**
 * Is pytest missing from a virtualenv? Read from its own files: `pyvenv.cfg` (the version, and
 * whether it sees the system's packages) and its site-packages. Null when it cannot tell.
 */
export function venvLacksPytest(p: ProjectFacts, venv: string): boolean | null {
  const cfg = p.read?.(`${venv}/pyvenv.cfg`) ?? null;
  if (cfg === null || /^\s*include-system-site-packages\s*=\s*true/im.test(cfg)) return null;
  const v = /^\s*(?:version|version_info)\s*=\s*(\d+)\.(\d+)/m.exec(cfg);
  if (!v) return null;
  const site = p.windows ? `${venv}/Lib/site-packages` : `${venv}/lib/python${v[1]}.${v[2]}/site-packages`;
  if (!p.has(site)) return null;
  return !p.has(`${site}/pytest`) && !p.has(`${site}/_pytest`);
}
