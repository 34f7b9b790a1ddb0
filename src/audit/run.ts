import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { specHash } from '../state/hash.js';
import { compileStack, readStack, type CompiledStack } from '../state/loadStack.js';
import { isCaseInsensitive } from '../state/canonicalPath.js';
import { classifyFiles, hashFile, listProjectFiles } from '../state/projectFiles.js';
import { runCommand } from '../verify/runner.js';
import { writeSnapshot } from '../state/snapshots.js';
import { namespaceWorks, prepareNamespace, type Prepared } from '../verify/oracle/isolate.js';
import { sha256Hex } from '../state/sha256.js';
import type { RunOutcome } from '../verify/rules/judge.js';
import { cleanEnv } from '../verify/oracle/cleanEnv.js';
import { isAlwaysFrozen } from '../verify/oracle/files.js';
import { oracleParts } from '../verify/oracle/runnerParts.js';
import { filesWithStubs } from '../verify/stubs.js';
import { DEFAULT_TIMEOUT_SECONDS, instrumentFor, outcomeOf } from '../verify/testRun.js';
import { readText } from '../verify/tree.js';
import { addedRecords, addWorktree, blobAt, AuditCannotRun, changedPaths, mergeBase, resolveCommit, rewrittenRecords, type AddedRecord } from './git.js';
import {
  consistency,
  fail,
  frozenAtHead,
  headExpectations,
  lockfileDrift,
  partsAtHead,
  recordsAppendOnly,
  redReplay,
  shapeProblem,
  sourcesInCycles,
  specAtHead,
  stubsAtHead,
  testsAtHead,
  testsInCycles,
  type Check,
} from './rules/checks.js';
import { BLOBS_DIR, type CycleRecord } from './rules/record.js';
import { statusOf, type AuditReport, type CycleReport } from './rules/report.js';
import { runnerVersion } from './runnerVersion.js';

interface AuditOptions {
  root: string;
  base: string | null;
  head: string;
  requireCycles: boolean;
  env: NodeJS.ProcessEnv;
  progress?: { write(s: string): unknown };
}

function stackAt(dir: string, commit: string): CompiledStack {
  try {
    return compileStack(readStack(dir), isCaseInsensitive(dir));
  } catch (err) {
    throw new AuditCannotRun(`.tdd/stack.json at ${commit.slice(0, 12)} cannot be read (${(err as Error).message.split('\n')[0] ?? ''}); commit a valid one`, { cause: err });
  }
}

/**
 * The test command in a replay folder, through the CLI's own runner, read by the CLI's own
 * per-test identity. With `frozen`, the run is the oracle's: where the kernel allows a private
 * mount namespace, those files are read-only to the tests (as in `verify green`); either way their
 * bytes are checked again after the run, so a source that rewrites a test while the suite runs is
 * found. Returns the outcome and the frozen files that moved during the run.
 */
async function runIn(dir: string, stack: CompiledStack, label: string, opts: AuditOptions, frozen: Record<string, string> = {}): Promise<{ outcome: RunOutcome; moved: string[] }> {
  const timeoutSeconds = stack.config.test_timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS;
  const guarded = Object.fromEntries(Object.entries(frozen).filter(([rel, h]) => hashFile(dir, rel) === h && !/[\n\r]/.test(rel)));
  let prepared: Prepared | null = null;
  if (Object.keys(guarded).length > 0 && namespaceWorks()) {
    writeSnapshot(dir, 'frozen', Object.keys(guarded));
    prepared = prepareNamespace(dir, guarded);
  }
  let run;
  try {
    run = await runCommand({
      root: dir,
      command: stack.config.test_command,
      label,
      timeoutSeconds,
      env: { ...cleanEnv(opts.env, dir, stack.config.test_env_allow ?? []), ...(prepared?.env ?? {}) },
      instrument: instrumentFor(dir),
      now: new Date(),
      ...(opts.progress ? { progress: opts.progress } : {}),
      ...(prepared?.wrap ? { wrap: prepared.wrap } : {}),
    });
  } finally {
    prepared?.cleanup();
  }
  const moved = Object.entries(guarded).filter(([rel, h]) => hashFile(dir, rel) !== h).map(([rel]) => rel);
  const { tests, sources } = classifyFiles(stack, listProjectFiles(dir));
  const outcome = outcomeOf(run, dir, [...tests, ...sources], timeoutSeconds);
  if (outcome.exitCode === 127) throw new AuditCannotRun(`the test command \`${stack.config.test_command}\` was not found here (exit 127); install the runner (the lockfile's dependencies) before the audit`);
  return { outcome, moved };
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function parseRecord(dir: string, rel: string): { record: CycleRecord | null; problem: string | null } {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path.join(dir, rel), 'utf8'));
  } catch (err) {
    return { record: null, problem: `it is not readable JSON (${(err as Error).message.split('\n')[0] ?? ''})` };
  }
  const problem = shapeProblem(value);
  return problem === null ? { record: value as CycleRecord, problem: null } : { record: null, problem };
}

