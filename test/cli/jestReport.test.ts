import { describe, expect, it } from 'vitest';
import { identify } from '../../src/verify/evidence/identity.js';
import { judgeGreen, judgeRed, type RunOutcome } from '../../src/verify/rules/judge.js';
import { parseJestJson } from '../../src/verify/evidence/report.js';
import { textCounts } from '../../src/verify/evidence/textReport.js';

/**
 * What jest 30 wrote with `--json --outputFile` for a project with a failing assertion, a missing
 * function, a skipped and a todo test, and a suite that cannot load (stack frames trimmed).
 */
const REPORT = {
  "numFailedTestSuites": 3,
  "numFailedTests": 2,
  "numPassedTests": 1,
  "numPendingTests": 1,
  "numRuntimeErrorTestSuites": 1,
  "numTodoTests": 1,
  "numTotalTestSuites": 3,
  "numTotalTests": 5,
  "success": false,
  "testResults": [
    {
      "name": "/p/__tests__/add.test.js",
      "status": "failed",
      "message": "  ● add › adds\n\n    expect(received).toBe(expected) // Object.is equality\n\n    Expected: 3\n    Received: 0\n\n      1 | const { add } = require('../src/add');\n    > 2 | describe('add', () => { test('adds', () => { expect(add(1, 2)).toBe(3); }); });\n        |                                            ",
      "assertionResults": [
        {
          "ancestorTitles": [
            "add"
          ],
          "title": "adds",
          "fullName": "add adds",
          "status": "failed",
          "failureMessages": [
            "Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 3\nReceived: 0\n    at Object.<anonymous> (/p/x.js:1:1)"
          ]
        },
        {
          "ancestorTitles": [],
          "title": "old",
          "fullName": "old",
          "status": "passed",
          "failureMessages": []
        },
        {
          "ancestorTitles": [],
          "title": "sk",
          "fullName": "sk",
          "status": "pending",
          "failureMessages": []
        },
        {
          "ancestorTitles": [],
          "title": "td",
          "fullName": "td",
          "status": "todo",
          "failureMessages": []
        }
      ]
    },
    {
      "name": "/p/src/bad.test.js",
      "status": "failed",
      "message": "  ● sums\n\n    TypeError: sum is not a function\n\n      1 | const { sum } = require('./add');\n    > 2 | test('sums', () => { expect(sum(1,2)).toBe(3); });\n        |                             ^\n      3 |\n",
      "assertionResults": [
        {
          "ancestorTitles": [],
          "title": "sums",
          "fullName": "sums",
          "status": "failed",
          "failureMessages": [
            "TypeError: sum is not a function\n    at Object.<anonymous> (/p/x.js:1:1)"
          ]
        }
      ]
    },
    {
      "name": "/p/src/load.test.js",
      "status": "failed",
      "message": "  ● Test suite failed to run\n\n    Cannot find module './nope' from 'src/load.test.js'\n\n    > 1 | require('./nope');\n        | ^\n      2 | test('x', () => {});\n      3 |\n",
      "assertionResults": []
    }
  ]
};
const SUMMARY = 'Test Suites: 3 failed, 3 total\nTests:       2 failed, 1 skipped, 1 todo, 1 passed, 5 total\nSnapshots:   0 total\nTime:        0.678 s\nRan all test suites.\n';
const RULES = { command: 'npx jest', redConfirm: /expect\(.*\)\.|Expected|Received|AssertionError/, buildError: /SyntaxError|Cannot find module|Test suite failed to run/, root: '/p' };

function outcome(report: unknown, output = SUMMARY, exitCode = 1): RunOutcome {
  const facts = parseJestJson(JSON.stringify(report), 'jest-json')!;
  const files = ['__tests__/add.test.js', 'src/bad.test.js', 'src/load.test.js'];
  const tests = identify(facts.tests!, { root: '/p', files, read: () => null });
  return { exitCode, timedOut: false, timeoutSeconds: 600, output, facts, tests, summary: textCounts(output) };
}

