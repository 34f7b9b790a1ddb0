// Shared set-up for the end-to-end scenarios: the real Claude Code client, our plugin loaded from
// this repository, and the scripted fake Messages API (scripts/demo/*.mjs, shared with `npm run demo`).
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { claudeVersion, findClaude, isolation, makeHome, PLUGIN_ROOT, runSession, type SessionResult } from '../../scripts/demo/claude.mjs';
import { afterNotification, childAnswer, gateReason, isLaunchNotice, marker, toldSince, type Script, type ToolResult, type TurnContext } from '../../scripts/demo/fakeApi.mjs';
import type { TestRepo } from '../helpers/repo.js';

export { PLUGIN_ROOT, afterNotification, childAnswer, gateReason, isLaunchNotice, marker };
export type { Script, SessionResult, ToolResult, TurnContext };

/**
 * The time limit of every scenario: a backstop only. A client run is killed when it goes
 * IDLE_MS without output or an API request (scripts/demo/claude.mjs), so a hang fails within
 * minutes, while a run that a busy machine makes slow, but that keeps going, is never cut short.
 */
export const E2E_TIMEOUT = 900_000;

/** Every tool a scenario may call, pre-approved: in -p mode a write the hook passes still needs permission. */
export const ALLOWED_TOOLS = 'Read,Write,Edit,NotebookEdit,Bash,Agent,Skill,Glob,Grep';

/**
 * Whether the client `bin` is `version` or newer (x.y.z), for what releases differ in: e.g. the
 * PreSkillShellCommand event exists from 2.1.332 on (docs/adr/008).
 */
export function clientAtLeast(bin: string, version: string): boolean {
  const raw = claudeVersion(bin).version ?? '';
  const have = /(\d+)\.(\d+)\.(\d+)/u.exec(raw);
  const want = /^(\d+)\.(\d+)\.(\d+)$/u.exec(version);
  if (have === null || want === null) throw new Error(`cannot compare client version "${raw}" with ${version}`);
  for (let i = 1; i <= 3; i++) if (Number(have[i]) !== Number(want[i])) return Number(have[i]) > Number(want[i]);
  return true;
}

/** The first release with the PreSkillShellCommand hook event; older clients do not fire it and reject a hooks file naming it. */
export const SKILL_SHELL_EVENT_SINCE = '2.1.332';

