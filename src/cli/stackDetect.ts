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
}

interface Pkg {
  jest?: unknown;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const JS_TESTS = '**/*.test.*|**/*.spec.*|test/**|tests/**|__tests__/**';
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
    const ts = p.has('tsconfig.json') || 'typescript' in deps;
    const language = ts ? 'typescript' : 'javascript';
    const tsErr = ts ? '|error TS\\d+' : '';
    if ('vitest' in deps || /\bvitest\b/.test(testScript)) {
      return {
        runner: 'vitest',
        stack: {
          language,
          test_command: 'npx vitest run',
          test_file_glob: JS_TESTS,
          source_file_glob: JS_SOURCES,
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
          test_file_glob: `${JS_TESTS}|**/__mocks__/**|**/__snapshots__/**`,
          source_file_glob: JS_SOURCES,
          red_confirm: 'expect\\(.*\\)\\.|Expected|Received|AssertionError',
          build_error_pattern: `SyntaxError|Cannot find module|Test suite failed to run${tsErr}`,
        },
      };
    }
    if ('mocha' in deps || /\bmocha\b/.test(testScript)) {
      return {
        runner: 'mocha',
        stack: {
          language,
          test_command: 'npx mocha',
          test_file_glob: 'test/**|tests/**|**/*.spec.*|**/*.test.*',
          source_file_glob: JS_SOURCES,
          red_confirm: 'AssertionError|expected .* to|Expected',
          build_error_pattern: `SyntaxError|ERR_MODULE_NOT_FOUND|Cannot find module|does not provide an export named${tsErr}`,
        },
      };
    }
    // node:test as the project runs it: `node --test test/` collects only what the script names
    // (a bare `node --test` would also run benchmarks and fixtures that match its default patterns).
    const nodeTest = /(?:^|&&\s*|;\s*)(node\s+(?:--[\w-]+(?:=\S+)?\s+)*--test\b[^&|;]*)/.exec(testScript);
    if (nodeTest || !('mocha' in deps)) {
      const command = nodeTest?.[1]?.trim() ?? 'node --test';
      const targets = command.split(/\s+/).filter((w, k) => k > 0 && !w.startsWith('-'));
      const dirs = targets.map((t) => t.replace(/^\.\//, '').replace(/\/+$/, '')).filter((t) => t !== '' && !/[*?{]/.test(t));
      return {
        runner: 'node:test',
        stack: {
          language,
          test_command: command,
          test_file_glob: dirs.length > 0 ? dirs.map((d) => (/\.[cm]?[jt]s$/.test(d) ? d : `${d}/**`)).join('|') : JS_TESTS,
          source_file_glob: JS_SOURCES,
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
        test_file_glob: 'test_*.py|*_test.py|tests/**',
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
        test_file_glob: '*_test.go|testdata/**',
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
    return {
      runner: 'cargo test',
      stack: {
        language: 'rust',
        test_command: 'cargo test',
        test_file_glob: 'tests/**|benches/**',
        source_file_glob: rootLib ? 'src/**|*.rs' : 'src/**',
        red_confirm: 'panicked at|assertion .*failed',
        build_error_pattern: 'error\\[E\\d+\\]|could not compile',
      },
    };
  }
  return null;
}
