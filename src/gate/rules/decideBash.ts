/**
 * The Bash policy: a command is judged like the Write/Edit calls it stands for. The analysis says
 * what it may write; the facts (gathered on disk by src/gate/bashFacts.ts) say what each target is.
 * The rules are the gate's one list (rules.ts); this module turns the command's writes into the
 * targets the list's write rules judge. Pure: the same analysis and facts always give the same Decision.
 */
import type { BashAnalysis, BashWrite } from './bash/types.js';
import type { PathClass } from '../../state/rules/classify.js';
import type { Decision } from './decision.js';
import { decideInCycle } from './decide.js';
import { TooManyFiles, type CycleFacts, type WriteTarget } from './facts.js';
import { ROLE, rolesEnforced } from './roles.js';
import type { ActivePhase, Mode } from '../../state/schema/state.js';

export { MAX_FILES, TooManyFiles } from './facts.js';

/** One concrete file a write may touch. */
export interface TargetFact {
  /** Absolute path as the command names it (glob match, tree member). */
  abs: string;
  /** Canonical location (symlinks resolved). */
  real: string;
  classes: readonly PathClass[];
  /** Inside this cycle's project (canonical). */
  inProject: boolean;
  /** The file exists now (a `touch` of an existing file changes no content). */
  exists: boolean;
  /** The target could not be pinned down on disk (why, for the reason): fail closed. */
  unresolved?: string;
  /** A file frozen with the tests that is not a test itself (a runner config). */
  config?: boolean;
  /** Inside installed dependencies (node_modules, a virtualenv) or the runner's installation frozen with the tests. */
  dependency?: boolean;
}

/** What the Bash policy asks the disk, answered by src/gate/bashFacts.ts (or a table in tests). */
export interface BashFacts {
  /** The working directory of the Bash call. */
  cwd: string;
  /** `tdd-gate:<role>` of the calling subagent; undefined for the main thread. */
  agentType: string | undefined;
  specId: string;
  phase: ActivePhase;
  mode: Mode;
  /** The cycle as the phase table sees it (may hash the SPEC: asked only when needed). */
  cycle(): CycleFacts;
  /** The concrete files a write may touch (glob matches, directory contents); may throw TooManyFiles. */
  targets(w: BashWrite, cwd: string): Iterable<TargetFact>;
  /** Classes of a path named in text the analysis could not parse. */
  classesOf(cwd: string, raw: string): readonly PathClass[];
  /** The file's content after the write, when it can be known (RED stub check). */
  contentAfter(w: BashWrite, cwd: string, real: string): string | null;
  /** A directory outside this cycle's project (symlinks resolved). */
  outsideProject(dir: string): boolean;
  /** Every path exists (`git checkout x` restores files rather than switching branches). */
  allExist(paths: readonly string[], cwd: string): boolean;
  /** Display form of an absolute path: project-relative when inside. */
  display(abs: string): string;
  /** GREEN/REFACTOR: what the write does to runner settings frozen inside the target (package.json's test script, …). */
  frozenPart?(w: BashWrite, cwd: string, t: TargetFact): WriteTarget['frozenPart'];
}

/** A Bash command alone, as the cycle rules judge it (no control set, no programs: those are the hook's facts). */
export function decideBash(a: BashAnalysis, facts: BashFacts): Decision {
  return decideInCycle({
    kind: 'bash',
    phase: facts.phase,
    tool: 'Bash',
    bash: () => ({ analysis: a, facts }),
    writes: () => bashTargets(a, facts),
    cycle: () => facts.cycle(),
  }).decision;
}

/**
 * The files a command writes, as targets for the write rules, in the order it names them. A
 * target that cannot be pinned down, or a glob or directory with too many files, is one the
 * rules block.
 */
export function* bashTargets(a: BashAnalysis, f: BashFacts): Generator<WriteTarget> {
  try {
    for (const w of a.writes) yield* writeTargets(w, f);
  } catch (err) {
    if (!(err instanceof TooManyFiles)) throw err;
    yield { display: '', classes: [], tooMany: true };
  }
}

function* writeTargets(w: BashWrite, f: BashFacts): Generator<WriteTarget> {
  const cwd = w.cwd ?? f.cwd;
  const via = `\`${w.via}\` in a Bash command`;
  for (const t of f.targets(w, cwd)) {
    if (t.unresolved !== undefined) {
      yield { display: '', classes: [], unresolved: `\`${w.via}\` writes ${t.unresolved}` };
      continue;
    }
    // `touch` of an existing file changes its times, not its content.
    if (w.metadataOnly && t.exists) continue;
    let cls = t.classes;
    if (w.onlyTests) {
      if (!cls.includes('test')) continue;
      cls = ['test'];
    }
    const frozenPart = f.frozenPart?.(w, cwd, t);
    if (!frozenPart && t.dependency !== true && cls.every((c) => c === 'other') && !readOnlyRoleInProject(f, t)) continue;
    const target: WriteTarget = { display: `${f.display(t.abs)} (written by ${via})`, classes: cls, ...(frozenPart ? { frozenPart } : {}), ...(t.config === true ? { config: true } : {}), ...(t.dependency === true ? { dependency: true } : {}) };
    if (cls.includes('source')) target.contentAfter = f.contentAfter(w, cwd, t.real);
    yield target;
  }
}

/** The test-validator never writes in the project (scratch files outside it, like a test log in /tmp, are fine). */
function readOnlyRoleInProject(f: BashFacts, t: TargetFact): boolean {
  return f.agentType === ROLE.testValidator && rolesEnforced(f.mode) && t.inProject;
}