/** The client version package.json pins. */
function pinnedVersion(): string {
  const pkg = JSON.parse(readFileSync(path.join(PLUGIN_ROOT, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
  return pkg.devDependencies?.['@anthropic-ai/claude-code'] ?? '(not pinned)';
}

function probe(): { bin: string; version: string } | { bin: null; why: string } {
  const bin = findClaude();
  if (bin === null) return { bin: null, why: 'the @anthropic-ai/claude-code dev dependency is not installed' };
  const v = claudeVersion(bin);
  if (v.version === null) return { bin: null, why: `the client binary does not run here: ${v.error ?? 'unknown error'}` };
  return { bin, version: v.version };
}

const CLIENT = probe();

/**
 * `describe` for scenarios that need the real client. Without it the suite says so loudly, and
 * fails under CI (which can always install the pinned client).
 */
export function describeE2E(name: string, body: (bin: string) => void): void {
  if (CLIENT.bin === null) {
    const why = CLIENT.why;
    describe(name, () => {
      it('skipped: no Claude Code', (ctx) => {
        const banner = `\n${'!'.repeat(72)}\n!! e2e skipped: no Claude Code (${why})\n${'!'.repeat(72)}\n`;
        if (process.env.CI) throw new Error(`${banner}CI must run the end-to-end suite: install the dev dependencies.`);
        console.warn(banner);
        ctx.skip();
      });
    });
    return;
  }
  const bin = CLIENT.bin;
  const version = CLIENT.version;
  describe(name, () => {
    beforeAll(() => {
      const pinned = pinnedVersion();
      const note = version.startsWith(`${pinned} `) || version === pinned ? `the pinned oldest supported client` : `not the pinned ${pinned}: TDD_GATE_E2E_CLAUDE`;
      console.log(`[e2e] ${name}: Claude Code ${version} (${note}), network isolation: ${isolation().kind}`);
    });
    afterAll(() => printFigures(name));
    body(bin);
  });
}

interface Figure {
  scenario: string;
  ms: number;
  hooks: Record<string, number>;
  latencies: number[];
  requests: Record<string, number>;
}
const figures: Figure[] = [];

function printFigures(suite: string): void {
  const mine = figures.filter((f) => f.scenario.startsWith(suite));
  if (mine.length === 0) return;
  const lines = mine.map((f) => {
    const hooks = Object.entries(f.hooks).map(([k, v]) => `${k}=${v}`).join(' ');
    const lat = f.latencies.length ? `hook latency median ${median(f.latencies)} ms, max ${Math.max(...f.latencies)} ms` : 'no hook latency lines';
    const requests = Object.entries(f.requests).map(([k, v]) => `${k}=${v}`).join(' ');
    return `  ${f.scenario.slice(suite.length + 3)} — ${f.ms} ms; hooks: ${hooks || 'none'}; ${lat}; API requests: ${requests}`;
  });
  console.log(`[e2e] figures for ${suite}:\n${lines.join('\n')}`);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}

/** A throwaway HOME for one client run, removed when the test finishes. */
export function throwawayHome(): string {
  const home = makeHome();
  onTestFinished(() => rmSync(home, { recursive: true, force: true }));
  return home;
}

export interface SessionOptions {
  script: Script;
  prompt?: string;
  /** Put before the marker, e.g. a slash command: `/tdd-gate:tdd`. */
  promptPrefix?: string;
  /** Load the plugin with --plugin-dir from this repository (default), from another folder, or (false) rely on what the HOME has installed. */
  pluginDir?: boolean | string;
  home?: string;
  skipPermissions?: boolean;
  /** null: pass no --allowedTools at all. */
  allowedTools?: string | null;
  args?: string[];
  /** Extra environment for the client (and so for the hooks it runs). */
  env?: Record<string, string>;
  /** Conversations that need not be played to their end (default: every one must be). */
  partial?: string[];
}

/**
 * One `claude -p` session in `repo` against the script; fails the test when the client ran past a
 * conversation's script, stopped before its end, or exited with an error.
 */
export async function session(bin: string, repo: TestRepo, opts: SessionOptions): Promise<SessionResult> {
  const args: string[] = [];
  if (opts.pluginDir !== false) args.push('--plugin-dir', typeof opts.pluginDir === 'string' ? opts.pluginDir : PLUGIN_ROOT);
  if (opts.allowedTools !== null) args.push('--allowedTools', opts.allowedTools ?? ALLOWED_TOOLS);
  if (opts.skipPermissions) args.push('--dangerously-skip-permissions');
  args.push(...(opts.args ?? []));
  const r = await runSession({
    bin,
    home: opts.home ?? throwawayHome(),
    cwd: repo.root,
    prompt: `${opts.promptPrefix ? `${opts.promptPrefix} ` : ''}${marker('main')} ${opts.prompt ?? 'Follow the scripted steps.'}`,
    script: opts.script,
    args,
    ...(opts.env ? { env: opts.env } : {}),
  });
  const byEvent: Record<string, number> = {};
  for (const h of r.hooks) byEvent[h.event] = (byEvent[h.event] ?? 0) + 1;
  const requests: Record<string, number> = {};
  for (const q of r.api.requests) {
    const key = q.kind === 'turn' ? `turn(${q.model ?? '?'})` : q.kind;
    requests[key] = (requests[key] ?? 0) + 1;
  }
  figures.push({ scenario: expect.getState().currentTestName ?? '?', ms: r.ms, hooks: byEvent, latencies: r.latencies.map((l) => l.ms), requests });
  const context = `client exit ${r.code}${r.timedOut ? ' (timed out)' : ''}\nstderr: ${r.stderr.slice(0, 2000)}`;
  expect(r.api.failures, context).toEqual([]);
  expect(r.code, context).toBe(0);
  for (const [conversation, turns] of Object.entries(opts.script)) {
    if (opts.partial?.includes(conversation)) continue;
    const played = r.api.requests.filter((q) => q.kind === 'turn' && q.conversation === conversation && q.waiting === undefined).length;
    expect(played, `conversation "${conversation}" played ${played} of ${turns.length} turns\n${context}`).toBeGreaterThanOrEqual(turns.length);
  }
  return r;
}

/** The tool_result the model received for the `index`-th tool call of `turn` (0-based) in `conversation`. */
export function resultOf(r: SessionResult, turn: number, index = 0, conversation = 'main'): ToolResult {
  const id = `toolu_e2e_${conversation}_${turn}_${index}`;
  const found = r.api.toolResults.find((t) => t.tool_use_id === id);
  if (!found) throw new Error(`no tool_result for ${id}; got ${r.api.toolResults.map((t) => t.tool_use_id).join(', ') || 'none'}`);
  return found;
}

/** The hook runs of one event, e.g. every PreToolUse our plugin answered. */
export function hooksOf(r: SessionResult, event: string): SessionResult['hooks'] {
  return r.hooks.filter((h) => h.event === event);
}

/** The five plugin agents (DESIGN §3). */
export const AGENTS = ['planner', 'test-writer', 'test-validator', 'implementer', 'refactorer'] as const;

/** A fenced tdd-result block, as a child ends its turn with it. */
export function tddResult(fields: Record<string, string | string[]>): string {
  const lines = ['```tdd-result'];
  for (const [k, v] of Object.entries(fields)) {
    if (Array.isArray(v)) lines.push(`${k}:`, ...v.map((x) => `  - ${x}`));
    else if (v.includes('\n')) lines.push(`${k}: |`, ...v.split('\n').map((x) => `  ${x}`));
    else lines.push(`${k}: ${v}`);
  }
  lines.push('```');
  return lines.join('\n');
}

/**
 * What the model was told before a conversation's `turn`-th request: every message since its last
 * reply (tool results, and hook notices whether the client puts them into the user message, as
 * older clients do, or into a system message after it, as newer ones do), as text.
 */
export function lastUserText(r: SessionResult, conversation: string, turn: number): string {
  const req = r.api.requests.find((q) => q.kind === 'turn' && q.conversation === conversation && q.turn === turn);
  return toldSince(req?.body);
}

/**
 * The tdd-gate reason of a denied call, in whichever shape the client passed it on (newer clients
 * put `PreToolUse:<Tool> hook error: ` in front); fails the test when the result is not a deny.
 */
export function denied(res: ToolResult): string {
  const reason = gateReason(res.content);
  expect(reason, `expected a tdd-gate deny, got: ${res.content}`).not.toBeNull();
  expect(res.is_error, res.content).toBe(true);
  return reason!;
}

/**
 * An Agent call that starts a tdd-gate role, as the /tdd skill dispatches it: in the foreground
 * (newer clients run subagents in the background unless told otherwise). `background: true` asks
 * for the other behaviour.
 */
export function dispatch(role: string, conversation: string, task: string, opts: { background?: boolean; description?: string } = {}) {
  return {
    name: 'Agent',
    input: {
      subagent_type: `tdd-gate:${role}`,
      description: opts.description ?? `${role} step`,
      prompt: `${marker(conversation)} ${task}`,
      run_in_background: opts.background === true,
    },
  };
}

/** The system prompt of a conversation's first request, as text. */
export function systemText(r: SessionResult, conversation: string): string {
  const req = r.api.requests.find((q) => q.kind === 'turn' && q.conversation === conversation && q.turn === 0);
  const system = req?.body?.system as string | Array<{ text?: string }> | undefined;
  if (system === undefined) return '';
  return typeof system === 'string' ? system : system.map((b) => b.text ?? '').join('\n');
}

/** The first line of a markdown file's body, after its front matter. */
export function bodyLine(file: string): string {
  const body = readFileSync(file, 'utf8').replace(/^---\n[\s\S]*?\n---\n/u, '');
  return body.split('\n').find((l) => l.trim() !== '')!.trim();
}
