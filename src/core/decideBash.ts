/**
 * The Bash policy: a command is judged like the Write/Edit calls it stands for. The analysis says
 * what it may write; the facts (gathered on disk by src/io/bashFacts.ts) say what each target is.
 * Pure: the same analysis and facts always give the same Decision.
 */
import { cliEffect, READ_ONLY_VERBS } from './bash/cliCalls.js';
import type { BashAnalysis, BashWrite } from './bash/types.js';
import type { PathClass } from './classify.js';
import { PASS, ask, deny, type Decision } from './decision.js';
import { decideWriteTarget, type CycleFacts, type WriteTarget } from './decideWrite.js';
import { ROLE, describeRole, rolesEnforced } from './roles.js';
import type { ActivePhase, Mode } from '../schema/state.js';

/** Files looked at for one glob or directory write; past this the command is too broad to check. */
export const MAX_FILES = 20_000;

/** Thrown by a facts provider when a glob or directory write covers more than MAX_FILES files. */
export class TooManyFiles extends Error {
  constructor() {
    super(`more than ${MAX_FILES} files`);
    this.name = 'TooManyFiles';
  }
}

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
}

/** What the Bash policy asks the disk, answered by src/io/bashFacts.ts (or a table in tests). */
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
  /**
   * The OS wall (Claude Code's sandbox, configured by the gate) contains this session's Bash
   * calls: what the analysis does not model may run, since the sandbox holds it. Without the wall
   * it is default-deny (ADR 009). Absent means no wall.
   */
  osWall?: boolean;
  /** A person can answer an ask for this call (the client's permission mode lets it through to them). */
  canAsk?: boolean;
  /** The call runs in the background (`run_in_background`, the Monitor tool): it acts after the check. */
  background?: boolean;
}

export function decideBash(a: BashAnalysis, facts: BashFacts): Decision {
  const steps = [cli, headMoves, unknown, writes, mentions, unmodelled];
  for (const step of steps) {
    const d = step(a, facts);
    if (d.kind !== 'pass') return d;
  }
  return confirm(a, facts);
}

function where(f: BashFacts): string {
  return `(phase ${f.phase}, mode ${f.mode}, ${describeRole(f.agentType ?? null)})`;
}

function short(text: string): string {
  return text.length > 120 ? text.slice(0, 117) + '…' : text;
}

function cli(a: BashAnalysis, f: BashFacts): Decision {
  if (f.agentType === undefined) return PASS;
  for (const call of a.cliCalls) {
    if (cliEffect(call.verb, call.args) === 'read') continue;
    return deny(
      'subagent-cli',
      `Blocked \`${short(call.text)}\` ${where(f)}: subagents never run the tdd-gate CLI's state-changing verbs (${call.verb ?? 'a verb that is not static'}); only the orchestrator moves the cycle. Read-only verbs (${READ_ONLY_VERBS.join(', ')}) are fine. Finish your task and report back in your tdd-result block.`,
    );
  }
  return PASS;
}

function confirm(a: BashAnalysis, f: BashFacts): Decision {
  if (f.agentType !== undefined) return PASS;
  const call = a.cliCalls.find((c) => cliEffect(c.verb, c.args) === 'confirm');
  if (!call) return PASS;
  return ask(
    'cli-confirm',
    call.verb === 'result'
      ? `\`${short(call.text)}\` resumes the TDD loop after a halt (its retry bounds were reached). Confirm only if you, the user, have looked at the halt report and want the agents to continue; it is recorded either way.`
      : `\`${short(call.text)}\` ends the active TDD cycle (phase ${f.phase}, SPEC ${f.specId}) early. Confirm only if you, the user, want to stop this cycle; it is recorded either way.`,
  );
}

function headMoves(a: BashAnalysis, f: BashFacts): Decision {
  for (const move of a.headMoves) {
    // A git command that certainly runs in another repository leaves this cycle's branch alone.
    if (move.cwds.every((c) => c !== null && f.outsideProject(c))) continue;
    const u = move.unlessPaths;
    if (u && u.cwd !== null && f.allExist(u.paths, u.cwd)) continue;
    return deny(
      'head-move',
      `Blocked \`${short(move.text)}\` ${where(f)}: while a TDD cycle is active, git commands that move HEAD to another branch or commit or bring in other commits (checkout/switch of a branch, worktree add, merge, rebase, cherry-pick, pull, am, revert, reset to a commit, stash branch, a stash entry named by a value that is not static) are blocked: the cycle's state belongs to this branch and frozen files must not change out of sight. Stay on this branch; to restore a single file use \`git checkout -- <file>\` or \`git restore <file>\`, and to bring back a stash use \`git stash pop\` or \`git stash apply stash@{N}\` with a literal N (each judged like the writes it makes). Branch work can resume after \`tdd-gate done\`, or after the user aborts the cycle.`,
    );
  }
  return PASS;
}

function unknown(a: BashAnalysis, f: BashFacts): Decision {
  if (a.unknown.length === 0) return PASS;
  return deny(
    'bash-unresolved',
    `Blocked Bash command ${where(f)}: ${a.unknown.slice(0, 3).join('; ')}. While a TDD cycle is active the gate must know every file a command writes to apply the phase rules, so it fails closed here. Spell the paths out literally, or use the Write/Edit tools for file changes.`,
  );
}

