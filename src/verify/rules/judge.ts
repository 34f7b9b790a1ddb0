import type { IdentifiedTest } from '../evidence/identity.js';
import { NODE_TEST_SOURCE } from '../evidence/nodeTest.js';
import { pytestDisagreement } from '../evidence/pytestOutcomes.js';
import type { Counts, RunFacts, TestStatus } from '../evidence/report.js';
import { canaryProblem, type CanaryLine } from './canary.js';

export interface RunOutcome {
  exitCode: number | null;
  timedOut: boolean;
  timeoutSeconds: number;
  output: string;
  facts: RunFacts;
  /** Every test the runner reported, by identity; null when it gave no per-test report. */
  tests?: IdentifiedTest[] | null;
  /** The counts the runner's text summary printed, when a machine report was read as well. */
  summary?: Counts | null;
  /** Tests that passed without one of the expect() calls their declaration makes passing (jest); GREEN holds the RED tests to it. */
  unasserted?: string[];
  /** The assertion-machinery canary's lines and the report kind (src/verify/canary.ts); absent when the run had none. */
  canary?: { kind: string; lines: CanaryLine[] };
  /** pytest: each test's outcome as the gate's own plugin saw it (null: the plugin never started); absent when it was not loaded. */
  observed?: ReadonlyMap<string, TestStatus> | null;
  /** Why the gate's sealed report is not evidence (evidence/seal.ts); absent when it held or the run had none. */
  sealProblem?: string;
}

export interface Verdict {
  valid: boolean;
  /** One sentence: why it does not hold and what to do (absent when valid). */
  reason?: string;
  counts: { total: number; failed: number; passed: number; skipped?: number };
  /** Failing test files that count for this cycle (red). */
  failingFiles: string[];
  /** Each test's result in this run, by id (absent when the runner reported no tests by name). */
  tests?: Record<string, TestStatus>;
  /** RED: the tests that count (new or changed, failing on an assertion). */
  redTests?: string[];
  /** RED: each counted test's failure message, first lines (what the cycle record shows a reviewer). */
  redMessages?: Record<string, string>;
}

/** What GREEN is held to: the tests of the frozen RED run. */
export interface FrozenTests {
  /** Each test's result in the valid RED run (the tests as they were at the freeze). */
  tests: Record<string, TestStatus> | null;
  /** The tests that made RED valid. */
  redTests: readonly string[];
  /** RED's counts, for runners that report no tests by name. */
  counts: { total: number; failed: number; passed: number } | null;
}

const NOT_FOUND = /command not found|not recognized as an internal or external command|: not found$/m;

/**
 * A failure that says a name does not exist yet: the test never reached an assertion. JavaScript,
 * Python, Go (compile errors) and Rust, plus stubs that panic or raise "not implemented".
 */
const MISSING_SYMBOL =
  /\bis not a (?:function|constructor)\b|\bis not defined\b|does not provide an export named|\bis not exported\b|Cannot find module|\bAttributeError\b|\bImportError\b|\bModuleNotFoundError\b|\bNameError\b|\bNotImplementedError\b|cannot import name|\bundefined: \w|has no field or method|cannot find (?:function|value|type|struct|module|macro|trait|crate)|unresolved import|no (?:method|function|associated item) named|\berror\[E0(?:425|432|433|412|599)\]|not (?:yet )?implemented/;

/** jest in CI mode: a snapshot assertion with no stored snapshot fails whatever the code returns. */
const NO_SNAPSHOT = /New snapshot was not written/;

/** A panic is not an assertion in Go (a nil stub dereferenced); in Rust a panic is how assertions fail. */
const GO_PANIC = /^panic: |\[recovered\]|runtime error: /m;

function firstLine(re: RegExp, text: string): string {
  const m = re.exec(text);
  if (!m) return '';
  const start = text.lastIndexOf('\n', m.index) + 1;
  const end = text.indexOf('\n', m.index);
  return text.slice(start, end === -1 ? undefined : end).trim().slice(0, 160);
}

/** Problems that make any run worthless as evidence, red or green. */
function brokenRun(o: RunOutcome, command: string): string | null {
  if (o.timedOut) return `the test command did not finish within ${o.timeoutSeconds}s and was killed; fix the hanging test or raise test_timeout_seconds in .tdd/stack.json`;
  if (o.exitCode === 127 || (o.exitCode !== 0 && NOT_FOUND.test(o.output) && o.facts.counts === null)) {
    return `the test command was not found (${firstLine(NOT_FOUND, o.output) || command}); fix test_command in .tdd/stack.json or install the runner`;
  }
  if (o.exitCode === null) return 'the test command was killed by a signal; run it by hand to see why';
  return null;
}

