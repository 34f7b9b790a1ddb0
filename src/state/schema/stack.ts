import * as z from 'zod/mini';
import { DEFAULT_TEST_CONFIG_GLOB } from './stackGlobs.js';
import './zod.js';

export { DEFAULT_TEST_CONFIG_GLOB, splitGlobs } from './stackGlobs.js';

const nonEmpty = () => z.string().check(z.minLength(1));
/** A description that reaches the generated JSON Schema (schema/stack.schema.json). */
function doc<T extends z.ZodMiniType>(schema: T, description: string): T {
  return schema.check(z.describe(description));
}
/** minimatch patterns, "|"-separated or an array; with "/" against the root-relative path, without against the base name. */
const globList = z.union([nonEmpty(), z.array(nonEmpty()).check(z.minLength(1))]);

/**
 * `.tdd/stack.json` (DESIGN §2): strict, so a typo in a key is an error rather than a silent
 * default. The hook checks the same keys by hand (handChecks.ts), held to this schema by its tests.
 */
export const stackSchema = z.strictObject({
  $schema: doc(z.optional(z.string()), 'JSON Schema reference for editors.'),
  language: doc(nonEmpty(), 'Main language of the project, e.g. "typescript".'),
  test_command: doc(nonEmpty(), 'Command that runs the whole test suite.'),
  test_file_glob: doc(globList, 'Which files are tests (frozen in GREEN and REFACTOR). Folders are separated by `/` on every system.'),
  source_file_glob: doc(globList, 'Which files are production sources (stub-only in RED). Folders are separated by `/` on every system.'),
  red_confirm: doc(nonEmpty(), 'Regex: a valid RED run prints this (an assertion failure).'),
  build_error_pattern: doc(z.optional(nonEmpty()), 'Regex: output that means a compile or import error (an invalid RED).'),
  lint_command: doc(z.optional(nonEmpty()), 'Command that must exit 0 in `verify green`.'),
  test_config_glob: doc(z.optional(globList), `Test-runner config files frozen with the tests; default: ${DEFAULT_TEST_CONFIG_GLOB.join('|')}.`),
  test_timeout_seconds: doc(z.optional(z.number().check(z.int(), z.positive(), z.maximum(7200))), 'Timeout in seconds for one test_command run; default 600.'),
  coverage_command: doc(z.optional(nonEmpty()), 'Command printing coverage; `verify green` runs it when set.'),
  coverage_pattern: doc(z.optional(nonEmpty()), 'Regex with one capture group: the total coverage percentage in coverage_command output.'),
  coverage_threshold: doc(z.optional(z.number().check(z.minimum(0), z.maximum(100))), 'Minimum coverage percentage required by `verify green`.'),
  test_env_allow: doc(
    z.optional(z.array(nonEmpty())),
    'Environment variables the test command may inherit beyond the base list (PATH, HOME, locale, toolchain homes); everything else (NODE_OPTIONS, PYTEST_ADDOPTS, GOFLAGS, …) is dropped.',
  ),
  oracle_isolation: doc(
    z.optional(z.enum(['auto', 'namespace', 'copy'])),
    'How `verify green|refactor` and `done` keep the frozen tests out of reach: a private read-only mount namespace (Linux), a private copy, or auto (namespace where the kernel allows it); default auto.',
  ),
  oracle_ignore_processes: doc(
    z.optional(z.array(nonEmpty())),
    'Process names (as in /proc/<pid>/comm) that may keep running inside the project during an oracle run (an editor, a language server).',
  ),
  heldout_glob: doc(
    z.optional(globList),
    'Which test files are held out: hidden from the implementer and the refactorer from the freeze to `done`, run by the oracle (docs/heldout.md). A held-out file must match test_file_glob too; default by runner: `*.heldout.test.*`, `*.heldout.spec.*` (vitest, jest, node:test), `*.heldout.*` under test/ (mocha), `test_*_heldout.py`, `*_heldout_test.go`, `tests/heldout_*.rs`.',
  ),
  heldout: doc(
    z.optional(z.enum(['required', 'optional'])),
    '`required`: `verify red` needs a held-out test failing on an assertion (per scenario when the tests name the SPEC\'s criteria) in standard and light-dispatch mode; `optional`: held-out files are kept out of sight and judged when there are any. `tdd-gate stack detect` writes `required`; absent means `optional` (bindings written before held-out tests existed keep working).',
  ),
  os_wall: doc(
    z.optional(z.enum(['auto', 'on', 'off'])),
    "The OS wall (Claude Code's Bash sandbox, configured by the gate per phase) during a cycle: auto (on wherever the sandbox can run), on (required: no cycle starts without it) or off; default auto.",
  ),
  runner_reach_allow: doc(
    z.optional(globList),
    'Source files allowed to reach into the test runner: a glob allows everything in the files it matches (test helpers shipped as source); `<glob>#<construct>` allows one construct there (test-mode, process-args, call-stack, matcher-protocol, always-equal, build-flag, thread-name, or runner for the rest).',
  ),
  bash_allow: doc(
    z.optional(z.array(nonEmpty())),
    'Programs a Bash command may start during a cycle although the gate does not model them, each a program name or a program and its first arguments ("cmake", "make test", "./gradlew"), or "run_in_background" for the Bash tool\'s background flag; without the OS wall anything else unmodelled asks the user.',
  ),
});

export type StackConfig = z.infer<typeof stackSchema>;
