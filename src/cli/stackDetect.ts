import type { StackConfig } from '../schema/stack.js';

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
}

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

/** Pure: a stack.json for the project's test runner, or null when none is recognised. */
export function detectStack(p: ProjectFacts): { stack: StackConfig; runner: string } | null {
  let pkg: Pkg | null = null;
  try {
    pkg = p.packageJson === null ? null : (JSON.parse(p.packageJson) as Pkg);
  } catch {
    pkg = null;
  }
  if (pkg) {
    const deps = { ...pkg.dependencies, ...pkg.devDependencies };
    const testScript = pkg.scripts?.test ?? '';
    const ws = pkg.workspaces !== undefined || p.has('pnpm-workspace.yaml');
    // TypeScript also when sources are .ts without a tsconfig of their own (a workspace package)
    const ts = p.has('tsconfig.json') || 'typescript' in deps || (p.files ?? []).some((f) => /^(?:src|lib)\/.*\.[cm]?tsx?$/.test(f) && !/\.d\.[cm]?ts$/.test(f));
    const language = ts ? 'typescript' : 'javascript';
    const tsErr = ts ? '|error TS\\d+' : '';
    if ('vitest' in deps || /\bvitest\b/.test(testScript)) {
      return {
        runner: 'vitest',
        stack: {
          language,
          test_command: 'npx vitest run',
          test_file_glob: ws ? JS_WORKSPACE_TESTS : JS_TESTS,
          source_file_glob: jsSources(p.files, ws),
          red_confirm: 'AssertionError|expected .* to|Expected|toBe|toEqual',
          build_error_pattern: `SyntaxError|Cannot find module|Failed to (load|resolve)|Transform failed|does not provide an export named${tsErr}`,
        },
      };
    }
    if ('jest' in deps || 'jest' in pkg || /\bjest\b/.test(testScript) || JEST_CONFIGS.some((f) => p.has(f))) {
      return {
        runner: 'jest',
        stack: {
          language,
          test_command: jestCommand(testScript),
          // manual mocks and snapshots are part of what the tests assert
          test_file_glob: `${ws ? JS_WORKSPACE_TESTS : JS_TESTS}|**/__mocks__/**|**/__snapshots__/**`,
          source_file_glob: jsSources(p.files, ws),
          red_confirm: 'expect\\(.*\\)\\.|Expected|Received|AssertionError',
          build_error_pattern: `SyntaxError|Cannot find module|Test suite failed to run${tsErr}`,
        },
      };
    }
    if ('mocha' in deps || /\bmocha\b/.test(testScript)) {
      // Mocha as the project calls it (`mocha spec -R spec`): a bare `mocha` reads only test/.
      const call = testScripts(pkg.scripts).map((seg) => /(?:^|\s)_?mocha(?:\s+(.*))?$/.exec(seg)).find((m) => m !== null);
      // the project's reporter goes: the CLI reads mocha's own summary (`N passing`)
      const args = withoutFlags(call?.[1]?.trim() ?? '', /^(?:-R|--reporter|-O|--reporter-options?)$/);
      const hasRc = ['.mocharc.js', '.mocharc.cjs', '.mocharc.yml', '.mocharc.yaml', '.mocharc.json', '.mocharc.jsonc'].some((f) => p.has(f));
      const targets = targetGlobs(operands(args.split(/\s+/).filter(Boolean), MOCHA_VALUED));
      return {
        runner: 'mocha',
        stack: {
          language,
          test_command: args !== '' && !hasRc ? `npx mocha ${args}` : 'npx mocha',
          test_file_glob: [...new Set([...targets, 'test/**', 'tests/**', '**/*.spec.*', '**/*.test.*'])].join('|'),
          source_file_glob: jsSources(p.files, ws),
          red_confirm: 'AssertionError|expected .* to|Expected',
          build_error_pattern: `SyntaxError|ERR_MODULE_NOT_FOUND|Cannot find module|does not provide an export named${tsErr}`,
        },
      };
    }
    // node:test as the project runs it: `node --test test/` collects only what the script names
    // (a bare `node --test` would also run benchmarks and fixtures that match its default
    // patterns), also behind `npm run x` and a coverage wrapper (`c8 node --test`).
    const nodeTest = testScripts(pkg.scripts)
      .map((seg) => /(?:^|\s)(node\s+(?:--[\w-]+(?:=\S+)?\s+)*--test(?![\w-])(?:\s.*)?)$/.exec(seg))
      .find((m) => m !== null);
    if (nodeTest || !('mocha' in deps)) {
      const command = nodeTest?.[1]?.trim() ?? 'node --test';
      const targets = targetGlobs(operands(command.split(/\s+/).slice(1), /^--test-(?:reporter|reporter-destination|name-pattern|skip-pattern|concurrency|timeout|shard)$|^--(?:import|require|loader|experimental-loader)$|^-r$/));
      return {
        runner: 'node:test',
        stack: {
          language,
          test_command: command,
          test_file_glob: targets.length > 0 ? targets.join('|') : ws ? JS_WORKSPACE_TESTS : JS_TESTS,
          source_file_glob: jsSources(p.files, ws),
          red_confirm: 'AssertionError|ERR_ASSERTION',
          build_error_pattern: 'SyntaxError|ERR_MODULE_NOT_FOUND|Cannot find module|does not provide an export named',
        },
      };
    }
  }
  if (p.has('pytest.ini') || p.has('pyproject.toml') || p.has('setup.cfg') || p.has('conftest.py') || p.anyFile(/^test_.*\.py$/)) {
    return {
      runner: 'pytest',
      stack: {
        language: 'python',
        test_command: p.onPath && !p.onPath('python') && p.onPath('python3') ? 'python3 -m pytest' : 'python -m pytest',
        test_file_glob: 'test_*.py|*_test.py|**/tests/**|**/test/**',
        source_file_glob: 'src/**|**/*.py',
        red_confirm: 'AssertionError|assert ',
        build_error_pattern: 'SyntaxError|IndentationError|ImportError|ModuleNotFoundError|errors? during collection',
      },
    };
  }
  if (p.has('go.mod')) {
    return {
      runner: 'go test',
      stack: {
        language: 'go',
        test_command: 'go test ./...',
        test_file_glob: '*_test.go|**/testdata/**',
        source_file_glob: '**/*.go',
        red_confirm: '--- FAIL',
        build_error_pattern: '\\[build failed\\]|\\[setup failed\\]|undefined: |syntax error',
      },
    };
  }
  if (p.has('Cargo.toml')) {
    // A crate whose library is lib.rs at the root (`[lib] path = "lib.rs"`), or any *.rs at the root.
    const cargo = p.read?.('Cargo.toml') ?? '';
    const rootLib = p.has('lib.rs') || p.has('main.rs') || /^\s*path\s*=\s*"(?!src\/)[^"]+\.rs"/m.test(cargo);
    // A workspace: every member crate's src/, tests/ and benches/ (crates/foo/src/lib.rs).
    const workspace = /^\s*\[workspace\]/m.test(cargo);
    return {
      runner: 'cargo test',
      stack: {
        language: 'rust',
        test_command: workspace ? 'cargo test --workspace' : 'cargo test',
        test_file_glob: workspace ? '**/tests/**|**/benches/**' : 'tests/**|benches/**',
        source_file_glob: workspace ? '**/src/**|**/build.rs' : rootLib ? 'src/**|*.rs' : 'src/**',
        red_confirm: 'panicked at|assertion .*failed',
        build_error_pattern: 'error\\[E\\d+\\]|could not compile',
      },
    };
  }
  return null;
}
