import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { appendEvent } from '../state/eventLog.js';
import { RefusalError } from '../state/rules/errors.js';
import type { CompiledStack } from '../state/loadStack.js';
import { runCommand, type RunResult } from './runner.js';
import type { CliState, Receipt, ReceiptKind } from '../state/schema/cliState.js';
import { baselineText } from './baseline.js';
import { parseGoJson } from './evidence/goJson.js';
import { identify, isNewOrChanged } from './evidence/identity.js';
import { cargoRunner, instrumentCommand, type InstrumentOptions, type Instrumented } from './evidence/instrument.js';
import { judgeRed, parseCoverage, type FrozenTests, type RunOutcome, type Verdict } from './rules/judge.js';
import { sealedJestFacts, type RunFacts } from './evidence/report.js';
import { textCounts, textFacts } from './evidence/textReport.js';
import { parseMochaReport, unreachedMocha } from './evidence/mocha.js';
import { parseCargoRun } from './evidence/cargo.js';
import { NODE_TEST_SOURCE, nodeTestSummary, npmrcNodeOptions, parseNodeTestReport, unreachedNodeTest } from './evidence/nodeTest.js';
import { cleanEnv } from './oracle/cleanEnv.js';
import type { Context } from '../state/context.js';
import { changedFiles, readText, type Tree } from './tree.js';
import { unassertedTests } from './evidence/jestAsserts.js';
import { parsePytestReport, unreachedPytest } from './evidence/pytestOutcomes.js';
import { missingRunner, setupProblem } from './runnerInstalled.js';
import { maskRustTestRegions } from './rules/testRegions.js';
import { wrongOrigin, type OriginContext } from './rules/failureOrigin.js';
import { parseCanary } from './rules/canary.js';
import { parseReachAllow, reachAllowedFor } from './rules/reachAllow.js';
import { compileGlobs } from '../state/rules/globs.js';
import { splitGlobs } from '../state/schema/stack.js';
import { cacheDirs, openPyCache, projectScope, usesPython, type PyCacheRun } from './oracle/pyCache.js';

export const DEFAULT_TIMEOUT_SECONDS = 600;

const UNREACHED_CARGO = "the output shows cargo test's results, but no test binary ran through tdd-gate's runner, which reads the test harness's own log; run the tests with cargo test from test_command, directly or through a script, and not through a program that clears the environment";

/** The runner's report when it wrote one we can read, else what the text says. */
function factsOf(run: RunResult, root: string): RunFacts {
  // mocha through the gate's reporter: its report or nothing, never the printed text.
  if (run.report.kind === 'mocha') return parseMochaReport(run.report.text);
  if (run.report.kind === 'mocha-unreached') return unreachedMocha();
  // pytest through the gate's plugin: its sealed report or nothing.
  if (run.report.kind === 'pytest') return parsePytestReport(run.report.text, root).facts;
  if (run.report.kind === 'pytest-unreached') return unreachedPytest();
  if (run.report.kind === 'node-test-unreached') return unreachedNodeTest();
  // cargo through the gate's runner: libtest's own logs, never the printed results.
  if (run.report.kind === 'cargo') {
    const cargo = parseCargoRun(run.report.text, run.output);
    if (cargo.counts !== null || cargo.unfinished !== undefined) return cargo;
    // No test binary ran (a compile error, or a command of a cargo project that runs no cargo test): its text.
    const text = textFacts(run.output);
    return text.source === 'cargo' ? { ...cargo, unfinished: UNREACHED_CARGO } : text;
  }
  const text = textFacts(run.output);
  // cargo's results in text no runner of the gate's saw: printed by anything, never evidence.
  if (run.report.kind === 'none' && text.source === 'cargo' && process.platform !== 'win32') return { ...text, counts: null, tests: null, unfinished: UNREACHED_CARGO };
  let report: RunFacts | null = null;
  // vitest and jest through the gate's sealed reporter: its report or nothing, never the printed text.
  if (run.report.kind === 'vitest-json' || run.report.kind === 'jest-json') {
    report = sealedJestFacts(run.report.text, run.report.kind, run.report.sealProblem);
    if (report.unfinished !== undefined) return report;
  } else if (run.report.text !== null) {
    if (run.report.kind === 'node-test') report = parseNodeTestReport(run.report.text);
  }
  if (report === null) return text;
  return { ...report, loadErrorFiles: [...new Set([...report.loadErrorFiles, ...text.loadErrorFiles])] };
}

/**
 * The Python sources whose classes pytest's canary checks for an equality that is always true:
 * every .py source but those runner_reach_allow allows it (`<glob>#always-equal`, or the whole file).
 */
