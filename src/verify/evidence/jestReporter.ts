import { jsSealSource } from './seal.js';

/**
 * jest through a reporter of tdd-gate's own. The plain call (or `npm test` / `npm run x` / `yarn x`
 * / `pnpm x` whose script is one) gets `--reporters=default --reporters=<file>`: the file is written
 * for the run into a fresh read-only folder outside the project. jest's `--reporters` on the command
 * line replace the ones its configuration names, so the project's own cannot stand in for it, and
 * `default` keeps what a person reads.
 *
 * jest requires the reporter in its main process as it schedules the tests, before any test file
 * runs (jest's workers never load it; with one test file jest runs it in band, in that same process,
 * after the reporter is made). The module calls the seal's `begin` as it loads (evidence/seal.ts),
 * which reads the run's key and deletes its file; `onRunComplete` records one body, the JSON
 * `jest --json` writes, made by `formatTestResults` of the `@jest/test-result` that jest itself
 * loads (so `parseJestJson` reads it as before, `--testLocationInResults` locations and all), and
 * then `end`. jest's own `--json` file is never read: a source that writes a passing report where
 * one would go, exits as it loads, kills its process or prints a passing summary leaves no sealed
 * `end` or a run jest itself reports as failed.
 *
 * What it uses it takes as it loads: the writer, JSON, the formatter. Only the first reporter made
 * from the module is the run's (one made later, by code that found the module, does nothing), and
 * its methods cannot be replaced.
 */

/** The reporter module's file name in its folder (CommonJS whatever the project's `type`). */
export const JEST_REPORTER_NAME = 'tdd-gate-jest-reporter.cjs';

/** The reporter as CommonJS source; `keyPath` is the run's key file, `out` the report it seals. */
export function jestReporterSource(keyPath: string, out: string): string {
  return `'use strict';
const fs = require('fs');
const crypto = require('crypto');
const createRequire = require('module').createRequire;
${jsSealSource(keyPath, out)}
const env = process.env;
const stringify = JSON.stringify;
const StringOf = String;
const freeze = Object.freeze;
const seal = tddGateSeal(fs, crypto);
// Only jest's main process reports; a worker that loads this module reads no key.
if (!env.JEST_WORKER_ID) seal.begin(stringify({ runner: 'jest', pid: process.pid }));
const str = (v) => { try { return v === undefined || v === null ? '' : StringOf(v); } catch (e) { return '?'; } };
/** jest's own formatter of its --json report, from the installation that runs: jest's program, then the packages it loads. */
function jestFormatter() {
  const main = require.main && typeof require.main.filename === 'string' ? require.main.filename : null;
  if (main === null) return { problem: 'jest was not started as a program (no main module)' };
  const chains = [[], ['jest-cli'], ['jest', 'jest-cli'], ['@jest/core'], ['jest-cli', '@jest/core'], ['jest', 'jest-cli', '@jest/core']];
  let last = '';
  for (let c = 0; c < chains.length; c++) {
    try {
      let req = createRequire(main);
      for (let i = 0; i < chains[c].length; i++) req = createRequire(req.resolve(chains[c][i] + '/package.json'));
      const format = req('@jest/test-result').formatTestResults;
      if (typeof format === 'function') return { format };
    } catch (e) {
      last = str(e && e.message).split('\\n')[0];
    }
  }
  return { problem: 'jest’s own @jest/test-result could not be found from ' + main + (last ? ' (' + last + ')' : '') };
}
const formatter = jestFormatter();
let claimed = false;
let finished = false;
function finish(results) {
  if (finished) return;
  finished = true;
  let body;
  if (formatter.format) {
    try { body = stringify(formatter.format(results)); } catch (e) { body = stringify({ tddGateError: 'jest’s results could not be formatted: ' + str(e && e.message) }); }
  } else body = stringify({ tddGateError: formatter.problem });
  seal.record(body);
  seal.end(stringify({ success: !!(results && results.success), interrupted: !!(results && results.wasInterrupted) }));
}
const INERT = freeze({ onRunComplete() {}, getLastError() { return undefined; } });
/** jest makes it with \`new\`: the first one made is the run's; any later one does nothing. */
function TddGateJestReporter() {
  if (claimed) return INERT;
  claimed = true;
  return freeze({
    onRunComplete(contexts, results) { finish(results); },
    getLastError() { return undefined; },
  });
}
module.exports = freeze(TddGateJestReporter);
`;
}
