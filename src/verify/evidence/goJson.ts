import type { RunFacts, TestCase } from './report.js';

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

/**
 * `go test -json` output: the human text (every Output field, plus any plain line such as a
 * build error on stderr) and the facts, one test per (package, test) with its own output as the
 * message. A failing test's file is also taken from its `x_test.go:N:` lines.
 */
export function parseGoJson(raw: string): { text: string; facts: RunFacts } {
  let text = '';
  const outputs = new Map<string, string[]>();
  const finals = new Map<string, { pkg: string; test: string; action: string }>();
  const unbuilt = new Set<string>();
  // Packages whose tests reported, and those go itself ended (a package-level pass/fail/skip):
  // a test binary that stops early (os.Exit, a crash) leaves its package without an end.
  const withTests = new Set<string>();
  const ended = new Set<string>();
  // A test's place is where it started (its `run` event): parallel subtests finish in any order.
  const order = new Map<string, number>();
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
    if (typeof e.Output === 'string') text += e.Output;
    if (e.Action === 'fail' && typeof e.FailedBuild === 'string' && typeof e.Package === 'string') unbuilt.add(e.Package);
    if (typeof e.Test !== 'string') {
      if ((e.Action === 'pass' || e.Action === 'fail' || e.Action === 'skip') && typeof e.Package === 'string') ended.add(e.Package);
      continue;
    }
    if (typeof e.Package === 'string') withTests.add(e.Package);
    const key = `${String(e.Package)}\0${e.Test}`;
    if (!order.has(key)) order.set(key, order.size);
    if (typeof e.Output === 'string') outputs.set(key, [...(outputs.get(key) ?? []), e.Output]);
    if (e.Action === 'pass' || e.Action === 'fail' || e.Action === 'skip') finals.set(key, { pkg: String(e.Package), test: e.Test, action: e.Action });
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
  const unfinished = open.length > 0 ? `go test never ended the run of ${open.slice(0, 3).join(', ')}${open.length > 3 ? ` and ${open.length - 3} more` : ''} (no final pass or fail for the package): its test binary stopped before its tests were done; remove what ends the process from the source` : undefined;
  return { text, facts: { counts: finals.size > 0 ? counts : null, failingFiles: [...failing], loadErrorFiles: [...unbuilt].sort(), messages: [], source: 'go-json', tests, ...(unfinished !== undefined ? { unfinished } : {}) } };
}