export function pyEqualityChecked(stack: CompiledStack, tree: Tree): string[] {
  const sources = Object.keys(tree.sources).filter((rel) => rel.endsWith('.py'));
  const allow = stack.config.runner_reach_allow;
  if (allow === undefined || sources.length === 0) return sources;
  const entries = parseReachAllow(splitGlobs(allow));
  return sources.filter((rel) => {
    const allowed = reachAllowedFor(entries, rel, (g) => compileGlobs(g, false));
    return allowed !== true && !allowed.includes('always-equal');
  });
}

/** The report flags for the test command, reaching through `npm test` to the script it runs. */
export function instrumentFor(root: string, options: InstrumentOptions = {}): (command: string, reportFile: string) => Instrumented {
  return (command, reportFile) => {
    const plan = instrumentCommand(command, reportFile, (name) => {
      try {
        const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, unknown> };
        const body = pkg.scripts?.[name];
        return typeof body === 'string' ? body : null;
      } catch {
        return null;
      }
    }, { ...options, root });
    // A command that may reach cargo some other way (`make test`, a script, a crate in a subfolder):
    // the runner goes in through the environment; a run that starts no test binary reads as before.
    if (plan.kind === 'none' && process.platform !== 'win32') return cargoRunner(command, reportFile);
    // npm replaces NODE_OPTIONS with the project's `node-options`: the reporter rides along there too.
    const npmrc = plan.nodeOptions ? npmrcNodeOptions(readText(root, '.npmrc')) : null;
    return npmrc === null || !plan.nodeOptions ? plan : { ...plan, env: { npm_config_node_options: `${npmrc} ${plan.nodeOptions}`.trim() } };
  };
}

/** The environment every project command runs in (docs/evidence.md). */
export function testEnv(s: Context, stack: CompiledStack): NodeJS.ProcessEnv {
  // npx and `npm exec` never download or prompt during a run: a missing runner fails at once.
  return { ...cleanEnv(s.io.env, s.root, stack.config.test_env_allow ?? []), npm_config_yes: 'false' };
}

/**
 * Python's bytecode cache for one run (oracle/pyCache.ts), unless the project keeps its own
 * PYTHONPYCACHEPREFIX (test_env_allow) or the command runs no Python. A cache that cannot be set
 * up is no cache: the run goes on without one.
 */
export function pyCacheFor(s: Context, stack: CompiledStack, command: string, env: NodeJS.ProcessEnv): PyCacheRun | null {
  if ((stack.config.test_env_allow ?? []).includes('PYTHONPYCACHEPREFIX') || !usesPython(command, s.root)) return null;
  try {
    const scope = projectScope(s.root);
    const dirs = cacheDirs(s.repo.gitDir, s.root);
    return openPyCache({ dir: dirs.pyc, manifest: dirs.pycManifest, command, root: s.root, pathEnv: env.PATH, env, skipUnder: scope.skipUnder, keepUnder: scope.keepUnder });
  } catch {
    return null;
  }
}

/** After the run: what it compiled goes into the store (never its own files); a failure there costs only speed. */
export function keepPyCache(py: PyCacheRun | null): void {
  try {
    py?.finish();
  } catch {
    py?.discard();
  }
}

/** Refuses before a run whose runner is not installed (runnerInstalled.ts): one line, the cause and the fix. */
export function assertRunnerInstalled(s: Context, command: string, env: NodeJS.ProcessEnv): void {
  const missing = missingRunner({ command, root: s.root, pathEnv: env.PATH });
  if (missing !== null) throw new RefusalError(missing);
}

