// Types for claude.mjs.
import type { FakeApi, Script, TurnEvent } from './fakeApi.mjs';

export const PLUGIN_ROOT: string;
/** How long a client run may go without output or an API request before it counts as hung. */
export const IDLE_MS: number;

export type IsolationKind = 'netns' | 'userns' | 'proxy-sink';

export interface HookRun {
  event: string;
  name: string;
  exitCode: number;
  outcome: string;
  stdout: string;
  stderr: string;
}

export interface HookLatency {
  event: string;
  query: string;
  ms: number;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
}

export interface SessionResult extends RunResult {
  api: FakeApi;
  isolation: IsolationKind;
  /** The client's stream-json events. */
  events: Array<Record<string, unknown>>;
  hooks: HookRun[];
  debugLog: string;
  latencies: HookLatency[];
}

export function findClaude(): string | null;
export function claudeVersion(bin: string): { version: string | null; error: string | null };
export function isolation(): { kind: IsolationKind; prefix: string[] };
export function makeHome(): string;
export function hookRuns(events: Array<Record<string, unknown>>): HookRun[];
export function hookLatencies(log: string): HookLatency[];
export function claudeCommand(options: { bin: string; home: string; cwd?: string; args: string[]; env?: Record<string, string>; timeoutMs?: number }): Promise<RunResult>;
export function runSession(options: {
  bin: string;
  home: string;
  cwd: string;
  prompt: string;
  script: Script;
  args?: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
  onTurn?: (event: TurnEvent) => void;
}): Promise<SessionResult>;
