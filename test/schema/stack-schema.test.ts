import { toJSONSchema } from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { parseStack } from '../../src/state/loadStack.js';
import { stackSchema } from '../../src/state/schema/stack.js';

describe('stack.json schema', () => {
  it('matches the committed JSON Schema (regenerate with `npx vitest run test/schema -u`)', async () => {
    const schema = { title: 'tdd-gate .tdd/stack.json', ...toJSONSchema(stackSchema, { io: 'input' }) };
    await expect(JSON.stringify(schema, null, 2) + '\n').toMatchFileSnapshot('../../schema/stack.schema.json');
  });

  it('accepts the DESIGN §2 example and an array of globs', () => {
    const base = {
      language: 'typescript',
      test_command: 'npx vitest run',
      test_file_glob: 'tests/**|**/*.test.ts',
      source_file_glob: 'src/**',
      red_confirm: 'AssertionError|expected .* to',
      build_error_pattern: 'SyntaxError|Cannot find module|error TS\\d+',
      lint_command: 'npx eslint .',
    };
    expect(parseStack(JSON.stringify(base)).test_command).toBe('npx vitest run');
    expect(parseStack(JSON.stringify({ ...base, test_file_glob: ['tests/**'], lint_command: undefined })).test_file_glob).toEqual(['tests/**']);
  });

  it.each([
    [{ test_glob: 'x' }, 'unknown key "test_glob"'],
    [{ test_command: '' }, 'test_command'],
    [{ test_file_glob: [] }, 'test_file_glob'],
    [{ test_timeout_seconds: -1 }, 'test_timeout_seconds'],
    [{ language: 3 }, 'language'],
  ])('rejects %j naming the key', (patch, message) => {
    const base = { language: 'ts', test_command: 'x', test_file_glob: 't/**', source_file_glob: 's/**', red_confirm: 'x' };
    expect(() => parseStack(JSON.stringify({ ...base, ...patch }))).toThrow(message);
  });
});
