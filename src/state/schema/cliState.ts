import * as z from 'zod/mini';
import './zod.js';
import { baseStateSchema, type BaseState } from './state.js';
import { formatIssues } from './format.js';
import { GateError } from '../rules/errors.js';

/** root-relative path → sha256 hex of the raw bytes. */
const fileHashes = z.record(z.string(), z.string().check(z.regex(/^[0-9a-f]{64}$/)));
const iso = () => z.string().check(z.minLength(1));

const countsSchema = z.looseObject({ total: z.number(), failed: z.number(), passed: z.number(), skipped: z.optional(z.number()) });

/** Test id (`<file or scope>::<full name>`) → its result in one run. */
const testResults = z.record(z.string(), z.enum(['passed', 'failed', 'skipped']));

/** The result of one verify run (docs/contracts.md), kept whether it held or not. */
const receiptSchema = z.looseObject({
  at: iso(),
  command: z.string(),
  exit_code: z.nullable(z.number()),
  valid: z.boolean(),
  counts: countsSchema,
  output_sha256: z.string(),
  log: z.string(),
  /** Why the run did not hold (absent when valid). */
  reason: z.optional(z.string()),
  /** Digest of the test + test-config file hashes at run time: "newer than the last test change". */
  tests_sha256: z.optional(z.string()),
  /** Digest of every test, test-config and source file hash at run time: a "fresh" receipt. */
  tree_sha256: z.optional(z.string()),
  /** Test files with failures (red) that count for this cycle. */
  failing_files: z.optional(z.array(z.string())),
  coverage: z.optional(z.number()),
  /** Each test's result in this run, by identity (absent when the runner names no tests). */
  tests: z.optional(testResults),
  /** RED: the tests that made it valid (new or changed in this cycle, failing on an assertion). */
  red_tests: z.optional(z.array(z.string())),
  /** RED: each counted test's failure message (first lines). */
  red_messages: z.optional(z.record(z.string(), z.string())),
  /** RED: the run's held-out tests, by id (docs/heldout.md). */
  heldout_tests: z.optional(z.array(z.string())),
  /** Where the tests ran: `namespace` (frozen bytes, read-only), `copy` (a private copy), `tree` (the work tree). */
  oracle: z.optional(z.string()),
  /** Digest of everything the run depended on (src/verify/runInputs.ts): a later run of the same inputs reuses this one. */
  inputs_sha256: z.optional(z.string()),
  /** This receipt reuses the run recorded at that time (same inputs), instead of running again. */
  reused_from: z.optional(z.string()),
});

const snapshotSchema = z.looseObject({ at: iso(), files: fileHashes });

/**
 * The state the CLI reads and writes: DESIGN §2 keys plus the CLI's own (docs/contracts.md).
 * LOOSE on purpose: keys owned by other parts (the hand-off's `loop`) survive every update.
 */
export const cliStateSchema = z.extend(baseStateSchema, {
  frozen: z.optional(
    z.looseObject({
      at: iso(),
      spec_hash: z.string(),
      files: fileHashes,
      /** The tests of the valid RED run: every one that ran must run and pass in GREEN. */
      tests: z.optional(testResults),
      red_tests: z.optional(z.array(z.string())),
      red_counts: z.optional(countsSchema),
      /** Runner settings inside files that stay editable (package.json scripts, pyproject's pytest table): part → sha256. */
      parts: z.optional(fileHashes),
      /** Frozen files that were symbolic links: path → link target. */
      links: z.optional(z.record(z.string(), z.string())),
      /** Held-out test files (docs/heldout.md): out of the work tree, in the store, from the freeze to `done`; their hashes are in `files`. */
      heldout: z.optional(z.array(z.string())),
      /** The held-out tests by id (what a refusal shows by name only). */
      heldout_tests: z.optional(z.array(z.string())),
    }),
  ),
  receipts: z.optional(
    z.looseObject({ red: z.optional(receiptSchema), green: z.optional(receiptSchema), refactor: z.optional(receiptSchema) }),
  ),
  refactor_base: z.optional(
    z.looseObject({ at: iso(), head: z.nullable(z.string()), stash_count: z.number(), files: fileHashes }),
  ),
  /** Test + test-config hashes when RED began: what "written in this cycle" is measured against. */
  baseline: z.optional(z.looseObject({ at: iso(), files: fileHashes, sources: z.optional(fileHashes) })),
  /**
   * The test runner's installation at the freeze (src/verify/rules/installation.ts): package root →
   * name, digest of its files and their count; paths that must stay absent; the digest of the
   * per-file manifest in .tdd/snapshots/runner-installation.json; the paths it covers.
   */
  runner_installation: z.optional(
    z.looseObject({
      packages: z.record(z.string(), z.object({ name: z.string(), digest: z.string(), files: z.number() })),
      absent: z.array(z.string()),
      manifest_sha256: z.string(),
      covers: z.optional(z.array(z.string())),
    }),
  ),
  /** Source hashes at GREEN entry (copies in .tdd/snapshots/green-entry). */
  green_entry: z.optional(snapshotSchema),
  verdict: z.optional(
    z.looseObject({ at: iso(), file: z.string(), sha256: z.string(), role: z.string(), verdict: z.string(), agent: z.optional(z.string()) }),
  ),
  history: z.optional(
    z.array(z.looseObject({ at: iso(), from: z.string(), to: z.string(), verb: z.string(), note: z.optional(z.string()) })),
  ),
  aborted: z.optional(z.looseObject({ at: iso(), reason: z.string() })),
});

export type CliState = z.infer<typeof cliStateSchema>;
export type Receipt = z.infer<typeof receiptSchema>;
export type ReceiptKind = 'red' | 'green' | 'refactor';
export type FileHashes = Record<string, string>;

/** Validate the CLI's own keys too; a corrupt file is reported and left as it is. */
export function validateCliState(state: BaseState & Record<string, unknown>, statePath: string): CliState {
  const parsed = cliStateSchema.safeParse(state);
  if (!parsed.success) {
    throw new GateError(
      { problem: `the state file ${statePath} is invalid: ${formatIssues(parsed.error)}; it was left untouched`, fix: 'Restore it, or end the cycle with `tdd-gate abort --reason "<why>"` (keeps a copy)' },
      'state-corrupt',
      { cause: parsed.error },
    );
  }
  return parsed.data;
}
