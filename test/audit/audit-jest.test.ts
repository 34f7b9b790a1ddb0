import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JEST_PKG, NODE_MODULES, project } from '../cli/fixtures.js';
import { auditRun, failures, forge, forgeRedSource, head, honestCycle, tamper, type CycleFiles } from './fixtures.js';

const CYCLE: CycleFiles = {
  test: ['__tests__/add.test.js', "const { add } = require('../src/add');\n\ndescribe('add', () => {\n  test('adds two numbers', () => {\n    expect(add(1, 2)).toBe(3);\n  });\n});\n"],
  stub: ['src/add.js', '// STUB:TDD\nfunction add(_a, _b) {\n  return 0;\n}\nmodule.exports = { add };\n'],
  impl: ['src/add.js', 'function add(a, b) {\n  return a + b;\n}\nmodule.exports = { add };\n'],
};

describe('tdd-gate audit on a jest project', () => {
  it('an honest cycle passes; a forged RED, a missing name at RED, dependencies that differ from the lockfile and jest settings changed in package.json fail', { timeout: 240_000 }, () => {
    const repo = project('jest', { '__tests__/old.test.js': "test('old', () => {\n  expect(1 + 1).toBe(2);\n});\n" });
    const base = head(repo);
    const record = honestCycle(repo, CYCLE);
    const honest = head(repo);

    const good = auditRun(repo, base, '--require-cycles');
    expect(failures(good.report)).toEqual([]);
    expect(good.status).toBe(0);

    forge(repo, base, honest, 'red-passes', () => forgeRedSource(repo, record, 'src/add.js', CYCLE.impl[1]));
    expect(failures(auditRun(repo, base).report)).toEqual([expect.stringMatching(/^red-replayed: RED could not fail: __tests__\/add\.test\.js::add > adds two numbers passed at the rebuilt RED/)]);

    forge(repo, base, honest, 'red-missing', () => forgeRedSource(repo, record, 'src/add.js', '// STUB:TDD\nmodule.exports = { sum: () => 0 };\n'));
    expect(failures(auditRun(repo, base).report)).toEqual([expect.stringMatching(/^red-replayed: RED failed for another reason, not on an assertion: __tests__\/add\.test\.js::add > adds two numbers \(it fails on a missing name/)]);

    // the installed dependencies (node_modules) are not what the committed lockfile names
    const installed = JSON.parse(readFileSync(path.join(NODE_MODULES, '.package-lock.json'), 'utf8')) as { packages: Record<string, { version: string; integrity?: string }> };
    const lock = { ...installed, packages: { '': { name: 'demo' }, ...installed.packages, 'node_modules/jest': { ...installed.packages['node_modules/jest']!, version: '29.0.0', integrity: 'sha512-other' } } };
    tamper(repo, honest, 'lockfile', () => repo.write('package-lock.json', JSON.stringify(lock, null, 2) + '\n'));
    const deps = auditRun(repo, base);
    expect(deps.status).toBe(1);
    expect(failures(deps.report)).toEqual([expect.stringMatching(/^dependencies-match-lockfile: dependencies differ from the lockfile: jest \(\d+\.\d+\.\d+ installed, 29\.0\.0 locked\)/)]);

    tamper(repo, honest, 'jest-config', () => repo.write('package.json', JEST_PKG({ jest: { testEnvironment: 'node', watchman: false, transform: {}, maxWorkers: 1, testPathIgnorePatterns: ['add'] } })));
    expect(failures(auditRun(repo, base).report)).toContainEqual(expect.stringMatching(/^runner-config-unchanged: the runner's configuration changed after the freeze: package\.json#runner/));
  });
});
