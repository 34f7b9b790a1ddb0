import { reachedCommands } from './nodeTest.js';
import { jsSealSource } from './seal.js';
import type { Counts, RunFacts, TestCase, TestStatus } from './report.js';

/**
 * mocha by identity. A plain mocha call (or `npm test` / `npm run x` / `yarn x` / `pnpm x` whose
 * script is one) gets `--reporter <file>`: a reporter of tdd-gate's own, written for the run into a
 * fresh read-only folder outside the project, so no project file can stand in for it. mocha takes
 * one reporter and the last `--reporter` wins over the project's (on the command line, in
 * `.mocharc.*` or package.json), so the gate's reporter also prints what a person reads: each test
 * as spec does, the counts, and every failure with its message.
 *
 * The report is sealed (seal.ts): as mocha loads the reporter, before any test file (only the
 * frozen `--require` files load earlier), it reads the run's key and deletes its file. It listens
 * to mocha's own runner events (`start`, `pass`, `fail`, `pending`, `end`) and writes one record
 * per event as it happens: the run began, each test with its file, its title path, its status, its
 * error and the line of the test file where it failed, the run ended with mocha's own counts. The
 * seal ends when the process exits after mocha's run ended. A process that ends before the run
 * begins (a source that prints "64 passing" and exits 0 as it loads) or before it ends (one that
 * exits inside a test) leaves no end; a line written by anything else breaks the chain; the run is
 * refused either way.
 *
 * What the reporter uses it takes when mocha loads it: the seal's writer, JSON, the event
 * emitter's `on`, `process.on`.
 */
export const MOCHA_SOURCE = 'mocha-report';

/** The reporter module's file name in its folder (CommonJS whatever the project's `type`). */
export const MOCHA_REPORTER_NAME = 'tdd-gate-mocha-reporter.cjs';

