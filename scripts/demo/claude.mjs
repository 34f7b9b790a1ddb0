// Runs the real Claude Code client against the fake Messages API, isolated from the network:
// in a loopback-only network namespace where the machine allows one (`unshare -n`), otherwise
// with every proxy variable pointing at a local sink that refuses what it receives. Plain ESM so
// that `npm run demo` needs no build; types in claude.d.mts.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { clearTimeout, setTimeout } from 'node:timers';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeApi } from './fakeApi.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The plugin repository (two levels above this file). */
export const PLUGIN_ROOT = path.resolve(here, '..', '..');
const BRIDGE = path.join(here, 'netnsBridge.mjs');
const NETNS_PORT = 41_741;
/**
 * How long a client run may go without a sign of life (output, an API request) before it counts as
 * hung. A busy machine makes a run slower, not silent: every step prints and every turn asks the API.
 */
export const IDLE_MS = 120_000;

/**
 * The pinned client from node_modules (or the binary TDD_GATE_E2E_CLAUDE names; `none` means no
 * client, to check the skip path), or null when it is not installed.
 */
export function findClaude() {
  if (process.env.TDD_GATE_E2E_CLAUDE === 'none') return null;
  const candidates = [process.env.TDD_GATE_E2E_CLAUDE, path.join(PLUGIN_ROOT, 'node_modules', '.bin', 'claude')];
  return candidates.find((c) => c && existsSync(c)) ?? null;
}

/** `claude --version`, or null with the reason when the binary cannot run here. */
export function claudeVersion(bin) {
  const home = mkHomeDir();
  let r;
  try {
    r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000, env: cleanEnv(home) });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  if (r.status !== 0) return { version: null, error: (r.error?.message ?? r.stderr ?? '').trim() || `exit ${r.status}` };
  return { version: r.stdout.trim(), error: null };
}

let isolationCache;
/**
 * How this machine keeps the client off the network: `netns` (a new network namespace, as root),
 * `userns` (the same via an unprivileged user namespace), or `proxy-sink`.
 * TDD_GATE_E2E_NET=proxy forces the fallback.
 */
export function isolation() {
  if (isolationCache) return isolationCache;
  const works = (args) => spawnSync('unshare', [...args, 'ip', 'link', 'set', 'lo', 'up'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
  if (process.env.TDD_GATE_E2E_NET === 'proxy') isolationCache = { kind: 'proxy-sink', prefix: [] };
  else if (works(['-n'])) isolationCache = { kind: 'netns', prefix: ['unshare', '-n'] };
  else if (works(['-r', '-n'])) isolationCache = { kind: 'userns', prefix: ['unshare', '-r', '-n'] };
  else isolationCache = { kind: 'proxy-sink', prefix: [] };
  return isolationCache;
}

function mkHomeDir() {
  return realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-e2e-home-')));
}

/** A throwaway HOME for one client run; remove it with `rmSync(home, {recursive: true})`. */
export function makeHome() {
  const home = mkHomeDir();
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  return home;
}

/** Only what the client needs: none of the developer's own Claude Code or API settings leak in. */
function cleanEnv(home, extra = {}) {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    USER: process.env.USER ?? 'e2e',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    TMPDIR: process.env.TMPDIR ?? tmpdir(),
    ANTHROPIC_API_KEY: 'sk-ant-e2e-dummy-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    // As root (or mapped to root in a user namespace) --dangerously-skip-permissions needs this.
    ...(process.getuid?.() === 0 || isolationCache?.kind === 'userns' ? { IS_SANDBOX: '1' } : {}),
    ...extra,
  };
}

function refusingSink() {
  const server = createServer((socket) => socket.destroy());
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/**
 * Runs a command to its end. Two guards, so that a slow machine never fails a run that is making
 * progress: `idleMs` kills it after that long without a sign of life (output, or `activity.touch()`
 * from the caller, e.g. a request to the fake API), `timeoutMs` after that long in all.
 */
function run(command, args, { cwd, env, timeoutMs, idleMs = IDLE_MS, activity }) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let idleTimer;
    const kill = (why) => {
      timedOut = true;
      stderr += `\n[killed: ${why}]\n`;
      child.kill('SIGKILL');
    };
    const touch = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => kill(`no output and no API request for ${idleMs / 1000} s`), idleMs);
    };
    touch();
    if (activity) activity.touch = touch;
    child.stdout.on('data', (c) => {
      stdout += c;
      touch();
    });
    child.stderr.on('data', (c) => {
      stderr += c;
      touch();
    });
    const timer = setTimeout(() => kill(`still running after ${timeoutMs / 1000} s`), timeoutMs);
    const finish = (result) => {
      clearTimeout(timer);
      clearTimeout(idleTimer);
      if (activity) activity.touch = () => {};
      resolve(result);
    };
    child.on('error', (error) => finish({ code: 127, stdout, stderr: stderr + error.message, ms: Date.now() - started, timedOut }));
    child.on('close', (code, signal) => finish({ code: code ?? (signal ? 128 : 1), stdout, stderr, ms: Date.now() - started, timedOut }));
  });
}

