import type { ActivePhase, Mode } from '../../state/schema/state.js';
import { PASS, deny, type Decision } from './decision.js';

/** Plugin agents reach hooks as `tdd-gate:<agent>` (DESIGN §3). */
export const ROLE = {
  planner: 'tdd-gate:planner',
  testWriter: 'tdd-gate:test-writer',
  testValidator: 'tdd-gate:test-validator',
  implementer: 'tdd-gate:implementer',
  refactorer: 'tdd-gate:refactorer',
  /** Drafts SPECs before a cycle exists; confined to specs/ whether or not a cycle is active. */
  specWriter: 'tdd-gate:spec-writer',
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

/** Where SPECs live: the one directory the spec-writer may write in. */
const SPECS_DIR = 'specs';

const SPEC_WRITER_SCOPE = `The spec-writer writes only the SPEC draft under ${SPECS_DIR}/ (${SPECS_DIR}/SPEC-<n>-<slug>.md): read the code with Read, Grep and Glob, write the draft, and end with your spec-draft block.`;

/**
 * One location a spec-writer's write resolves to (lexical and canonical, DESIGN §4): root-relative
 * with posix separators, or null outside the project. Pure: the caller canonicalizes.
 */
export function decideSpecWriterWrite(display: string, rel: string | null, nocase: boolean, hardLinked: boolean): Decision {
  const r = rel === null ? null : nocase ? rel.toLowerCase() : rel;
  const inside = r !== null && r.startsWith(`${SPECS_DIR}/`) && !r.split('/').includes('..') && r.length > SPECS_DIR.length + 1;
  if (!inside) return deny('spec-writer-scope', `Blocked write to ${display} (${describeRole(ROLE.specWriter)}): it is outside ${SPECS_DIR}/. ${SPEC_WRITER_SCOPE}`);
  if (hardLinked) return deny('spec-writer-scope', `Blocked write to ${display} (${describeRole(ROLE.specWriter)}): the file has a second name (a hard link), so writing it could change a file outside ${SPECS_DIR}/. Write a new file under ${SPECS_DIR}/ instead. ${SPEC_WRITER_SCOPE}`);
  return PASS;
}

/** The spec-writer runs no commands and uses no other tools that can write. */
export function decideSpecWriterTool(tool: string): Decision {
  return deny('spec-writer-scope', `Blocked ${tool} (${describeRole(ROLE.specWriter)}): the spec-writer runs no commands and uses no tools beyond Read, Grep, Glob, Write and Edit. ${SPEC_WRITER_SCOPE}`);
}