/** The reporter as CommonJS source; `out` is the report file it appends to. */
export function mochaReporterSource(out: string): string {
  return `'use strict';
const fs = require('fs');
const crypto = require('crypto');
const { EventEmitter } = require('events');
${jsSealSource(`${out}.key`, out)}
const seal = tddGateSeal(fs, crypto);
const writeSync = fs.writeSync;
const stringify = JSON.stringify;
const on = EventEmitter.prototype.on;
const onProcess = process.on.bind(process);
// The run's sealed report begins as mocha loads this reporter, before any test file.
seal.begin(stringify({ tddGateMocha: 1, pid: process.pid }));
let ended = false;
// It ends when the process exits after mocha's run ended: a run that never ends (a process that
// exits inside a test) leaves no end, and a second run in the process is still seen.
onProcess('exit', () => { if (ended) seal.end(stringify({ ended })); });
const str = (v) => { try { return v === undefined || v === null ? '' : String(v); } catch (e) { return '?'; } };
const put = (o) => { try { seal.record(stringify(o)); } catch (e) { /* the report shows what is missing */ } };
const print = (s) => { try { writeSync(1, s); } catch (e) { /* output is for people only */ } };
function titles(r) {
  try { if (r && typeof r.titlePath === 'function') return r.titlePath().map(str); } catch (e) { /* below */ }
  const p = [];
  for (let s = r; s; s = s.parent) if (!s.root) p.unshift(str(s.title));
  return p;
}
function errorOf(err) {
  if (err === undefined || err === null) return '';
  if (typeof err !== 'object') return str(err).slice(0, 4000);
  const message = str(err.message);
  // In parallel mode the error crosses from a worker without its name; its stack still starts with it.
  let name = str(err.name);
  if (name === '') name = (/^([A-Z][\\w$]*(?:Error|Exception))\\b/.exec(str(err.stack)) || [])[1] || '';
  let text = name !== '' && !message.startsWith(name) ? name + ': ' + message : message;
  if (err.code !== undefined) text += '\\ncode: ' + str(err.code);
  return text.slice(0, 4000);
}
const CWD = process.cwd();
// The line of the test file where the error was raised (mocha shortens stack paths to the folder it runs in).
function where(err, file) {
  if (!err || typeof err !== 'object' || typeof file !== 'string' || file === '') return null;
  const names = [file];
  if (file.startsWith(CWD + '/')) names.push(file.slice(CWD.length + 1));
  for (const line of str(err.stack).split('\\n')) {
    for (const name of names) {
      const at = line.indexOf(name);
      if (at === -1 || (at > 0 && !/[\\s(/]/.test(line[at - 1]))) continue;
      const m = /^:(\\d+):(\\d+)/.exec(line.slice(at + name.length));
      if (m) return { line: Number(m[1]), column: Number(m[2]) };
    }
  }
  return null;
}
function TddGateMochaReporter(runner, options) {
  const serial = new WeakMap();
  let next = 0;
  const idOf = (t) => { let n = serial.get(t); if (n === undefined) { n = ++next; serial.set(t, n); } return n; };
  let only = false;
  try { only = !!(runner.suite && typeof runner.suite.hasOnly === 'function' && runner.suite.hasOnly()); } catch (e) { only = false; }
  const dryRun = !!(options && options.dryRun);
  const failures = [];
  let depth = 0;
  let passes = 0;
  let pending = 0;
  let t0 = Date.now();
  const pad = () => '  '.repeat(depth + 1);
  const test = (t, status, err) => {
    const file = t && typeof t.file === 'string' ? t.file : null;
    const kind = t && t.type === 'test' ? 'test' : t && t.type === 'hook' ? 'hook' : 'other';
    const o = { k: kind, n: idOf(t), file, path: titles(t), status };
    if (status === 'failed') {
      o.message = errorOf(err);
      const w = where(err, file);
      if (w) { o.line = w.line; o.column = w.column; }
      if (err && typeof err === 'object') o.stack = str(err.stack).split('\\n').filter((l) => /^\\s+at /.test(l)).slice(0, 12).join('\\n');
    }
    put(o);
  };
  on.call(runner, 'start', () => {
    t0 = Date.now();
    put({ tddGateMocha: 1, k: 'begin', only, dryRun, node: process.version });
  });
  on.call(runner, 'suite', (s) => {
    if (s && s.root) return;
    depth++;
    print((depth === 1 ? '\\n' : '') + '  '.repeat(depth) + str(s && s.title) + '\\n');
  });
  on.call(runner, 'suite end', (s) => { if (!(s && s.root)) depth = Math.max(0, depth - 1); });
  on.call(runner, 'pass', (t) => { passes++; test(t, 'passed'); print(pad() + '\\u2714 ' + str(t && t.title) + '\\n'); });
  on.call(runner, 'pending', (t) => { pending++; test(t, 'skipped'); print(pad() + '- ' + str(t && t.title) + '\\n'); });
  on.call(runner, 'fail', (t, err) => {
    failures.push({ title: titles(t).join(' > '), err });
    test(t, 'failed', err);
    print(pad() + failures.length + ') ' + str(t && t.title) + '\\n');
  });
  on.call(runner, 'end', () => {
    const s = runner.stats || {};
    put({ k: 'end', stats: { passes: s.passes, failures: s.failures, pending: s.pending, tests: s.tests } });
    ended = true;
    let text = '\\n  ' + passes + ' passing (' + (Date.now() - t0) + 'ms)\\n';
    if (failures.length > 0) text += '  ' + failures.length + ' failing\\n';
    if (pending > 0) text += '  ' + pending + ' pending\\n';
    failures.forEach((f, k) => {
      const stack = str(f.err && f.err.stack).split('\\n').filter((l) => /^\\s+at /.test(l)).slice(0, 6).join('\\n');
      text += '\\n  ' + (k + 1) + ') ' + f.title + ':\\n     ' + errorOf(f.err).split('\\n').join('\\n     ') + (stack ? '\\n' + stack : '') + '\\n';
    });
    print(text + '\\n  (tdd-gate\\u2019s mocha reporter)\\n');
  });
}
module.exports = TddGateMochaReporter;
`;
}

