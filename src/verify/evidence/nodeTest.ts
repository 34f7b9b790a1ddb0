import { jsSealSource } from './seal.js';
import type { Counts, RunFacts, TestCase, TestStatus } from './report.js';

/**
 * node:test by identity. Every `node --test` the test command reaches (directly, or through
 * `npm test` / `npm run x` / `yarn x` / `pnpm x` and the scripts those run) gets one more reporter
 * through NODE_OPTIONS: a small module, passed as a data: URL so nothing on disk can stand in for
 * it, that collects the runner's own events (name, nesting, file, skip/todo, the error) and writes
 * them as one record of the run's sealed report (seal.ts) when the runner's stream ends. A command
 * that runs `node --test` more than once is refused (one run's key seals one report). NODE_OPTIONS reaches node
 * however the package manager starts it; the test files' processes inherit it but do not report
 * through it (the runner replaces their reporters). Node 18.15+, 20, 22 and 24 all emit `file` on
 * their test events and accept the reporter flags in NODE_OPTIONS.
 */
export const NODE_TEST_SOURCE = 'node-test-report';

/** Each test:start / test:pass / test:fail as the reporter wrote it. */
interface NodeTestEvent {
  kind: 'start' | 'pass' | 'fail';
  name: string;
  nesting: number;
  file: string | null;
  line?: number;
  column?: number;
  suite?: boolean;
  skip?: boolean;
  todo?: boolean;
  error?: { message: string; failureType?: string; exitCode?: number; stack?: string };
}

/**
 * The reporter module. It writes nothing to its destination; its one record goes to `out`, in the
 * run's sealed report (seal.ts), when the runner's stream ends. The seal begins as the module is
 * imported in the process that runs the reporters (the `node --test` process, never a test file's
 * process, which node marks with NODE_TEST_CONTEXT): it reads the run's key and deletes its file
 * before the runner starts a test file. A `node --test` process that ends before its stream ends
 * (a source that exits, a kill) leaves no end, and the run is refused.
 */
function reporterSource(out: string): string {
  return `import fs from 'node:fs';
import crypto from 'node:crypto';
${jsSealSource(`${out}.key`, out)}
const seal = tddGateSeal(fs, crypto);
const stringify = JSON.stringify;
// The test files' processes need none of this: they report to the runner, not through reporters.
const reporting = !process.env.NODE_TEST_CONTEXT;
if (reporting) seal.begin(stringify({ tddGateNodeTest: 1, pid: process.pid }));
if (typeof process.env.NODE_OPTIONS === 'string') process.env.NODE_OPTIONS = process.env.NODE_OPTIONS.split(' ').filter((o) => !o.startsWith('--test-reporter')).join(' ');
const str = (v) => { try { return v === undefined || v === null ? '' : String(v); } catch { return '?'; } };
function errorOf(e) {
  if (e === undefined || e === null) return undefined;
  const c = typeof e === 'object' && e.cause !== undefined ? e.cause : e;
  let message = '';
  if (c !== null && typeof c === 'object') {
    message = (c.name ? str(c.name) + ': ' : '') + str(c.message);
    if (c.code !== undefined) message += '\\ncode: ' + str(c.code);
  } else message = str(c);
  if (typeof e === 'object' && e.failureType) message += '\\nfailureType: ' + str(e.failureType);
  const stack = c !== null && typeof c === 'object' ? str(c.stack).split('\\n').filter((l) => /^\\s+at /.test(l)).slice(0, 12).join('\\n') : '';
  return { message: message.slice(0, 4000), stack, failureType: typeof e === 'object' ? e.failureType : undefined, exitCode: typeof e === 'object' && typeof e.exitCode === 'number' ? e.exitCode : undefined };
}
export default async function* tddGateNodeTestReport(source) {
  const events = [];
  let complete = false;
  try {
    for await (const ev of source) {
      const kind = ev.type === 'test:start' ? 'start' : ev.type === 'test:pass' ? 'pass' : ev.type === 'test:fail' ? 'fail' : null;
      if (kind === null) continue;
      const d = ev.data || {};
      const e = { kind, name: str(d.name), nesting: Number(d.nesting) || 0, file: typeof d.file === 'string' ? d.file : null };
      if (typeof d.line === 'number' && typeof d.column === 'number') { e.line = d.line; e.column = d.column; }
      if (kind !== 'start') {
        e.suite = !!(d.details && d.details.type === 'suite');
        e.skip = d.skip !== undefined && d.skip !== false;
        e.todo = d.todo !== undefined && d.todo !== false;
        if (kind === 'fail') e.error = errorOf(d.details && d.details.error);
      }
      events.push(e);
    }
    complete = true;
  } finally {
    seal.record(stringify({ tddGateNodeTest: 1, node: process.version, complete, events }));
    seal.end(stringify({ complete }));
  }
}
`;
}

/** The refusal for a command that runs `node --test` more than once: one sealed report holds one run. */
export function unreachedNodeTest(): RunFacts {
  return {
    counts: null,
    failingFiles: [],
    loadErrorFiles: [],
    messages: [],
    source: NODE_TEST_SOURCE,
    tests: [],
    unfinished:
      'test_command runs `node --test` more than once (directly or through the package scripts it calls), and tdd-gate’s reporter seals the report of one run; make it one `node --test` call that names every test file or folder (other steps belong in lint_command) in .tdd/stack.json',
  };
}

