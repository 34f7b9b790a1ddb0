import { describe, expect, it } from 'vitest';
import { MOCHA_VERSION, mochaProject } from '../cli/mochaFixture.js';
import { auditRun, failures, forge, forgeRedSource, head, honestCycle, recordJson, tamper, type CycleFiles } from './fixtures.js';

const CYCLE: CycleFiles = {
  test: ['test/add.test.js', "const assert = require('node:assert/strict');\nconst { add } = require('../src/add');\n\ndescribe('add', () => {\n  it('adds two numbers', () => {\n    assert.equal(add(1, 2), 3);\n  });\n});\n"],
  stub: ['src/add.js', '// STUB:TDD\nexports.add = () => 0;\n'],
  impl: ['src/add.js', 'exports.add = (a, b) => a + b;\n'],
};
const ADDS = 'test/add.test.js::add > adds two numbers';

describe('tdd-gate audit on a mocha project', () => {
  it('an honest cycle passes; a forged RED, a missing name at RED, a head that prints "passing" and exits, and mocha settings changed fail', { timeout: 240_000 }, () => {
    const repo = mochaProject({ 'test/old.test.js': "const assert = require('node:assert/strict');\ndescribe('old', () => { it('holds', () => { assert.equal(1, 1); }); });\n" });
    const base = head(repo);
    const record = honestCycle(repo, CYCLE);
    const honest = head(repo);
    const rec = recordJson(repo, record) as { red: { counted: Record<string, string> }; runner?: unknown };
    expect(rec.red.counted[ADDS]).toMatch(/^AssertionError: Expected values to be strictly equal/);
    expect(JSON.stringify(rec)).toContain(`mocha ${MOCHA_VERSION}`);

    const good = auditRun(repo, base, '--require-cycles');
    expect(failures(good.report)).toEqual([]);
    expect(good.status).toBe(0);

    // a RED that could not fail: the recorded stub is the implementation
    forge(repo, base, honest, 'red-passes', () => forgeRedSource(repo, record, 'src/add.js', CYCLE.impl[1]));
    expect(failures(auditRun(repo, base).report)).toEqual([expect.stringMatching(/^red-replayed: RED could not fail: test\/add\.test\.js::add > adds two numbers passed at the rebuilt RED/)]);

    // a RED that failed for another reason: the stub exports no `add`
    forge(repo, base, honest, 'red-missing', () => forgeRedSource(repo, record, 'src/add.js', '// STUB:TDD\nexports.sum = () => 0;\n'));
    expect(failures(auditRun(repo, base).report)).toEqual([expect.stringMatching(/^red-replayed: RED failed for another reason, not on an assertion: test\/add\.test\.js::add > adds two numbers \(it fails on a missing name/)]);

    // the head's source prints mocha's summary and ends the process as it loads: the run never ended
    tamper(repo, honest, 'prints-passing', () => repo.write('src/add.js', "process.stdout.write('\\n  64 passing (3ms)\\n');\nprocess.exit(0);\n"));
    const printed = auditRun(repo, base);
    expect(printed.status).toBe(1);
    expect(failures(printed.report)).toEqual([expect.stringMatching(/^frozen-tests-pass: .*the gate’s reporter saw the run begin but not end/)]);

    // mocha's settings in package.json are the runner's configuration
    tamper(repo, honest, 'mocha-config', () => repo.write('package.json', JSON.stringify({ private: true, scripts: { test: 'mocha' }, mocha: { grep: 'old' } }, null, 2) + '\n'));
    expect(failures(auditRun(repo, base).report)).toContainEqual(expect.stringMatching(/^runner-config-unchanged: the runner's configuration changed after the freeze: package\.json#runner/));
  });
});
