/**
 * A problem the user or the model can fix (bad config, corrupt state, bad arguments). The problem
 * and the fix travel apart: a caller that knows a better fix for its own context (the CLI, where
 * the hook would say "ask the user") says its own after the problem, and never edits the text.
 */
export class GateError extends Error {
  override name = 'GateError';
  /** What is wrong, without what to do about it. */
  readonly problem: string;
  /** What to do about it, when the thrower knows; the message is the problem, a period and this. */
  readonly fix: string | undefined;
  constructor(
    message: string | { problem: string; fix: string },
    readonly ruleId: string,
    options?: { cause?: unknown },
  ) {
    const problem = typeof message === 'string' ? message : message.problem;
    const fix = typeof message === 'string' ? undefined : message.fix;
    super(fix === undefined ? problem : `${problem}. ${fix}`, options);
    this.problem = problem;
    this.fix = fix;
  }
}

/** A refusal by the CLI: the evidence does not hold (exit 1). */
export class RefusalError extends Error {
  override name = 'RefusalError';
}

/** Bad command-line usage (exit 2). */
export class UsageError extends Error {
  override name = 'UsageError';
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
