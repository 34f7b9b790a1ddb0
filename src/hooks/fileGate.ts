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
import { compileGlobs } from '../core/globs.js';
import { onlyRustTestRegionsChange, rustTestRegions, testRegionPart } from '../core/testRegions.js';
import { sha256Hex } from '../io/hash.js';
import { splitGlobs } from '../schema/stackGlobs.js';

/** GREEN/REFACTOR: does this write change a test region frozen inside a source (or add one)? */
function testRegionChanged(cycle: ActiveCycle, rel: string, after: string): boolean {
  if (!rel.endsWith('.rs') || (cycle.state.phase !== 'tdd-green' && cycle.state.phase !== 'tdd-refactor')) return false;
  const frozen = (cycle.state as { frozen?: { parts?: Record<string, string> } }).frozen?.parts;
  if (!frozen) return false;
  const regions = rustTestRegions(after);
  const want = frozen[testRegionPart(rel)];
  if (want === undefined) return regions !== null;
  return regions === null || sha256Hex(regions) !== want;
}

function runnerReachAllow(globs: string | string[], nocase: boolean): (rel: string) => boolean {
  return compileGlobs(splitGlobs(globs), nocase);
}

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
  const linked = real === undefined ? null : hardLinked(real.abs);
  if (linked !== null && real !== undefined) {
    // A second name for a control file is a control file (same device and inode).
    if (controlIdentities(cycle).has(linked)) classes.add('control');
    // A second name for the same inode may be a test file: writing it would change the test.
    if (real.rel !== null && !real.rel.split('/').includes('node_modules')) classes.add('test');
  }
  return { classes: [...classes], real: real?.abs ?? raw };
}

/** `dev:ino` of a file with more than one name; null otherwise. */
function hardLinked(abs: string): string | null {
  try {
    const st = statSync(abs);
    return st.isFile() && st.nlink > 1 ? `${st.dev}:${st.ino}` : null;
  } catch {
    return null;
  }
}

const identities = new WeakMap<ActiveCycle, Set<string>>();

/** The device and inode of every control file that exists, computed once per call and only when a target has several names. */
function controlIdentities(cycle: ActiveCycle): Set<string> {
  const known = identities.get(cycle);
  if (known !== undefined) return known;
  const root = cycle.repo.root;
  const files = [
    cycle.statePath,
    path.join(root, '.tdd', 'stack.json'),
    path.join(root, '.tdd', 'events.jsonl'),
    path.join(root, '.claude', 'settings.json'),
    path.join(root, '.claude', 'settings.local.json'),
    path.join(root, '.mcp.json'),
    path.join(cycle.home, '.claude', 'settings.json'),
    path.join(cycle.home, '.claude', 'settings.local.json'),
    path.join(cycle.home, '.claude.json'),
    ...cycle.classify.controlAbs,
  ];
  const ids = new Set<string>();
  for (const f of files) {
    try {
      const st = statSync(f);
      ids.add(`${st.dev}:${st.ino}`);
    } catch {
      // absent
    }
  }
  identities.set(cycle, ids);
  return ids;
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
  const found = classesOf(cycle, event.cwd, raw);
  const { real } = found;
  let { classes } = found;
  if (real.endsWith('.rs') && classes.includes('source') && !classes.includes('test')) {
    // A write inside a Rust source's inline test module alone is a test write (RED: allowed; GREEN: frozen).
    const before = readOrNull(real) ?? '';
    if (onlyRustTestRegionsChange(before, contentAfter(input, before))) classes = classes.map((c) => (c === 'source' ? 'test' : c));
  }
  const touchesWork = classes.includes('test') || classes.includes('source');
  const facts = cycleFacts(cycle, event.agent_type, touchesWork);
  const inProject = path.relative(cycle.repo.root, real);
  const target: WriteTarget = { display: raw, classes, dependency: !inProject.startsWith('..') && inProject.split(path.sep).includes('node_modules') };
  if (classes.includes('source') && cycle.state.phase !== 'tdd-plan') {
    // RED: the stub marker; GREEN/REFACTOR: a source must not reach into the test runner.
    target.contentAfter = contentAfter(input, readOrNull(real));
    const rel = path.relative(cycle.repo.root, real).split(path.sep).join('/');
    target.runnerReachAllowed = cycle.stack.config.runner_reach_allow !== undefined && runnerReachAllow(cycle.stack.config.runner_reach_allow, cycle.nocase)(rel);
    target.testRegionChanged = testRegionChanged(cycle, rel, target.contentAfter);
  }
  return decideWrites(facts, [target]);
}
