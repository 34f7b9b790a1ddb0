import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    // The decision core is pure: values in, a Decision out. No file system, no process, no spawning.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['node:*', 'fs', 'path', 'child_process', 'os', 'execa', 'proper-lockfile', '../io/*', '../hooks/*', '../cli/*'], message: 'src/core is pure: pass facts in instead.' }] },
      ],
      'no-restricted-globals': ['error', { name: 'process', message: 'src/core is pure: pass facts in instead.' }],
    },
  },
  {
    // The hand-off logic is pure too, every file of it; its I/O lives in src/cli/handoffIo.ts.
    files: ['src/handoff/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['node:*', 'fs', 'path', 'child_process', 'os', 'execa', 'proper-lockfile'], message: 'src/handoff is pure: I/O goes in src/cli/handoffIo.ts.' }] },
      ],
      'no-restricted-globals': ['error', { name: 'process', message: 'src/handoff is pure: I/O goes in src/cli/handoffIo.ts.' }],
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
