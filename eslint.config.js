import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { HOT_PATH_FILES } from './scripts/hot-path.mjs';

// Every wing's rules/ is pure: values in, a decision out. No file system, no process, no spawning,
// and nothing from the shells above it (the hook's event glue, the CLI's verbs). The schemas of the
// shared state room are pure too (zod only).
const PURE_FILES = ['src/*/rules/**/*.ts', 'src/state/schema/**/*.ts'];
const PURE = { group: ['node:*', 'fs', 'path', 'child_process', 'os', 'execa', 'proper-lockfile', '**/hooks/*', '**/cli/*', '**/cli/**/*'], message: 'rules/ is pure: gather the facts in the wing around it and pass them in.' };

// The hook's hot path (scripts/hot-path.mjs): what every hook call runs before it knows whether a
// cycle is active. Each rule and its measured cost: docs/performance.md.
const HOT = 'the hook\'s hot path (docs/performance.md)';
const HOT_PATHS = [
  { name: 'node:path', importNames: ['default', 'normalize', 'relative', 'posix', 'win32'], allowTypeImports: true, message: `${HOT}: build a path from a normalized directory with childPath (src/state/childPath.ts); normalizing only where the input may need it, with the reason.` },
  { name: 'path', allowTypeImports: true, message: `${HOT}: import from node:path, and see childPath.` },
  { name: 'node:crypto', allowTypeImports: true, message: `${HOT}: node:crypto costs ≈ 15 M instructions to load; hash with src/state/sha256.ts, and past the quick check.` },
  { name: 'crypto', allowTypeImports: true, message: `${HOT}: node:crypto costs ≈ 15 M instructions to load.` },
];
const HOT_PATTERNS = [
  { group: ['zod', 'zod/*', '**/schema/*', '!**/schema/handChecks.js'], allowTypeImports: true, message: `${HOT}: zod builds its schemas at load (≈ 18 M instructions); check by hand as src/state/schema/handChecks.ts does.` },
  { group: ['minimatch', 'unbash', 'execa', 'proper-lockfile', 'node:os', 'node:child_process', 'node:url', 'node:vm', 'os', 'child_process'], allowTypeImports: true, message: `${HOT}: load it in a part past the quick check (src/hooks/lazy/), nested or lazy.` },
];
const HOT_SYNTAX = [
  { selector: "ImportDeclaration[source.value='node:path'] > ImportSpecifier[imported.name=/^(?:join|resolve)$/]:not([local.name=/^(?:join|resolve)$/])", message: `${HOT}: keep join and resolve under their names, so the lint sees each call.` },
  { selector: "CallExpression[callee.type='Identifier'][callee.name=/^(?:join|resolve)$/]", message: `${HOT}: build a path from a normalized directory with childPath (src/state/childPath.ts): node's join and resolve normalize every time, and V8 compiles path.normalize once a call makes a few dozen. Normalize only a path from the input, the environment or a file, saying so.` },
  { selector: 'Literal[regex]', message: `${HOT}: a string check instead of a regular expression (V8 compiles each one on first use, ≈ 70 K instructions, and again on the second).` },
  { selector: "NewExpression[callee.name='RegExp'], CallExpression[callee.name='RegExp']", message: `${HOT}: a string check instead of a regular expression.` },
  { selector: "MemberExpression[object.name='process'][property.name=/^(?:stdout|stderr|stdin)$/]", message: `${HOT}: process.stdout/stderr/stdin load node's stream stack (≈ 14 M instructions); use fs.writeSync/readFileSync on the descriptor.` },
];

export default tseslint.config(
  { ignores: ['dist/**', 'plugin/**', 'node_modules/**', 'coverage/**'] },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: PURE_FILES,
    rules: {
      'no-restricted-imports': ['error', { patterns: [PURE] }],
      'no-restricted-globals': ['error', { name: 'process', message: 'rules/ is pure: pass facts in instead.' }],
    },
  },
  {
    // typescript-eslint's rule, not the core one the purity blocks use: both apply, and a type import costs nothing.
    files: HOT_PATH_FILES,
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: HOT_PATHS, patterns: HOT_PATTERNS }],
      'no-restricted-syntax': ['error', ...HOT_SYNTAX],
    },
  },
  {
    files: ['scripts/**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    // Keep disableTypeChecked's parser options (no project service): these files are not in tsconfig.
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