/**
 * Runs `claude <args>` that needs no model (plugin and marketplace commands), isolated the same way.
 */
export async function claudeCommand({ bin, home, cwd, args, env: extraEnv = {}, timeoutMs = 600_000 }) {
  const iso = isolation();
  const env = cleanEnv(home, extraEnv);
  let sink;
  if (iso.kind === 'proxy-sink') {
    sink = await refusingSink();
    const proxy = `http://127.0.0.1:${sink.address().port}`;
    Object.assign(env, { HTTPS_PROXY: proxy, HTTP_PROXY: proxy, https_proxy: proxy, http_proxy: proxy });
  }
  try {
    const [command, ...rest] = [...iso.prefix, bin, ...args];
    return await run(command, rest, { cwd: cwd ?? home, env, timeoutMs });
  } finally {
    sink?.close();
  }
}

/**
 * One `claude -p` session against a fake API playing `script` (`onTurn`: see startFakeApi). The
 * client is killed after IDLE_MS without output or a scripted request, or after `timeoutMs` in all.
 * Returns the client's exit code and output with the fake API's records (requests, toolResults,
 * failures). The prompt must carry the main conversation's marker.
 */
export async function runSession({ bin, home, cwd, prompt, script, args = [], env: extraEnv = {}, timeoutMs = 900_000, onTurn }) {
  const iso = isolation();
  const scratch = mkdtempSync(path.join(tmpdir(), 'tdd-gate-e2e-sock-'));
  let api;
  let sink;
  const env = cleanEnv(home, extraEnv);
  let command;
  // Every scripted turn the fake API answers is a sign of life for the idle guard.
  const activity = { touch: () => {} };
  const turned = (event) => {
    activity.touch();
    onTurn?.(event);
  };
  try {
    if (iso.kind === 'proxy-sink') {
      api = await startFakeApi({ script, onTurn: turned });
      sink = await refusingSink();
      const proxy = `http://127.0.0.1:${sink.address().port}`;
      Object.assign(env, {
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${api.port}`,
        HTTPS_PROXY: proxy,
        HTTP_PROXY: proxy,
        https_proxy: proxy,
        http_proxy: proxy,
        NO_PROXY: '127.0.0.1,localhost',
        no_proxy: '127.0.0.1,localhost',
      });
      command = [bin];
    } else {
      const socket = path.join(scratch, 'api.sock');
      api = await startFakeApi({ script, listen: { path: socket }, onTurn: turned });
      env.ANTHROPIC_BASE_URL = `http://127.0.0.1:${NETNS_PORT}`;
      command = [...iso.prefix, process.execPath, BRIDGE, socket, String(NETNS_PORT), '--', bin];
    }
    const debugFile = path.join(scratch, 'debug.log');
    const [exe, ...rest] = [...command, '-p', prompt, '--output-format', 'stream-json', '--verbose', '--include-hook-events', '--debug-file', debugFile, ...args];
    const result = await run(exe, rest, { cwd, env: { CLAUDE_CODE_DEBUG_LOG_LEVEL: 'verbose', ...env }, timeoutMs, activity });
    const events = parseJsonLines(result.stdout);
    const debugLog = existsSync(debugFile) ? readFileSync(debugFile, 'utf8') : '';
    return { ...result, api, isolation: iso.kind, events, hooks: hookRuns(events), debugLog, latencies: hookLatencies(debugLog) };
  } finally {
    await api?.close();
    sink?.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

function parseJsonLines(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // a partial line at a kill: ignore
    }
  }
  return out;
}

/** The hook runs the client reports in its stream (`--include-hook-events`), one per finished hook. */
export function hookRuns(events) {
  return events
    .filter((e) => e.type === 'system' && e.subtype === 'hook_response')
    .map((e) => ({ event: e.hook_event, name: e.hook_name, exitCode: e.exit_code, outcome: e.outcome, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));
}

const TS = /^(\d{4}-\d\d-\d\dT[\d:.]+Z) /u;
/**
 * Hook latency as the client's debug log shows it (verbose level): from "Matched N unique hooks for
 * query" to the first line about the hook's output. The client itself names only hooks slower than
 * two seconds ("Slow PreToolUse hooks"), so the interval between these two lines is the figure.
 */
export function hookLatencies(log) {
  const out = [];
  let pending = null;
  let query = null;
  for (const line of log.split('\n')) {
    const ts = TS.exec(line);
    if (!ts) continue;
    const getting = /Getting matching hook commands for (\w+) with query: (.*)$/u.exec(line);
    if (getting) {
      query = { event: getting[1], query: getting[2] };
      continue;
    }
    const matched = /Matched (\d+) unique hooks for query/u.exec(line);
    if (matched && query && Number(matched[1]) > 0) {
      pending = { ...query, start: Date.parse(ts[1]) };
      continue;
    }
    if (pending && /Hook output does not start with|Hooks: (Parsed initial response|Got structured output|Found JSON line|Failed to parse)|Slow \w+ hooks/u.test(line)) {
      out.push({ event: pending.event, query: pending.query, ms: Date.parse(ts[1]) - pending.start });
      pending = null;
    }
  }
  return out;
}
