// Shared set-up for the end-to-end scenarios: the real Claude Code client, our plugin loaded from
// this repository, and the scripted fake Messages API (scripts/demo/*.mjs, shared with `npm run demo`).
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { claudeVersion, findClaude, isolation, makeHome, PLUGIN_ROOT, runSession, type SessionResult } from '../../scripts/demo/claude.mjs';
import { marker, type Script, type ToolResult } from '../../scripts/demo/fakeApi.mjs';
import type { TestRepo } from '../helpers/repo.js';

export { PLUGIN_ROOT, marker };
export type { Script, SessionResult, ToolResult };

/** Every tool a scenario may call, pre-approved: in -p mode a write the hook passes still needs permission. */
export const ALLOWED_TOOLS = 'Read,Write,Edit,NotebookEdit,Bash,Agent,Skill,Glob,Grep';

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
      console.log(`[e2e] ${name}: Claude Code ${version}, network isolation: ${isolation().kind}`);
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
}
const figures: Figure[] = [];

function printFigures(suite: string): void {
  const mine = figures.filter((f) => f.scenario.startsWith(suite));
  if (mine.length === 0) return;
  const lines = mine.map((f) => {
    const hooks = Object.entries(f.hooks).map(([k, v]) => `${k}=${v}`).join(' ');
    const lat = f.latencies.length ? `hook latency median ${median(f.latencies)} ms, max ${Math.max(...f.latencies)} ms` : 'no hook latency lines';
    return `  ${f.scenario.slice(suite.length + 3)} — ${f.ms} ms; hooks: ${hooks || 'none'}; ${lat}`;
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
  /** Load the plugin with --plugin-dir (default) or rely on what the HOME has installed. */
  pluginDir?: boolean;
  home?: string;
  skipPermissions?: boolean;
  /** null: pass no --allowedTools at all. */
  allowedTools?: string | null;
  args?: string[];
  /** Conversations that need not be played to their end (default: every one must be). */
  partial?: string[];
}

/**
 * One `claude -p` session in `repo` against the script; fails the test when the client ran past a
 * conversation's script, stopped before its end, or exited with an error.
 */
export async function session(bin: string, repo: TestRepo, opts: SessionOptions): Promise<SessionResult> {
  const args: string[] = [];
  if (opts.pluginDir !== false) args.push('--plugin-dir', PLUGIN_ROOT);
  if (opts.allowedTools !== null) args.push('--allowedTools', opts.allowedTools ?? ALLOWED_TOOLS);
  if (opts.skipPermissions) args.push('--dangerously-skip-permissions');
  args.push(...(opts.args ?? []));
  const r = await runSession({
    bin,
    home: opts.home ?? throwawayHome(),
    cwd: repo.root,
    prompt: `${marker('main')} ${opts.prompt ?? 'Follow the scripted steps.'}`,
    script: opts.script,
    args,
  });
  const byEvent: Record<string, number> = {};
  for (const h of r.hooks) byEvent[h.event] = (byEvent[h.event] ?? 0) + 1;
  figures.push({ scenario: expect.getState().currentTestName ?? '?', ms: r.ms, hooks: byEvent, latencies: r.latencies.map((l) => l.ms) });
  const context = `client exit ${r.code}${r.timedOut ? ' (timed out)' : ''}\nstderr: ${r.stderr.slice(0, 2000)}`;
  expect(r.api.failures, context).toEqual([]);
  expect(r.code, context).toBe(0);
  for (const [conversation, turns] of Object.entries(opts.script)) {
    if (opts.partial?.includes(conversation)) continue;
    const played = r.api.requests.filter((q) => q.kind === 'turn' && q.conversation === conversation).length;
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
