import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../state/rules/errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Strict flag parsing: an unknown flag, a missing value or a stray argument is a usage error
 * (exit 2) that repeats the verb's usage line.
 */
export function parseFlags<O extends Options>(args: string[], options: O, usage: string, maxPositionals = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message.split('\n')[0]}. Usage: ${usage}`, { cause: err });
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`unexpected argument "${parsed.positionals[maxPositionals]}". Usage: ${usage}`);
  }
  return parsed;
}

export function requireFlag(value: string | undefined, flag: string, usage: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${flag} is required. Usage: ${usage}`);
  return value;
}