/** Match a runner-reported path (absolute, relative, or a junit candidate) to a root-relative test file. */
export function toCycleFile(reported: string, root: string, candidates: readonly string[]): string | null {
  const norm = reported.replace(/\\/g, '/').replace(/^\.\//, '');
  const rel = norm.startsWith(root + '/') ? norm.slice(root.length + 1) : norm;
  if (candidates.includes(rel)) return rel;
  return candidates.find((c) => c.endsWith('/' + rel) || rel.endsWith('/' + c)) ?? null;
}

const ZERO = { total: 0, failed: 0, passed: 0 };

function statusMap(tests: readonly IdentifiedTest[]): Record<string, TestStatus> {
  const out: Record<string, TestStatus> = {};
  for (const t of tests) {
    // The same id twice (a name built from a loop): one failure makes it fail.
    const prev = out[t.id];
    out[t.id] = prev === 'failed' || t.status === 'failed' ? 'failed' : prev === 'passed' || t.status === 'passed' ? 'passed' : 'skipped';
  }
  return out;
}

/**
 * A freeze written by an older version keyed each test by the runner's name (now its label). A
 * frozen id that no test has now is looked up there, among the tests not frozen under their own id
 * (so one test never answers for two).
 */
function byLabel(tests: readonly IdentifiedTest[], frozen: ReadonlySet<string>): Record<string, TestStatus> {
  return statusMap(tests.filter((t) => t.label !== undefined && !frozen.has(t.id)).map((t) => ({ ...t, id: t.label as string })));
}

const STUB_THROWS = /\bNotImplementedError\b|not (?:yet )?implemented|\bunimplemented\b/;

/** A test as a refusal names it: its id, and what the runner called it this time when that differs. */
function shown(t: IdentifiedTest): string {
  if (t.label === undefined || t.label === t.id) return t.id;
  const sep = t.label.indexOf('::');
  return `${t.id} (this run: "${sep === -1 ? t.label : t.label.slice(sep + 2)}")`;
}

const list = (xs: readonly string[], n = 3) => `${xs.slice(0, n).join(', ')}${xs.length > n ? ` and ${xs.length - n} more` : ''}`;

/** Why one failing test's failure is not an assertion (null when it is one). */
export function notAnAssertion(t: IdentifiedTest, redConfirm: RegExp, buildError: RegExp | null, runner: string, origin?: (t: IdentifiedTest) => string | null): string | null {
  const msg = t.message;
  if (msg.trim() === '') return 'it failed without a message';
  if (NO_SNAPSHOT.test(msg)) return 'it fails because its snapshot does not exist yet (tdd-gate runs jest with --ci, which writes none), whatever the code returns: write the expected snapshot file with the test, or assert the value itself';
  // A stub that throws (`unimplemented!()`, `raise NotImplementedError`) is there, but no assertion ran.
  if (STUB_THROWS.test(msg)) return `it fails in a stub that throws (${firstLine(STUB_THROWS, msg)}), not on an assertion: let the STUB:TDD stub return a value (a wrong one) so the test's assertion fails`;
  if (MISSING_SYMBOL.test(msg)) return `it fails on a missing name (${firstLine(MISSING_SYMBOL, msg)}), not an assertion: add a STUB:TDD stub first`;
  if (buildError?.test(msg)) return `it fails on a compile or import error (${firstLine(buildError, msg)}): add a STUB:TDD stub first`;
  if (runner === 'go-json' && GO_PANIC.test(msg)) return `it panics (${firstLine(GO_PANIC, msg)}) instead of failing an assertion`;
  // Where it failed: in the test's own code, not in the stub, not on a missing fixture (failureOrigin.ts).
  const wrong = origin?.(t) ?? null;
  if (wrong !== null) return wrong;
  if (runner === 'go-json') return null; // t.Error/t.Fatal: Go's assertion is the failing test itself
  if (!redConfirm.test(msg)) return `its failure message does not match red_confirm /${redConfirm.source}/ (${msg.split('\n')[0]?.slice(0, 120) ?? ''})`;
  return null;
}

/**
 * Valid RED (DESIGN §5): exit ≠ 0, at least one test collected, and at least one test written
 * or changed in this cycle failing on an assertion — judged per test from its own failure
 * message when the runner reports tests by name, from the files and the output otherwise.
 */
export function judgeRed(
  o: RunOutcome,
  rules: {
    command: string;
    redConfirm: RegExp;
    buildError: RegExp | null;
    changedTests: readonly string[];
    root: string;
    /** Per test: written or changed in this cycle (needs the tests by identity). */
    isNew?: (t: IdentifiedTest) => boolean;
    /** Per failing test: why its failure did not come from the test's own assertion (failureOrigin.ts), or null. */
    origin?: (t: IdentifiedTest) => string | null;
  },
): Verdict {
  const counts = o.facts.counts ?? ZERO;
  const tests = o.tests ?? null;
  const refuse = (reason: string): Verdict => ({ valid: false, reason, counts, failingFiles: [], ...(tests ? { tests: statusMap(tests) } : {}) });
  const broken = brokenRun(o, rules.command);
  if (broken) return refuse(broken);
  if (o.exitCode === 0) return refuse('the test command passed (exit 0): nothing fails, so this is not RED; write a test that fails on an assertion');
  // The gate's sealed report does not hold (the process ended early, something else wrote it): no
  // test's failure can be read from it. A test that never loaded still says so (a missing name, a
  // compile or import error in the output): that is what to fix first.
  if (o.sealProblem !== undefined) {
    const loadError = MISSING_SYMBOL.test(o.output) || rules.buildError?.test(o.output) === true;
    return refuse(loadError ? stubOrNothing(o, rules.buildError, o.facts.unfinished ?? 'the tests did not run to the end') : `${o.sealProblem}; remove what ends the test process or writes where the runner's report goes, then verify red again`);
  }
  // The gate's own reporter saw the run cut short: what ran before proves nothing about the rest.
  if (o.facts.unfinished && (tests ?? []).length > 0) return refuse(`${o.facts.unfinished}; then verify red again`);
  const changedLoadErrors = o.facts.loadErrorFiles.map((f) => toCycleFile(f, rules.root, rules.changedTests)).filter((f) => f !== null);
  if (changedLoadErrors.length > 0) {
    return refuse(`${changedLoadErrors.join(', ')} failed to load (compile or import error), not on an assertion; add a STUB:TDD stub so it loads, then verify red again`);
  }
  if (tests !== null && rules.isNew) {
    if (tests.length === 0 || o.facts.counts === null) return refuse(stubOrNothing(o, rules.buildError, o.facts.unfinished ?? 'no test ran'));
    const failing = tests.filter((t) => t.status === 'failed');
    const fresh = failing.filter((t) => rules.isNew!(t));
    if (fresh.length === 0) {
      if (failing.length === 0) return refuse(stubOrNothing(o, rules.buildError, 'no test failed by name'));
      if (rules.changedTests.length === 0) return refuse('no test file was written or changed in this cycle; write the failing test first');
      return refuse(`the failing tests were not written or changed in this cycle (failing: ${list(failing.map(shown))}); a pre-existing failure is not RED: write a test for the SPEC that fails`);
    }
    const problems = fresh.map((t) => ({ t, why: notAnAssertion(t, rules.redConfirm, rules.buildError, o.facts.source, rules.origin) }));
    const counted = problems.filter((p) => p.why === null).map((p) => p.t);
    if (counted.length === 0) {
      const first = problems[0]!;
      return refuse(`${shown(first.t)}: ${first.why ?? ''}${problems.length > 1 ? ` (and ${problems.length - 1} more tests like it)` : ''}; make the new test fail on an assertion, then verify red again`);
    }
    const files = [...new Set(counted.map((t) => t.file).filter((f): f is string => f !== null))];
    return { valid: true, counts, failingFiles: files, tests: statusMap(tests), redTests: counted.map((t) => t.id), redMessages: Object.fromEntries(counted.map((t) => [t.id, shortMessage(t.message)])) };
  }

  // No tests by name: judge the files and the output text.
  if (rules.buildError?.test(o.output)) {
    return refuse(`the run shows a compile or import error (${firstLine(rules.buildError, o.output)}), not a failing assertion; add a STUB:TDD stub so the test loads, then verify red again`);
  }
  if (o.facts.counts === null) return refuse('could not tell from the output how many tests ran; make test_command print its runner summary');
  if (counts.total === 0) return refuse('no test was collected; check test_command and that the new test file is picked up by the runner');
  if (MISSING_SYMBOL.test(o.output) && !rules.redConfirm.test(o.output.replace(MISSING_SYMBOL, ''))) {
    return refuse(`the run fails on a missing name (${firstLine(MISSING_SYMBOL, o.output)}), not an assertion; add a STUB:TDD stub first, then verify red again`);
  }
  const confirmText = o.facts.messages.length > 0 ? o.facts.messages.join('\n') : o.output;
  if (!rules.redConfirm.test(confirmText)) {
    return refuse(`the failure does not match red_confirm /${rules.redConfirm.source}/, so it is not an assertion failure; make the test fail on an assertion (or fix red_confirm in .tdd/stack.json)`);
  }
  if (rules.changedTests.length === 0) return refuse('no test file was written or changed in this cycle; write the failing test first');
  let failing = o.facts.failingFiles.map((f) => toCycleFile(f, rules.root, rules.changedTests)).filter((f): f is string => f !== null);
  if (o.facts.failingFiles.length === 0) {
    // No runner told us which files failed: fall back to the changed test files the output names.
    failing = rules.changedTests.filter((f) => o.output.includes(f));
  }
  failing = [...new Set(failing)];
  if (failing.length === 0) {
    const where = o.facts.failingFiles.length > 0 ? ` (failing: ${o.facts.failingFiles.slice(0, 3).join(', ')})` : '';
    return refuse(`the failures are not in a test file written or changed in this cycle${where}; a pre-existing failure is not RED: write a test for the SPEC that fails`);
  }
  return { valid: true, counts, failingFiles: failing };
}

/** A failure message as a record keeps it: its first lines, bounded. */
function shortMessage(message: string): string {
  return message.split('\n').slice(0, 6).join('\n').trim().slice(0, 600);
}

function stubOrNothing(o: RunOutcome, buildError: RegExp | null, what: string): string {
  if (MISSING_SYMBOL.test(o.output)) return `${what}: the run fails on a missing name (${firstLine(MISSING_SYMBOL, o.output)}); add a STUB:TDD stub first, then verify red again`;
  if (buildError?.test(o.output)) return `${what}: the run shows a compile or import error (${firstLine(buildError, o.output)}); add a STUB:TDD stub so the tests build, then verify red again`;
  return `${what}; check that test_command collects the new test and that it fails on an assertion`;
}

/** The machine report and the text summary must tell the same story, and pytest's report what its hooks saw. */
function disagreement(o: RunOutcome): string | null {
  if (o.observed !== undefined && o.facts.tests) {
    const why = pytestDisagreement(o.facts.tests, o.tests?.map((t) => t.id) ?? [], o.observed);
    if (why) return why;
  }
  const r = o.facts.counts;
  const t = o.summary;
  if (!r || !t) return null;
  // node:test's summary counts what its report does: every count must match.
  const whole = o.facts.source === NODE_TEST_SOURCE && (t.total !== r.total || t.failed !== r.failed || (t.skipped ?? 0) !== (r.skipped ?? 0));
  if (whole || (r.failed > 0) !== (t.failed > 0) || t.passed !== r.passed) {
    const skipped = (c: Counts) => (whole ? `, ${c.skipped ?? 0} skipped, ${c.total} in all` : '');
    return `the runner's report (${r.passed} passed, ${r.failed} failed${skipped(r)}) and its printed summary (${t.passed} passed, ${t.failed} failed${skipped(t)}) disagree; something rewrites the report: remove it from the source and verify again`;
  }
  return null;
}

/**
 * GREEN: the command exits 0, the count is readable and not zero, nothing fails, the report and
 * the summary agree, and every test that ran in the valid RED (every frozen test, and so every
 * test that made RED valid) ran again and passed — not skipped, not missing.
 */
export function judgeGreen(o: RunOutcome, command: string, frozen: FrozenTests | null = null): Verdict {
  const counts = o.facts.counts ?? ZERO;
  const tests = o.tests ?? null;
  const map = tests ? statusMap(tests) : undefined;
  const refuse = (reason: string): Verdict => ({ valid: false, reason, counts, failingFiles: [], ...(map ? { tests: map } : {}) });
  const broken = brokenRun(o, command);
  if (broken) return refuse(broken);
  if (o.sealProblem !== undefined) return refuse(`${o.sealProblem}; remove what ends the test process or writes where the runner's report goes, and verify again`);
  if (o.facts.unfinished) return refuse(`${o.facts.unfinished}; then verify again`);
  // go test: a test binary that did not run to its end (the gate's last test did not pass, or its
  // check found the output rerouted). Named first unless a test of the project's own failed.
  const projectFailed = (o.facts.counts?.failed ?? 0) > 0 || o.facts.loadErrorFiles.length > 0;
  if (o.facts.binaryEnd && !(o.exitCode !== 0 && projectFailed)) return refuse(`${o.facts.binaryEnd}; then verify again`);
  if (o.exitCode !== 0) {
    const loadErr = o.facts.loadErrorFiles.length > 0 ? `${o.facts.loadErrorFiles.slice(0, 3).join(', ')} failed to load` : '';
    const named = (tests ?? []).filter((t) => t.status === 'failed').map(shown);
    const n = o.facts.counts && counts.failed > 0 ? `${counts.failed} of ${counts.total} tests fail${named.length > 0 ? `: ${list(named)}` : ''}` : loadErr || `the test command exited ${o.exitCode}`;
    return refuse(`${n}; fix the source (not the tests) and verify again`);
  }
  if (o.facts.counts === null) {
    return refuse('the test command exited 0 but printed no runner summary, so how many tests ran cannot be read (a process that exits before the runner reports looks like this); make the tests run and verify again');
  }
  const passedByName = tests?.filter((t) => t.status === 'passed').length;
  if (counts.total === 0 || counts.passed === 0 || passedByName === 0) {
    return refuse('the test command passed but ran no tests; check test_command and that nothing in the source ends the run early');
  }
  if (counts.failed > 0) return refuse(`${counts.failed} tests fail although the command exited 0; fix them and verify again`);
  const disagree = disagreement(o);
  if (disagree) return refuse(disagree);
  if (o.canary) {
    const files = o.canary.kind === 'node-test' ? [...new Set((o.facts.tests ?? []).map((t) => t.file).filter((f): f is string => f !== null))] : [];
    const why = canaryProblem(o.canary.kind, o.canary.lines, files);
    if (why) return refuse(why);
  }
  // A test that made RED valid failed on an assertion then; passing now with none run is a swapped body.
  // (Older tests may pass vacuously by design: a conditional expect.)
  const unasserted = (o.unasserted ?? []).filter((id) => frozen?.redTests.includes(id));
  if (unasserted.length > 0) {
    return refuse(`${unasserted.length} tests that made RED valid passed without running the expect() assertions they are written with: ${list(unasserted)}; something replaced the test bodies (a source that reaches into the runner's globals): remove it and verify again`);
  }
  if (frozen?.tests) {
    if (!map) return refuse('the runner reported no tests by name this time, but RED did; run the frozen test command unchanged');
    const missing: string[] = [];
    const skipped: string[] = [];
    const failed: string[] = [];
    const must = new Set([...Object.entries(frozen.tests).filter(([, s]) => s !== 'skipped').map(([id]) => id), ...frozen.redTests]);
    const legacy = byLabel(tests ?? [], new Set([...Object.keys(frozen.tests), ...frozen.redTests]));
    for (const id of must) {
      const now = map[id] ?? legacy[id];
      if (now === undefined) missing.push(id);
      else if (now === 'skipped') skipped.push(id);
      else if (now === 'failed') failed.push(id);
    }
    if (failed.length > 0) return refuse(`${failed.length} frozen tests fail: ${list(failed)}; fix the source and verify again`);
    if (skipped.length > 0) return refuse(`${skipped.length} frozen tests were skipped instead of run: ${list(skipped)}; a skipped test is not a passing one: remove what skips it from the source and verify again`);
    if (missing.length > 0) return refuse(`${missing.length} frozen tests did not run: ${list(missing)}${o.facts.narrowed ? ` (${o.facts.narrowed})` : ''}; every test frozen at the freeze must run and pass: remove what deselects them and verify again`);
  } else if (frozen?.counts) {
    const ran = frozen.counts.passed + frozen.counts.failed;
    if (counts.passed < ran) return refuse(`only ${counts.passed} tests passed, but ${ran} ran in RED; every frozen test must run and pass`);
  }
  return { valid: true, counts, failingFiles: [], ...(map ? { tests: map } : {}) };
}

/** Coverage percentage from coverage_command output; null when the pattern finds none. */
export function parseCoverage(output: string, pattern: RegExp): number | null {
  const m = pattern.exec(output);
  if (!m) return null;
  const v = Number.parseFloat(m[1] ?? m[0]);
  return Number.isFinite(v) ? v : null;
}
