import type { RunFacts, TestCase } from './report.js';
import type { GoCanaryExpect } from './goCanary.js';

interface GoEvent {
  Action?: unknown;
  Package?: unknown;
  Test?: unknown;
  Output?: unknown;
  /** Go 1.24+: the build that failed for a package's `fail` event. */
  FailedBuild?: unknown;
}

/** `FAIL <pkg> [build failed]`: a package whose tests did not compile (a plain line before Go 1.24, an Output after). */
const BUILD_FAILED = /^FAIL\s+(\S+)\s+\[(?:build|setup) failed\]/gm;

const FINAL = new Set(['pass', 'fail', 'skip']);

/** The gate's end-of-binary test (goCanary.ts) as the run's plan expects it, and the lines it wrote. */
export interface GoCanaryRun {
  /** The plan's expectation, as the runner hands it on (JSON) or parsed. */
  expect: GoCanaryExpect | string;
  /** The run's canary file (null: nothing wrote it). */
  text: string | null;
}

interface CanaryLine {
  test: string;
  pkg: string;
  dir: string;
  /** `end`: written by the gate's test; `after`: by its check once every test of the binary was done (parallel ones too). */
  at: string;
  /** The `end` line promises an `after` line. */
  after: boolean;
  failures: string[];
}

function canaryLines(text: string | null): CanaryLine[] {
  const out: CanaryLine[] = [];
  for (const raw of (text ?? '').split('\n')) {
    if (raw.trim() === '') continue;
    try {
      const j = JSON.parse(raw) as Record<string, unknown>;
      if (j.tddGateCanary !== 1 || j.go !== 1) continue;
      out.push({
        test: String(j.test),
        pkg: String(j.pkg).replace(/_test$/, ''),
        dir: String(j.dir),
        at: j.at === 'after' ? 'after' : 'end',
        after: j.after === true,
        failures: Array.isArray(j.failures) ? j.failures.map(String) : ['its line could not be read'],
      });
    } catch {
      // a torn line: the binary died as it wrote
    }
  }
  return out;
}

function readExpect(e: GoCanaryExpect | string): GoCanaryExpect | null {
  if (typeof e !== 'string') return e;
  try {
    const j = JSON.parse(e) as GoCanaryExpect;
    return typeof j.test === 'string' && Array.isArray(j.packages) ? j : null;
  } catch {
    return null;
  }
}

const names = (xs: readonly string[], n = 3) => `${xs.slice(0, n).join(', ')}${xs.length > n ? ` and ${xs.length - n} more` : ''}`;

/**
 * `go test -json` output: the human text (every Output field, plus any plain line such as a
 * build error on stderr) and the facts, one test per (package, test) with its own output as the
 * message. A failing test's file is also taken from its `x_test.go:N:` lines.
 *
 * The events must tell one story: a test that did not start, started twice without ending, or
 * ended both passed and failed, a parent that passed with a failed subtest, a package that passed
 * with a failed test or ended twice, make the run `unfinished` (no verdict rests on it), never the
 * last word. With `canary` (the gate's end-of-binary test, goCanary.ts), `binaryEnd` says which
 * package's test binary did not reach its end: the gate's test did not pass there, or its line is
 * missing or names a finding.
 */
