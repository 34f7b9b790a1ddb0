/** What a command handler is, and the small helpers every writer uses. */
import type { Call, Sink } from './sink.js';
import type { Arg, Output } from './words.js';

export type Handler = (call: Call, sink: Sink) => Output;

export const lit = (text: string): Arg => ({ text, glob: false, raw: text });

export function writeAll(call: Call, sink: Sink, targets: readonly Arg[], via: string): null {
  for (const t of targets) sink.write(call.scope, t, via);
  return null;
}

export function stdinText(call: Call): string | null {
  return call.stdin.kind === 'text' ? call.stdin.text : null;
}
