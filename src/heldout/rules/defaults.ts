/**
 * Held-out tests (docs/heldout.md): which test files are held out when stack.json names none, and
 * in which modes a cycle keeps two sets. Pure: no file system, no process.
 */

type Runner = 'vitest' | 'jest' | 'node-test' | 'mocha' | 'pytest' | 'go' | 'cargo';

/**
 * Per runner, names the runner's own default collection still picks up (so the held-out file
 * runs with the rest) and that say plainly what they are.
 */
const BY_RUNNER: Record<Runner, readonly string[]> = {
  // vitest and jest collect `*.test.*` / `*.spec.*`; node --test collects `*.test.{js,mjs,cjs}` and test/**.
  vitest: ['*.heldout.test.*', '*.heldout.spec.*'],
  jest: ['*.heldout.test.*', '*.heldout.spec.*'],
  'node-test': ['*.heldout.test.*', '*.heldout.spec.*', 'test/**/*.heldout.*'],
  // mocha collects ./test/*.{js,cjs,mjs} (and whatever its spec option names).
  mocha: ['*.heldout.*'],
  // pytest collects test_*.py and *_test.py.
  pytest: ['test_*_heldout.py', '*_heldout_test.py'],
  // go test compiles every *_test.go.
  go: ['*_heldout_test.go'],
  // cargo builds each file of tests/ as an integration test crate.
  cargo: ['tests/heldout_*.rs'],
};

const ORDER: readonly Runner[] = ['vitest', 'jest', 'mocha', 'pytest', 'cargo', 'go', 'node-test'];

/** The runners a test command starts, by their words (`npx vitest run`, `python -m pytest`, `go test`, `node --test`). */
export function runnersOf(command: string): Runner[] {
  const words = command.split(/[\s;&|()]+/).map((w) => w.slice(w.lastIndexOf('/') + 1));
  const has = (w: string) => words.includes(w);
  const found: Runner[] = [];
  if (words.some((w) => w === 'vitest' || w === 'vitest.mjs')) found.push('vitest');
  if (words.some((w) => w === 'jest' || w === 'jest.js')) found.push('jest');
  if (words.some((w) => w === 'mocha' || w === '_mocha')) found.push('mocha');
  if (has('pytest') || words.some((w) => w.startsWith('py.test'))) found.push('pytest');
  if (has('cargo')) found.push('cargo');
  if (has('go') && has('test')) found.push('go');
  if (has('--test') || words.some((w) => w.startsWith('--test='))) found.push('node-test');
  return ORDER.filter((r) => found.includes(r));
}

/** The held-out patterns for a stack: its `heldout_glob`, else the defaults of the runners its command starts (all of them when none is recognised). */
export function heldoutPatterns(config: { test_command: string; heldout_glob?: string | string[] | undefined }, split: (g: string | string[]) => string[]): string[] {
  if (config.heldout_glob !== undefined) return split(config.heldout_glob);
  const runners = runnersOf(config.test_command);
  const chosen = runners.length > 0 ? runners : ORDER;
  return [...new Set(chosen.flatMap((r) => BY_RUNNER[r]))];
}

/** Modes in which one context writes the tests and the code keep one set: nothing can be hidden from it. */
const ONE_SET_MODES = new Set(['light-inline', 'prototype-inline']);

export function keepsTwoSets(mode: string): boolean {
  return !ONE_SET_MODES.has(mode);
}

/** What status and init say about the sets in a mode. */
export function setsNote(mode: string): string {
  return keepsTwoSets(mode)
    ? 'two sets: the visible tests and the held-out tests (hidden from the implementer and the refactorer from the freeze to `done`)'
    : `one set: in ${mode} one context writes the tests and the code, so nothing can be held out from it (held-out files are ordinary tests here)`;
}
