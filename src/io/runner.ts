import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { ensureTddDir } from './tddDir.js';
import { findRepo } from './repo.js';
import { walledSpawn } from './sandbox.js';

/** Kept from a run's output: the head and the tail, so a megabyte of noise cannot exhaust memory. */
export const HEAD_BYTES = 256 * 1024;
export const TAIL_BYTES = 768 * 1024;
const KILL_GRACE_MS = 2_000;
/** Run logs kept in `.tdd/runs/`; older ones are pruned (receipts name their log, evidence keeps the digests). */
export const KEEP_RUNS = 200;

export interface RunResult {
  /** The command as configured. */
  command: string;
  /** What actually ran (with report flags added, if any). */
  executed: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** ANSI-free output (stdout and stderr interleaved), bounded to HEAD_BYTES + TAIL_BYTES. */
  output: string;
  totalBytes: number;
  truncated: boolean;
  /** sha256 of the complete raw output, not just the kept part. */
  outputSha256: string;
  /** Root-relative path of the captured log. */
  log: string;
  durationMs: number;
  /** The runner's machine-readable report, when the command was instrumented and wrote one. */
  report: { kind: string; text: string | null };
}

/** Head + ring-buffer tail of a byte stream, with a digest of all of it. */
class BoundedCapture {
  private head: Buffer[] = [];
  private headLen = 0;
  private tail: Buffer[] = [];
  private tailLen = 0;
  total = 0;
  private readonly hash = createHash('sha256');

  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.hash.update(chunk);
    if (this.headLen < HEAD_BYTES) {
      const take = chunk.subarray(0, HEAD_BYTES - this.headLen);
      this.head.push(take);
      this.headLen += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailLen += chunk.length;
    while (this.tailLen - (this.tail[0]?.length ?? 0) >= TAIL_BYTES) this.tailLen -= this.tail.shift()!.length;
  }

  finish(): { text: string; truncated: boolean; sha256: string } {
    let tail = Buffer.concat(this.tail);
    if (tail.length > TAIL_BYTES) tail = tail.subarray(tail.length - TAIL_BYTES);
    const omitted = this.total - this.headLen - tail.length;
    const head = Buffer.concat(this.head).toString('utf8');
    const text = omitted > 0 ? `${head}\n[… ${omitted} bytes of output omitted …]\n${tail.toString('utf8')}` : head + tail.toString('utf8');
    return { text, truncated: omitted > 0, sha256: this.hash.digest('hex') };
  }
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

export interface RunOptions {
  root: string;
  command: string;
  label: string;
  timeoutSeconds: number;
  env: NodeJS.ProcessEnv;
  /** Rewrites the command so the runner also writes a machine-readable report to `reportFile`. */
  instrument?: (command: string, reportFile: string) => { command: string; kind: string };
  now?: Date;
}

function pruneRuns(dir: string): void {
  try {
    const logs = readdirSync(dir).filter((f) => f.endsWith('.log')).sort();
    for (const old of logs.slice(0, Math.max(0, logs.length - KEEP_RUNS))) rmSync(path.join(dir, old), { force: true });
  } catch {
    // pruning is housekeeping only
  }
}

function stamp(d: Date): string {
  return d.toISOString().replace(/[:.]/g, '-');
}

/**
 * Run a project command through the shell in its own process group (so a timeout kills the
 * runner's children too), capture bounded output to `.tdd/runs/<timestamp>-<label>.log`.
 */
export async function runCommand(opts: RunOptions): Promise<RunResult> {
  const started = opts.now ?? new Date();
  const runsDir = path.join(ensureTddDir(opts.root), 'runs');
  mkdirSync(runsDir, { recursive: true });
  const base = `${stamp(started)}-${opts.label}`;
  const reportFile = path.join(runsDir, `${base}.report`);
  const plan = opts.instrument ? opts.instrument(opts.command, reportFile) : { command: opts.command, kind: 'none' };

  const capture = new BoundedCapture();
  // Hardened mode: the command runs behind the same read-only wall as the agent's Bash calls.
  const walled = walledSpawn(opts.root, plan.command, findRepo);
  const child = execa(walled?.file ?? plan.command, walled?.args ?? [], {
    shell: walled === null,
    cwd: opts.root,
    env: opts.env,
    extendEnv: false,
    stdin: 'ignore',
    all: true,
    buffer: false,
    reject: false,
    detached: process.platform !== 'win32',
    cleanup: true,
  });
  child.all?.on('data', (chunk: Buffer) => capture.push(chunk));

  let timedOut = false;
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup('SIGTERM');
    setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS).unref();
  }, opts.timeoutSeconds * 1000);
  const result = await child;
  clearTimeout(timer);
  // A grandchild that outlived the shell still belongs to the group.
  killGroup('SIGKILL');

  const { text, truncated, sha256 } = capture.finish();
  const output = stripAnsi(text);
  const logRel = `.tdd/runs/${base}.log`;
  writeFileSync(path.join(opts.root, logRel), `$ ${plan.command}\n${output}\n[exit ${String(result.exitCode ?? result.signal)}${timedOut ? ', timed out' : ''}]\n`);
  pruneRuns(runsDir);
  let reportText: string | null = null;
  if (plan.kind !== 'none') {
    try {
      reportText = readFileSync(reportFile, 'utf8');
    } catch {
      reportText = null;
    }
    rmSync(reportFile, { force: true });
  }
  return {
    command: opts.command,
    executed: plan.command,
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    timedOut,
    output,
    totalBytes: capture.total,
    truncated,
    outputSha256: sha256,
    log: logRel,
    durationMs: Date.now() - started.getTime(),
    report: { kind: plan.kind, text: reportText },
  };
}
