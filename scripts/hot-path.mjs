// The hook's hot path: the modules every hook call runs before it knows whether a cycle is active
// (docs/performance.md). One list for the two checks that hold it:
//   eslint.config.js  lints these files with the hot-path rules (no regular expressions, no
//                     normalizing path functions, no heavy imports, no process.stdout)
//   scripts/build.mjs fails when dist/hook.cjs (the boot) and the entry bundle pull in any other
//                     module, a module that is not one of node's allowed builtins, or grow past
//                     the sizes below
// A module added to the entry's imports must be added here, so it is linted like the rest.

/** The boot (dist/hook.cjs): loads the entry with V8's code cache. */
export const BOOT_FILES = ['src/bin/hookBoot.ts', 'src/hooks/lazy/parts.ts', 'src/state/atomicWrite.ts', 'src/state/childPath.ts'];

/** The entry (dist/hook/hook-<hash>.cjs): the quick check and the dispatch to a part. */
export const ENTRY_FILES = [
  'src/bin/hook.ts',
  'src/hooks/run.ts',
  'src/hooks/quickCheck.ts',
  'src/state/projectDirs.ts',
  'src/hooks/output.ts',
  'src/hooks/lazy/loaders.ts',
  'src/state/rules/errors.ts',
  'src/tamper/heartbeat.ts',
  'src/state/store.ts',
  'src/state/anchorPaths.ts',
  'src/tamper/openMarkers.ts',
  'src/state/repo.ts',
  'src/state/rules/stateSlug.ts',
  'src/state/childPath.ts',
  'src/state/rules/ascii.ts',
  'src/gate/rules/decision.ts',
  'src/gate/rules/roles.ts',
  'src/state/rules/tddDir.ts',
];

export const HOT_PATH_FILES = [...BOOT_FILES, ...ENTRY_FILES];

/** node's builtins the boot and the entry may load: node loads node:fs and node:path at start-up anyway; node:vm is the code cache. */
export const HOT_PATH_BUILTINS = { boot: ['node:fs', 'node:path', 'node:vm'], entry: ['node:fs', 'node:path'] };

/**
 * Size caps, about a quarter above the bundles' size when they were set (boot 1.5 KB, entry 9.2 KB).
 * Compiling the 9 KB entry afresh cost ≈ 3 M instructions a call before it was code-cached (ADR 007);
 * what grows here is read, and its top level run, on every call of every session.
 */
export const MAX_BYTES = { boot: 2_048, entry: 12_288 };

/**
 * Packages a part must not bundle at its top level. zod cost ≈ 18 M instructions a call (its
 * schemas are built at load; src/state/schema/handChecks.ts checks by hand instead); proper-lockfile
 * brings graceful-fs, which patches node's fs at load; minimatch is nested (built into a function
 * run on first use, `NESTED` in scripts/build.mjs: ≈ 0.8 M a call otherwise); the shell parser
 * (unbash) belongs to the Bash part alone. SubagentStop, once per subagent and not per tool call,
 * parses the tdd-result block with zod and locks the loop state.
 */
const LEAN = ['zod', 'proper-lockfile', 'graceful-fs', 'execa', 'minimatch'];
export const PART_FORBIDDEN = {
  preToolUse: [...LEAN, 'unbash'],
  bashPreToolUse: LEAN,
  postToolUse: LEAN,
  sessionStart: [...LEAN, 'unbash'],
  subagentStop: ['execa', 'minimatch'],
};
