/** One test as the runner reported it. `file` is as the runner named it (absolute or relative). */
export interface TestCase {
  file: string | null;
  /** Other spellings of the file when the runner names a module, not a path (pytest classnames). */
  candidates?: string[];
  /** The runner's own scope the file does not already say (a pytest classname, a Go package). */
  scope?: string;
  /** The full name within its file: describe blocks joined with " > ", a pytest/Go/cargo test name. */
  name: string;
  /** The same name as its parts (describe blocks, then the test's title), when the runner gives them apart. */
  path?: string[];
  /** Where the runner says the test is declared (1-based), when it says. */
  line?: number;
  column?: number;
  status: TestStatus;
  /** The failure message itself (no code frame, no stack), for judging RED. */
  message: string;
  /** The failure with where it was raised (a stack, pytest's long report), for judging where RED failed. */
  trace?: string;
  /** The runner names the file only for some tests (node:test TAP: failing ones): identify by name alone. */
  idByName?: boolean;
  /** cargo: the crate whose test binary ran it, when its path is the crate's, not the repository's (a workspace member). */
  crate?: string;
  /** jest: how many expect() assertions passed in this test (`numPassingAsserts`). */
  passingAsserts?: number;
}

export type TestStatus = 'passed' | 'failed' | 'skipped';

export interface Counts {
  total: number;
  failed: number;
  passed: number;
  skipped?: number;
}

/** What tdd-gate learned about one test run, from a machine report or from the output text. */
export interface RunFacts {
  /** null when neither the report nor the text said how many tests ran. */
  counts: Counts | null;
  /** Test files with at least one failing test, as the runner named them (absolute or relative). */
  failingFiles: string[];
  /** Test files that failed to load or collect (compile/import errors). */
  loadErrorFiles: string[];
  /** Failure messages, for red_confirm. */
  messages: string[];
  source: string;
  /** Every test the runner reported, by identity; null when the runner gave no per-test report. */
  tests?: TestCase[] | null;
  /** Why the gate's own reporter shows the run was not whole (it never began, never ended, or its counts disagree): no verdict rests on it. */
  unfinished?: string;
  /** go test: why a package's test binary did not run to its end, as the gate's end-of-binary test shows (goCanary.ts); GREEN refuses with it. */
  binaryEnd?: string;
  /** What narrowed the run to fewer tests than its files declare (mocha's `.only`), for a refusal to name. */
  narrowed?: string;
}

interface JsonAssertion {
  status?: unknown;
  numPassingAsserts?: unknown;
  failureMessages?: unknown;
  fullName?: unknown;
  title?: unknown;
  ancestorTitles?: unknown;
  location?: unknown;
}
interface JsonFile {
  name?: unknown;
  status?: unknown;
  message?: unknown;
  failureMessage?: unknown;
  assertionResults?: unknown;
}

/** The message of an Error as printed: everything before the first stack frame. */
export function messageOnly(text: string): string {
  const lines = text.replace(/\r/g, '').split('\n');
  const out: string[] = [];
  for (const line of lines) {
    if (/^\s+at\s+\S/.test(line) || /^\s*❯\s/.test(line)) break;
    out.push(line);
  }
  return out.join('\n').trim().slice(0, 2000);
}

function jestStatus(s: unknown): TestStatus {
  if (s === 'passed') return 'passed';
  if (s === 'failed') return 'failed';
  return 'skipped'; // pending, todo, skipped, disabled, focused-out
}

/** The vitest and jest JSON reporters share jest's shape. */
export function parseJestJson(text: string, source: string): RunFacts | null {
  let json: { numTotalTests?: unknown; numFailedTests?: unknown; numPassedTests?: unknown; numPendingTests?: unknown; numTodoTests?: unknown; testResults?: unknown };
  try {
    json = JSON.parse(text) as typeof json;
  } catch {
    return null;
  }
  if (typeof json !== 'object' || json === null || typeof json.numTotalTests !== 'number' || !Array.isArray(json.testResults)) return null;
  const facts: RunFacts = {
    counts: {
      total: json.numTotalTests,
      failed: Number(json.numFailedTests) || 0,
      passed: Number(json.numPassedTests) || 0,
      skipped: (Number(json.numPendingTests) || 0) + (Number(json.numTodoTests) || 0),
    },
    failingFiles: [],
    loadErrorFiles: [],
    messages: [],
    source,
    tests: [],
  };
  for (const file of json.testResults as JsonFile[]) {
    const name = typeof file.name === 'string' ? file.name : '';
    const asserts = Array.isArray(file.assertionResults) ? (file.assertionResults as JsonAssertion[]) : [];
    const failed = asserts.filter((a) => a.status === 'failed');
    if (failed.length > 0) facts.failingFiles.push(name);
    for (const a of asserts) {
      const msgs = Array.isArray(a.failureMessages) ? a.failureMessages.map(String) : [];
      if (a.status === 'failed') facts.messages.push(...msgs);
      const ancestors = Array.isArray(a.ancestorTitles) ? a.ancestorTitles.map(String) : [];
      const parts = [...ancestors, typeof a.title === 'string' ? a.title : typeof a.fullName === 'string' ? a.fullName : '?'];
      const test: TestCase = { file: name, name: parts.join(' > '), path: parts, status: jestStatus(a.status), message: msgs.map(messageOnly).join('\n') };
      if (a.status === 'failed' && msgs.length > 0) test.trace = msgs.join('\n').slice(0, 8000);
      const loc = a.location as { line?: unknown; column?: unknown } | null | undefined;
      if (loc && typeof loc === 'object' && typeof loc.line === 'number' && typeof loc.column === 'number') {
        test.line = loc.line;
        test.column = loc.column;
      }
      if (typeof a.numPassingAsserts === 'number') test.passingAsserts = a.numPassingAsserts;
      facts.tests!.push(test);
    }
    if (file.status === 'failed' && failed.length === 0) {
      // A suite that failed outside any test (it did not load, or a hook threw): no assertion ran.
      // jest's --json calls its text `message`; its own result objects, `failureMessage`.
      facts.loadErrorFiles.push(name);
      const text = typeof file.message === 'string' && file.message !== '' ? file.message : file.failureMessage;
      if (typeof text === 'string') facts.messages.push(text);
    }
  }
  return facts;
}

