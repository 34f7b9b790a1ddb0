import type { RunFacts } from './report.js';

function num(m: RegExpExecArray | null, i: number): number {
  return m ? Number(m[i] ?? 0) || 0 : 0;
}

function lastMatch(re: RegExp, text: string): RegExpExecArray | null {
  let last: RegExpExecArray | null = null;
  const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g');
  for (let m = g.exec(text); m !== null; m = g.exec(text)) last = m;
  return last;
}

/** Test counts from the summary lines of common runners; null when none is recognised. */
export function textCounts(text: string): RunFacts['counts'] {
  // vitest: "Tests  1 failed | 2 passed (3)"
  let m = lastMatch(/^\s*Tests\s+(.*?)\((\d+)\)\s*$/m, text);
  if (m) {
    const failed = num(/(\d+) failed/.exec(m[1] ?? ''), 1);
    const passed = num(/(\d+) passed/.exec(m[1] ?? ''), 1);
    return { total: num(m, 2), failed, passed };
  }
  // jest: "Tests:       1 failed, 2 passed, 3 total"
  m = lastMatch(/^Tests:\s+(.*?)(\d+) total/m, text);
  if (m) return { total: num(m, 2), failed: num(/(\d+) failed/.exec(m[1] ?? ''), 1), passed: num(/(\d+) passed/.exec(m[1] ?? ''), 1) };
  // node:test spec ("ℹ tests 3") or TAP ("# tests 3")
  m = lastMatch(/^(?:ℹ|#) tests (\d+)$/m, text);
  if (m) {
    return { total: num(m, 1), failed: num(lastMatch(/^(?:ℹ|#) fail (\d+)$/m, text), 1), passed: num(lastMatch(/^(?:ℹ|#) pass (\d+)$/m, text), 1) };
  }
  // cargo: "test result: FAILED. 1 passed; 2 failed; 0 ignored"
  const cargo = [...text.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed/gm)];
  if (cargo.length > 0) {
    const passed = cargo.reduce((n, c) => n + Number(c[1]), 0);
    const failed = cargo.reduce((n, c) => n + Number(c[2]), 0);
    return { total: passed + failed, failed, passed };
  }
  // pytest: "==== 1 failed, 2 passed in 0.12s ====" / "no tests ran"
  m = lastMatch(/^=+ (.*?) in [\d.]+s\b.*=+$/m, text);
  if (m && /passed|failed|error|no tests ran/.test(m[1] ?? '')) {
    const s = m[1] ?? '';
    const failed = num(/(\d+) failed/.exec(s), 1);
    const passed = num(/(\d+) passed/.exec(s), 1);
    return { total: failed + passed, failed, passed };
  }
  // go test (-v shows passes): "--- FAIL: TestX", "--- PASS: TestY"; "ok  pkg" without -v
  const goFail = (text.match(/^\s*--- FAIL: /gm) ?? []).length;
  const goPass = (text.match(/^\s*--- PASS: /gm) ?? []).length;
  if (goFail + goPass > 0) return { total: goFail + goPass, failed: goFail, passed: goPass };
  // mocha: "2 passing", "1 failing"
  const passing = lastMatch(/^\s*(\d+) passing\b/m, text);
  if (passing) {
    const failed = num(lastMatch(/^\s*(\d+) failing\b/m, text), 1);
    return { total: num(passing, 1) + failed, failed, passed: num(passing, 1) };
  }
  return null;
}

/** node:test TAP: the `location:` of each `not ok` test (passing tests may carry one too). */
function tapFailureLocations(text: string): string[] {
  const out: string[] = [];
  let failing = false;
  for (const line of text.split('\n')) {
    if (/^\s*not ok \d+/.test(line)) failing = true;
    else if (/^\s*ok \d+/.test(line)) failing = false;
    const m = failing ? /^\s*location: '(.+?):\d+:\d+'$/.exec(line) : null;
    if (m?.[1]) out.push(m[1]);
  }
  return out;
}

/** Files the runners name as failing, in their text output. */
export function textFailingFiles(text: string): string[] {
  const files = new Set<string>();
  const add = (f: string | undefined) => {
    if (f) files.add(f.replace(/^file:\/\//, ''));
  };
  for (const m of text.matchAll(/^test at (.+?):\d+:\d+$/gm)) add(m[1]); // node:test spec
  for (const f of tapFailureLocations(text)) add(f);
  for (const m of text.matchAll(/^\s*FAIL\s+(\S+?)(?:\s+>|\s*$)/gm)) add(m[1]); // vitest / jest
  for (const m of text.matchAll(/^FAILED (\S+?)::/gm)) add(m[1]); // pytest -rA summary
  for (const m of text.matchAll(/^\s+(\S+_test\.go):\d+:/gm)) add(m[1]); // go test
  for (const m of text.matchAll(/panicked at (\S+?\.rs):\d+:\d+/g)) add(m[1]); // cargo
  return [...files];
}

/** Files the runners name as failing to load or collect. */
export function textLoadErrorFiles(text: string): string[] {
  const files = new Set<string>();
  for (const m of text.matchAll(/^ERROR (\S+?\.py)(?:\s|$)/gm)) if (m[1]) files.add(m[1]); // pytest collection
  return [...files];
}

export function textFacts(text: string): RunFacts {
  return { counts: textCounts(text), failingFiles: textFailingFiles(text), loadErrorFiles: textLoadErrorFiles(text), messages: [], source: 'text' };
}
