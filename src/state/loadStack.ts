import { readFileSync } from 'node:fs';
import path from 'node:path';
import { outsideEnvironments, type EnvProbe } from './rules/envDirs.js';
import { compileGlobs, type PathMatcher } from './rules/globs.js';
import { checkStack } from './schema/handChecks.js';
import type { StackConfig } from './schema/stack.js';
import { DEFAULT_TEST_CONFIG_GLOB, splitGlobs } from './schema/stackGlobs.js';
import { GateError } from './rules/errors.js';
import { heldoutPatterns } from '../heldout/rules/defaults.js';

export const STACK_REL = '.tdd/stack.json';

export interface CompiledStack {
  config: StackConfig;
  isTest: PathMatcher;
  isTestConfig: PathMatcher;
  isSource: PathMatcher;
  /** Held-out tests (docs/heldout.md): a test file the held-out patterns name (stack.json `heldout_glob`, else the runner's default). */
  isHeldout: PathMatcher;
  redConfirm: RegExp;
  buildError: RegExp | null;
}

const FIX = 'Ask the user to fix it (run `tdd-gate stack check` for details, or `tdd-gate stack detect` to regenerate it); the gate blocks writes until it is valid.';

/**
 * The project's stack.json, validated. `readText` gives its text, null when there is none: the
 * disk by default, a test's store otherwise (src/state/store.ts).
 */
export function readStack(root: string, readText: (root: string) => string | null = readStackText): StackConfig {
  const text = readText(root);
  if (text === null) throw new GateError({ problem: `${STACK_REL} is missing while a TDD cycle is active`, fix: FIX }, 'stack-invalid');
  return parseStack(text);
}

/** The text of `<root>/.tdd/stack.json`; null when there is none. */
function readStackText(root: string): string | null {
  try {
    return readFileSync(path.join(root, STACK_REL), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new GateError({ problem: `${STACK_REL} is unreadable (${(err as Error).message}) while a TDD cycle is active`, fix: FIX }, 'stack-invalid', { cause: err });
  }
}

export function parseStack(text: string): StackConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new GateError({ problem: `${STACK_REL} is not valid JSON (${(err as Error).message})`, fix: FIX }, 'stack-invalid', { cause: err });
  }
  // By hand, not by stackSchema: the hook reads stack.json on every gated call (ADR 007).
  const checked = checkStack(json);
  if (!checked.ok) throw new GateError({ problem: `${STACK_REL} is invalid: ${checked.issues}`, fix: FIX }, 'stack-invalid');
  return checked.value;
}

function compileRegex(key: string, source: string): RegExp {
  try {
    return new RegExp(source);
  } catch (err) {
    throw new GateError({ problem: `${STACK_REL}: ${key} is not a valid JavaScript regular expression (${(err as Error).message})`, fix: FIX }, 'stack-invalid', { cause: err });
  }
}

/**
 * The stack's globs, compiled. Whatever they say, nothing inside an environment folder (installed
 * dependencies, a virtualenv, caches: src/state/rules/envDirs.ts) is a test, a test config or a source;
 * `probe` finds the folders known by what they hold (a virtualenv's pyvenv.cfg), else only the
 * folders known by name count.
 */
export function compileStack(config: StackConfig, nocase: boolean, probe?: EnvProbe): CompiledStack {
  return {
    config,
    isTest: outsideEnvironments(compileGlobs(splitGlobs(config.test_file_glob), nocase), probe),
    isTestConfig: outsideEnvironments(compileGlobs(splitGlobs(config.test_config_glob ?? DEFAULT_TEST_CONFIG_GLOB), nocase), probe),
    isSource: outsideEnvironments(compileGlobs(splitGlobs(config.source_file_glob), nocase), probe),
    isHeldout: outsideEnvironments(compileGlobs(heldoutPatterns(config, splitGlobs), nocase), probe),
    redConfirm: compileRegex('red_confirm', config.red_confirm),
    buildError: config.build_error_pattern === undefined ? null : compileRegex('build_error_pattern', config.build_error_pattern),
  };
}
