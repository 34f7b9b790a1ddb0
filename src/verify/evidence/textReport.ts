import type { RunFacts, TestCase, TestStatus } from './report.js';

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
  // (with -q the line has no "=" border)
  m = lastMatch(/^(?:=+ )?((?:\d+ \w+|no tests ran)(?:, \d+ \w+)*) in [\d.]+s\b.*$/m, text);
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
  // unittest: "Ran 143 tests in 0.1s", then "OK (skipped=7)" or "FAILED (failures=1, errors=1)"
  m = lastMatch(/^Ran (\d+) tests? in [\d.]+s$/m, text);
  const verdict = m ? /^(OK|FAILED)(?: \(([^)]*)\))?\s*$/m.exec(text.slice(m.index)) : null;
  if (m && verdict) {
    const detail = verdict[2] ?? '';
    const skipped = num(/skipped=(\d+)/.exec(detail), 1) + num(/expected failures=(\d+)/.exec(detail), 1);
    const failed = num(/(?<!expected )\bfailures=(\d+)/.exec(detail), 1) + num(/\berrors=(\d+)/.exec(detail), 1) + num(/unexpected successes=(\d+)/.exec(detail), 1);
    const total = Math.max(0, num(m, 1) - skipped);
    return { total, failed, passed: Math.max(0, total - failed) };
  }
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
function textLoadErrorFiles(text: string): string[] {
  const files = new Set<string>();
  for (const m of text.matchAll(/^ERROR (\S+?\.py)(?:\s|$)/gm)) if (m[1]) files.add(m[1]); // pytest collection
  return [...files];
}

export function textFacts(text: string): RunFacts {
  const tap = tapTests(text);
  const cargo = tap === null ? cargoTests(text) : null;
  const loadErrorFiles = [...textLoadErrorFiles(text), ...(tap?.loadErrors ?? [])];
  return { counts: textCounts(text), failingFiles: textFailingFiles(text), loadErrorFiles, messages: [], source: tap ? 'tap' : cargo ? 'cargo' : 'text', tests: tap?.tests ?? cargo };
}

