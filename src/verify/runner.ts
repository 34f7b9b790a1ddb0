import { newSealKey, openSeal } from './evidence/seal.js';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { constants as osConstants, tmpdir } from 'node:os';
import path from 'node:path';
import { composeRun, type EnvAddition } from './rules/envCompose.js';
import { execa } from 'execa';
import { ensureTddDir } from '../state/tddDir.js';
import { findRepo } from '../state/repo.js';
import { walledSpawn } from '../wall/sandbox.js';

/** Kept from a run's output: the head and the tail, so a megabyte of noise cannot exhaust memory. */
const HEAD_BYTES = 256 * 1024;
const TAIL_BYTES = 768 * 1024;
const KILL_GRACE_MS = 2_000;
/** When the CLI is stopped: how long the runs get to end on SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 500;
/** Run logs kept in `.tdd/runs/`; older ones are pruned (receipts name their log, evidence keeps the digests). */
const KEEP_RUNS = 200;

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
  /** The runner's machine-readable report, when the command was instrumented and wrote one; `side`, a second one of the instrumentation's own. */
  report: { kind: string; text: string | null; side?: string | null; canary?: string | null; sealProblem?: string; expect?: string };
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

function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

interface RunOptions {
  root: string;
  /** Where the command runs, when not at `root` (a private copy of the project). */
  cwd?: string;
  command: string;
  label: string;
  timeoutSeconds: number;
  env: NodeJS.ProcessEnv;
  /** Rewrites the command so the runner also writes a machine-readable report to `reportFile`. */
  instrument?: (command: string, reportFile: string) => Instrumentation;
  now?: Date;
  /** Run the (instrumented) command through this program instead of a plain shell: the oracle's sandbox. */
  wrap?: RunWrap;
  /**
   * Existing folders of the gate's own that the command writes inside a path the OS wall keeps
   * read-only (the oracle's build folder for held-out tests, in their store under the git directory).
   */
  writable?: readonly string[];
  /** Called when the CLI is stopped while this run goes on: remove what the caller set up for it. */
  onStop?: () => void;
  /** Where to show that a long run is still going (what runs, for how long). */
  progress?: { write(s: string): unknown; isTTY?: boolean };
}

/** How an instrumented command differs from the configured one (see src/verify/evidence/instrument.ts). */
interface Instrumentation {
  command: string;
  kind: string;
  nodeOptions?: string;
  env?: Record<string, string>;
  /** A Python module the run loads: written to a fresh directory outside the project, read-only, first on PYTHONPATH. */
  pythonModule?: { name: string; source: string };
  /** A second report file the instrumentation writes. */
  sideReport?: string;
  /** Where the assertion-machinery canary of each test process writes its line (src/verify/canary.ts). */
  canary?: string;
  /** A module the run loads by path (mocha's reporter, cargo's runner): written like the Python module; each `token` in the command becomes its quoted path, in `env`'s values its bare path. */
  jsModule?: { name: string; source: string; token: string };
  /**
   * The gate's reporter seals the report (evidence/seal.ts): the run's key goes to `keyFile`, and
   * the `main` report (or the `side` one) is opened with it; what is not sealed is not evidence.
   */
  seal?: { keyFile: string; report: 'main' | 'side' };
  /** Files the run reads from a fresh read-only folder outside the project (go's -overlay): `token`, in the command and in the files, becomes the folder's path. */
  tempFiles?: { files: Record<string, string>; token: string };
  /** What the report must show, for the judge (report.expect), untouched by the runner. */
  expect?: string;
}

/**
 * The module's directory, read-only for the run (it is loaded before the project's tests and
 * sources, so a later write could not change what runs anyway). Returns the directory and how to
 * remove it.
 */
function writeModule(mod: { name: string; source: string }, prefix: string, file: string): { dir: string; cleanup: () => void } {
  return writeFiles({ [file]: mod.source }, prefix);
}