/**
 * vitest and jest through the gate's sealed reporter (vitestReporter.ts, jestReporter.ts): the one
 * body it recorded, jest's JSON shape, read by `parseJestJson`. Nothing else is read for a verdict:
 * a report whose seal did not hold (`sealProblem`), or that holds no result the parser reads, is a
 * run without counts or tests, `unfinished` with why, whatever the output says.
 */
export function sealedJestFacts(text: string | null, source: string, sealProblem?: string): RunFacts {
  const none = (why: string): RunFacts => ({ counts: null, failingFiles: [], loadErrorFiles: [], messages: [], source, tests: [], unfinished: why });
  if (sealProblem !== undefined) return none(sealProblem);
  if (text === null || text.trim() === '') return none('the gate’s reporter saw the run begin and end but recorded no result');
  let error: unknown = null;
  try {
    error = (JSON.parse(text) as { tddGateError?: unknown } | null)?.tddGateError ?? null;
  } catch {
    error = null;
  }
  if (typeof error === 'string') return none(`the gate’s reporter could not record the run’s result: ${error}`);
  return parseJestJson(text, source) ?? none('the gate’s reporter recorded a result that cannot be read as the runner’s report');
}

function attr(tag: string, name: string): string | null {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m?.[1] ?? null;
}

function unescapeXml(s: string): string {
  return s
    .replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&#x([0-9a-f]+);/gi, (_m, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

/**
 * JUnit XML (pytest --junitxml). pytest's default family has no file attribute, so a failing
 * case names its file by classname ("tests.test_cart.TestCart" → tests/test_cart.py candidates).
 */
export function parseJunitXml(text: string, source: string): RunFacts | null {
  if (!/<testsuites?[\s>]/.test(text)) return null;
  const facts: RunFacts = { counts: { total: 0, failed: 0, passed: 0, skipped: 0 }, failingFiles: [], loadErrorFiles: [], messages: [], source, tests: [] };
  const counts = facts.counts!;
  const caseRe = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (let m = caseRe.exec(text); m !== null; m = caseRe.exec(text)) {
    const head = m[1] ?? '';
    const body = m[3] ?? '';
    const classname = unescapeXml(attr(head, 'classname') ?? '');
    const name = unescapeXml(attr(head, 'name') ?? '');
    const file = attr(head, 'file');
    // A pytest collection error has an empty classname and the module as its name.
    const files = junitFiles(file, classname || name);
    const failure = /<failure\b([^>]*)>?/.exec(body);
    const error = /<error\b([^>]*)>?/.exec(body);
    const skipped = /<skipped\b/.test(body);
    const collection = error !== null && (classname === '' || /collection failure|error during collection/i.test(body));
    if (collection) {
      // A collection error is reported as a case without a real test: not a collected test.
      facts.loadErrorFiles.push(...files);
      facts.messages.push(unescapeXml(body));
      continue;
    }
    const test: TestCase = { file: file ?? null, candidates: files, scope: classname, name, status: 'passed', message: '' };
    facts.tests!.push(test);
    if (skipped && !failure && !error) {
      test.status = 'skipped';
      counts.skipped = (counts.skipped ?? 0) + 1;
      continue;
    }
    counts.total++;
    if (failure || error) {
      counts.failed++;
      test.status = 'failed';
      facts.failingFiles.push(...files);
      const message = unescapeXml(attr((failure ?? error)?.[1] ?? '', 'message') ?? '');
      // An error outside the test body (a fixture) is not the test's assertion.
      test.message = failure ? message : `error in setup or teardown: ${message}`;
      test.trace = unescapeXml(body).slice(-8000);
      facts.messages.push(unescapeXml(`${message}\n${body}`));
    } else counts.passed++;
  }
  return facts;
}

function junitFiles(file: string | null, classname: string | null): string[] {
  if (file) return [file];
  if (!classname) return [];
  const parts = classname.split('.');
  const out: string[] = [];
  for (let i = parts.length; i > 0; i--) out.push(`${parts.slice(0, i).join('/')}.py`);
  return out;
}
