/** What tdd-gate learned about one test run, from a machine report or from the output text. */
export interface RunFacts {
  /** null when neither the report nor the text said how many tests ran. */
  counts: { total: number; failed: number; passed: number } | null;
  /** Test files with at least one failing test, as the runner named them (absolute or relative). */
  failingFiles: string[];
  /** Test files that failed to load or collect (compile/import errors). */
  loadErrorFiles: string[];
  /** Failure messages, for red_confirm. */
  messages: string[];
  source: string;
}

interface JsonAssertion {
  status?: unknown;
  failureMessages?: unknown;
}
interface JsonFile {
  name?: unknown;
  status?: unknown;
  message?: unknown;
  assertionResults?: unknown;
}

/** The vitest and jest JSON reporters share jest's shape. */
export function parseJestJson(text: string, source: string): RunFacts | null {
  let json: { numTotalTests?: unknown; numFailedTests?: unknown; numPassedTests?: unknown; testResults?: unknown };
  try {
    json = JSON.parse(text) as typeof json;
  } catch {
    return null;
  }
  if (typeof json.numTotalTests !== 'number' || !Array.isArray(json.testResults)) return null;
  const facts: RunFacts = {
    counts: { total: json.numTotalTests, failed: Number(json.numFailedTests) || 0, passed: Number(json.numPassedTests) || 0 },
    failingFiles: [],
    loadErrorFiles: [],
    messages: [],
    source,
  };
  for (const file of json.testResults as JsonFile[]) {
    const name = typeof file.name === 'string' ? file.name : '';
    const asserts = Array.isArray(file.assertionResults) ? (file.assertionResults as JsonAssertion[]) : [];
    const failed = asserts.filter((a) => a.status === 'failed');
    if (failed.length > 0) facts.failingFiles.push(name);
    for (const a of failed) {
      if (Array.isArray(a.failureMessages)) facts.messages.push(...a.failureMessages.map(String));
    }
    if (file.status === 'failed' && failed.length === 0) {
      facts.loadErrorFiles.push(name);
      if (typeof file.message === 'string') facts.messages.push(file.message);
    }
  }
  return facts;
}

function attr(tag: string, name: string): string | null {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m?.[1] ?? null;
}

function unescapeXml(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

/**
 * JUnit XML (pytest --junitxml). pytest's default family has no file attribute, so a failing
 * case names its file by classname ("tests.test_cart.TestCart" → tests/test_cart.py candidates).
 */
export function parseJunitXml(text: string, source: string): RunFacts | null {
  if (!/<testsuites?[\s>]/.test(text)) return null;
  const facts: RunFacts = { counts: { total: 0, failed: 0, passed: 0 }, failingFiles: [], loadErrorFiles: [], messages: [], source };
  const caseRe = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (let m = caseRe.exec(text); m !== null; m = caseRe.exec(text)) {
    const head = m[1] ?? '';
    const body = m[3] ?? '';
    // A pytest collection error has an empty classname and the module as its name.
    const files = junitFiles(attr(head, 'file'), attr(head, 'classname') || attr(head, 'name'));
    const failure = /<failure\b([^>]*)>?/.exec(body);
    const error = /<error\b([^>]*)>?/.exec(body);
    const skipped = /<skipped\b/.test(body);
    if (skipped) continue;
    const collection = error !== null && /collection failure|error during collection|ImportError|ModuleNotFoundError|SyntaxError/i.test(body);
    if (collection) {
      // A collection error is reported as a case without a real test: not a collected test.
      facts.loadErrorFiles.push(...files);
      facts.messages.push(unescapeXml(body));
      continue;
    }
    facts.counts!.total++;
    if (failure || error) {
      facts.counts!.failed++;
      facts.failingFiles.push(...files);
      facts.messages.push(unescapeXml(`${attr((failure ?? error)?.[1] ?? '', 'message') ?? ''}\n${body}`));
    } else facts.counts!.passed++;
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
