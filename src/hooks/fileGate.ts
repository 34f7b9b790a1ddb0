import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { classify, type PathClass } from '../core/classify.js';
import { contentAfter, type WriteInput } from '../core/contentAfter.js';
import type { Decision } from '../core/decision.js';
import { decideWrites, type CycleFacts, type WriteTarget } from '../core/decideWrite.js';
import type { FileToolEvent } from '../schema/event.js';
import { resolveTarget } from '../io/canonicalPath.js';
import { liveSpecHash } from '../io/specHashCache.js';
import type { ActiveCycle } from './cycle.js';

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** The SPEC drift fact for GREEN/REFACTOR; hashing a large SPEC is the costliest thing the hook does. */
export function specDrift(cycle: ActiveCycle): CycleFacts['specDrift'] {
  const { state } = cycle;
  if (state.spec_hash === '' || (state.phase !== 'tdd-green' && state.phase !== 'tdd-refactor')) return null;
  const live = liveSpecHash(`${cycle.repo.root}/${cycle.classify.specRel}`);
  return live === state.spec_hash ? null : { frozen: state.spec_hash, live };
}

export function cycleFacts(cycle: ActiveCycle, agentType: string | undefined, withDrift: boolean): CycleFacts {
  return {
    phase: cycle.state.phase,
    mode: cycle.state.mode,
    role: agentType ?? null,
    specRel: cycle.classify.specRel,
    specDrift: withDrift ? specDrift(cycle) : null,
  };
}

/** Every class a raw path falls in, resolved from `cwd`. */
export function classesOf(cycle: ActiveCycle, cwd: string, raw: string): { classes: PathClass[]; real: string } {
  const locations = resolveTarget(cycle.repo.root, cwd, raw, cycle.nocase, cycle.home);
  const classes = new Set(locations.map((loc) => classify(loc, cycle.classify)));
  const real = locations[0];
  if (real !== undefined && real.rel !== null && isHardLinked(real.abs) && !real.rel.split('/').includes('node_modules')) {
    // A second name for the same inode may be a test file: writing it would change the test.
    classes.add('test');
  }
  return { classes: [...classes], real: real?.abs ?? raw };
}

function isHardLinked(abs: string): boolean {
  try {
    const st = statSync(abs);
    return st.isFile() && st.nlink > 1;
  } catch {
    return false;
  }
}

function writeInput(event: FileToolEvent): { path: string; input: WriteInput } {
  switch (event.tool_name) {
    case 'Write':
      return { path: event.tool_input.file_path, input: { tool: 'Write', content: event.tool_input.content } };
    case 'Edit':
      return { path: event.tool_input.file_path, input: { tool: 'Edit', edits: [event.tool_input] } };
    case 'MultiEdit':
      return { path: event.tool_input.file_path, input: { tool: 'Edit', edits: event.tool_input.edits } };
    case 'NotebookEdit':
      return { path: event.tool_input.notebook_path, input: { tool: 'NotebookEdit', ...event.tool_input } };
  }
}

export function gateFileTool(cycle: ActiveCycle, event: FileToolEvent): Decision {
  const { path: raw, input } = writeInput(event);
  const { classes, real } = classesOf(cycle, event.cwd, raw);
  const touchesWork = classes.includes('test') || classes.includes('source');
  const facts = cycleFacts(cycle, event.agent_type, touchesWork);
  const inProject = path.relative(cycle.repo.root, real);
  const target: WriteTarget = { display: raw, classes, dependency: !inProject.startsWith('..') && inProject.split(path.sep).includes('node_modules') };
  if (cycle.state.phase === 'tdd-red' && classes.includes('source')) {
    target.contentAfter = contentAfter(input, readOrNull(real));
  }
  return decideWrites(facts, [target]);
}