describe("jest 30's JSON report", () => {
  it('gives counts, each test by id and status, and the suites that did not load', () => {
    const o = outcome(REPORT);
    expect(o.facts.counts).toEqual({ total: 5, failed: 2, passed: 1, skipped: 2 });
    expect(o.tests!.map((t) => [t.id, t.status])).toEqual([
      ['__tests__/add.test.js::add > adds', 'failed'],
      ['__tests__/add.test.js::old', 'passed'],
      ['__tests__/add.test.js::sk', 'skipped'],
      ['__tests__/add.test.js::td', 'skipped'],
      ['src/bad.test.js::sums', 'failed'],
    ]);
    expect(o.facts.loadErrorFiles).toEqual(['/p/src/load.test.js']);
    // the message is the failure itself: no stack, no code frame quoting the test
    expect(o.tests![0]!.message).toBe('Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 3\nReceived: 0');
  });

  it('its text summary reads the same counts (skipped and todo apart), not the suites line', () => {
    expect(textCounts(SUMMARY)).toEqual({ total: 5, failed: 2, passed: 1 });
  });

  it('judges RED per test: the assertion counts, `sum is not a function` asks for a stub, the suite that did not load is a build error', () => {
    const all = outcome(REPORT);
    const isNew = (files: string[]) => (t: { file: string | null }) => t.file !== null && files.includes(t.file);
    // the suite that does not load, among the new files: a build error whatever else fails
    expect(judgeRed(all, { ...RULES, changedTests: ['src/load.test.js', '__tests__/add.test.js'], isNew: isNew(['src/load.test.js', '__tests__/add.test.js']) }).reason).toMatch(/src\/load\.test\.js failed to load \(compile or import error\)/);
    expect(judgeRed(all, { ...RULES, changedTests: ['src/bad.test.js'], isNew: isNew(['src/bad.test.js']) }).reason).toMatch(/src\/bad\.test\.js::sums: it fails on a missing name \(TypeError: sum is not a function\).*add a STUB:TDD stub first/);
    expect(judgeRed(all, { ...RULES, changedTests: ['__tests__/add.test.js'], isNew: isNew(['__tests__/add.test.js']) })).toMatchObject({ valid: true, redTests: ['__tests__/add.test.js::add > adds'] });
  });

  it('a report rewritten to all-passed while the summary still says failed is refused', () => {
    const lie = JSON.parse(JSON.stringify(REPORT)) as typeof REPORT;
    lie.numFailedTests = 0;
    lie.numPassedTests = 3;
    lie.testResults = lie.testResults.slice(0, 1);
    for (const a of lie.testResults[0]!.assertionResults) if (a.status === 'failed') a.status = 'passed';
    const v = judgeGreen(outcome(lie, SUMMARY, 0), 'npx jest', null);
    expect(v).toMatchObject({ valid: false, reason: expect.stringMatching(/report \(3 passed, 0 failed\) and its printed summary \(1 passed, 2 failed\) disagree/) as unknown });
  });

  it('a snapshot assertion with no stored snapshot is no RED: it fails whatever the code returns', () => {
    const snap = {
      ...REPORT,
      testResults: [
        {
          name: '/p/__tests__/add.test.js',
          status: 'failed',
          message: '',
          assertionResults: [
            {
              ancestorTitles: [],
              title: 'snap',
              fullName: 'snap',
              status: 'failed',
              failureMessages: ['Error: expect(received).toMatchSnapshot()\n\nSnapshot name: `snap 1`\n\nNew snapshot was not written. The update flag must be explicitly passed to write a new snapshot.\n\nThis is likely because this test is run in a continuous integration (CI) environment in which snapshots are not written by default.\n\nReceived: 0\n    at Object.toMatchSnapshot (/p/__tests__/add.test.js:2:40)'],
            },
          ],
        },
      ],
    };
    const v = judgeRed(outcome(snap), { ...RULES, changedTests: ['__tests__/add.test.js'], isNew: () => true });
    expect(v.reason).toMatch(/__tests__\/add\.test\.js::snap: it fails because its snapshot does not exist yet/);
  });

  it('reads how many expect() calls passed in each test', () => {
    const facts = parseJestJson(JSON.stringify({ ...REPORT, testResults: [{ ...REPORT.testResults[0], assertionResults: [{ ...REPORT.testResults[0]!.assertionResults[1], numPassingAsserts: 0 }] }] }), 'jest-json')!;
    expect(facts.tests).toEqual([{ file: '/p/__tests__/add.test.js', name: 'old', path: ['old'], status: 'passed', message: '', passingAsserts: 0 }]);
  });

  it('GREEN holds the tests that made RED valid to run their expect() calls; older tests may pass vacuously', () => {
    const adds = { id: '__tests__/add.test.js::add > adds', file: '__tests__/add.test.js', leaf: 'adds', status: 'passed' as const, message: '' };
    const old = { ...adds, id: '__tests__/add.test.js::old', leaf: 'old' };
    const green = (unasserted: string[]): RunOutcome => ({
      exitCode: 0,
      timedOut: false,
      timeoutSeconds: 600,
      output: '',
      facts: { counts: { total: 2, failed: 0, passed: 2 }, failingFiles: [], loadErrorFiles: [], messages: [], source: 'jest-json', tests: [] },
      tests: [adds, old],
      summary: null,
      unasserted,
    });
    const frozen = { tests: { [adds.id]: 'failed' as const, [old.id]: 'passed' as const }, redTests: [adds.id], counts: null };
    expect(judgeGreen(green([old.id]), 'npx jest', frozen)).toMatchObject({ valid: true });
    expect(judgeGreen(green([adds.id, old.id]), 'npx jest', frozen).reason).toMatch(/^1 tests that made RED valid passed without running the expect\(\) assertions they are written with: __tests__\/add\.test\.js::add > adds;/);
  });
});