/** mocha's program, by its file name: `mocha`, `_mocha`, `node_modules/.bin/mocha`, `…/mocha/bin/mocha.js`. */
const MOCHA_PROGRAM = /^(?:_?mocha|(?:.*\/)?(?:node_modules\/\.bin\/_?mocha|mocha\/bin\/_?mocha(?:\.[cm]?js)?))$/;
/** What may come before it in a plain call: assignments, `env`, `npx`, `node`, a coverage wrapper, their flags. */
const BEFORE_MOCHA = /^(?:[A-Za-z_]\w*=\S*|env|cross-env|npx|node|nodejs|c8|nyc|-[\w-]+(?:=\S*)?)$/;

/** Is this command a call of mocha's program (not a call of something else that names a folder `mocha`)? */
function isMochaCall(command: string): boolean {
  const words = command.trim().split(/\s+/);
  const at = words.findIndex((w) => MOCHA_PROGRAM.test(w));
  return at !== -1 && words.slice(0, at).every((w) => w !== '--' && BEFORE_MOCHA.test(w));
}

/**
 * A plain mocha call with the gate's reporter added: after everything the command says (the last
 * `--reporter` wins), before a `--` that ends mocha's options. `modulePath` stands for the
 * reporter's file (the runner puts the real path there). null when the command is not a mocha call.
 */
export function mochaCommand(command: string, modulePath: string): string | null {
  if (!isMochaCall(command)) return null;
  const flag = `--reporter ${modulePath}`;
  const dashes = /\s--(?=\s|$)/.exec(command);
  if (dashes) return `${command.slice(0, dashes.index)} ${flag}${command.slice(dashes.index)}`;
  return `${command} ${flag}`;
}

/** mocha named as a program anywhere in a command (looser than a plain call: `… && mocha`, `nyc --all mocha`). */
const MOCHA_NAMED = /(?:^|[\s/])_?mocha(?:\.[cm]?js)?(?=\s|$)/;

/**
 * Does the command run mocha where the gate cannot add its reporter (inside `&&`, a pipe, a
 * script that calls another script)? Such a run is not read from its text: it is refused with
 * what to change (`unreachedMocha`).
 */
export function reachesMocha(command: string, script?: (name: string) => string | null): boolean {
  return reachedCommands(command, script).some((seg) => MOCHA_NAMED.test(seg) && !/(?:^|\s)--test(?=\s|$)/.test(seg));
}

/** The refusal for a mocha run the gate's reporter could not reach. */
export function unreachedMocha(): RunFacts {
  return {
    counts: null,
    failingFiles: [],
    loadErrorFiles: [],
    messages: [],
    source: MOCHA_SOURCE,
    tests: [],
    unfinished:
      'test_command runs mocha in a way tdd-gate cannot add its own reporter to (mocha behind `&&`, a pipe, or a script that calls another script), and mocha’s printed summary is no evidence; make test_command a plain mocha call (`npx mocha …`) or `npm test` whose script is one (other steps belong in lint_command) in .tdd/stack.json',
  };
}

interface MochaLine {
  tddGateMocha?: unknown;
  k?: unknown;
  n?: unknown;
  file?: unknown;
  path?: unknown;
  status?: unknown;
  message?: unknown;
  stack?: unknown;
  line?: unknown;
  column?: unknown;
  only?: unknown;
  dryRun?: unknown;
  stats?: { passes?: unknown; failures?: unknown; pending?: unknown; tests?: unknown };
}

const ENDED_EARLY = 'the process ended before mocha ran any test (something it loads exited, or a test file failed to load), so nothing shows the tests ran';

/**
 * The report as RunFacts. Never the printed text: a run without the reporter's `begin` and `end`
 * lines is `unfinished`, and its counts are null, whatever the output says.
 */