/** Read what a run says: the facts, the tests by identity, and the text summary beside a machine report. */
export function outcomeOf(run: RunResult, root: string, files: readonly string[], timeoutSeconds: number): RunOutcome {
  const read = (rel: string): string | null => {
    try {
      return readFileSync(path.join(root, rel), 'utf8');
    } catch {
      return null;
    }
  };
  let output = run.output;
  let facts: RunFacts;
  let summary = null;
  if (run.report.kind === 'go-json') {
    // The JSON events replaced the text: judge the text they carry.
    const go = parseGoJson(run.output, run.report.expect !== undefined ? { expect: run.report.expect, text: run.report.canary ?? null } : undefined);
    output = go.text;
    // (what the events said of the run's wholeness stays with the text's facts)
    const whole = { ...(go.facts.unfinished !== undefined ? { unfinished: go.facts.unfinished } : {}), ...(go.facts.binaryEnd !== undefined ? { binaryEnd: go.facts.binaryEnd } : {}) };
    facts = go.facts.counts ? go.facts : { ...textFacts(go.text), tests: go.facts.tests, ...whole };
  } else {
    facts = factsOf(run, root);
    if (['vitest-json', 'jest-json'].includes(facts.source)) summary = textCounts(run.output);
    if (facts.source === NODE_TEST_SOURCE) summary = nodeTestSummary(run.output);
  }
  const tests = facts.tests ? identify(facts.tests, { root, files, read }) : null;
  const unasserted = facts.tests && tests ? unassertedTests(facts.tests, tests, read) : [];
  // pytest: what each test's phases raised, as the gate's own plugin saw it, beside what pytest reported.
  const observed = run.report.kind === 'pytest' && run.report.text !== null ? { observed: parsePytestReport(run.report.text, root).observed } : {};
  const canary = run.report.canary !== undefined ? { canary: { kind: run.report.kind, lines: parseCanary(run.report.canary) } } : {};
  const sealed = run.report.sealProblem !== undefined ? { sealProblem: run.report.sealProblem } : {};
  return { exitCode: run.exitCode, timedOut: run.timedOut, timeoutSeconds, output, facts, tests, summary, ...(unasserted.length > 0 ? { unasserted } : {}), ...observed, ...canary, ...sealed };
}

/** One run of the test command (or a narrowed form of it) in the work tree: RED, through judgeRun.ts. */
export async function runTests(s: Context, stack: CompiledStack, label: string, tree: Tree, command?: string): Promise<{ run: RunResult; outcome: RunOutcome }> {
  const timeoutSeconds = stack.config.test_timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS;
  const env = testEnv(s, stack);
  const cmd = command ?? stack.config.test_command;
  assertRunnerInstalled(s, cmd, env);
  const py = pyCacheFor(s, stack, cmd, env);
  let run: RunResult;
  try {
    run = await runCommand({
      root: s.root,
      command: cmd,
      label,
      timeoutSeconds,
      env: { ...env, ...py?.env },
      instrument: instrumentFor(s.root, { pyEqualityChecked: pyEqualityChecked(stack, tree) }),
      now: s.now(),
      progress: s.io.stderr,
      ...(py ? { onStop: () => py.discard() } : {}),
    });
  } catch (err) {
    py?.discard();
    throw err;
  }
  keepPyCache(py);
  return { run, outcome: outcomeOf(run, s.root, [...Object.keys(tree.tests), ...Object.keys(tree.sources)], timeoutSeconds) };
}

/** RED as `verify red` judges it: per test against the cycle's baseline (docs/evidence.md). */
export function judgeRedRun(s: Context, stack: CompiledStack, state: CliState, tree: Tree, run: RunResult, outcome: RunOutcome): Verdict {
  const changed = changedFiles(state.baseline?.files ?? {}, tree.tests);
  const baseHashes = { ...(state.baseline?.sources ?? {}), ...(state.baseline?.files ?? {}) };
  const changedAll = new Set([...changed, ...changedFiles(state.baseline?.sources ?? {}, tree.sources)]);
  return judgeRed(outcome, {
    command: run.command,
    redConfirm: stack.redConfirm,
    buildError: stack.buildError,
    changedTests: changed,
    root: s.root,
    isNew: (t) => isNewOrChanged(t, changedAll, (rel) => baselineText(s.root, baseHashes, rel), (rel) => readText(s.root, rel)),
    origin: (t) => wrongOrigin(outcome.facts.source, t, originContext(s.root, stack)),
  });
}

/** Where a failure may come from in this project (failureOrigin.ts): its test files, and Rust's inline tests. */
function originContext(root: string, stack: CompiledStack): OriginContext {
  let real = root;
  try {
    real = realpathSync(root);
  } catch {
    // the root as given
  }
  const read = (rel: string) => readText(root, rel);
  const allow = stack.config.runner_reach_allow;
  const helpers = allow === undefined ? [] : parseReachAllow(splitGlobs(allow)).filter((e) => e.construct === null).map((e) => e.glob);
  return {
    roots: real === root ? [root] : [root, real],
    // test code: the test files, and the test helpers a project ships as source (runner_reach_allow's whole-file globs)
    isTest: (rel) => stack.isTest(rel) || (helpers.length > 0 && compileGlobs(helpers, false)(rel)),
    read,
    inTestRegion: (rel, line) => {
      const text = read(rel);
      if (text === null) return false;
      const at = (t: string) => t.split('\n')[line - 1] ?? '';
      return at(text).trim() !== '' && at(maskRustTestRegions(text)).trim() === '';
    },
  };
}

