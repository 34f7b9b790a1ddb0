import type { CompiledStack } from '../state/loadStack.js';
import type { RunResult } from './runner.js';
import type { CliState, Receipt } from '../state/schema/cliState.js';
import { judgeGreen, type FrozenTests, type Verdict } from './rules/judge.js';
import type { Isolation } from './oracle/isolate.js';
import { reachVerdict } from './oracle/reach.js';
import { checkDrift, runOracle } from './oracle/run.js';
import { reusable, runInputs, runOfReceipt, verdictOfReceipt } from './runInputs.js';
import type { Context } from '../state/context.js';
import { frozenTests, judgeRedRun, runChecks, runTests, testEnv, withSetupProblem } from './testRun.js';
import type { Tree } from './tree.js';
import { hideHeldout } from '../heldout/judged.js';

/**
 * The one place a RED and a GREEN are judged: `verify red|green|refactor`, `done` and the
 * hand-off verbs all come here, so a verdict cannot depend on which verb asked for it.
 */
interface JudgedRun {
  run: RunResult;
  verdict: Verdict;
  /** Digest of everything the run depended on (runInputs.ts), for the receipt. */
  inputs: string;
  /** The receipt whose run this one reuses (same inputs, valid), instead of running again. */
  reused: Receipt | null;
}

/** Receipts of runs this CLI made that a run of the same inputs may reuse (only valid ones count). */
type ReuseCandidates = readonly (Receipt | undefined)[];

/** RED as `verify red` judges it: the test command in the work tree, per test against the baseline. */
export async function redRun(s: Context, stack: CompiledStack, state: CliState, tree: Tree, label: string, command?: string, reuse: ReuseCandidates = []): Promise<JudgedRun> {
  const cmd = command ?? stack.config.test_command;
  const inputs = runInputs(s.root, stack, state, tree, 'red', cmd, testEnv(s, stack));
  const prior = reusable(reuse, inputs);
  if (prior) return { run: runOfReceipt(s.root, prior), verdict: verdictOfReceipt(prior), inputs, reused: prior };
  const { run, outcome } = await runTests(s, stack, label, tree, command);
  return { run, verdict: withSetupProblem(run, judgeRedRun(s, stack, state, tree, run, outcome)), inputs, reused: null };
}

interface GreenOptions {
  /** lint_command and coverage after the tests pass (`verify green|refactor`, the hand-offs; not `done`). */
  checks: boolean;
  /** A narrowed form of the test command (a hand-off child's); the whole test command by default. */
  command?: string;
  /** What the run is held to; every test frozen at the freeze by default. */
  frozen?: FrozenTests | null;
  /** Receipts of earlier oracle runs: one of the same inputs that held is reused, not re-run. */
  reuse?: ReuseCandidates;
}

/**
 * GREEN as `verify green` judges it: the frozen bytes run out of the agent's reach (runOracle),
 * every frozen test run and passed, a readable count of at least one, the report and the text
 * summary agreeing, no source written this cycle reaching into the runner, then the checks.
 * A run of exactly the inputs of an earlier valid oracle run (same files, settings, toolchain,
 * environment, freeze) is that run: its receipt is reused (the oracle must still be where it was).
 */
export async function greenRun(s: Context, stack: CompiledStack, state: CliState, tree: Tree, label: string, opts: GreenOptions): Promise<JudgedRun & { isolation: Isolation; coverage?: number }> {
  const command = opts.command ?? stack.config.test_command;
  const inputs = runInputs(s.root, stack, state, tree, 'green', command, testEnv(s, stack));
  const prior = reusable(opts.reuse ?? [], inputs);
  if (prior && (prior.oracle === 'namespace' || prior.oracle === 'copy')) {
    checkDrift(s, state, stack, tree, '');
    return { run: runOfReceipt(s.root, prior), verdict: verdictOfReceipt(prior), inputs, reused: prior, isolation: prior.oracle, ...(prior.coverage !== undefined ? { coverage: prior.coverage } : {}) };
  }
  const oracle = await runOracle(s, stack, state, tree, label, opts.command);
  const { outcome, isolation } = oracle;
  const frozen = opts.frozen === undefined ? frozenTests(state) : opts.frozen;
  // Held-out tests out of sight: the log and any refusal name them and their assertion only (docs/heldout.md).
  const hidden = hideHeldout(s, state, oracle.run, outcome, withSetupProblem(oracle.run, reachVerdict(s, stack, tree, judgeGreen(outcome, oracle.run.command, frozen), state.baseline?.sources)));
  const { run } = hidden;
  const judged = hidden.verdict;
  if (!opts.checks) return { run, isolation, verdict: judged, inputs, reused: null };
  const { verdict, coverage } = await runChecks(s, stack, judged);
  return { run, isolation, verdict, inputs, reused: null, ...(coverage !== undefined ? { coverage } : {}) };
}
