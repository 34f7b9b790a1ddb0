// Schema errors in words: what is wrong with a value, never the schema library's own phrasing.
import * as z from 'zod/mini';
import '../../src/state/schema/zod.js';
import { describe, expect, it } from 'vitest';
import { formatIssues } from '../../src/state/schema/format.js';

const schema = z.strictObject({
  command: z.string(),
  globs: z.union([z.string(), z.array(z.string())]),
  mode: z.optional(z.enum(['standard', 'light-inline'])),
  limit: z.optional(z.number()),
});

function message(input: unknown, withInput = true): string {
  const r = schema.safeParse(input);
  if (r.success) throw new Error('expected a parse error');
  return withInput ? formatIssues(r.error, input) : formatIssues(r.error);
}

describe('formatIssues', () => {
  it.each([
    [{ globs: 'a' }, 'command: is missing (it must be a string)'],
    [{ command: 3, globs: 'a' }, 'command: must be a string, not a number'],
    [{ command: 'x' }, 'globs: is missing (it must be a string or a list)'],
    [{ command: 'x', globs: 4 }, 'globs: must be a string or a list, not a number'],
    [{ command: 'x', globs: 'a', mode: 'fast' }, 'mode: must be one of "standard", "light-inline"'],
    [{ command: 'x', globs: 'a', limit: '3' }, 'limit: must be a number, not a string'],
    [{ command: 'x', globs: 'a', colour: 'red', size: 1 }, '(top level): unknown keys "colour", "size"'],
    [[], '(top level): must be an object, not a list'],
  ])('%j → %s', (input, expected) => {
    expect(message(input)).toBe(expected);
  });

  it('joins several problems and never shows zod wording', () => {
    const text = message({ command: 1, colour: 'red' });
    expect(text).toBe('command: must be a string, not a number; globs: is missing (it must be a string or a list); (top level): unknown key "colour"');
    expect(text).not.toMatch(/Invalid input|expected \w+, received/u);
  });

  it("keeps a schema's own message", () => {
    const own = z.strictObject({ status: z.enum(['ok', 'failed'], { error: 'must be one of ok, failed' }) });
    const r = own.safeParse({ status: 'done' });
    expect(r.success).toBe(false);
    expect(formatIssues(r.error!, { status: 'done' })).toBe('status: must be one of ok, failed');
  });

  it('without the input it still says what is missing or wrong', () => {
    expect(message({ globs: 'a' }, false)).toBe('command: is missing (it must be a string)');
    expect(message({ command: 3, globs: 'a' }, false)).toBe('command: must be a string, not number');
  });
});
