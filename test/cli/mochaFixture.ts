import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { testRepo, type TestRepo } from '../helpers/repo.js';
import { NODE_MODULES } from './fixtures.js';

/** The mocha every mocha fixture runs: one version, installed once into a cache beside the dependencies. */
export const MOCHA_VERSION = '11.7.5';

const CACHE = path.join(NODE_MODULES, '.cache', 'tdd-gate-fixtures', `mocha-${MOCHA_VERSION}`);

/**
 * The cached `node_modules` holding mocha (installed with npm on first use, its install scripts
 * off). Test files running in parallel may both install: each installs into a folder of its own,
 * and the first rename wins.
 */
export function mochaModules(): string {
  const modules = path.join(CACHE, 'node_modules');
  if (existsSync(path.join(modules, 'mocha', 'package.json'))) return modules;
  mkdirSync(path.dirname(CACHE), { recursive: true });
  const tmp = mkdtempSync(`${CACHE}.tmp-`);
  try {
    execFileSync('npm', ['install', '--prefix', tmp, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', `mocha@${MOCHA_VERSION}`], { stdio: 'pipe', timeout: 300_000 });
    try {
      renameSync(tmp, CACHE);
    } catch {
      // another test file installed it first
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  if (!existsSync(path.join(modules, 'mocha', 'package.json'))) throw new Error(`mocha ${MOCHA_VERSION} could not be installed into ${CACHE}`);
  return modules;
}

/** What `stack detect` writes for a mocha project whose script is a bare `mocha`. */
export const MOCHA_STACK = {
  language: 'javascript',
  test_command: 'npx mocha',
  test_file_glob: 'test/**|tests/**|**/*.spec.*|**/*.test.*',
  source_file_glob: 'src/**|lib/**',
  red_confirm: 'AssertionError|expected .* to|Expected',
  build_error_pattern: 'SyntaxError|ERR_MODULE_NOT_FOUND|Cannot find module|does not provide an export named',
};

export const MOCHA_PKG = (extra: Record<string, unknown> = {}) => JSON.stringify({ private: true, scripts: { test: 'mocha' }, devDependencies: { mocha: `^${MOCHA_VERSION}` }, ...extra }, null, 2) + '\n';

/** A temp git repo with mocha installed (the cache linked in as node_modules). */
export function mochaProject(files: Record<string, string> = {}, stack: Record<string, unknown> | null = {}): TestRepo {
  const modules = mochaModules();
  const repo = testRepo({
    stack: stack === null ? null : { ...MOCHA_STACK, ...stack },
    files: { '.gitignore': 'node_modules\n', 'package.json': MOCHA_PKG(), ...files },
  });
  symlinkSync(modules, repo.path('node_modules'));
  return repo;
}
