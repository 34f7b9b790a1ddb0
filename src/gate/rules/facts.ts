/**
 * What the gate's rules know of a tool call: values and questions the gate wing answers from the
 * disk (src/gate/facts.ts), or a table in a test. The rules (rules.ts) only read these.
 */
import type { Decision } from './decision.js';
import type { PathClass } from '../../state/rules/classify.js';
import type { ActivePhase, Mode } from '../../state/schema/state.js';
import type { BashAnalysis } from './bash/types.js';
import type { Role } from './roles.js';
import type { BashFacts } from './decideBash.js';

/**
 * How the gate treats a call. It picks the rules that apply and how the answers of several
 * projects combine (decide.ts): `file` (Write, Edit, MultiEdit, NotebookEdit), `bash`, `monitor`
 * (a background command), `worktree` (EnterWorktree), `mcp` (an MCP server's tool), `shell` (a
 * skill's shell command in a shell the gate cannot read); null for a tool the gate does not judge.
 */
export type CallKind = 'file' | 'bash' | 'monitor' | 'worktree' | 'mcp' | 'shell';

/** The call as a whole, before any project is looked at. */
export interface CallFacts<C> {
  kind: CallKind | null;
  /** The tool as the reasons name it (`Write`, `PowerShell`). */
  tool: string;
  /** The spec-writer's confinement to specs/, asked for the spec-writer's calls only (it holds with no cycle). */
  specWriter: (() => Decision) | null;
  /** Why the input cannot be read (the hand check's words), or null. */
  badInput: string | null;
  /** The projects the call touches, or the decision when one of them cannot be loaded (the gate fails closed). */
  cycles(): readonly C[] | Decision;
  /** The facts of the call in one project. */
  inCycle(cycle: C): CycleCall;
  /** The client cannot ask the person (a skill's shell command): what an ask becomes. */
  cannotAsk: ((asked: Extract<Decision, { kind: 'ask' }>) => Decision) | null;
}

/** The active cycle as the write rules see it. */
export interface CycleFacts {
  phase: ActivePhase;
  mode: Mode;
  role: Role;
  specRel: string;
  /** Set in GREEN/REFACTOR when the live SPEC hash differs from the frozen one. */
  specDrift: { frozen: string; live: string | null } | null;
}

/** One path a tool call writes, with every class it falls in (a symlink can have two). */
export interface WriteTarget {
  display: string;
  classes: readonly PathClass[];
  /** The file as it will be after the write, when known (RED stub check). */
  contentAfter?: string | null;
  /** The path relative to the project's root, when inside it (what runner_reach_allow names). */
  rel?: string;
  /** The file as it is before the write (what it already did is the project's, not this write's). */
  contentBefore?: string | null;
  /** A file frozen with the tests that is not a test (a runner configuration, a file the run loads). */
  config?: boolean;
  /** Inside installed dependencies (node_modules): an edit there could rewrite the test runner. */
  dependency?: boolean;
  /** The stack's runner_reach_allow lists this source (true: test helpers shipped as source), or the constructs it may use (`<glob>#<construct>`). */
  runnerReachAllowed?: boolean | readonly string[];
  /** The write changes a test region frozen inside this source (Rust's inline test module). */
  testRegionChanged?: boolean;
  /**
   * GREEN/REFACTOR: the write changes runner settings frozen with the tests inside an otherwise
   * editable file (package.json's test script, a pytest section): which ones, or null when the
   * gate cannot tell what the write leaves in them (a Bash write).
   */
  frozenPart?: { file: string; keys: readonly string[] | null };
  /** A Bash write whose file could not be pinned down: what it writes, as the reason says it. */
  unresolved?: string;
  /** A Bash write to a glob or directory with more files than the gate looks at. */
  tooMany?: boolean;
}

/** The facts the Bash rules read: the command's analysis and what the disk says of its targets (bashFacts.ts). */
export interface BashCall {
  analysis: BashAnalysis;
  facts: BashFacts;
}

/** The call in one project: the cycle-stage rules read this. Absent questions mean the rule does not apply. */
export interface CycleCall {
  kind: CallKind;
  phase: ActivePhase;
  /** The tool as the reasons name it. */
  tool: string;
  /** The control set (the tamper wing): what moved is put back and said; null when nothing did. */
  integrity?: () => Decision | null;
  /** Hardened mode's rule for a Bash command that names the CLI (the wall wing); null when it has nothing to say. */
  hardened?: () => Decision | null;
  /** The call asks to run outside the sandbox (dangerouslyDisableSandbox). */
  sandboxDisabled?: boolean;
  /** How the command names the plugin's own programs (the tamper wing): a deny, or PASS. */
  programs?: () => Decision;
  /** The Bash command's analysis and facts; null for a Monitor that runs no command. */
  bash?: () => BashCall | null;
  /** The files a Write, Edit, NotebookEdit or MCP call writes. */
  writes?: () => Iterable<WriteTarget>;
  /** The cycle as the write rules see it (may hash the SPEC: asked only when a rule needs it). */
  cycle: () => CycleFacts;
  /** A skill's shell command in a shell the gate cannot read: where it comes from (`/skill`). */
  skill?: string;
}

/** One written file, for the target rules. */
export interface TargetFacts {
  target: WriteTarget;
  cycle: () => CycleFacts;
}

/** One written file in one of its classes, for the class rules. */
export interface WriteFacts extends TargetFacts {
  cls: PathClass;
}

/** Files looked at for one glob or directory write; past this the command is too broad to check. */
export const MAX_FILES = 20_000;

/** Thrown by a facts provider when a glob or directory write covers more than MAX_FILES files. */
export class TooManyFiles extends Error {
  constructor() {
    super(`more than ${MAX_FILES} files`);
    this.name = 'TooManyFiles';
  }
}
