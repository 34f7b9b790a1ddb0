import * as z from 'zod/mini';
import './zod.js';

const nonEmpty = () => z.string().check(z.minLength(1));
/** minimatch patterns, "|"-separated or an array; with "/" against the root-relative path, without against the base name. */
const globList = z.union([nonEmpty(), z.array(nonEmpty()).check(z.minLength(1))]);

/** Test-runner and test-support files frozen together with the tests unless stack.json says otherwise. */
export const DEFAULT_TEST_CONFIG_GLOB = [
  'vitest.config.*',
  'vitest.workspace.*',
  'vitest.setup.*',
  'jest.config.*',
  'jest.setup.*',
  'playwright.config.*',
  'karma.conf.*',
  '.mocharc*',
  'pytest.ini',
  'conftest.py',
  'tox.ini',
];

/** `.tdd/stack.json` (DESIGN §2): strict, so a typo in a key is an error rather than a silent default. */
export const stackSchema = z.strictObject({
  /** JSON Schema reference for editors. */
  $schema: z.optional(z.string()),
  /** Main language of the project, e.g. "typescript". */
  language: nonEmpty(),
  /** Command that runs the whole test suite. */
  test_command: nonEmpty(),
  /** Which files are tests (frozen in GREEN and REFACTOR). */
  test_file_glob: globList,
  /** Which files are production sources (stub-only in RED). */
  source_file_glob: globList,
  /** Regex: a valid RED run prints this (an assertion failure). */
  red_confirm: nonEmpty(),
  /** Regex: output that means a compile or import error (an invalid RED). */
  build_error_pattern: z.optional(nonEmpty()),
  /** Command that must exit 0 in `verify green`. */
  lint_command: z.optional(nonEmpty()),
  /** Test-runner config files frozen with the tests; default DEFAULT_TEST_CONFIG_GLOB. */
  test_config_glob: z.optional(globList),
  /** Timeout in seconds for one test_command run; default 600. */
  test_timeout_seconds: z.optional(z.number().check(z.int(), z.positive(), z.maximum(7200))),
  /** Command printing coverage; `verify green` runs it when set. */
  coverage_command: z.optional(nonEmpty()),
  /** Regex with one capture group: the total coverage percentage in coverage_command output. */
  coverage_pattern: z.optional(nonEmpty()),
  /** Minimum coverage percentage required by `verify green`. */
  coverage_threshold: z.optional(z.number().check(z.minimum(0), z.maximum(100))),
});

export type StackConfig = z.infer<typeof stackSchema>;

export function splitGlobs(value: string | string[]): string[] {
  const list = typeof value === 'string' ? value.split('|') : value;
  return list.map((p) => p.trim()).filter((p) => p.length > 0);
}