function writeFiles(files: Record<string, string>, prefix: string, token?: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), token === undefined ? text : text.split(token).join(dir), { mode: 0o444 });
  chmodSync(dir, 0o555);
  return {
    dir,
    cleanup: () => {
      try {
        chmodSync(dir, 0o700);
      } catch {
        // gone already
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A program that runs `command` for us (in a private mount namespace, say), fed `input` on stdin. */
export type RunWrap = (command: string) => { file: string; args: string[]; input?: string };

const SPIN = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** After a few seconds, say what is running and for how long: a spinner on a terminal, a line now and then otherwise. */
function startProgress(out: RunOptions['progress'], label: string, command: string): () => void {
  if (!out) return () => undefined;
  const t0 = Date.now();
  const tty = out.isTTY === true;
  const what = command.length > 60 ? command.slice(0, 57) + '...' : command;
  let frame = 0;
  let lastLine = 0;
  let shown = false;
  const timer = setInterval(
    () => {
      const s = Math.round((Date.now() - t0) / 1000);
      if (tty) {
        if (s < 3) return;
        shown = true;
        out.write(`\r${SPIN[frame++ % SPIN.length]} tdd-gate: ${label}: ${what} (${s}s)\u001b[K`);
      } else if (s >= 10 && s - lastLine >= 30) {
        lastLine = s;
        out.write(`tdd-gate: ${label}: still running ${what} (${s}s)\n`);
      }
    },
    tty ? 120 : 1000,
  );
  timer.unref();
  return () => {
    clearInterval(timer);
    if (shown) out.write('\r\u001b[K');
  };
}

/** The process groups of the runs going on now, and what to remove if the CLI is stopped. */
interface LiveRun {
  kill: (signal: NodeJS.Signals) => void;
  cleanup: () => void;
}
const LIVE = new Set<LiveRun>();
const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** Set once the CLI is being stopped: a run that ends now records nothing. */
let stopping = false;

/**
 * Stopping the CLI (Ctrl-C, SIGTERM, the terminal closing) stops every process it started: each
 * run's whole process group (the shell, the runner, `npm exec`'s children, whatever they started
 * in the group), then the CLI exits as the signal says (128 + its number).
 */
function onStop(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  for (const r of LIVE) r.kill('SIGTERM');
  setTimeout(() => {
    for (const r of LIVE) r.kill('SIGKILL');
    for (const r of LIVE) r.cleanup();
    process.exit(128 + (osConstants.signals[signal] ?? 15));
  }, STOP_GRACE_MS);
}

function track(run: LiveRun): () => void {
  if (LIVE.size === 0) for (const sig of STOP_SIGNALS) process.on(sig, onStop);
  LIVE.add(run);
  return () => {
    LIVE.delete(run);
    if (LIVE.size === 0 && !stopping) for (const sig of STOP_SIGNALS) process.off(sig, onStop);
  };
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
  let plan: Instrumentation = opts.instrument ? opts.instrument(opts.command, reportFile) : { command: opts.command, kind: 'none' };
  const pyModule = plan.pythonModule ? writeModule(plan.pythonModule, 'tdd-gate-py-', `${plan.pythonModule.name}.py`) : null;
  let jsModule: { dir: string; cleanup: () => void } | null = null;
  let temp: { dir: string; cleanup: () => void } | null = null;
  const cleanup = () => {
    pyModule?.cleanup();
    jsModule?.cleanup();
    temp?.cleanup();
  };
  try {
    if (plan.tempFiles) {
      const { files, token } = plan.tempFiles;
      temp = writeFiles(files, 'tdd-gate-go-', token);
      plan = { ...plan, command: plan.command.split(token).join(`'${temp.dir.replace(/'/g, `'\\''`)}'`) };
    }
    if (plan.jsModule) {
      const mod = plan.jsModule;
      jsModule = writeModule(mod, 'tdd-gate-js-', mod.name);
      const file = path.join(jsModule.dir, mod.name);
      plan = { ...plan, command: plan.command.split(mod.token).join(`'${file.replace(/'/g, `'\\''`)}'`), ...(plan.env ? { env: Object.fromEntries(Object.entries(plan.env).map(([k, v]) => [k, v.split(mod.token).join(file)])) } : {}) };
    }
    return await runPlanned(opts, plan, pyModule?.dir ?? null, started, base, runsDir, reportFile, cleanup);
  } finally {
    cleanup();
  }
}

async function runPlanned(opts: RunOptions, plan: Instrumentation, pyDir: string | null, started: Date, base: string, runsDir: string, reportFile: string, cleanup: () => void): Promise<RunResult> {
  // The gate's additions compose with the project's, in the environment and in the command's own
  // assignments (`PYTHONPATH=src python3 -m pytest`): node:test's reporter goes in through
  // NODE_OPTIONS after the project's options; the plugin's folder goes first on PYTHONPATH.
  const additions: EnvAddition[] = [
    ...(plan.nodeOptions ? [{ name: 'NODE_OPTIONS', value: plan.nodeOptions, at: 'end' as const, sep: ' ' }] : []),
    ...(pyDir ? [{ name: 'PYTHONPATH', value: pyDir, at: 'front' as const, sep: path.delimiter }] : []),
  ];
  const composed = composeRun(plan.command, opts.env, additions);
  const command = composed.command;
  const env = { ...composed.env, ...plan.env };

  const sealKey = plan.seal ? newSealKey() : null;
  if (plan.seal && sealKey !== null) writeFileSync(plan.seal.keyFile, sealKey, { mode: 0o600, flag: 'wx' });

  const capture = new BoundedCapture();
  const wrapped = opts.wrap ? opts.wrap(command) : null;
  // One pipe for both streams where the shell allows it: a runner's progress on stderr and its
  // results on stdout stay in the order they were written (cargo's "Running <target>" lines).
  const shellCommand = process.platform === 'win32' ? command : `exec 2>&1\n${command}`;
  // Hardened mode: a run outside the oracle's own namespace goes behind the same read-only wall as
  // the agent's Bash calls.
  const walled = wrapped === null ? walledSpawn(opts.root, shellCommand, findRepo, process.platform, opts.writable ?? []) : null;
  const spawn = wrapped ?? walled;
  const child = execa(spawn ? spawn.file : shellCommand, spawn ? spawn.args : [], {
    shell: spawn === null,
    cwd: opts.cwd ?? opts.root,
    env,
    extendEnv: false,
    ...(wrapped?.input !== undefined ? { input: wrapped.input } : { stdin: 'ignore' as const }),
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
  const untrack = track({
    kill: killGroup,
    cleanup: () => {
      cleanup();
      opts.onStop?.();
      rmSync(reportFile, { force: true });
      rmSync(`${reportFile}.cache`, { recursive: true, force: true });
      if (plan.canary) rmSync(plan.canary, { force: true });
      if (plan.seal) rmSync(plan.seal.keyFile, { force: true });
    },
  });
  const stopProgress = startProgress(opts.progress, opts.label, opts.command);
  const result = await child;
  stopProgress();
  clearTimeout(timer);
  // Stopped: the process exits from onStop; nothing of this run is recorded.
  if (stopping) await new Promise<never>(() => undefined);
  untrack();
  // A grandchild that outlived the shell still belongs to the group.
  killGroup('SIGKILL');

  const { text, truncated, sha256 } = capture.finish();
  const output = stripAnsi(text);
  const logRel = `.tdd/runs/${base}.log`;
  writeFileSync(path.join(opts.root, logRel), `$ ${plan.command}\n${output}\n[exit ${String(result.exitCode ?? result.signal)}${timedOut ? ', timed out' : ''}]\n`);
  pruneRuns(runsDir);
  let reportText: string | null = null;
  let sideText: string | null = null;
  let canaryText: string | null = null;
  if (plan.canary) {
    try {
      canaryText = readFileSync(plan.canary, 'utf8');
    } catch {
      canaryText = null;
    }
    rmSync(plan.canary, { force: true });
  }
  if (plan.kind !== 'none') {
    try {
      reportText = readFileSync(reportFile, 'utf8');
    } catch {
      reportText = null;
    }
    rmSync(reportFile, { force: true });
    if (plan.sideReport) {
      try {
        sideText = readFileSync(plan.sideReport, 'utf8');
      } catch {
        sideText = null;
      }
      rmSync(plan.sideReport, { force: true });
    }
    // a runner's scratch beside its report (jest's cache directory)
    rmSync(`${reportFile}.cache`, { recursive: true, force: true });
  }
  let sealProblem: string | undefined;
  if (plan.seal && sealKey !== null) {
    // The reporter deletes the key as it loads; one left means it never did.
    rmSync(plan.seal.keyFile, { force: true });
    const opened = openSeal(plan.seal.report === 'main' ? reportText : sideText, sealKey);
    if (opened.ok) {
      if (plan.seal.report === 'main') reportText = opened.body;
      else sideText = opened.body;
    } else {
      sealProblem = opened.problem;
      if (plan.seal.report === 'main') reportText = null;
      else sideText = null;
    }
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
    report: { kind: plan.kind, text: reportText, ...(plan.sideReport ? { side: sideText } : {}), ...(plan.canary ? { canary: canaryText } : {}), ...(sealProblem !== undefined ? { sealProblem } : {}), ...(plan.expect !== undefined ? { expect: plan.expect } : {}) },
  };
}
