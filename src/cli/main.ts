export interface CliIo {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

/** Placeholder until the CLI lands. */
export function main(argv: string[], io: CliIo): Promise<number> {
  io.stderr.write(`tdd-gate: unknown verb ${argv[0] ?? '(none)'}\n`);
  return Promise.resolve(2);
}
