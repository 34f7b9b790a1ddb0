import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { cli, git, ok, startRed, writeVerdict, type CliRun } from '../cli/fixtures.js';
import type { TestRepo } from '../helpers/repo.js';

/** One runner's honest cycle: the test, the stub that makes it fail on an assertion, the implementation. */
export interface CycleFiles {
  test: [string, string];
  stub: [string, string];
  impl: [string, string];
}

export function commitAll(repo: TestRepo, message: string): string {
  git(repo.root, 'add', '-A');
  git(repo.root, 'commit', '-q', '-m', message);
  return git(repo.root, 'rev-parse', 'HEAD').trim();
}

/**
 * An honest cycle driven through the built CLI to `done`: RED on the stub, the validator's PASS,
 * the freeze, GREEN on the implementation; then everything committed (the record with it).
 * Returns the record's path.
 */
export function honestCycle(repo: TestRepo, f: CycleFiles): string {
  startRed(repo);
  repo.write(...f.test);
  repo.write(...f.stub);
  ok(cli(repo, 'verify', 'red'));
  writeVerdict(repo);
  ok(cli(repo, 'freeze', '--verdict', 'verdict.md'));
  repo.write(...f.impl);
  ok(cli(repo, 'verify', 'green'));
  const done = JSON.parse(ok(cli(repo, 'done', '--json')).stdout) as { cycle_record: string };
  commitAll(repo, 'cycle');
  return done.cycle_record;
}

export function auditRun(repo: TestRepo, base: string, ...extra: string[]): CliRun & { report: AuditJson } {
  const r = cli(repo, 'audit', '--base', base, '--json', ...extra);
  let report: AuditJson;
  try {
    report = JSON.parse(r.stdout) as AuditJson;
  } catch {
    expect.fail(`audit printed no JSON (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  }
  return { ...r, report };
}

export interface AuditJson {
  status: string;
  cycles: { record: string; checks: { name: string; ok: boolean; detail: string }[] }[];
  head_checks: { name: string; ok: boolean; detail: string }[];
  error?: string;
}

/** Every failed check as `name: detail`. */
export function failures(report: AuditJson): string[] {
  return [...report.cycles.flatMap((c) => c.checks), ...report.head_checks].filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`);
}

export function recordJson(repo: TestRepo, rel: string): Record<string, unknown> {
  return JSON.parse(readFileSync(repo.path(rel), 'utf8')) as Record<string, unknown>;
}

export function blobs(repo: TestRepo): string[] {
  try {
    return readdirSync(repo.path('.tdd/cycles/blobs'));
  } catch {
    return [];
  }
}

export const sha = (s: string) => createHash('sha256').update(s).digest('hex');
export const head = (repo: TestRepo) => git(repo.root, 'rev-parse', 'HEAD').trim();

/** A branch off `from` with one more commit made by `change`. */
export function tamper(repo: TestRepo, from: string, branch: string, change: () => void): void {
  git(repo.root, 'checkout', '-q', '-b', branch, from);
  change();
  commitAll(repo, branch);
}

/** The honest commit made again on `base` with `change` in it: a record forged before it was committed. */
export function forge(repo: TestRepo, base: string, honest: string, branch: string, change: () => void): void {
  git(repo.root, 'checkout', '-q', '-b', branch, base);
  git(repo.root, 'checkout', honest, '--', '.');
  change();
  commitAll(repo, branch);
}

/** Point the record's RED copy of `rel` at new bytes, keeping the record consistent with itself (what a careful forger does). */
export function forgeRedSource(repo: TestRepo, recordRel: string, rel: string, text: string): void {
  const rec = recordJson(repo, recordRel) as { red_sources: Record<string, string | null> };
  const h = sha(text);
  repo.write(`.tdd/cycles/blobs/${h}`, text);
  rec.red_sources[rel] = h;
  writeFileSync(repo.path(recordRel), JSON.stringify(rec, null, 2) + '\n');
}

