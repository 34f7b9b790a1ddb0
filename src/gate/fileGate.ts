import path from 'node:path';
import { contentAfter, type WriteInput } from './rules/contentAfter.js';
import type { CycleFacts, WriteTarget } from './rules/facts.js';
import type { FileToolEvent } from '../state/schema/event.js';
import { classesOf, runnerConfig, type DiskContext } from './targetClasses.js';
import { liveSpecHash } from '../spec/specHashCache.js';
import type { ActiveCycle } from '../state/cycle.js';
import { compileGlobs } from '../state/rules/globs.js';
import { parseReachAllow, reachAllowedFor } from '../verify/rules/reachAllow.js';
import { docExamplePart, onlyRustTestRegionsChange, rustDocExamples, rustTestRegions, testRegionPart } from '../verify/rules/testRegions.js';
import { sha256Hex } from '../state/hash.js';
import { splitGlobs } from '../state/schema/stackGlobs.js';
import { runnerInstallationRoots, underRunnerRoot } from '../verify/rules/installationRoots.js';
import { frozenPartChange, partFileOf } from './frozenParts.js';
import { isInstalledDependency } from '../state/rules/envDirs.js';
import { envProbe } from '../state/envProbe.js';
import { readOrNull } from '../state/readOrNull.js';

/** GREEN/REFACTOR: does this write change a test region frozen inside a source (or add one)? */
function testRegionChanged(cycle: ActiveCycle, rel: string, after: string): boolean {
  if (!rel.endsWith('.rs') || (cycle.state.phase !== 'tdd-green' && cycle.state.phase !== 'tdd-refactor')) return false;
  const frozen = (cycle.state as { frozen?: { parts?: Record<string, string> } }).frozen?.parts;
  if (!frozen) return false;
  const regions = rustTestRegions(after);
  const want = frozen[testRegionPart(rel)];
  if (want === undefined ? regions !== null : regions === null || sha256Hex(regions) !== want) return true;
  // A doc example frozen with the tests (a doc test) is changed or gone; new items may add their own.
  const prefix = docExamplePart(rel, '');
  const frozenDocs = Object.keys(frozen).filter((k) => k.startsWith(prefix.slice(0, -1)));
  if (frozenDocs.length === 0) return false;
  const docs = rustDocExamples(after);
  return frozenDocs.some((k) => {
    const code = docs[k.slice(prefix.length - 1, -1)];
    return code === undefined || sha256Hex(code) !== frozen[k];
  });
}

function runnerReachAllow(globs: string | string[], nocase: boolean, rel: string): true | string[] {
  return reachAllowedFor(parseReachAllow(splitGlobs(globs)), rel, (g) => compileGlobs(g, nocase));
}

/** The SPEC drift fact for GREEN/REFACTOR; hashing a large SPEC is the costliest thing the hook does. */
function specDrift(cycle: ActiveCycle): CycleFacts['specDrift'] {
  const { state } = cycle;
  if (state.spec_hash === '' || (state.phase !== 'tdd-green' && state.phase !== 'tdd-refactor')) return null;
  const live = liveSpecHash(`${cycle.repo.root}/${cycle.classify.specRel}`);
  return live === state.spec_hash ? null : { frozen: state.spec_hash, live };
}

/** The cycle as the write rules see it; the SPEC is hashed only when a rule asks for its drift. */
export function cycleFacts(cycle: ActiveCycle, agentType: string | undefined): CycleFacts {
  let drift: CycleFacts['specDrift'] | undefined;
  return {
    phase: cycle.state.phase,
    mode: cycle.state.mode,
    role: agentType ?? null,
    specRel: cycle.classify.specRel,
    get specDrift() {
      if (drift === undefined) drift = specDrift(cycle);
      return drift;
    },
  };
}

/** The project facts classifying a target needs, from the cycle. */
export function diskOf(cycle: ActiveCycle): DiskContext {
  return { root: cycle.repo.root, home: cycle.home, nocase: cycle.nocase, classify: cycle.classify, statePath: cycle.statePath, runnerRoots: runnerInstallationRoots(cycle.state) };
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

/** What a Write, Edit, MultiEdit or NotebookEdit call writes, as the write rules judge it. */
export function fileTarget(cycle: ActiveCycle, event: FileToolEvent): WriteTarget {
  const { path: raw, input } = writeInput(event);
  const found = classesOf(diskOf(cycle), event.cwd, raw);
  const { real } = found;
  let { classes } = found;
  if (real.endsWith('.rs') && classes.includes('source') && !classes.includes('test')) {
    // A write inside a Rust source's inline test module alone is a test write (RED: allowed; GREEN: frozen).
    const before = readOrNull(real) ?? '';
    if (onlyRustTestRegionsChange(before, contentAfter(input, before))) classes = classes.map((c) => (c === 'source' ? 'test' : c));
  }
  const inProject = path.relative(cycle.repo.root, real);
  const dependency = (!inProject.startsWith('..') && !path.isAbsolute(inProject) && isInstalledDependency(inProject.split(path.sep).join('/'), envProbe(cycle.repo.root))) || underRunnerRoot(real, runnerInstallationRoots(cycle.state));
  const target: WriteTarget = { display: raw, classes, dependency };
  if (classes.includes('test') && runnerConfig(diskOf(cycle), real)) target.config = true;
  if (classes.includes('source') && cycle.state.phase !== 'tdd-plan') {
    // RED: the stub marker; GREEN/REFACTOR: a source must not reach into the test runner.
    target.contentBefore = readOrNull(real);
    target.contentAfter = contentAfter(input, target.contentBefore);
    const rel = path.relative(cycle.repo.root, real).split(path.sep).join('/');
    target.rel = rel;
    target.runnerReachAllowed = cycle.stack.config.runner_reach_allow !== undefined && runnerReachAllow(cycle.stack.config.runner_reach_allow, cycle.nocase, rel);
    target.testRegionChanged = testRegionChanged(cycle, rel, target.contentAfter);
  }
  // GREEN/REFACTOR: runner settings frozen inside package.json, pyproject.toml, setup.cfg.
  const partFile = partFileOf(cycle, real);
  if (partFile !== null) {
    const part = frozenPartChange(cycle, partFile, real, { text: contentAfter(input, readOrNull(real)) });
    if (part) target.frozenPart = part;
  }
  return target;
}
