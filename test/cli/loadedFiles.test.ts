import { describe, expect, it } from 'vitest';
import { loadedFiles } from '../../src/verify/oracle/loadedFiles.js';

/** A project as a table of files; loadedFiles only reads and asks what exists. */
function scan(files: Record<string, string>, testCommand: string, configs: string[]): string[] {
  return loadedFiles((rel) => files[rel] ?? null, (rel) => rel in files, testCommand, configs);
}

const code = 'module.exports = {};\n';

describe('loadedFiles: what the test run loads by name is frozen with the tests', () => {
  it.each<[string, Record<string, string>, string, string[], string[]]>([
    [
      '.npmrc node-options preloads and env files',
      { '.npmrc': 'node-options=--require ./tools/p.js --import=./tools/q.mjs --env-file=.env.test\n', 'tools/p.js': code, 'tools/q.mjs': code, '.env.test': 'A=1\n' },
      'npm test',
      ['.npmrc'],
      ['.env.test', 'tools/p.js', 'tools/q.mjs'],
    ],
    [
      "package.json's jest key: setup files, reporters and transforms, not coverage lists",
      {
        'package.json': JSON.stringify({ jest: { setupFiles: ['<rootDir>/test-setup/a.js'], reporters: ['default', ['./tools/rep.js', {}]], transform: { '^.+\\.js$': './tools/t.js' }, collectCoverageFrom: ['src/index.js'], testPathIgnorePatterns: ['src/skip.js'], testEnvironment: 'node' } }),
        'test-setup/a.js': code,
        'tools/rep.js': code,
        'tools/t.js': code,
        'src/index.js': code,
        'src/skip.js': code,
      },
      'npx jest',
      [],
      ['test-setup/a.js', 'tools/rep.js', 'tools/t.js'],
    ],
    [
      'the scripts `npm test` runs, and a config the command names',
      { 'package.json': JSON.stringify({ scripts: { test: 'node scripts/run.js && jest --config ci/jest.ci.js', lint: 'node scripts/lint.js' } }), 'scripts/run.js': code, 'scripts/lint.js': code, 'ci/jest.ci.js': code },
      'npm test --silent',
      [],
      ['ci/jest.ci.js', 'scripts/run.js'],
    ],
    ['the test command itself', { 'scripts/t.sh': 'exit 0\n' }, 'sh scripts/t.sh', [], ['scripts/t.sh']],
    ['the task file of a task runner', { Makefile: 'test:\n\tnpx jest\n', 'justfile': 'x:\n' }, 'make test', [], ['Makefile']],
    [
      'a JS config: setup files, not coverage or roots',
      {
        'jest.config.js': "module.exports = { setupFilesAfterEnv: ['./src/setup.js'], collectCoverageFrom: ['src/main.js'], roots: ['<rootDir>/src'],\n  coveragePathIgnorePatterns: [\n    'src/gen.js',\n  ],\n  globalSetup: 'tools/global.js' };\n",
        'src/setup.js': code,
        'src/main.js': code,
        'src/gen.js': code,
        'tools/global.js': code,
      },
      'npx jest',
      ['jest.config.js'],
      ['src/setup.js', 'tools/global.js'],
    ],
    [
      'aliases, module maps and a bundler entry name the sources under test: not frozen',
      {
        'vite.config.ts': "export default defineConfig({ resolve: { alias: { '~lib': 'src/lib/index.ts' } }, build: { lib: { entry: 'src/index.ts' } }, test: { setupFiles: ['tools/vitest.setup.ts'] } });\n",
        'package.json': JSON.stringify({ jest: { moduleNameMapper: { '^config$': '<rootDir>/src/config.js' } }, babel: { plugins: ['./tools/babel-plugin.js'] } }),
        'src/lib/index.ts': code,
        'src/index.ts': code,
        'src/config.js': code,
        'tools/vitest.setup.ts': code,
        'tools/babel-plugin.js': code,
      },
      'npx vitest run',
      ['vite.config.ts'],
      ['tools/babel-plugin.js', 'tools/vitest.setup.ts'],
    ],
    [
      'a YAML mocharc',
      { '.mocharc.yml': 'spec: test/**/*.spec.js\nrequire:\n  - test/setup.js\n  - tools/hooks.js\nfile: tools/first.js\n', 'test/setup.js': code, 'tools/hooks.js': code, 'tools/first.js': code },
      'npx mocha',
      ['.mocharc.yml'],
      ['test/setup.js', 'tools/first.js', 'tools/hooks.js'],
    ],
    ["Cargo.toml names the crate's own sources: not a preload", { 'Cargo.toml': '[lib]\npath = "lib.rs"\n', 'lib.rs': 'pub fn a() {}\n' }, 'cargo test', ['Cargo.toml'], []],
    [
      'nothing outside the project, in dependencies, or a directory',
      { '.npmrc': 'node-options=--require ../x.js --require /abs/y.js --require node_modules/z/index.js --require ./src\n', 'node_modules/z/index.js': code },
      'node /abs/node_modules/jest/bin/jest.js',
      ['.npmrc'],
      [],
    ],
  ])('%s', (_name, files, command, configs, expected) => {
    expect(scan(files, command, configs)).toEqual(expected);
  });
});