/**
 * Does this node take `--test-reporter` (and emit `file` on test events)? 18.15+, 19.6+, 20+. An
 * older node would refuse every process started with the flag in NODE_OPTIONS, npm included.
 */
export function nodeTestReporterSupported(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major >= 20 || (major === 19 && minor >= 6) || (major === 18 && minor >= 15);
}

/** The reporter as a module specifier node can import without a file. */
function nodeTestReporterUrl(out: string): string {
  return `data:text/javascript;base64,${Buffer.from(reporterSource(out), 'utf8').toString('base64')}`;
}

/** One `node … --test …` call (up to the next shell operator). */
const NODE_TEST_CALL = /(?:^|[\s/])(?:node|nodejs)(?:\.exe)?\s(?:[^\n]*?\s)?--test(?=\s|$)/;
/** A package-manager call of a script, and the script's name. */
const PM_RUN = /^(?:npm|pnpm|yarn)(?:\s+--?[\w-]+)*(?:\s+run(?:-script)?)?\s+([\w:.@/][\w:.@/-]*)/;

/** Another runner, whose tests the node:test report would not hold. */
const OTHER_RUNNER = /(?:^|[\s/])(?:vitest|jest|mocha|ava|tap|pytest|py\.test|playwright)(?:\.[cm]?js)?(?=\s|$)/;

/** Every command a command line runs, through the package scripts it calls (with their pre/post scripts). */
export function reachedCommands(command: string, script?: (name: string) => string | null, depth = 0, seen = new Set<string>()): string[] {
  const out: string[] = [];
  for (const raw of command.split(/&&|\|\||[;|\n]/)) {
    const seg = raw.trim();
    out.push(seg);
    const pm = NODE_TEST_CALL.test(seg) ? null : PM_RUN.exec(seg);
    if (!pm || !script || depth >= 5) continue;
    const name = /^npm\b/.test(seg) && (pm[1] === 't' || pm[1] === 'tst') ? 'test' : (pm[1] ?? '');
    for (const n of [`pre${name}`, name, `post${name}`]) {
      if (seen.has(n)) continue;
      seen.add(n);
      const body = script(n);
      if (body !== null) out.push(...reachedCommands(body, script, depth + 1, seen));
    }
  }
  return out;
}

/** The `node --test` calls a command reaches; none when it also runs another test runner. */
export function nodeTestCalls(command: string, script?: (name: string) => string | null): string[] {
  const all = reachedCommands(command, script);
  const calls = all.filter((seg) => NODE_TEST_CALL.test(seg));
  return all.some((seg) => !calls.includes(seg) && OTHER_RUNNER.test(seg)) ? [] : calls;
}

/**
 * How a call picks its reporters: none, as many destinations as reporters, or one reporter to
 * stdout. A `NODE_OPTIONS=…` set in the test command itself is counted with the rest: the gate's
 * options are composed after it, never instead of it (src/verify/rules/envCompose.ts). One set inside a
 * package.json script would replace them where the gate cannot reach: odd.
 */
function reporterShape(call: string, inCommand: boolean): 'none' | 'paired' | 'single' | 'odd' {
  if (!inCommand && /\bNODE_OPTIONS=/.test(call)) return 'odd';
  const r = (call.match(/--test-reporter(?=[=\s]|$)/g) ?? []).length;
  const d = (call.match(/--test-reporter-destination(?=[=\s]|$)/g) ?? []).length;
  if (r === 0 && d === 0) return 'none';
  if (r === d) return 'paired';
  return r === 1 && d === 0 ? 'single' : 'odd';
}

/**
 * The NODE_OPTIONS that add our reporter to every `node --test` the command reaches; null when it
 * reaches none, or when their own reporter flags would not stay balanced (node refuses a run with
 * more reporters than destinations). Our reporter writes nothing to its destination, so stdout
 * is as good as any and keeps the counts balanced.
 */
export function nodeTestOptions(command: string, reportFile: string, script?: (name: string) => string | null): string | null {
  const calls = nodeTestCalls(command, script);
  if (calls.length === 0) return null;
  const shapes = new Set(calls.map((call) => reporterShape(call, command.includes(call))));
  if (shapes.size !== 1 || shapes.has('odd')) return null;
  const ours = `--test-reporter=${nodeTestReporterUrl(reportFile)} --test-reporter-destination=stdout`;
  // With no reporter of its own the runner would pick spec or TAP by terminal; people read spec.
  if (shapes.has('none')) return `--test-reporter=spec --test-reporter-destination=stdout ${ours}`;
  if (shapes.has('single')) return `--test-reporter-destination=stdout ${ours}`;
  return ours;
}

/**
 * The `node-options` a project's .npmrc sets. npm (and pnpm) replace NODE_OPTIONS with it for the
 * scripts they run, so the reporter goes in through `npm_config_node_options` too, after them.
 */
