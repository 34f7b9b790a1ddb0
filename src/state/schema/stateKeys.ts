// The state file's fixed vocabulary, without zod: the hook imports these on every gated call
// (state.ts re-exports them next to the schema).
export const PHASES = ['tdd-plan', 'tdd-red', 'tdd-green', 'tdd-refactor', 'done'] as const;
export const MODES = ['standard', 'light-dispatch', 'light-inline', 'prototype-inline'] as const;
export type Phase = (typeof PHASES)[number];
export type ActivePhase = Exclude<Phase, 'done'>;
export type Mode = (typeof MODES)[number];

export const STATE_VERSION = 1;