function writes(a: BashAnalysis, f: BashFacts): Decision {
  try {
    for (const w of a.writes) {
      const d = judgeWrite(w, f);
      if (d.kind !== 'pass') return d;
    }
  } catch (err) {
    if (!(err instanceof TooManyFiles)) throw err;
    return deny(
      'bash-unresolved',
      `Blocked Bash command ${where(f)}: a glob or directory it writes covers more than ${MAX_FILES} files, too many to check against the phase rules. Name the files or a narrower directory.`,
    );
  }
  return PASS;
}

function mentions(a: BashAnalysis, f: BashFacts): Decision {
  for (const m of a.mentions) {
    const cwd = m.cwd ?? f.cwd;
    for (const candidate of m.candidates) {
      const classes = f.classesOf(cwd, candidate);
      if (classes.every((c) => c === 'other')) continue;
      const d = decideWriteTarget(f.cycle(), { display: candidate, classes, contentAfter: null });
      if (d.kind === 'pass') continue;
      return deny(
        'bash-unresolved',
        `Blocked Bash command ${where(f)}: ${m.reason}, and it names ${candidate}, which this phase protects (${d.ruleId}). The gate cannot tell whether the command writes it, so it fails closed. Rewrite the command so it parses and names its targets literally, or use the Write/Edit tools.`,
      );
    }
  }
  return PASS;
}

/**
 * Default-deny without the OS wall: a program the analysis does not know, an option that runs a
 * command, a computed command word or a job that outlives the call is never allowed silently.
 * The person is asked where the client lets them answer; otherwise it is denied.
 */
function unmodelled(a: BashAnalysis, f: BashFacts): Decision {
  if (f.osWall === true) return PASS;
  const found = f.background === true ? [{ program: 'run_in_background', what: 'runs the command in the background, where it can act after the gate has checked the call' }, ...a.unmodelled] : a.unmodelled;
  if (found.length === 0) return PASS;
  const list = found
    .slice(0, 3)
    .map((u) => `\`${u.program}\` ${u.what}`)
    .join('; ');
  const first = found[0]?.program ?? '';
  const allow = `A project that relies on it can allow it in .tdd/stack.json, e.g. \`"bash_allow": ["${allowExample(first)}"]\` (a program, or a program and its first words), outside a cycle; with the OS wall on, the sandbox contains such commands and they run.`;
  if (f.canAsk === true) {
    return ask('bash-unmodelled', `This Bash command ${where(f)} does something the TDD gate cannot check: ${list}. Without the OS wall (the sandbox), the gate cannot tell what it writes, so it could change the cycle's records or frozen tests. Confirm only if you, the user, know what it does. ${allow}`);
  }
  return deny(
    'bash-unmodelled',
    `Blocked Bash command ${where(f)}: ${list}. While a TDD cycle is active and the OS wall (the sandbox) is off, every program a command starts must be one the gate knows, with options it models, named literally, in the foreground; no person can confirm this call here. Use a known program or the Write/Edit tools, or ask the user to allow it. ${allow}`,
  );
}

function allowExample(program: string): string {
  const clean = program.replace(/["\\]/g, '');
  return clean === '' || clean.startsWith('&') || clean.includes('$') || clean.includes('`') ? 'make test' : clean;
}

function judgeWrite(w: BashWrite, f: BashFacts): Decision {
  const cwd = w.cwd ?? f.cwd;
  const via = `\`${w.via}\` in a Bash command`;
  for (const t of f.targets(w, cwd)) {
    if (t.unresolved !== undefined) {
      return deny(
        'bash-unresolved',
        `Blocked Bash command ${where(f)}: \`${w.via}\` writes ${t.unresolved}. While a TDD cycle is active the gate must know every file a command writes to apply the phase rules, so it fails closed here. Spell the paths out literally, or use the Write/Edit tools for file changes.`,
      );
    }
    // `touch` of an existing file changes its times, not its content.
    if (w.metadataOnly && t.exists) continue;
    let cls = t.classes;
    if (w.onlyTests) {
      if (!cls.includes('test')) continue;
      cls = ['test'];
    }
    const frozenPart = f.frozenPart?.(w, cwd, t);
    if (!frozenPart && cls.every((c) => c === 'other') && !readOnlyRoleInProject(f, t)) continue;
    const target: WriteTarget = { display: `${f.display(t.abs)} (written by ${via})`, classes: cls, ...(frozenPart ? { frozenPart } : {}), ...(t.config === true ? { config: true } : {}) };
    if (cls.includes('source')) target.contentAfter = f.contentAfter(w, cwd, t.real);
    const d = decideWriteTarget(f.cycle(), target);
    if (d.kind !== 'pass') return d;
  }
  return PASS;
}

/** The test-validator never writes in the project (scratch files outside it, like a test log in /tmp, are fine). */
function readOnlyRoleInProject(f: BashFacts, t: TargetFact): boolean {
  return f.agentType === ROLE.testValidator && rolesEnforced(f.mode) && t.inProject;
}
