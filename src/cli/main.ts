import { VERBS } from './registry.js';
import type { CliIo } from './verb.js';

export type { CliIo } from './verb.js';

/** Placeholder dispatcher until the CLI lands. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const verb = VERBS.find((v) => v.name === argv[0]);
  if (!verb) {
    io.stderr.write(`tdd-gate: unknown verb ${argv[0] ?? '(none)'}\n`);
    return 2;
  }
  return verb.run(argv.slice(1), io);
}
