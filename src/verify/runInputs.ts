import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../state/hash.js';
import type { CompiledStack } from '../state/loadStack.js';
import { STACK_REL } from '../state/loadStack.js';
import { hashFiles, listProjectFiles } from '../state/projectFiles.js';
import type { RunResult } from './runner.js';
import type { CliState, Receipt } from '../state/schema/cliState.js';
import type { Verdict } from './rules/judge.js';
import { digestOf, type Tree } from './tree.js';
import { VERSION } from '../state/version.js';

/** Which run: the work tree's (RED) or the oracle's (GREEN, out of the agent's reach). */
type RunKind = 'red' | 'green';

/** Bytecode and runner caches are written by runs: never an input. */
const CACHE = /(^|\/)(__pycache__|\.pytest_cache|\.mypy_cache|\.ruff_cache|\.hypothesis)(\/|$)|\.py[co]$/;

/**
 * A digest of everything a run depends on: the kind of run and its command, every project file
 * (tests, sources, configuration, lock files, data), the runner's settings and the program the
 * command resolves to (tree.parts), stack.json, what the run is judged against (the baseline, the
 * freeze), the environment the command gets, and this CLI's version. Two runs with the same digest
 * would run the same bytes the same way: the later one is reused, not re-run (receipt
 * `inputs_sha256`).
 */
export function runInputs(root: string, stack: CompiledStack, state: CliState, tree: Tree, kind: RunKind, command: string, env: NodeJS.ProcessEnv): string {
  const files = listProjectFiles(root).filter((rel) => !CACHE.test(rel) && !rel.startsWith('.tdd/'));
  let stackText = '';
  try {
    stackText = readFileSync(path.join(root, STACK_REL), 'utf8');
  } catch {
    // loaded already; a stack.json gone since is caught by the drift checks
  }
  const envLines = Object.entries(env)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`);
  return sha256Hex(
    JSON.stringify({
      version: VERSION,
      kind,
      command,
      files: digestOf(hashFiles(root, files)),
      tree: tree.treeDigest,
      stack: sha256Hex(stackText),
      config: stack.config,
      baseline: state.baseline ? digestOf(state.baseline.files, state.baseline.sources ?? {}) : null,
      frozen: state.frozen ? sha256Hex(JSON.stringify(state.frozen)) : null,
      spec: state.spec_hash,
      env: sha256Hex(envLines.join('\n')),
    }),
  );
}

/** A receipt this CLI wrote for the same inputs, and valid: its result holds as it is. */
export function reusable(candidates: readonly (Receipt | undefined)[], inputs: string): Receipt | null {
  return candidates.find((r) => r !== undefined && r.valid && r.inputs_sha256 === inputs) ?? null;
}

/** The run a reused receipt stands for, as the verbs read a run: its command, exit code, log and output. */
export function runOfReceipt(root: string, r: Receipt): RunResult {
  let output = '';
  try {
    // the log: `$ <command>`, the output, `[exit …]`
    output = readFileSync(path.join(root, r.log), 'utf8').replace(/^\$ [^\n]*\n/, '').replace(/\n\[exit [^\]]*\]\n$/, '');
  } catch {
    // pruned: the receipt keeps the digest of the output
  }
  return {
    command: r.command,
    executed: r.command,
    exitCode: r.exit_code,
    signal: null,
    timedOut: false,
    output,
    totalBytes: output.length,
    truncated: false,
    outputSha256: r.output_sha256,
    log: r.log,
    durationMs: 0,
    report: { kind: 'none', text: null },
  };
}

/** The verdict a reused receipt recorded. */
export function verdictOfReceipt(r: Receipt): Verdict {
  return {
    valid: r.valid,
    ...(r.reason !== undefined ? { reason: r.reason } : {}),
    counts: r.counts,
    failingFiles: r.failing_files ?? [],
    ...(r.tests ? { tests: r.tests } : {}),
    ...(r.red_tests ? { redTests: r.red_tests } : {}),
  };
}