/** One record: consistent with the commit that added it, then RED rebuilt there and run. */
async function auditCycle(added: AddedRecord, opts: AuditOptions, seen: Map<string, string>): Promise<{ report: CycleReport; record: CycleRecord | null }> {
  const wt = addWorktree(opts.root, added.commit);
  try {
    const { record, problem } = parseRecord(wt.dir, added.path);
    if (record === null) {
      return { report: { record: added.path, commit: added.commit, spec_id: null, runner: null, checks: [fail('record-consistent', `record ${added.path} is not a cycle record: ${problem ?? ''}`)] }, record: null };
    }
    const checks: Check[] = [];
    const key = `${record.spec_id}\0${record.started_at}`;
    const twin = seen.get(key);
    if (twin !== undefined) checks.push(fail('record-unique', `record copied from another cycle: ${twin} records the same cycle (${record.spec_id}, started ${record.started_at})`));
    seen.set(key, added.path);
    const stack = stackAt(wt.dir, added.commit);
    const consistent = consistency(added.path, record, {
      commit: added.commit,
      hash: (rel) => hashFile(wt.dir, rel),
      specHash: (rel) => {
        const text = readText(wt.dir, rel);
        return text === null ? null : specHash(text);
      },
      testCommand: stack.config.test_command,
      parts: oracleParts((rel) => readText(wt.dir, rel), stack.config.test_command, classifyFiles(stack, listProjectFiles(wt.dir)).sources),
      isSource: (rel) => !stack.isTest(rel) && !stack.isTestConfig(rel) && !isAlwaysFrozen(rel) && stack.isSource(rel),
      shortFor: (specId, startedAt) => sha256Hex(`${specId}\0${startedAt}`).slice(0, 8),
    });
    checks.push(consistent);
    if (!consistent.ok) {
      checks.push(fail('red-replayed', 'not replayed: the record does not match the commit that added it'));
    } else {
      // RED = the sources at this commit, the files the cycle touched put back as they were at RED, the frozen tests.
      for (const [rel, h] of Object.entries(record.red_sources)) {
        const dest = path.join(wt.dir, rel);
        if (h === null) rmSync(dest, { force: true });
        else {
          mkdirSync(path.dirname(dest), { recursive: true });
          copyFileSync(path.join(wt.dir, BLOBS_DIR, h), dest);
        }
      }
      opts.progress?.write(`tdd-gate audit: rebuilding RED of ${added.path}\n`);
      const { outcome } = await runIn(wt.dir, stack, 'audit-red', opts);
      checks.push(redReplay(record, outcome, { redConfirm: stack.redConfirm, buildError: stack.buildError, root: wt.dir }));
    }
    return { report: { record: added.path, commit: added.commit, spec_id: record.spec_id, runner: record.runner.version ?? null, checks }, record };
  } finally {
    wt.remove();
  }
}

