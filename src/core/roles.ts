import type { ActivePhase, Mode } from '../schema/state.js';

/** Plugin agents reach hooks as `tdd-gate:<agent>` (DESIGN §3). */
export const ROLE = {
  planner: 'tdd-gate:planner',
  testWriter: 'tdd-gate:test-writer',
  testValidator: 'tdd-gate:test-validator',
  implementer: 'tdd-gate:implementer',
  refactorer: 'tdd-gate:refactorer',
} as const;

/** null = the main thread (the orchestrator). */
export type Role = string | null;

export function describeRole(role: Role): string {
  return role === null ? 'the main thread (orchestrator)' : `agent ${role}`;
}

/** The one agent that may write tests or sources in a phase, in standard mode. */
export function phaseWriter(phase: ActivePhase): string | null {
  switch (phase) {
    case 'tdd-plan':
      return null;
    case 'tdd-red':
      return ROLE.testWriter;
    case 'tdd-green':
      return ROLE.implementer;
    case 'tdd-refactor':
      return ROLE.refactorer;
  }
}

export function rolesEnforced(mode: Mode): boolean {
  return mode === 'standard';
}
