// Types for fakeApi.mjs (kept beside it so the TypeScript end-to-end tests can import it).

export interface ScriptedTool {
  name: string;
  input: Record<string, unknown>;
}

/** One assistant turn: text, tool calls, or both. A turn without tool calls ends the conversation. */
export interface Turn {
  text?: string;
  tools?: ScriptedTool[];
}

export interface ToolResult {
  conversation: string;
  tool_use_id: string;
  name: string | null;
  input: Record<string, unknown> | null;
  /** The text the model received (text blocks joined with newlines). */
  content: string;
  is_error: boolean;
}

/** A `<task-notification>`: how newer clients hand over the final message of a background child. */
export interface TaskNotification {
  tool_use_id: string | null;
  task_id: string | null;
  status: string | null;
  /** The child's final message. */
  result: string | null;
}

export interface RecordedNotification extends TaskNotification {
  conversation: string;
}

export interface TurnContext {
  toolResults: ToolResult[];
  notifications: RecordedNotification[];
  body: Record<string, unknown>;
}

export type Step = Turn | ((ctx: TurnContext) => Turn | undefined);
export type Script = Record<string, Step[]>;

export interface RecordedRequest {
  at: number;
  kind: 'turn' | 'side' | 'count_tokens' | 'other';
  conversation: string | null;
  turn: number | null;
  model?: string;
  method?: string;
  url?: string;
  /** Set when the fake model answered WAITING_TEXT: the Agent call whose notification it waits for. */
  waiting?: string;
  /** The request body (scripted turns and side requests). */
  body?: Record<string, unknown>;
}

export interface FakeApi {
  port: number | null;
  path: string | null;
  requests: RecordedRequest[];
  toolResults: ToolResult[];
  notifications: RecordedNotification[];
  failures: string[];
  close(): Promise<void>;
}

export const EXHAUSTED_TEXT: string;
export const WAITING_TEXT: string;
export function afterNotification(toolUseId: string, step: Step): Step;
export function marker(name: string): string;
/** One scripted request as it is answered: the tool results that came with it and what the fake model answers. */
export interface TurnEvent {
  conversation: string;
  turn: number;
  body: Record<string, unknown>;
  /** The tool results first seen in this request, in order. */
  fresh: ToolResult[];
  answer: { content: Array<{ type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }>; stop_reason: string };
  /** Set when the answer is the waiting text: the Agent call whose notification it waits for. */
  waiting?: string;
}

export function startFakeApi(options: { script: Script; listen?: { path: string } | { port?: number }; onTurn?: (event: TurnEvent) => void }): Promise<FakeApi>;
export function taskNotifications(text: string): TaskNotification[];
export function isLaunchNotice(content: string): boolean;
export function childAnswer(ctx: Pick<TurnContext, 'toolResults' | 'notifications'>, toolUseId: string): string;
export function gateReason(content: string): string | null;
export function toldSince(body: Record<string, unknown> | undefined): string;
export function hookNotices(body: Record<string, unknown> | undefined): string[];
