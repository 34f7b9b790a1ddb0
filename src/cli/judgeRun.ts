import type { CompiledStack } from '../io/loadStack.js';
import type { RunResult } from '../io/runner.js';
import type { CliState } from '../schema/cliState.js';
import type { FrozenTests, RunOutcome, Verdict } from './evidence/judge.js';
import type { Isolation } from './oracle/isolate.js';
import { reachVerdict } from './oracle/reach.js';
import { runOracle } from './oracle/run.js';
import type { Session } from './session.js';
import { frozenTests, greenVerdict, judgeRedRun, runChecks, runTests, withSetupProblem } from './testRun.js';
import type { Tree } from './tree.js';

/**
 * The one place a RED and a GREEN are judged: `verify red|green|refactor`, `done` and the
 * hand-off verbs all come here, so a verdict cannot depend on which verb asked for it.
 */
export interface JudgedRun {
  run: RunResult;
  outcome: RunOutcome;
  verdict: Verdict;
}

/** RED as `verify red` judges it: the test command in the work tree, per test against the baseline. */
export async function redRun(s: Session, stack: CompiledStack, state: CliState, tree: Tree, label: string, command?: string): Promise<JudgedRun> {
  const { run, outcome } = await runTests(s, stack, label, tree, command);
  return { run, outcome, verdict: withSetupProblem(run, judgeRedRun(s, stack, state, tree, run, outcome)) };
}

export interface GreenOptions {
  /** lint_command and coverage after the tests pass (`verify green|refactor`, the hand-offs; not `done`). */
  checks: boolean;
  /** A narrowed form of the test command (a hand-off child's); the whole test command by default. */
  command?: string;
  /** What the run is held to; every test frozen at the freeze by default. */
  frozen?: FrozenTests | null;
}

/**
 * GREEN as `verify green` judges it: the frozen bytes run out of the agent's reach (runOracle),
 * every frozen test run and passed, a readable count of at least one, the report and the text
 * summary agreeing, no source written this cycle reaching into the runner, then the checks.
 */
export async function greenRun(s: Session, stack: CompiledStack, state: CliState, tree: Tree, label: string, opts: GreenOptions): Promise<JudgedRun & { isolation: Isolation; coverage?: number }> {
  const { run, outcome, isolation } = await runOracle(s, stack, state, tree, label, opts.command);
  const frozen = opts.frozen === undefined ? frozenTests(state) : opts.frozen;
  const judged = withSetupProblem(run, reachVerdict(s, stack, tree, greenVerdict(outcome, run.command, frozen), state.baseline?.sources));
  if (!opts.checks) return { run, outcome, isolation, verdict: judged };
  const { verdict, coverage } = await runChecks(s, stack, judged);
  return { run, outcome, isolation, verdict, ...(coverage !== undefined ? { coverage } : {}) };
}