export function parseMochaReport(text: string | null): RunFacts {
  const facts: RunFacts = { counts: null, failingFiles: [], loadErrorFiles: [], messages: [], source: MOCHA_SOURCE, tests: [] };
  const lines: MochaLine[] = [];
  for (const raw of (text ?? '').split('\n')) {
    if (raw.trim() === '') continue;
    try {
      const json = JSON.parse(raw) as MochaLine;
      if (typeof json === 'object' && json !== null) lines.push(json);
    } catch {
      // a torn last line: the process died as it wrote
    }
  }
  const begin = lines.findIndex((l) => l.tddGateMocha === 1 && l.k === 'begin');
  if (begin === -1) {
    facts.unfinished = `mocha never began its run: ${ENDED_EARLY}`;
    return facts;
  }
  if (lines.slice(begin + 1).some((l) => l.k === 'begin')) {
    facts.unfinished = 'mocha began more than one run in one process; run the tests with one mocha call';
    return facts;
  }
  const head = lines[begin]!;
  const endAt = lines.findIndex((l, k) => k > begin && l.k === 'end');
  const body = lines.slice(begin + 1, endAt === -1 ? undefined : endAt);
  // Each test once, by the reporter's serial: a later failure of a test that passed (an error
  // after its end, `done()` called twice) makes it fail.
  const byId = new Map<number, TestCase>();
  const raw = { passed: 0, failed: 0, skipped: 0 };
  let otherFailures = 0;
  for (const l of body) {
    const status: TestStatus | null = l.status === 'passed' || l.status === 'failed' || l.status === 'skipped' ? l.status : null;
    if (status === null) continue;
    raw[status]++;
    const message = typeof l.message === 'string' ? l.message : '';
    if (l.k !== 'test') {
      // A hook (`before each` …) or an error outside any test: a failure, not a test.
      if (status === 'failed') {
        otherFailures++;
        if (typeof l.file === 'string') facts.failingFiles.push(l.file);
        const what = Array.isArray(l.path) ? l.path.map(String).join(' > ') : 'outside any test';
        facts.messages.push(`${what}: ${message}`);
      }
      continue;
    }
    const parts = Array.isArray(l.path) ? l.path.map(String) : [];
    const n = typeof l.n === 'number' ? l.n : -1 - byId.size;
    const prev = byId.get(n);
    if (prev) {
      if (status === 'failed' && prev.status !== 'failed') {
        prev.status = 'failed';
        prev.message = message;
        if (typeof l.stack === 'string' && l.stack !== '') prev.trace = `${message}\n${l.stack}`;
      }
      continue;
    }
    const file = typeof l.file === 'string' && l.file !== '' ? l.file : null;
    const tc: TestCase = file === null ? { file: null, name: parts.join(' > '), status, message: status === 'failed' ? message : '', idByName: true } : { file, name: parts.join(' > '), path: parts, status, message: status === 'failed' ? message : '' };
    if (status === 'failed' && typeof l.stack === 'string' && l.stack !== '') tc.trace = `${message}\n${l.stack}`;
    byId.set(n, tc);
  }
  const tests = [...byId.values()];
  facts.tests = tests;
  for (const t of tests) {
    if (t.status !== 'failed') continue;
    if (t.file !== null) facts.failingFiles.push(t.file);
    if (t.message) facts.messages.push(t.message);
  }
  facts.failingFiles = [...new Set(facts.failingFiles)];
  const count = (s: TestStatus) => tests.filter((t) => t.status === s).length;
  const counts: Counts = { total: tests.length, passed: count('passed'), failed: count('failed') + otherFailures, skipped: count('skipped') };
  if (head.only === true) facts.narrowed = 'the run was narrowed to tests marked `.only`';
  if (head.dryRun === true) {
    facts.unfinished = 'mocha ran with --dry-run: it reports every test passed without running one; remove --dry-run from the test command';
    return facts;
  }
  if (endAt === -1) {
    facts.unfinished = `mocha's run began but never ended: the process exited while the tests ran (after ${tests.length} tests reported), so the tests after that point never ran; remove what ends the process from the source`;
    return facts;
  }
  const stats = lines[endAt]?.stats ?? {};
  const mine = { passes: raw.passed, failures: raw.failed, pending: raw.skipped };
  const theirs = { passes: Number(stats.passes), failures: Number(stats.failures), pending: Number(stats.pending) };
  if (mine.passes !== theirs.passes || mine.failures !== theirs.failures || mine.pending !== theirs.pending) {
    facts.unfinished = `mocha's own count (${String(stats.passes)} passing, ${String(stats.failures)} failing, ${String(stats.pending)} pending) and the tests tdd-gate's reporter saw (${mine.passes} passing, ${mine.failures} failing, ${mine.pending} pending) disagree; something in the run reports tests behind the runner's back: remove it from the source`;
    return facts;
  }
  facts.counts = counts;
  return facts;
}
