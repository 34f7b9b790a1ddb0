import type { StackConfig } from '../../state/schema/stack.js';
import {
  cargoPackageName,
  clashingTestModules,
  goWorkUses,
  jsWorkspacePackages,
  nestedCrates,
  nestedGoModules,
  pytestConfig,
  pythonImportRoot,
  pythonInterpreter,
  pythonPackages,
  pythonSourceGlobs,
  subFacts,
  under,
  venvCandidates,
  venvLacksPytest,
  type ProjectFacts,
} from './layout.js';

export type { ProjectFacts } from './layout.js';

/** What `stack detect` proposes: the binding, the runner's name, and what the person should know about it. */
export interface Detected {
  stack: StackConfig;
  runner: string;
  /** What the person should know about it: the interpreter picked, what a run from the root does not do. */
  notes: string[];
}

/** The project's layout says no binding would work as detected; the message says what to do. */
export class DetectProblem extends Error {}

interface Pkg {
  jest?: unknown;
  workspaces?: unknown;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const JS_TESTS = '**/*.test.*|**/*.spec.*|test/**|tests/**|spec/**|**/__tests__/**';
const JS_SOURCES = 'src/**|lib/**';

const JEST_CONFIGS = ['jest.config.js', 'jest.config.ts', 'jest.config.mjs', 'jest.config.cjs', 'jest.config.json'];

/**
 * jest as the project runs it: `npm test` when its test script is one plain call of jest (its
 * flags, its `--config`, an env prefix such as NODE_OPTIONS=--experimental-vm-modules for ESM;
 * tdd-gate passes the report flags through npm), else `npx jest`.
 */
function jestCommand(testScript: string): string {
  const plain = /^(?:cross-env\s+)?(?:[A-Za-z_]\w*=\S+\s+)*(?:npx\s+)?jest(?:\s|$)/.test(testScript.trim());
  if (plain && !/&&|\|\||[;|<>`]|\$\(|--watch/.test(testScript)) return 'npm test --silent';
  return 'npx jest';
}

const JS_CODE = /\.(?:[cm]?[jt]sx?)$/;
/** Build and tool configuration at the root: code, but not the project's sources. */
const JS_TOOLING = /^(?:[^/]*\.config\.[^/]+|\.[^/]*|[Gg]ulpfile\.[^/]+|[Gg]runtfile\.[^/]+|[Kk]arma\.conf\.[^/]+|[^/]*\.d\.[cm]?ts|[^/]*\.(?:test|spec)\.[^/]+)$/;

/**
 * Sources of a JavaScript project: `src/` and `lib/`, plus the code files at its root (a package
 * whose code is `index.js` beside package.json), which would otherwise be neither test nor source.
 */
function jsSources(files: readonly string[] | undefined, workspace = false): string {
  const code = (files ?? []).filter((f) => JS_CODE.test(f) && !JS_TOOLING.test(f.slice(f.lastIndexOf('/') + 1)));
  const root = code.filter((f) => !f.includes('/'));
  // Other folders of code the package runs (`bin/`, `cli/`), not its tests, examples or tooling.
  const dirs = [...new Set(code.filter((f) => f.includes('/')).map((f) => f.slice(0, f.indexOf('/'))))].filter((d) => !NOT_SOURCE_DIRS.test(d));
  return [workspace ? JS_WORKSPACE_SOURCES : JS_SOURCES, ...dirs.map((d) => `${d}/**`), ...root].join('|');
}

const NOT_SOURCE_DIRS = /^(?:src|lib|\..*|test|tests|spec|specs|__tests__|__mocks__|e2e|bench|benches|benchmarks?|examples?|demos?|docs?|scripts?|tools?|fixtures|coverage|dist|build|out|types|typings|vendor|public|static|assets|node_modules|tmp|temp)$/i;

// A workspace (package.json `workspaces`): each package has its own src/ and test/ (packages/a/src).
const JS_WORKSPACE_SOURCES = 'src/**|lib/**|**/src/**|**/lib/**';
const JS_WORKSPACE_TESTS = '**/*.test.*|**/*.spec.*|**/test/**|**/tests/**|**/spec/**|**/__tests__/**';

/** The scripts `npm test` runs: its own text and the scripts it calls with `npm run x` / `yarn x` / `pnpm x`, in order. */
function testScripts(scripts: Record<string, string> | undefined): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string): void => {
    const text = scripts?.[name];
    if (typeof text !== 'string' || seen.has(name) || seen.size > 20) return;
    seen.add(name);
    for (const seg of text.split(/&&|\|\||;|\|/)) {
      out.push(seg.trim());
      // also behind a wrapper: `nyc npm run test-spec`, `cross-env CI=1 npm test`
      const called = /(?:^|\s)(?:npm\s+run(?:-script)?|yarn(?:\s+run)?|pnpm(?:\s+run)?|bun\s+run)\s+([\w:.-]+)/.exec(seg.trim()) ?? /(?:^|\s)npm\s+(test|t)\b/.exec(seg.trim());
      if (called?.[1]) visit(called[1] === 't' ? 'test' : called[1]);
    }
  };
  visit('test');
  return out;
}

/** The words of a command line that are neither flags nor a flag's value (`valued`: flags that take one). */
function operands(words: readonly string[], valued: RegExp): string[] {
  const out: string[] = [];
  for (let k = 0; k < words.length; k++) {
    const w = words[k] as string;
    if (w.startsWith('-')) {
      if (!w.includes('=') && valued.test(w)) k++;
      continue;
    }
    out.push(w);
  }
  return out;
}

/** A command line without the given flags (and their values). */
function withoutFlags(args: string, flags: RegExp): string {
  const words = args.split(/\s+/).filter(Boolean);
  const out: string[] = [];
  for (let k = 0; k < words.length; k++) {
    const w = words[k] as string;
    const name = w.replace(/=.*$/, '');
    if (flags.test(name)) {
      if (!w.includes('=')) k++;
      continue;
    }
    out.push(w);
  }
  return out.join(' ');
}

/** Test globs for the paths a runner is given: a directory's whole tree, a file or glob as it is. */
function targetGlobs(targets: readonly string[]): string[] {
  return targets
    .map((t) => t.replace(/^['"]|['"]$/g, '').replace(/^\.\//, '').replace(/\/+$/, ''))
    .filter((t) => t !== '' && t !== '.')
    .map((t) => (/[*?{]/.test(t) || /\.[cm]?[jt]sx?$/.test(t) ? t : `${t}/**`));
}

const MOCHA_VALUED = /^(?:-R|--reporter|-O|--reporter-options?|-t|--timeout|-r|--require|-u|--ui|-g|--grep|-f|--fgrep|--config|--package|--extension|--ignore|--exclude|--file|-s|--slow|--retries|-j|--jobs|--spec)$/;

type JsRunner = 'vitest' | 'jest' | 'mocha' | 'node:test';

function parsePkg(text: string | null): Pkg | null {
  if (text === null) return null;
  try {
    const pkg = JSON.parse(text) as unknown;
    return pkg !== null && typeof pkg === 'object' && !Array.isArray(pkg) ? pkg : null;
  } catch {
    return null;
  }
}

function depsOf(pkg: Pkg): Record<string, string> {
  return { ...pkg.dependencies, ...pkg.devDependencies };
}

/** The `node --test` call the package's test script makes (behind `npm run x` and a coverage wrapper too). */
function nodeTestCall(pkg: Pkg): string | null {
  const m = testScripts(pkg.scripts)
    .map((seg) => /(?:^|\s)(node\s+(?:--[\w-]+(?:=\S+)?\s+)*--test(?![\w-])(?:\s.*)?)$/.exec(seg))
    .find((x) => x !== null);
  return m?.[1]?.trim() ?? null;
}

/** The runner a package.json names itself (its dependencies, its test script, its config files); null when it names none. */
function jsRunnerOf(pkg: Pkg, p: ProjectFacts): JsRunner | null {
  const deps = depsOf(pkg);
  const testScript = pkg.scripts?.test ?? '';
  if ('vitest' in deps || /\bvitest\b/.test(testScript)) return 'vitest';
  if ('jest' in deps || 'jest' in pkg || /\bjest\b/.test(testScript) || JEST_CONFIGS.some((f) => p.has(f))) return 'jest';
  if ('mocha' in deps || /\bmocha\b/.test(testScript)) return 'mocha';
  if (nodeTestCall(pkg) !== null) return 'node:test';
  return null;
}

/** A JavaScript project's stack for its runner, run from its own folder. */
function jsStack(pkg: Pkg, p: ProjectFacts, runner: JsRunner, ws: boolean): StackConfig {
  const deps = depsOf(pkg);
  const testScript = pkg.scripts?.test ?? '';
  // TypeScript also when sources are .ts without a tsconfig of their own (a workspace package)
  const tsSource = ws ? /(?:^|\/)(?:src|lib)\/.*\.[cm]?tsx?$/ : /^(?:src|lib)\/.*\.[cm]?tsx?$/;
  const ts = p.has('tsconfig.json') || 'typescript' in deps || (p.files ?? []).some((f) => tsSource.test(f) && !/\.d\.[cm]?ts$/.test(f) && !f.includes('node_modules/'));
  const language = ts ? 'typescript' : 'javascript';
  const tsErr = ts ? '|error TS\\d+' : '';
  if (runner === 'vitest') {
    return {
      language,
      test_command: 'npx vitest run',
      test_file_glob: ws ? JS_WORKSPACE_TESTS : JS_TESTS,
      source_file_glob: jsSources(p.files, ws),
      red_confirm: 'AssertionError|expected .* to|Expected|toBe|toEqual',
      build_error_pattern: `SyntaxError|Cannot find module|Failed to (load|resolve)|Transform failed|does not provide an export named${tsErr}`,
    };
  }
  if (runner === 'jest') {
    return {
      language,
      test_command: jestCommand(testScript),
      // manual mocks and snapshots are part of what the tests assert
      test_file_glob: `${ws ? JS_WORKSPACE_TESTS : JS_TESTS}|**/__mocks__/**|**/__snapshots__/**`,
      source_file_glob: jsSources(p.files, ws),
      red_confirm: 'expect\\(.*\\)\\.|Expected|Received|AssertionError',
      build_error_pattern: `SyntaxError|Cannot find module|Test suite failed to run${tsErr}`,
    };
  }
  if (runner === 'mocha') {
    // Mocha as the project calls it (`mocha spec -R spec`): a bare `mocha` reads only test/.
    const call = testScripts(pkg.scripts).map((seg) => /(?:^|\s)_?mocha(?:\s+(.*))?$/.exec(seg)).find((m) => m !== null);
    // The project's reporter goes: the CLI runs mocha through a reporter of its own (evidence/mocha.ts),
    // which takes the place of any other for the run, and a plain call is what it can reach.
    const args = withoutFlags(call?.[1]?.trim() ?? '', /^(?:-R|--reporter|-O|--reporter-options?)$/);
    const hasRc = MOCHA_RCS.some((f) => p.has(f));
    const targets = targetGlobs(operands(args.split(/\s+/).filter(Boolean), MOCHA_VALUED));
    return {
      language,
      test_command: args !== '' && !hasRc ? `npx mocha ${args}` : 'npx mocha',
      test_file_glob: [...new Set([...targets, 'test/**', 'tests/**', '**/*.spec.*', '**/*.test.*'])].join('|'),
      source_file_glob: jsSources(p.files, ws),
      red_confirm: 'AssertionError|expected .* to|Expected',
      build_error_pattern: `SyntaxError|ERR_MODULE_NOT_FOUND|Cannot find module|does not provide an export named${tsErr}`,
    };
  }
  // node:test as the project runs it: `node --test test/` collects only what the script names
  // (a bare `node --test` would also run benchmarks and fixtures that match its default
  // patterns), also behind `npm run x` and a coverage wrapper (`c8 node --test`).
  const command = nodeTestCall(pkg) ?? 'node --test';
  const targets = targetGlobs(operands(command.split(/\s+/).slice(1), NODE_TEST_VALUED));
  return {
    language,
    test_command: command,
    test_file_glob: targets.length > 0 ? targets.join('|') : ws ? JS_WORKSPACE_TESTS : JS_TESTS,
    source_file_glob: jsSources(p.files, ws),
    red_confirm: 'AssertionError|ERR_ASSERTION',
    build_error_pattern: 'SyntaxError|ERR_MODULE_NOT_FOUND|Cannot find module|does not provide an export named',
  };
}

const MOCHA_RCS = ['.mocharc.js', '.mocharc.cjs', '.mocharc.yml', '.mocharc.yaml', '.mocharc.json', '.mocharc.jsonc'];
const NODE_TEST_VALUED = /^--test-(?:reporter|reporter-destination|name-pattern|skip-pattern|concurrency|timeout|shard)$|^--(?:import|require|loader|experimental-loader)$|^-r$/;
const VITEST_CONFIGS = /^(?:vitest|vite)\.config\.[cm]?[jt]s$/;
const VITEST_PROJECTS = /^vitest\.(?:workspace|projects)\.[\w.]+$/;

function configIn(p: ProjectFacts, dir: string, re: RegExp): string | null {
  const prefix = dir === '' ? '' : `${dir}/`;
  const f = (p.files ?? []).find((x) => x.startsWith(prefix) && !x.slice(prefix.length).includes('/') && re.test(x.slice(prefix.length)));
  return f ?? null;
}

/** The workspace's packages and what a run from its root does not do for them. */
function jsWorkspaceNotes(p: ProjectFacts, runner: JsRunner, packages: readonly string[]): string[] {
  const notes = [`a workspace of ${packages.length} packages (${listed(packages)}): the command runs every package's tests from the root; \`tdd-gate stack detect --package <dir>\` binds a cycle to one package`];
  if (runner === 'vitest') {
    const own = packages.filter((d) => configIn(p, d, VITEST_CONFIGS) !== null);
    const rootConfig = configIn(p, '', VITEST_CONFIGS);
    const projects = configIn(p, '', VITEST_PROJECTS) !== null || (rootConfig !== null && /\b(?:projects|workspace)\s*:/.test(p.read?.(rootConfig) ?? ''));
    if (own.length > 0 && !projects) notes.push(`${listed(own)} ${own.length === 1 ? 'has its own vitest config' : 'have their own vitest configs'}, which a run from the root does not read: list the packages in the root config's \`test.projects\`, or bind a cycle to one package with --package`);
    const here = packages.filter((d) => p.has(`${d}/node_modules/.bin/vitest`));
    if (!p.has('node_modules/.bin/vitest') && here.length > 0) notes.push(`vitest is installed in ${listed(here)}, not at the root, where \`npx vitest\` looks for it: add it to the root's devDependencies, or bind a cycle to one package with --package`);
  }
  if (runner === 'jest') {
    const own = packages.filter((d) => configIn(p, d, /^jest\.config\.[\w.]+$/) !== null);
    const root = parsePkg(p.packageJson);
    const rootConfig = configIn(p, '', /^jest\.config\.[\w.]+$/);
    const projects = /\bprojects\b/.test((rootConfig ? p.read?.(rootConfig) : null) ?? '') || (root?.jest !== undefined && /"projects"/.test(JSON.stringify(root.jest)));
    if (own.length > 0 && !projects) notes.push(`${listed(own)} ${own.length === 1 ? 'has its own jest config' : 'have their own jest configs'}, which a run from the root does not read: list them in the root config's \`projects\`, or bind a cycle to one package with --package`);
  }
  return notes;
}

function listed(items: readonly string[]): string {
  return items.length <= 4 ? items.join(', ') : `${items.slice(0, 4).join(', ')} and ${items.length - 4} more`;
}

const PY_TESTS = 'test_*.py|*_test.py|**/tests/**|**/test/**';
const PY_RED = 'AssertionError|assert ';
const PY_BUILD = 'SyntaxError|IndentationError|ImportError|ModuleNotFoundError|errors? during collection';

/** The interpreter the project's tests run with, and what the person should know about it. */
function pythonCommand(p: ProjectFacts, dirs: readonly string[]): { python: string; notes: string[]; own?: true } {
  const notes: string[] = [];
  let found = null;
  for (const d of dirs) {
    found = pythonInterpreter(p, d);
    if (found) break;
  }
  if (found) {
    notes.push(`the tests run with the project's own interpreter ${found.python} (${found.via})`);
    if (venvLacksPytest(p, found.venv)) notes.push(`pytest is not installed in ${found.venv}: install it there (\`${found.python} -m pip install pytest\`, or your tool's way: \`uv add --dev pytest\`, \`poetry add --group dev pytest\`) before the first cycle`);
    return { python: found.python, notes, own: true };
  }
  const declared = venvCandidates(p, dirs[0] ?? '').find((c) => c.declared);
  if (declared) notes.push(`${declared.via} keeps the project's virtualenv in ${declared.venv}, which has no interpreter yet: create it (\`uv sync\`, \`poetry install\`, \`pipenv install --dev\`), then run \`tdd-gate stack detect\` again`);
  return { python: p.onPath && !p.onPath('python') && p.onPath('python3') ? 'python3' : 'python', notes };
}

/** Source globs of a Python project's folder, root-relative; null when it has no code yet. */
function pythonSourcesOf(p: ProjectFacts, dir: string): string[] | null {
  const files = subFacts(p, dir).files;
  if (files === undefined) return null;
  return pythonSourceGlobs(files)?.map((g) => prefixGlob(g, dir)) ?? null;
}

function pythonStack(p: ProjectFacts, packages: readonly string[]): Detected {
  const nested = packages.filter((d) => d !== '');
  const { python, notes, own } = pythonCommand(p, ['']);
  const stack = (test_command: string, sources: readonly string[] | null): Detected => ({
    runner: 'pytest',
    notes,
    stack: {
      language: 'python',
      test_command,
      test_file_glob: PY_TESTS,
      source_file_glob: sources === null || sources.length === 0 ? 'src/**|**/*.py' : [...new Set(sources)].join('|'),
      red_confirm: PY_RED,
      build_error_pattern: PY_BUILD,
    },
  });
  if (nested.length === 0 || p.files === undefined) {
    // A src/ layout run by an interpreter the project does not own (no virtualenv the package is
    // installed in): the tests import the code from src/, never an installed copy or nothing.
    const srcLayout = own !== true && p.files !== undefined && pythonImportRoot(p.files, '') === 'src' && pytestConfig(p, '')?.pythonpath !== true;
    if (srcLayout) notes.push('a src/ layout and no virtualenv in the project: the tests import the package from src/ (`-o pythonpath=src`), not from a copy installed elsewhere');
    return stack(`${python} -m pytest${srcLayout ? ' -o pythonpath=src' : ''}`, pythonSourcesOf(p, ''));
  }
  // Several packages: one pytest session from the root, each package importable from its source folder.
  const files = p.files;
  const rootIsPackage = packages.includes('');
  const dirs = rootIsPackage ? ['', ...nested] : nested;
  const rootCfg = pytestConfig(p, '');
  const parts = [`${python} -m pytest`];
  if (!rootCfg) parts.push('--rootdir=.');
  const roots = [...new Set(dirs.map((d) => pythonImportRoot(files, d)))];
  if (!rootCfg?.pythonpath) parts.push(roots.length === 1 ? `-o pythonpath=${roots[0]}` : `-o "pythonpath=${roots.join(' ')}"`);
  const clash = clashingTestModules(files, dirs);
  if (clash.length > 0 && !rootCfg?.importMode) {
    parts.push('--import-mode=importlib');
    notes.push(`test modules of the same name in several packages (${listed(clash)}) are imported by path (--import-mode=importlib), so they do not clash`);
  }
  if (!rootIsPackage && !rootCfg?.testpaths) parts.push(...nested);
  notes.push(
    `several Python packages (${listed(dirs.map((d) => d || '.'))}): one pytest session from the root runs them all, each importable from ${roots.length === 1 ? 'its source folder' : 'its own source folder'}; their own pytest settings are not read from the root: \`tdd-gate stack detect --package <dir>\` binds a cycle to one package with its settings`,
  );
  // the root package's folders that hold other packages are theirs, not its own code
  const holdsPackage = (glob: string) => nested.some((d) => glob.endsWith('/**') && `${d}/`.startsWith(glob.slice(0, -2)));
  const sources = dirs.flatMap((d) => (pythonSourcesOf(p, d) ?? [under(d, 'src/**')]).filter((g) => d !== '' || !holdsPackage(g)));
  return stack(parts.join(' '), sources);
}

/**
 * A glob of a package's own stack, made root-relative: a path pattern gets the package's folder in
 * front, a file name of its root too; a pattern for any depth (`**\/…`) or for a base name
 * (`*_test.go`) already reaches the package.
 */
export function prefixGlob(glob: string, dir: string): string {
  if (dir === '') return glob;
  return glob
    .split('|')
    .map((g) => {
      if (g.startsWith('**/')) return g;
      if (!g.includes('/') && /[*?[{]/.test(g)) return g;
      return `${dir}/${g}`;
    })
    .join('|');
}

function unionGlobs(...globs: (string | string[] | undefined)[]): string {
  const all = globs.flatMap((g) => (g === undefined ? [] : Array.isArray(g) ? g : g.split('|'))).filter(Boolean);
  return [...new Set(all)].join('|');
}

/** Pure: a stack.json for the project's test runner, run from its root, or null when none is recognised. */
export function detectStack(p: ProjectFacts): Detected | null {
  const pkg = parsePkg(p.packageJson);
  if (pkg) {
    const packages = jsWorkspacePackages(p, pkg.workspaces);
    const ws = pkg.workspaces !== undefined || p.has('pnpm-workspace.yaml');
    let runner = jsRunnerOf(pkg, p);
    if (runner === null && packages.length > 0) {
      // A root that runs nothing itself: the packages' runner, when they agree on one.
      const named = packages.map((d) => [d, jsRunnerOfDir(p, d)] as const).filter((r): r is readonly [string, JsRunner] => r[1] !== null);
      const kinds = [...new Set(named.map((r) => r[1]))];
      if (kinds.length > 1) {
        throw new DetectProblem(
          `the workspace's packages use different test runners (${listed(named.map(([d, r]) => `${d}: ${r}`))}), and no one command from the root runs them all: bind a cycle to one package with \`tdd-gate stack detect --package <dir>\``,
        );
      }
      runner = kinds[0] ?? null;
    }
    const chosen = runner ?? 'node:test';
    const stack = jsStack(pkg, p, chosen, ws);
    if (chosen === 'mocha' && jsRunnerOf(pkg, p) === null) {
      // mocha reads only the folder it is given: each package's test/
      const dirs = packages.filter((d) => (p.files ?? []).some((f) => f.startsWith(`${d}/test/`)));
      stack.test_command = `npx mocha --recursive ${dirs.map((d) => `${d}/test`).join(' ')}`.trim();
    }
    return { runner: chosen, stack, notes: packages.length > 0 ? jsWorkspaceNotes(p, chosen, packages) : [] };
  }
  const pyPackages = p.files ? pythonPackages(p.files) : [];
  if (p.has('pytest.ini') || p.has('pyproject.toml') || p.has('setup.cfg') || p.has('conftest.py') || p.anyFile(/^test_.*\.py$/) || pyPackages.length > 0) {
    return pythonStack(p, pyPackages);
  }
  const goModules = p.files ? nestedGoModules(p.files) : [];
  if (p.has('go.mod') || p.has('go.work') || goModules.length > 0) return goStack(p, goModules);
  const crates = p.files ? nestedCrates(p.files) : [];
  if (p.has('Cargo.toml') || crates.length > 0) return cargoStack(p, crates);
  return null;
}

function jsRunnerOfDir(p: ProjectFacts, dir: string): JsRunner | null {
  const sub = subFacts(p, dir);
  const pkg = parsePkg(sub.packageJson);
  return pkg ? jsRunnerOf(pkg, sub) : null;
}

const GO_BASE = {
  language: 'go',
  test_file_glob: '*_test.go|**/testdata/**',
  source_file_glob: '**/*.go',
  red_confirm: '--- FAIL',
  build_error_pattern: '\\[build failed\\]|\\[setup failed\\]|undefined: |syntax error',
};

function goPattern(dir: string): string {
  return dir === '' ? './...' : `./${dir}/...`;
}

function goStack(p: ProjectFacts, nested: readonly string[]): Detected {
  const work = p.read?.('go.work') ?? null;
  if (p.has('go.work') && work !== null) {
    const uses = goWorkUses(work);
    const notes = uses.length > 1 ? [`a Go workspace of ${uses.length} modules (${listed(uses.map((u) => u || '.'))}): the command tests every module from the root; \`tdd-gate stack detect --package <dir>\` binds a cycle to one module`] : [];
    return { runner: 'go test', notes, stack: { ...GO_BASE, test_command: `go test ${(uses.length > 0 ? uses : ['']).map(goPattern).join(' ')}` } };
  }
  if (!p.has('go.mod')) {
    throw new DetectProblem(
      `Go modules in ${listed(nested.map((d) => `${d}/`))} and no go.work at the root, so no \`go test\` from the root reaches them: create one (\`go work init ${nested.map((d) => `./${d}`).join(' ')}\`, and commit it), then run \`tdd-gate stack detect\` again`,
    );
  }
  const notes = nested.length > 0 ? [`${listed(nested.map((d) => `${d}/`))} ${nested.length === 1 ? 'is a module' : 'are modules'} of ${nested.length === 1 ? 'its' : 'their'} own, which \`go test ./...\` from the root does not run: list every module in a go.work (\`go work init . ${nested.map((d) => `./${d}`).join(' ')}\`), then run \`tdd-gate stack detect\` again`] : [];
  return { runner: 'go test', notes, stack: { ...GO_BASE, test_command: 'go test ./...' } };
}

const CARGO_RED = 'panicked at|assertion .*failed';
const CARGO_BUILD = 'error\\[E\\d+\\]|could not compile';

function cargoStack(p: ProjectFacts, nested: readonly string[]): Detected {
  if (!p.has('Cargo.toml')) {
    throw new DetectProblem(
      `crates in ${listed(nested.map((d) => `${d}/`))} and no Cargo.toml at the root, so no \`cargo test\` from the root reaches them: add a workspace manifest at the root (\`[workspace]\` with \`members = [${nested.map((d) => `"${d}"`).join(', ')}]\`), then run \`tdd-gate stack detect\` again`,
    );
  }
  // A crate whose library is lib.rs at the root (`[lib] path = "lib.rs"`), or any *.rs at the root.
  const cargo = p.read?.('Cargo.toml') ?? '';
  const rootLib = p.has('lib.rs') || p.has('main.rs') || /^\s*path\s*=\s*"(?!src\/)[^"]+\.rs"/m.test(cargo);
  // A workspace: every member crate's src/, tests/ and benches/ (crates/foo/src/lib.rs).
  const workspace = /^\s*\[workspace\]/m.test(cargo);
  const notes = workspace
    ? nested.length > 1
      ? [`a Cargo workspace (${listed(nested)}): the command tests every member from the root; \`tdd-gate stack detect --package <dir>\` binds a cycle to one crate`]
      : []
    : nested.length > 0
      ? [`${listed(nested.map((d) => `${d}/`))} ${nested.length === 1 ? 'holds a crate' : 'hold crates'} outside any workspace, which \`cargo test\` from the root does not run: add \`[workspace]\` with their \`members\` to the root Cargo.toml, then run \`tdd-gate stack detect\` again`]
      : [];
  return {
    runner: 'cargo test',
    notes,
    stack: {
      language: 'rust',
      test_command: workspace ? 'cargo test --workspace' : 'cargo test',
      test_file_glob: workspace ? '**/tests/**|**/benches/**' : 'tests/**|benches/**',
      source_file_glob: workspace ? '**/src/**|**/build.rs' : rootLib ? 'src/**|*.rs' : 'src/**',
      red_confirm: CARGO_RED,
      build_error_pattern: CARGO_BUILD,
    },
  };
}

/** A package folder as the person wrote it: root-relative, "/" separated, no `./` or trailing "/". */
function normalizePackageDir(dir: string): string {
  return dir.replace(/\\/g, '/').replace(/^(?:\.\/)+/, '').replace(/\/+$/, '').replace(/\/{2,}/g, '/');
}

/**
 * Pure: a binding that runs one package's tests from the repository's root (`--package <dir>`):
 * the package's own runner and settings, its tests and sources, and what the root binding guards.
 */
export function detectPackageStack(p: ProjectFacts, rawDir: string): Detected {
  const dir = normalizePackageDir(rawDir);
  if (dir === '' || dir === '.') return detectStack(p) ?? nothingFound(dir);
  if (dir.split('/').includes('..')) throw new DetectProblem(`--package ${rawDir} is outside the repository; give a folder below its root`);
  const files = p.files ?? [];
  if (!files.some((f) => f.startsWith(`${dir}/`))) throw new DetectProblem(`--package ${rawDir}: the repository has no files in ${dir}/`);
  const sub = subFacts(p, dir);
  let root: Detected | null = null;
  try {
    root = detectStack(p);
  } catch (err) {
    if (!(err instanceof DetectProblem)) throw err;
  }
  const subPkg = parsePkg(sub.packageJson);
  if (subPkg) return jsPackage(p, sub, subPkg, dir, root);
  if (p.has(`${dir}/pyproject.toml`) || p.has(`${dir}/setup.py`) || p.has(`${dir}/setup.cfg`) || p.has(`${dir}/pytest.ini`)) return pythonPackage(p, dir, root);
  if (p.has(`${dir}/go.mod`)) return goPackage(p, dir);
  if (p.has(`${dir}/Cargo.toml`)) return cargoPackage(p, dir);
  return nothingFound(dir);
}

function nothingFound(dir: string): never {
  throw new DetectProblem(`no package manifest in ${dir || 'the root'} (package.json, pyproject.toml, setup.py, go.mod, Cargo.toml): give the folder of one package with --package`);
}

/** The root binding's globs joined to the package's, when both are for the same language family. */
function withRoot(stack: StackConfig, root: Detected | null, family: (language: string) => boolean): StackConfig {
  if (!root || !family(root.stack.language)) return stack;
  return {
    ...stack,
    test_file_glob: unionGlobs(stack.test_file_glob, root.stack.test_file_glob),
    source_file_glob: unionGlobs(stack.source_file_glob, root.stack.source_file_glob),
  };
}

const isJs = (l: string) => l === 'javascript' || l === 'typescript';

function jsPackage(p: ProjectFacts, sub: ProjectFacts, pkg: Pkg, dir: string, root: Detected | null): Detected {
  const rootPkg = parsePkg(p.packageJson);
  const runner = jsRunnerOf(pkg, sub) ?? (rootPkg ? jsRunnerOf(rootPkg, p) : null) ?? 'node:test';
  const own = jsStack(pkg, sub, runner, false);
  const notes: string[] = [`a cycle bound to ${dir}: the command runs only its tests, from the repository's root`];
  let command: string;
  if (runner === 'vitest') {
    const bin = !p.has('node_modules/.bin/vitest') && p.has(`${dir}/node_modules/.bin/vitest`) ? `${dir}/node_modules/.bin/vitest` : 'npx vitest';
    // its own config (environment, setup files) when it has one; else the root's, scanning only the package
    command = configIn(p, dir, VITEST_CONFIGS) !== null ? `${bin} run --root ${dir}` : `${bin} run --dir ${dir}`;
  } else if (runner === 'jest') {
    const config = configIn(p, dir, /^jest\.config\.[\w.]+$/);
    const bin = !p.has('node_modules/.bin/jest') && p.has(`${dir}/node_modules/.bin/jest`) ? `${dir}/node_modules/.bin/jest` : 'npx jest';
    command = config !== null ? `${bin} --config ${config}` : pkg.jest !== undefined ? `${bin} --config ${dir}/package.json` : `${bin} --rootDir ${dir}`;
  } else if (runner === 'mocha') {
    const targets = targetsOf(own.test_command.replace(/^npx mocha\s*/, ''), MOCHA_VALUED);
    command = `npx mocha ${(targets.length > 0 ? targets : ['test']).map((t) => `${dir}/${t}`).join(' ')}`;
  } else {
    const call = nodeTestCall(pkg);
    const words = (call ?? 'node --test').split(/\s+/);
    const targets = targetsOf(words.slice(1).join(' '), NODE_TEST_VALUED);
    const flags = words.slice(1).filter((w) => !targets.includes(w));
    // node 21+ takes glob patterns and no folders; 18 and 20 take a folder and search it
    const paths = targets.length > 0 ? targets.map((t) => `${dir}/${t}`) : (p.nodeMajor ?? 20) >= 21 ? NODE_TEST_PATTERNS.map((g) => `'${dir}/${g}'`) : [dir];
    command = ['node', ...flags, ...paths].join(' ');
    if (targets.length === 0) notes.push(`node:test's default patterns under ${dir}/ (node ${p.nodeMajor ?? 20}); a node of another major version may need them written another way`);
  }
  const stack = withRoot(
    {
      ...own,
      test_command: command,
      test_file_glob: prefixGlob(String(own.test_file_glob), dir),
      source_file_glob: prefixGlob(String(own.source_file_glob), dir),
    },
    root,
    isJs,
  );
  return { runner, stack, notes };
}

/** node:test's default test file patterns (node 21+ reads them as globs). */
const NODE_TEST_PATTERNS = ['**/*.test.{cjs,mjs,js}', '**/*-test.{cjs,mjs,js}', '**/*_test.{cjs,mjs,js}', '**/test-*.{cjs,mjs,js}', '**/test.{cjs,mjs,js}', '**/test/**/*.{cjs,mjs,js}'];

function targetsOf(args: string, valued: RegExp): string[] {
  return operands(args.split(/\s+/).filter(Boolean), valued).filter((t) => t !== '--test' && !t.startsWith('-'));
}

function pythonPackage(p: ProjectFacts, dir: string, root: Detected | null): Detected {
  const { python, notes } = pythonCommand(p, [dir, '']);
  const cfg = pytestConfig(p, dir);
  const parts = [`${python} -m pytest`, '--rootdir=.'];
  // the package's own settings; its paths (`pythonpath`) then resolve from its folder
  const config = cfg?.file ?? (p.has(`${dir}/pyproject.toml`) ? `${dir}/pyproject.toml` : null);
  if (config !== null) parts.push(`-c ${config}`);
  if (!cfg?.pythonpath) {
    const importRoot = pythonImportRoot(p.files ?? [], dir);
    parts.push(`-o pythonpath=${config !== null ? (importRoot === dir ? '.' : importRoot.slice(dir.length + 1)) : importRoot}`);
  }
  parts.push(dir);
  notes.unshift(`a cycle bound to ${dir}: the command runs only its tests, from the repository's root, with its own pytest settings`);
  const sources = pythonSourcesOf(p, dir) ?? [`${dir}/src/**`, `${dir}/**/*.py`];
  const stack = withRoot(
    { language: 'python', test_command: parts.join(' '), test_file_glob: PY_TESTS, source_file_glob: sources.join('|'), red_confirm: PY_RED, build_error_pattern: PY_BUILD },
    root,
    (l) => l === 'python',
  );
  return { runner: 'pytest', stack, notes };
}

function goPackage(p: ProjectFacts, dir: string): Detected {
  const work = p.read?.('go.work') ?? null;
  if (work === null || !p.has('go.work')) {
    throw new DetectProblem(
      `${dir}/ is a Go module of its own and the repository has no go.work, so \`go test\` from the root cannot reach it: create one (\`go work init ${[...(p.has('go.mod') ? ['.'] : []), ...nestedGoModules(p.files ?? []).map((d) => `./${d}`)].join(' ')}\`, and commit it), then run \`tdd-gate stack detect --package ${dir}\` again`,
    );
  }
  if (!goWorkUses(work).includes(dir)) throw new DetectProblem(`${dir}/ is not a module of the repository's go.work: add it (\`go work use ./${dir}\`), then run \`tdd-gate stack detect --package ${dir}\` again`);
  return { runner: 'go test', notes: [`a cycle bound to ${dir}: the command tests only that module, from the repository's root (through go.work)`], stack: { ...GO_BASE, test_command: `go test ${goPattern(dir)}` } };
}

function cargoPackage(p: ProjectFacts, dir: string): Detected {
  const rootToml = p.read?.('Cargo.toml') ?? '';
  if (!/^\s*\[workspace\]/m.test(rootToml)) {
    throw new DetectProblem(`${dir}/ is a crate outside any Cargo workspace, so \`cargo test\` from the root cannot reach it: add \`[workspace]\` with \`members = ["${dir}"]\` to the root Cargo.toml, then run \`tdd-gate stack detect --package ${dir}\` again`);
  }
  const name = cargoPackageName(p.read?.(`${dir}/Cargo.toml`) ?? '');
  if (name === null) throw new DetectProblem(`${dir}/Cargo.toml has no [package] name (a virtual manifest?): give the folder of one member crate with --package`);
  const root = cargoStack(p, []);
  return { runner: 'cargo test', notes: [`a cycle bound to ${dir}: the command tests only the crate ${name}, from the workspace's root`], stack: { ...root.stack, test_command: `cargo test -p ${name}` } };
}