/** lint_command and the coverage threshold, after the tests passed. */
export async function runChecks(s: Context, stack: CompiledStack, verdict: Verdict): Promise<{ verdict: Verdict; coverage?: number }> {
  if (!verdict.valid) return { verdict };
  const timeoutSeconds = stack.config.test_timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS;
  const { lint_command, coverage_command, coverage_pattern, coverage_threshold } = stack.config;
  if (lint_command) {
    const lint = await runCommand({ root: s.root, command: lint_command, label: 'lint', timeoutSeconds, env: testEnv(s, stack), now: s.now() });
    if (lint.exitCode !== 0) {
      const why = lint.timedOut ? 'timed out' : `exited ${String(lint.exitCode ?? lint.signal)}`;
      return { verdict: { ...verdict, valid: false, reason: `lint_command ${why} (see ${lint.log}); fix the lint errors in the source and verify again` } };
    }
  }
  if (coverage_command) {
    const cov = await runCommand({ root: s.root, command: coverage_command, label: 'coverage', timeoutSeconds, env: testEnv(s, stack), now: s.now() });
    const pattern = new RegExp(coverage_pattern ?? 'All files[^\\d]*([\\d.]+)');
    const value = cov.exitCode === 0 ? parseCoverage(cov.output, pattern) : null;
    if (value === null) {
      return { verdict: { ...verdict, valid: false, reason: `coverage_command ${cov.exitCode === 0 ? `printed nothing matching /${pattern.source}/` : `exited ${String(cov.exitCode)}`} (see ${cov.log}); fix coverage_command or coverage_pattern in .tdd/stack.json` } };
    }
    if (coverage_threshold !== undefined && value < coverage_threshold) {
      return { verdict: { ...verdict, valid: false, reason: `coverage ${value}% is below coverage_threshold ${coverage_threshold}%; cover the new code and verify again` }, coverage: value };
    }
    return { verdict, coverage: value };
  }
  return { verdict };
}

/** Where a run came from: the digest of its inputs, and the earlier receipt it reuses, if any. */
interface RunOrigin {
  inputs: string;
  reused: Receipt | null;
}

export function makeReceipt(s: Context, run: RunResult, verdict: Verdict, tree: Tree, coverage?: number, origin?: RunOrigin): Receipt {
  return {
    at: s.now().toISOString(),
    ...(origin ? { inputs_sha256: origin.inputs } : {}),
    ...(origin?.reused ? { reused_from: origin.reused.reused_from ?? origin.reused.at } : {}),
    command: run.command,
    exit_code: run.exitCode,
    valid: verdict.valid,
    counts: verdict.counts,
    output_sha256: run.outputSha256,
    log: run.log,
    ...(verdict.reason ? { reason: verdict.reason } : {}),
    tests_sha256: tree.testsDigest,
    tree_sha256: tree.treeDigest,
    ...(verdict.failingFiles.length > 0 ? { failing_files: verdict.failingFiles } : {}),
    ...(coverage !== undefined ? { coverage } : {}),
    ...(verdict.tests ? { tests: verdict.tests } : {}),
    ...(verdict.redTests ? { red_tests: verdict.redTests } : {}),
    ...(verdict.redMessages ? { red_messages: verdict.redMessages } : {}),
  };
}

export function recordReceiptEvent(s: Context, kind: ReceiptKind | 'final', receipt: Receipt): void {
  appendEvent(s.root, { type: 'receipt', kind, valid: receipt.valid, counts: receipt.counts, log: receipt.log, ...(receipt.reason ? { reason: receipt.reason } : {}) });
}

/** What GREEN is held to, from the freeze (or, for a cycle frozen before per-test records, the RED receipt). */
export function frozenTests(state: CliState): FrozenTests | null {
  const f = state.frozen;
  const red = state.receipts?.red;
  const tests = f?.tests ?? red?.tests ?? null;
  const redTests = f?.red_tests ?? red?.red_tests ?? [];
  const counts = f?.red_counts ?? red?.counts ?? null;
  if (!tests && !counts) return null;
  return { tests, redTests, counts };
}

/** What the verbs add to their line when the run of the same inputs was reused. */
export function reusedNote(reused: Receipt | null): string {
  return reused ? `; nothing changed since the run at ${reused.reused_from ?? reused.at}, so that run stands` : '';
}

export function countsText(r: Receipt): string {
  return `${r.counts.total} tests, ${r.counts.failed} failing`;
}

/** A runner that could not start (not installed for the interpreter, not on PATH) says so in one line. */
export function withSetupProblem(run: RunResult, verdict: Verdict): Verdict {
  if (verdict.valid) return verdict;
  const problem = setupProblem(run.output, run.exitCode, run.command);
  return problem === null ? verdict : { ...verdict, valid: false, reason: problem };
}
