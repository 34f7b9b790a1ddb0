// Types for cycle.mjs.
import type { Script } from './fakeApi.mjs';

export const SPEC: string;
export const STACK: Record<string, string>;
export const PLAN: string;
export const TEST: string;
export const STUB: string;
export const IMPL: string;
export const LOOSEN: string;
export const COMMAND: string;
export function makeProject(): string;
export function retryPrompt(resultOutput: string): string;
export function demoScript(root: string, cli: string): Script;
