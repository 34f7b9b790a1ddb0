import type { RunFacts } from './report.js';

export interface RunOutcome {
  exitCode: number | null;
  timedOut: boolean;
  timeoutSeconds: number;
  output: string;
  facts: RunFacts;
}

export interface Verdict {
  valid: boolean;
  /** One sentence: why it does not hold and what to do (absent when valid). */
  reason?: string;
  counts: { total: number; failed: number; passed: number };
  /** Failing test files that count for this cycle (red). */
  failingFiles: string[];
}

const NOT_FOUND = /command not found|not recognized as an internal or external command|: not found$/m;

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

/**
 * Valid RED (DESIGN §5): exit ≠ 0, red_confirm matched, no build_error_pattern match, at least
 * one test collected, and failures in test files written or changed during this cycle.
 */
export function judgeRed(
  o: RunOutcome,
  rules: { command: string; redConfirm: RegExp; buildError: RegExp | null; changedTests: readonly string[]; root: string },
): Verdict {
  const counts = o.facts.counts ?? ZERO;
  const refuse = (reason: string): Verdict => ({ valid: false, reason, counts, failingFiles: [] });
  const broken = brokenRun(o, rules.command);
  if (broken) return refuse(broken);
  if (o.exitCode === 0) return refuse('the test command passed (exit 0): nothing fails, so this is not RED; write a test that fails on an assertion');
  if (rules.buildError?.test(o.output)) {
    return refuse(`the run shows a compile or import error (${firstLine(rules.buildError, o.output)}), not a failing assertion; add a STUB:TDD stub so the test loads, then verify red again`);
  }
  const changedLoadErrors = o.facts.loadErrorFiles.map((f) => toCycleFile(f, rules.root, rules.changedTests)).filter((f) => f !== null);
  if (changedLoadErrors.length > 0) {
    return refuse(`${changedLoadErrors.join(', ')} failed to load (compile or import error), not on an assertion; add a STUB:TDD stub so it loads, then verify red again`);
  }
  if (o.facts.counts === null) return refuse('could not tell from the output how many tests ran; make test_command print its runner summary');
  if (counts.total === 0) return refuse('no test was collected; check test_command and that the new test file is picked up by the runner');
  const confirmText = o.facts.messages.length > 0 ? o.facts.messages.join('\n') + '\n' + o.output : o.output;
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

/** GREEN: the whole suite passes and some test ran. */
export function judgeGreen(o: RunOutcome, command: string): Verdict {
  const counts = o.facts.counts ?? ZERO;
  const refuse = (reason: string): Verdict => ({ valid: false, reason, counts, failingFiles: [] });
  const broken = brokenRun(o, command);
  if (broken) return refuse(broken);
  if (o.exitCode !== 0) {
    const loadErr = o.facts.loadErrorFiles.length > 0 ? `${o.facts.loadErrorFiles.slice(0, 3).join(', ')} failed to load` : '';
    const n = o.facts.counts && counts.failed > 0 ? `${counts.failed} of ${counts.total} tests fail` : loadErr || `the test command exited ${o.exitCode}`;
    return refuse(`${n}; fix the source (not the tests) and verify again`);
  }
  if (o.facts.counts !== null && counts.total === 0) return refuse('the test command passed but ran no tests; check test_command');
  if (o.facts.counts !== null && counts.failed > 0) return refuse(`${counts.failed} tests fail although the command exited 0; fix them and verify again`);
  return { valid: true, counts, failingFiles: [] };
}

/** Coverage percentage from coverage_command output; null when the pattern finds none. */
export function parseCoverage(output: string, pattern: RegExp): number | null {
  const m = pattern.exec(output);
  if (!m) return null;
  const v = Number.parseFloat(m[1] ?? m[0]);
  return Number.isFinite(v) ? v : null;
}