export function parseGoJson(raw: string, canary?: GoCanaryRun): { text: string; facts: RunFacts } {
  const expect = canary ? readExpect(canary.expect) : null;
  const gateTest = expect?.test ?? null;
  let text = '';
  const outputs = new Map<string, string[]>();
  const finals = new Map<string, { pkg: string; test: string; action: string }>();
  /** Every final action a test was given (-count=N runs it N times). */
  const results = new Map<string, Set<string>>();
  const running = new Set<string>();
  const unbuilt = new Set<string>();
  const contradictions: string[] = [];
  // Packages whose tests reported, and those go itself ended (a package-level pass/fail/skip):
  // a test binary that stops early (os.Exit, a crash) leaves its package without an end.
  const withTests = new Set<string>();
  const ended = new Map<string, string>();
  const failedIn = new Set<string>();
  /** The gate's test per package: how often it passed and failed. */
  const gate = new Map<string, { pass: number; fail: number }>();
  // A test's place is where it started (its `run` event): parallel subtests finish in any order.
  const order = new Map<string, number>();
  let events = 0;
  for (const line of raw.split('\n')) {
    if (line.trim() === '') continue;
    let e: GoEvent;
    try {
      e = JSON.parse(line) as GoEvent;
    } catch {
      text += line + '\n';
      continue;
    }
    if (typeof e !== 'object' || e === null) {
      text += line + '\n';
      continue;
    }
    events++;
    if (typeof e.Output === 'string') text += e.Output;
    if (e.Action === 'fail' && typeof e.FailedBuild === 'string' && typeof e.Package === 'string') unbuilt.add(e.Package);
    const pkg = typeof e.Package === 'string' ? e.Package : '';
    const action = typeof e.Action === 'string' ? e.Action : '';
    if (typeof e.Test !== 'string') {
      if (FINAL.has(action) && typeof e.Package === 'string') {
        if (ended.has(pkg)) contradictions.push(`package ${pkg} ended twice (${ended.get(pkg)}, then ${action})`);
        else if (action === 'pass' && failedIn.has(pkg)) contradictions.push(`package ${pkg} passed although a test of it failed`);
        ended.set(pkg, action);
      }
      continue;
    }
    const key = `${pkg}\0${e.Test}`;
    if (gateTest !== null && e.Test === gateTest) {
      const g = gate.get(pkg) ?? { pass: 0, fail: 0 };
      if (action === 'pass') g.pass++;
      if (action === 'fail') g.fail++;
      gate.set(pkg, g);
      if (action === 'fail') failedIn.add(pkg);
      continue;
    }
    if (ended.has(pkg) && (action === 'run' || FINAL.has(action))) contradictions.push(`${pkg}::${e.Test} was reported after its package ended`);
    if (typeof e.Package === 'string') withTests.add(e.Package);
    if (!order.has(key)) order.set(key, order.size);
    if (typeof e.Output === 'string') outputs.set(key, [...(outputs.get(key) ?? []), e.Output]);
    if (action === 'run') {
      if (running.has(key)) contradictions.push(`${pkg}::${e.Test} started twice without ending`);
      running.add(key);
    }
    if (FINAL.has(action)) {
      if (!running.has(key)) contradictions.push(`${pkg}::${e.Test} ended (${action}) without having started`);
      running.delete(key);
      const seen = results.get(key) ?? new Set<string>();
      seen.add(action);
      results.set(key, seen);
      if (seen.has('pass') && seen.has('fail')) contradictions.push(`${pkg}::${e.Test} was reported both passed and failed`);
      if (action === 'fail') failedIn.add(pkg);
      const prev = finals.get(key);
      // -count=N: one failure of N makes the test fail.
      finals.set(key, { pkg, test: e.Test, action: prev?.action === 'fail' ? 'fail' : action });
    }
  }
  // A parent test reported passed while one of its subtests failed: Go fails the parent.
  for (const f of finals.values()) {
    if (f.action !== 'fail' || !f.test.includes('/')) continue;
    const parent = `${f.pkg}\0${f.test.slice(0, f.test.lastIndexOf('/'))}`;
    if (finals.get(parent)?.action === 'pass') contradictions.push(`${f.pkg}::${f.test.slice(0, f.test.lastIndexOf('/'))} passed although its subtest ${f.test} failed`);
  }
  const counts = { total: 0, failed: 0, passed: 0, skipped: 0 };
  const failing = new Set<string>();
  const tests: TestCase[] = [];
  const sorted = [...finals].sort(([a], [b]) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  for (const [key, { pkg, test, action }] of sorted) {
    const out = outputs.get(key) ?? [];
    // The test's own lines, without the "=== RUN" banner: what t.Errorf and friends printed.
    const message = out.filter((l) => !/^=== (RUN|PAUSE|CONT)\s/.test(l)).join('').trim().slice(0, 2000);
    tests.push({ file: null, scope: pkg, name: test, status: action === 'pass' ? 'passed' : action === 'fail' ? 'failed' : 'skipped', message });
    if (action === 'skip') {
      counts.skipped++;
      continue;
    }
    counts.total++;
    if (action === 'pass') counts.passed++;
    else {
      counts.failed++;
      for (const o of out) {
        const m = /^\s+(\S+_test\.go):\d+:/.exec(o);
        if (m?.[1]) failing.add(m[1]);
      }
    }
  }
  // A package that did not build ran none of its tests: it is named, not counted as passing.
  for (const m of text.matchAll(BUILD_FAILED)) if (m[1]) unbuilt.add(m[1]);
  const open = [...withTests].filter((p) => !ended.has(p)).sort();
  let unfinished: string | undefined;
  if (contradictions.length > 0) {
    unfinished = `go test's events contradict each other (${names([...new Set(contradictions)], 2)}): something other than the test binary's own result lines made them; remove what prints or rewrites the test output from the source`;
  } else if (open.length > 0) {
    unfinished = `go test never ended the run of ${names(open)} (no final pass or fail for the package): its test binary stopped before its tests were done; remove what ends the process from the source`;
  }
  const binaryEnd = expect ? endProblem(expect, canaryLines(canary?.text ?? null), { ended, withTests, gate, unbuilt }) : null;
  return {
    text,
    facts: {
      counts: finals.size > 0 ? counts : null,
      failingFiles: [...failing],
      loadErrorFiles: [...unbuilt].sort(),
      messages: [],
      source: 'go-json',
      // A go test the gate could not instrument (no -json): no tests by name, its text says the rest.
      tests: expect?.unreached === true && events === 0 ? null : tests,
      ...(unfinished !== undefined ? { unfinished } : {}),
      ...(binaryEnd !== null ? { binaryEnd } : {}),
    },
  };
}

/**
 * Why the gate's end-of-binary test says a package's test binary did not run to its end (null when
 * every package that ran passed it and wrote its line without a finding).
 */
function endProblem(
  expect: GoCanaryExpect,
  lines: readonly CanaryLine[],
  run: { ended: ReadonlyMap<string, string>; withTests: ReadonlySet<string>; gate: ReadonlyMap<string, { pass: number; fail: number }>; unbuilt: ReadonlySet<string> },
): string | null {
  if (expect.problem !== undefined) return `the gate could not add its end-of-binary test to go test: ${expect.problem}`;
  const mine = lines.filter((l) => l.test === expect.test);
  const flagged = mine.find((l) => l.failures.length > 0);
  if (flagged) {
    return `the test output of ${flagged.pkg} was redirected while its tests ran (${flagged.at === 'after' ? 'after its last test: ' : ''}${names(flagged.failures, 2)}): what go test read is not what the tests printed; remove what replaces or reroutes the process's output from the source`;
  }
  const expected = new Set(expect.packages.map((p) => p.pkg).filter((p): p is string => p !== null));
  // Every package that ran tests, or that has test files (the gate's test among them) and ended: a
  // binary that exits before its tests print anything still ends its package in go's own events.
  // (A package of a folder the gate did not reach, a module outside the project in go.work, is
  // not held to it, unless some folder's import path is unknown: then every package is.)
  const unknown = expect.packages.some((p) => p.pkg === null);
  const ours = (p: string) => unknown || expected.has(p) || run.gate.has(p);
  const ran = new Set([...run.withTests, ...[...run.ended.keys()].filter((p) => expected.has(p) && run.ended.get(p) !== 'skip')].filter(ours));
  for (const p of run.unbuilt) ran.delete(p);
  if (ran.size === 0) return null;
  const noPass = [...ran].filter((p) => (run.gate.get(p)?.pass ?? 0) === 0 || (run.gate.get(p)?.fail ?? 0) > 0).sort();
  // The `end` line, and the `after` line it promises (a binary that ended in a parallel test after the gate's test has none).
  const noLine = [...ran].filter((p) => {
    const ends = mine.filter((l) => l.pkg === p && l.at === 'end');
    return ends.length === 0 || (ends.some((l) => l.after) && !mine.some((l) => l.pkg === p && l.at === 'after'));
  }).sort();
  if (noPass.length === 0 && noLine.length === 0) return null;
  const bad = [...new Set([...noPass, ...noLine])].sort();
  // Seen nowhere: the binaries may have stopped early, or this go did not build the test in.
  const nowhere = ![...run.gate.values()].some((g) => g.pass + g.fail > 0) && mine.length === 0;
  const orOld = nowhere ? ` (or this go did not build the gate's test in: Go 1.17 or later runs a test added with -overlay)` : '';
  return `the test binary of ${names(bad)} did not run to its end: the gate's own last test (${expect.test}) ${noPass.length > 0 ? 'never passed there' : 'left no line'}, so the results printed before it are not the whole run (a source that ends the process, prints the runner's lines or rewrites them)${orOld}; remove what ends the process or writes the test output from the source`;
}
