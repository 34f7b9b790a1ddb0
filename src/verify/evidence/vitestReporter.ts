import { jsSealSource } from './seal.js';

/**
 * vitest through a reporter of tdd-gate's own. The plain call (or `npm test` / `npm run x` / `yarn
 * x` / `pnpm x` whose script is one) gets `--reporter=default --reporter=<file>`: the file is written
 * for the run into a fresh read-only folder outside the project. vitest's reporters on the command
 * line replace the ones its configuration names, so the project's own cannot stand in for it, and
 * `default` keeps what a person reads.
 *
 * vitest loads the reporter in its main process as it sets up the run, before any test file, setup
 * file or global setup runs (test files run in its workers, which never load it): the module calls
 * the seal's `begin` as it loads (evidence/seal.ts), which reads the run's key and deletes its file.
 * When the run ends it records one body, the JSON vitest's own JSON reporter writes (jest's shape,
 * read by `parseJestJson`), and then `end`. Its own JSON file is never read: a source that writes a
 * passing report where one would go, exits as it loads, kills its worker or prints a passing summary
 * leaves no sealed `end` or a run vitest itself reports as failed.
 *
 * vitest 1 and 2 end a run with `onFinished(files, errors)`, vitest 4 with `onTestRunEnd(modules,
 * errors, reason)`, vitest 3 with both: the first to come records the run, the other is ignored.
 * What it uses it takes as it loads.
 */

/** The reporter module's file name in its folder (an ES module whatever the project's `type`). */
export const VITEST_REPORTER_NAME = 'tdd-gate-vitest-reporter.mjs';

/** The reporter as an ES module; `keyPath` is the run's key file, `out` the report it seals. */
export function vitestReporterSource(keyPath: string, out: string): string {
  return `import fs from 'node:fs';
import crypto from 'node:crypto';
${jsSealSource(keyPath, out)}
const env = process.env;
const stringify = JSON.stringify;
const isArray = Array.isArray;
const StringOf = String;
const freeze = Object.freeze;
const pid = process.pid;
const seal = tddGateSeal(fs, crypto);
// Only vitest's main process reports; a worker that loads this module reads no key.
if (!(env.VITEST_WORKER_ID || env.VITEST_POOL_ID)) seal.begin(stringify({ runner: 'vitest', pid }));
const STATUS = { fail: 'failed', only: 'pending', pass: 'passed', run: 'pending', skip: 'skipped', todo: 'todo', queued: 'pending' };
const str = (v) => { try { return v === undefined || v === null ? '' : StringOf(v); } catch (e) { return '?'; } };
// Each test with the titles of the suites it sits in, walking the tree down from its file (vitest 1
// also links a file's tests to an unnamed suite of its own that is not in the tree).
function testsOf(task, titles, out) {
  const tasks = task && isArray(task.tasks) ? task.tasks : [];
  for (let i = 0; i < tasks.length; i++) {
    const t = tasks[i];
    if (!t) continue;
    if (t.type === 'test' || t.type === 'custom') out[out.length] = { t, titles };
    else if (t.type === 'suite') {
      const inner = [];
      for (let k = 0; k < titles.length; k++) inner[k] = titles[k];
      inner[inner.length] = str(t.name);
      testsOf(t, inner, out);
    }
  }
  return out;
}
function suitesOf(task, out) {
  const tasks = task && isArray(task.tasks) ? task.tasks : [];
  for (let i = 0; i < tasks.length; i++) {
    const t = tasks[i];
    if (t && t.type === 'suite') { out[out.length] = t; suitesOf(t, out); }
  }
  return out;
}
function stateOf(t) { return t && t.result ? t.result.state : undefined; }
function errorsOf(t) {
  const errors = t && t.result && isArray(t.result.errors) ? t.result.errors : [];
  const out = [];
  for (let i = 0; i < errors.length; i++) {
    const e = errors[i];
    out[out.length] = e && typeof e === 'object' ? str(e.stack || e.message) : str(e);
  }
  return out;
}
/** The run as vitest's JSON reporter writes it (jest's shape). */
function reportOf(files) {
  const r = { numTotalTestSuites: 0, numPassedTestSuites: 0, numFailedTestSuites: 0, numPendingTestSuites: 0, numTotalTests: 0, numPassedTests: 0, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, success: false, testResults: [] };
  for (let f = 0; f < files.length; f++) {
    const file = files[f];
    if (!file) continue;
    const suites = suitesOf(file, [file]);
    for (let i = 0; i < suites.length; i++) {
      const s = suites[i];
      r.numTotalTestSuites++;
      if (stateOf(s) === 'fail') r.numFailedTestSuites++;
      else if (stateOf(s) === 'run' || stateOf(s) === 'queued' || s.mode === 'todo') r.numPendingTestSuites++;
      else r.numPassedTestSuites++;
    }
    const tests = testsOf(file, [], []);
    const assertionResults = [];
    let failed = false;
    for (let i = 0; i < tests.length; i++) {
      const t = tests[i].t;
      const ancestorTitles = tests[i].titles;
      const state = stateOf(t);
      r.numTotalTests++;
      if (state === 'fail') { r.numFailedTests++; failed = true; }
      else if (state === 'pass') r.numPassedTests++;
      else if (state === 'run' || state === 'queued' || t.mode === 'skip' || state === 'skip') r.numPendingTests++;
      if (t.mode === 'todo') r.numTodoTests++;
      let fullName = '';
      for (let k = 0; k < ancestorTitles.length; k++) fullName += ancestorTitles[k] + ' ';
      fullName += str(t.name);
      const a = { ancestorTitles, fullName, status: STATUS[state || t.mode] || 'skipped', title: str(t.name), failureMessages: errorsOf(t) };
      if (t.result && typeof t.result.duration === 'number') a.duration = t.result.duration;
      if (t.location && typeof t.location.line === 'number' && typeof t.location.column === 'number') a.location = { line: t.location.line, column: t.location.column };
      assertionResults[assertionResults.length] = a;
    }
    const fileErrors = errorsOf(file);
    const first = file.result && isArray(file.result.errors) && file.result.errors[0];
    r.testResults[r.testResults.length] = {
      assertionResults,
      status: stateOf(file) === 'fail' || failed ? 'failed' : 'passed',
      message: first && typeof first === 'object' ? str(first.message) : fileErrors.length > 0 ? fileErrors[0] : '',
      name: str(file.filepath),
    };
  }
  r.success = files.length > 0 && r.numFailedTestSuites === 0 && r.numFailedTests === 0;
  return r;
}
let claimed = false;
let finished = false;
function finish(files, errors, reason) {
  if (finished) return;
  finished = true;
  let body;
  try { body = stringify(reportOf(isArray(files) ? files : [])); } catch (e) { body = stringify({ tddGateError: 'the report could not be built: ' + str(e && e.message) }); }
  seal.record(body);
  seal.end(stringify({ unhandledErrors: isArray(errors) ? errors.length : 0, reason: reason === undefined ? null : str(reason) }));
}
const INERT = freeze({ onFinished() {}, onTestRunEnd() {} });
/** vitest makes it with \`new\`: the first one made is the run's; any later one does nothing. */
export default function TddGateVitestReporter() {
  if (claimed) return INERT;
  claimed = true;
  return freeze({
    onFinished(files, errors) { finish(files, errors); },
    onTestRunEnd(modules, errors, reason) {
      const files = [];
      const list = isArray(modules) ? modules : [];
      for (let i = 0; i < list.length; i++) if (list[i] && list[i].task) files[files.length] = list[i].task;
      finish(files, errors, reason);
    },
  });
}
`;
}