export function npmrcNodeOptions(text: string | null): string | null {
  if (text === null) return null;
  let found: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*node[-_]options\s*=\s*(.*?)\s*$/.exec(line);
    if (m) found = (m[1] ?? '').replace(/^"(.*)"$|^'(.*)'$/, '$1$2');
  }
  return found;
}

function isFileLevel(e: NodeTestEvent): boolean {
  if (e.nesting !== 0 || e.file === null) return false;
  const name = e.name.replace(/\\/g, '/').replace(/^\.\//, '');
  const file = e.file.replace(/\\/g, '/');
  // node 18/20 name it by its absolute path, 22+ relative to where the runner started.
  return name === file || ((name.includes('/') || /\.[cm]?[jt]sx?$/.test(name)) && file.endsWith('/' + name));
}

/**
 * The report lines: every leaf test with its file and its full name (suites and parent tests
 * joined with " > "), counted the way the runner counts its summary (`tests`, `pass`, `fail`,
 * `cancelled`, `skipped`, `todo`, parent tests included, suites not). A whole file reported as a
 * failed test (it did not load, or its process failed) is a load error, not a test.
 */
export function parseNodeTestReport(text: string): RunFacts | null {
  const processes: NodeTestEvent[][] = [];
  let incomplete = false;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const json = JSON.parse(line) as { tddGateNodeTest?: unknown; events?: unknown; complete?: unknown };
      if (json.tddGateNodeTest === 1 && Array.isArray(json.events)) processes.push(json.events as NodeTestEvent[]);
      if (json.tddGateNodeTest === 1 && json.complete === false) incomplete = true;
    } catch {
      // not a line of ours
    }
  }
  if (processes.length === 0) return null;
  const counts: Required<Counts> = { total: 0, passed: 0, failed: 0, skipped: 0 };
  const facts: RunFacts = { counts, failingFiles: [], loadErrorFiles: [], messages: [], source: NODE_TEST_SOURCE, tests: [] };
  const tests: TestCase[] = [];
  for (const events of processes) {
    // Per file: the names of the tests being reported at each nesting, and whether the test at
    // a nesting has reported a child (then it is a parent, not a leaf).
    const names = new Map<string, string[]>();
    const child = new Map<string, boolean[]>();
    for (const e of events) {
      if (typeof e !== 'object' || e === null || typeof e.name !== 'string' || typeof e.nesting !== 'number') continue;
      const key = e.file ?? '';
      const stack = names.get(key) ?? [];
      const kids = child.get(key) ?? [];
      names.set(key, stack);
      child.set(key, kids);
      if (e.kind === 'start') {
        stack[e.nesting] = e.name;
        stack.length = e.nesting + 1;
        kids[e.nesting + 1] = false;
        continue;
      }
      const leaf = kids[e.nesting + 1] !== true;
      kids[e.nesting + 1] = false;
      kids[e.nesting] = true;
      if (e.suite) continue;
      const failed = e.kind === 'fail';
      counts.total++;
      if (e.skip || e.todo) counts.skipped++;
      else if (failed) counts.failed++;
      else counts.passed++;
      if (isFileLevel(e) && leaf) {
        if (failed) {
          facts.loadErrorFiles.push(e.file!);
          if (e.error?.message) facts.messages.push(e.error.message);
        }
        continue;
      }
      if (!leaf) continue;
      const status: TestStatus = e.skip || e.todo ? 'skipped' : failed ? 'failed' : 'passed';
      const message = status === 'failed' ? (e.error?.message ?? '') : '';
      const parts = [...stack.slice(0, e.nesting), e.name];
      const name = parts.join(' > ');
      const where = typeof e.line === 'number' && typeof e.column === 'number' ? { line: e.line, column: e.column } : {};
      const trace = status === 'failed' && typeof e.error?.stack === 'string' && e.error.stack !== '' ? { trace: `${message}\n${e.error.stack}` } : {};
      tests.push(e.file === null ? { file: null, name, status, message, idByName: true, ...trace } : { file: e.file, name, path: parts, status, message, ...where, ...trace });
      if (status === 'failed') {
        if (e.file !== null) facts.failingFiles.push(e.file);
        if (message) facts.messages.push(message);
      }
    }
  }
  facts.tests = tests;
  facts.failingFiles = [...new Set(facts.failingFiles)];
  if (incomplete) facts.unfinished = 'the node:test runner’s event stream broke off before the run ended, so the tests after that point are unknown';
  return facts;
}

/**
 * What the runner printed as its summary (spec `ℹ tests N`, TAP `# tests N`), summed over every
 * `node --test` process of the run; null when none printed one.
 */
export function nodeTestSummary(text: string): Counts | null {
  const sum: Record<string, number> = {};
  let found = false;
  for (const m of text.matchAll(/^(?:ℹ|#) (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm)) {
    const key = m[1] ?? '';
    if (key === 'tests') found = true;
    sum[key] = (sum[key] ?? 0) + Number(m[2]);
  }
  if (!found) return null;
  const n = (k: string) => sum[k] ?? 0;
  return { total: n('tests'), passed: n('pass'), failed: n('fail') + n('cancelled'), skipped: n('skipped') + n('todo') };
}