/** The head: the frozen files, settings and SPECs as frozen (the last freeze of each), no stub, every frozen test passing. */
async function auditHead(head: string, cycles: { path: string; record: CycleRecord }[], changed: string[], rewritten: string[], opts: AuditOptions): Promise<{ checks: Check[]; runner: string | null }> {
  const wt = addWorktree(opts.root, head);
  try {
    const stack = stackAt(wt.dir, head);
    const { sources } = classifyFiles(stack, listProjectFiles(wt.dir));
    const checks: Check[] = [recordsAppendOnly(rewritten)];
    if (cycles.length > 0) {
      const exp = headExpectations(cycles);
      checks.push(frozenAtHead(exp, (rel) => hashFile(wt.dir, rel), (rel) => exp.specs.has(rel)));
      checks.push(specAtHead(exp, (rel) => {
        const text = readText(wt.dir, rel);
        return text === null ? null : specHash(text);
      }));
      const configs = listProjectFiles(wt.dir).filter((rel) => stack.isTestConfig(rel) || isAlwaysFrozen(rel));
      checks.push(partsAtHead(exp, oracleParts((rel) => readText(wt.dir, rel), stack.config.test_command, sources), configs));
    }
    checks.push(stubsAtHead(filesWithStubs(wt.dir, sources)));
    const deps = lockfileDrift(readJson(path.join(wt.dir, 'package-lock.json')), readJson(path.join(wt.dir, 'node_modules', '.package-lock.json')));
    if (deps !== null) checks.push(deps);
    if (opts.requireCycles) {
      const classified = classifyFiles(stack, changed.filter((rel) => !rel.startsWith('.tdd/')));
      checks.push(sourcesInCycles(classified.sources, cycles.map((c) => c.record)));
      checks.push(testsInCycles(classified.tests, cycles.map((c) => c.record)));
    }
    if (cycles.length > 0) {
      opts.progress?.write('tdd-gate audit: running the frozen tests at the head\n');
      const exp = headExpectations(cycles);
      const { outcome, moved } = await runIn(wt.dir, stack, 'audit-head', opts, Object.fromEntries([...exp.files].map(([rel, want]) => [rel, want.hash])));
      checks.push(moved.length > 0 ? fail('frozen-tests-pass', `frozen files changed while the tests ran: ${moved.join(', ')}; something in the source writes to the tests`) : testsAtHead(exp, outcome, stack.config.test_command));
    }
    return { checks, runner: runnerVersion(wt.dir, stack.config.test_command, cleanEnv(opts.env, wt.dir, stack.config.test_env_allow ?? [])) };
  } finally {
    wt.remove();
  }
}

/** The whole audit of base..head (docs/audit.md). Throws AuditCannotRun when it cannot run. */
export async function audit(opts: AuditOptions): Promise<AuditReport> {
  const head = resolveCommit(opts.root, opts.head);
  const base = opts.base === null ? null : mergeBase(opts.root, resolveCommit(opts.root, opts.base), head);
  const added = addedRecords(opts.root, base, head);
  const cycles: CycleReport[] = [];
  const records: { path: string; record: CycleRecord }[] = [];
  const seen = new Map<string, string>();
  for (const a of added) {
    const { report, record } = await auditCycle(a, opts, seen);
    cycles.push(report);
    if (record !== null) records.push({ path: a.path, record });
  }
  // In order: the commit that added each record, then when the cycle ended.
  const order = new Map(added.map((a, i) => [a.path, i]));
  records.sort((x, y) => (order.get(x.path)! - order.get(y.path)!) || x.record.finished_at.localeCompare(y.record.finished_at));
  const changed = changedPaths(opts.root, base, head);
  // Records before the range changed in it, and records of the range changed after the commit that added them.
  const later = added.filter((a) => blobAt(opts.root, a.commit, a.path) !== blobAt(opts.root, head, a.path)).map((a) => a.path);
  const rewritten = [...new Set([...rewrittenRecords(opts.root, base, head), ...later])].sort();
  const { checks, runner } = await auditHead(head, records, changed, rewritten, opts);
  return { status: statusOf(cycles, checks), base, head, cycles, head_checks: checks, runner_here: runner };
}