function unquoteYaml(v: string): string {
  const t = v.trim();
  if (t.startsWith("'") && t.endsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
  if (t.startsWith('"') && t.endsWith('"')) {
    try {
      return JSON.parse(t) as string;
    } catch {
      return t.slice(1, -1);
    }
  }
  return t;
}

/** The YAML diagnostics block of a TAP result: the keys we use, block scalars included. */
function tapYaml(lines: readonly string[], from: number, indent: number): { keys: Record<string, string>; next: number } {
  const keys: Record<string, string> = {};
  let k = from;
  if (lines[k]?.trim() !== '---') return { keys, next: k };
  k++;
  const pad = ' '.repeat(indent + 2);
  while (k < lines.length) {
    const line = lines[k] ?? '';
    if (line.trim() === '...') return { keys, next: k + 1 };
    const m = new RegExp(`^${pad}(\\w+):\\s?(.*)$`).exec(line);
    if (m?.[1]) {
      const key = m[1];
      let value = m[2] ?? '';
      if (/^[|>][-+]?$/.test(value.trim())) {
        const block: string[] = [];
        while (k + 1 < lines.length && ((lines[k + 1] ?? '').startsWith(pad + '  ') || (lines[k + 1] ?? '').trim() === '')) {
          k++;
          block.push((lines[k] ?? '').slice(pad.length + 2));
        }
        value = block.join('\n').trim();
      } else value = unquoteYaml(value);
      keys[key] = value;
    }
    k++;
  }
  return { keys, next: k };
}

/**
 * node:test TAP (the default reporter off a TTY, or the report file): every leaf test with its
 * nesting as the name, its file from `location:`, the error name and message. null without TAP.
 */
export function tapTests(text: string): { tests: TestCase[]; loadErrors: string[] } | null {
  if (!/^TAP version \d+$/m.test(text)) return null;
  const loadErrors: string[] = [];
  const lines = text.split('\n');
  const names: string[] = [];
  const children: number[] = [];
  const tests: TestCase[] = [];
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k] ?? '';
    const sub = /^(\s*)# Subtest: (.*)$/.exec(line);
    if (sub) {
      const level = Math.floor((sub[1] ?? '').length / 4);
      names[level] = sub[2] ?? '';
      names.length = level + 1;
      continue;
    }
    const res = /^(\s*)(not ok|ok) \d+(?: - (.*?))?(?: # (SKIP|TODO)\b.*)?$/i.exec(line);
    if (!res) continue;
    const indent = (res[1] ?? '').length;
    const level = Math.floor(indent / 4);
    const leaf = (children[level + 1] ?? 0) === 0;
    children[level + 1] = 0;
    children[level] = (children[level] ?? 0) + 1;
    const { keys, next } = tapYaml(lines, k + 1, indent);
    k = next - 1;
    if (!leaf || keys.type === 'suite') continue;
    const name = [...names.slice(0, level), res[3] ?? names[level] ?? '?'].join(' > ');
    const directive = (res[4] ?? '').toUpperCase();
    const status: TestStatus = directive !== '' ? 'skipped' : res[2] === 'ok' ? 'passed' : 'failed';
    const loc = keys.location ? /^(.*?):\d+(?::\d+)?$/.exec(keys.location)?.[1] ?? keys.location : null;
    // A whole test file reported as one result (its process failed to load, or exited early): not a test.
    const title = res[3] ?? '';
    const fileLevel = 'exitCode' in keys || (loc !== null && title === loc) || (level === 0 && /^(?:\/|[A-Za-z]:\\)\S*\.[cm]?[jt]sx?$/.test(title));
    if (fileLevel) {
      if (res[2] !== 'ok') loadErrors.push((loc ?? title).replace(/^file:\/\//, ''));
      continue;
    }
    const message = status === 'failed' ? [keys.name ? `${keys.name}: ${keys.error ?? ''}` : keys.error ?? '', keys.code ? `code: ${keys.code}` : '', keys.failureType ? `failureType: ${keys.failureType}` : ''].filter(Boolean).join('\n') : '';
    tests.push({ file: loc ? loc.replace(/^file:\/\//, '') : null, name, status, message, idByName: true });
  }
  return { tests, loadErrors };
}

/** cargo test's text: "Running <target> (…)" then "test <name> ... ok|FAILED|ignored", failure sections by name. */
export function cargoTests(text: string): TestCase[] | null {
  if (!/^test result: /m.test(text)) return null;
  const tests: TestCase[] = [];
  let file: string | null = null;
  const byName = new Map<string, TestCase[]>();
  const lines = text.split('\n');
  // A test binary that printed results but never its `test result:` line ended early (a source
  // that exits the process): what it printed is not a result.
  let inTarget: TestCase[] = [];
  let summarized = false;
  const closeTarget = () => {
    if (!summarized) {
      for (const tc of inTarget) {
        tc.status = 'failed';
        tc.message = 'the test binary exited before it printed its summary (`test result:`)';
      }
    }
    inTarget = [];
    summarized = false;
  };
  // The crate being tested: cargo names a member crate's files from the crate's folder, and runs
  // each crate's unit-test binary (named after it) before its integration tests.
  let crate: string | undefined;
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k] ?? '';
    const unit = /^\s*Running unittests \S+ \((?:.*\/)?deps\/([\w]+)-[0-9a-f]+(?:\.exe)?\)/.exec(line);
    if (unit) crate = unit[1];
    const run = /^\s*Running (?:unittests )?(\S+)/.exec(line);
    const doc = run ? null : /^\s*Doc-tests (\S+)/.exec(line);
    if (run || doc) {
      closeTarget();
      file = run ? (run[1] ?? null) : `doc-tests:${doc?.[1] ?? ''}`;
      continue;
    }
    if (/^test result: /.test(line)) {
      summarized = true;
      continue;
    }
    const t = /^test (.+?) \.\.\. (ok|FAILED|ignored)(?:,.*)?$/.exec(line);
    if (t) {
      // A doc-test is named by its line, which moves whenever the source above it changes.
      const name = (t[1] ?? '').replace(/ - (.*?) \(line \d+\)$/, ' - $1');
      const tc: TestCase = { file, name, status: t[2] === 'ok' ? 'passed' : t[2] === 'FAILED' ? 'failed' : 'skipped', message: '', ...(crate !== undefined && file !== null && !file.startsWith('doc-tests:') ? { crate } : {}) };
      tests.push(tc);
      inTarget.push(tc);
      byName.set(t[1] ?? '', [...(byName.get(t[1] ?? '') ?? []), tc]);
      continue;
    }
    const section = /^---- (.+?) stdout ----$/.exec(line);
    if (section) {
      const body: string[] = [];
      while (k + 1 < lines.length && !/^---- .+ stdout ----$/.test(lines[k + 1] ?? '') && !/^(failures:|test result: )/.test(lines[k + 1] ?? '')) {
        k++;
        if (/^stack backtrace:/.test(lines[k] ?? '')) {
          while (k + 1 < lines.length && /^\s+(\d+:|at )|^note: /.test(lines[k + 1] ?? '')) k++;
          continue;
        }
        body.push(lines[k] ?? '');
      }
      const owners = (byName.get(section[1] ?? '') ?? []).filter((tc) => tc.status === 'failed' && tc.message === '');
      const owner = owners[owners.length - 1];
      if (owner) owner.message = body.join('\n').trim().slice(0, 2000);
    }
  }
  closeTarget();
  return tests;
}
