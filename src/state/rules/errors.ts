/** A problem the user or the model can fix (bad config, corrupt state, bad arguments). */
export class GateError extends Error {
  override name = 'GateError';
  constructor(
    message: string,
    readonly ruleId: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
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
