/**
 * The gate's rules, in the order they are checked: one list for every tool (Write, Edit,
 * MultiEdit, NotebookEdit, Bash, Monitor, EnterWorktree, MCP tools, a skill's shell command). A
 * rule reads facts (facts.ts) and returns a Decision, or undefined when it has nothing to say; the
 * first rule with something to say decides. Its `id` is what the deny reason carries
 * ("tdd-gate rule [id]") and the event log records; a rule that hands on a decision another wing
 * made (the control set, hardened mode, the plugin's programs, the cycle's loading) lists the ids
 * that decision can carry in `ids`.
 *
 * The stage says what a rule looks at: `call` the call as a whole (once), `cycle` the call in one
 * project (once per project it touches), `target` one file the call writes and `class` that file
 * in one of its classes (a link can be a test and a control file). The target and class rules form
 * one block in the list, run for every written file where the block stands (decide.ts).
 *
 * Pure: no file system, no process, no clock (the lint holds every rules/ folder to that).
 */
import { cliEffect } from './bash/cliCalls.js';
import { readOnlyVerbs } from '../../state/rules/verbs.js';
import { STUB_MARKER } from './contentAfter.js';
import { stubMarked } from '../../tamper/rules/stubMarker.js';
import { PASS, ask, deny, type Decision } from './decision.js';
import type { BashAnalysis } from './bash/types.js';
import type { BashFacts } from './decideBash.js';
import { MAX_FILES, type BashCall, type CallFacts, type CycleCall, type CycleFacts, type TargetFacts, type WriteFacts, type WriteTarget } from './facts.js';
import { ROLE, describeRole, phaseWriter, rolesEnforced } from './roles.js';
import { runnerReach, runnerReachReason } from './runnerReach.js';

interface RuleBase {
  /** The id the deny or ask carries. */
  id: string;
  /** What the rule holds, in a sentence. */
  doc: string;
  /** Other ids the decision it hands on can carry. */
  ids?: readonly string[];
}
export type CallRule = RuleBase & { stage: 'call'; check(f: CallFacts<unknown>): Decision | undefined };
type CycleRule = RuleBase & { stage: 'cycle'; check(f: CycleCall): Decision | undefined };
type TargetRule = RuleBase & { stage: 'target'; check(f: TargetFacts): Decision | undefined };
type ClassRule = RuleBase & { stage: 'class'; check(f: WriteFacts): Decision | undefined };
type Rule = CallRule | CycleRule | TargetRule | ClassRule;

/** A decision only when there is one to make: PASS from a fact means "nothing to say". */
function unlessPass(d: Decision | null | undefined): Decision | undefined {
  return d === null || d === undefined || d.kind === 'pass' ? undefined : d;
}

const TEST_BUG =
  'If a frozen test is wrong, stop and report `TEST_BUG: <file>:<line> — <why>` to the orchestrator instead of changing it.';

function where(c: CycleFacts): string {
  return `(phase ${c.phase}, mode ${c.mode}, ${describeRole(c.role)})`;
}

function bashWhere(f: BashFacts): string {
  return `(phase ${f.phase}, mode ${f.mode}, ${describeRole(f.agentType ?? null)})`;
}

function short(text: string): string {
  return text.length > 120 ? text.slice(0, 117) + '…' : text;
}

function isWork(cls: string): cls is 'test' | 'source' {
  return cls === 'test' || cls === 'source';
}

function frozenTests(c: CycleFacts): boolean {
  return c.phase === 'tdd-green' || c.phase === 'tdd-refactor';
}

/** `scripts.test` → "the test script", `type` → "\"type\"". */
function settingName(key: string): string {
  const script = /^scripts\.(.+)$/.exec(key);
  return script ? `the ${script[1] ?? ''} script` : key.startsWith('[') || key.startsWith('the ') ? key : `"${key}"`;
}

function frozenPartReason(c: CycleFacts, t: WriteTarget, part: { file: string; keys: readonly string[] | null }): string {
  const why = `the runner's settings decide which tests run and how they report, so they stay as they were at the freeze while the tests are frozen (\`tdd-gate verify\` refuses a change to them)`;
  if (part.keys === null) {
    return `Blocked write to ${t.display} ${where(c)}: ${part.file} holds runner settings frozen with the tests (the scripts the test command runs, the runner's keys and sections), and the gate cannot tell what this command leaves in them, so it fails closed: ${why}. Use the Edit tool for ${part.file}; edits that leave those settings as they are (a dependency, another script) are allowed. ${TEST_BUG}`;
  }
  const names = part.keys.map(settingName);
  const keys = part.keys.filter((k) => !k.startsWith('the '));
  return `Blocked write to ${t.display} ${where(c)}: ${names.join(', ')} in ${part.file} ${names.length > 1 ? 'are' : 'is'} frozen with the tests${keys.length > 0 ? ` (${keys.join(', ')})` : ''}: ${why}. Other edits of ${part.file} (a dependency, another script) are allowed; leave ${names.length > 1 ? 'these' : 'this one'} as ${names.length > 1 ? 'they are' : 'it is'}. ${TEST_BUG}`;
}

function kindOf(t: WriteTarget, cls: 'test' | 'source'): string {
  return cls === 'test' ? (t.config === true ? 'test-runner configuration file' : 'test file') : 'source file';
}

/** The Bash call's facts, for the rules that read a command. */
function bashOf(f: CycleCall): BashCall | null {
  return f.bash?.() ?? null;
}

const UNRESOLVED = 'While a TDD cycle is active the gate must know every file a command writes to apply the phase rules, so it fails closed here. Spell the paths out literally, or use the Write/Edit tools for file changes.';

export const RULES: readonly Rule[] = [
  // ── The call ──────────────────────────────────────────────────────────────────────────────
  {
    stage: 'call',
    id: 'spec-writer-scope',
    doc: 'The spec-writer writes only under specs/ and runs no commands, with or without a cycle (ADR 005).',
    check: (f) => {
      if (f.specWriter === null) return undefined;
      const d = f.specWriter();
      // A shell the gate cannot read: the spec-writer's answer is the whole answer.
      return f.kind === 'shell' ? d : unlessPass(d);
    },
  },
  {
    stage: 'call',
    id: 'ungated-tool',
    doc: 'A tool that writes nothing the gate judges (Read, Grep, Glob, Task, …) passes.',
    check: (f) => (f.kind === null ? PASS : undefined),
  },
  {
    stage: 'call',
    id: 'bad-input',
    doc: 'Input the gate cannot read is blocked (it fails closed).',
    check: (f) => {
      if (f.badInput === null) return undefined;
      if (f.kind === 'shell') {
        return deny(
          'bad-input',
          "the PreSkillShellCommand input could not be understood (it needs cwd, tool_name and tool_input.command), so the skill's shell command is blocked to stay safe. Run the skill again; if this repeats, stop and report it to the user.",
        );
      }
      if (f.kind === 'file' || f.kind === 'bash') {
        return deny(
          'bad-input',
          `the PreToolUse input could not be understood (${f.badInput}), so the call is blocked to stay safe. Retry the tool call with complete arguments (a path and content for file tools, a command for Bash).`,
        );
      }
      return deny('bad-input', `the PreToolUse input could not be understood (${f.badInput}), so the call is blocked to stay safe. Retry the tool call with complete arguments.`);
    },
  },
  {
    stage: 'call',
    id: 'cycle-unreadable',
    doc: "A project whose cycle cannot be loaded (a broken stack.json or state file, a state the anchor does not recognise) blocks the call; plain reads and the CLI's read-only verbs still run, `recover` is asked (state/cycle.ts, gate/facts.ts).",
    ids: ['stack-invalid', 'state-corrupt', 'state-unreadable', 'state-newer', 'state-tampered', 'cli-confirm'],
    check: (f) => {
      const cycles = f.cycles();
      return Array.isArray(cycles) ? undefined : (cycles as Decision);
    },
  },
  // ── The call in one project ───────────────────────────────────────────────────────────────
  {
    stage: 'cycle',
    id: 'control-set',
    doc: 'The control set (state, frozen files, hooks, settings, the plugin) is as the CLI left it; what moved is put back and the call blocked (tamper/integrityGate.ts).',
    ids: ['frozen-restored', 'tamper-restored', 'frozen-drift', 'tamper-detected'],
    check: (f) => unlessPass(f.integrity?.()),
  },
  {
    stage: 'cycle',
    id: 'shell-unparsed',
    doc: "A skill's shell command in a shell other than Bash cannot be analysed, so it does not run during a cycle (ADR 008).",
    check: (f) =>
      f.kind !== 'shell'
        ? undefined
        : deny(
            'shell-unparsed',
            `Blocked the ${f.tool} command in ${f.skill ?? 'a skill'} (phase ${f.phase}): while a TDD cycle is active every shell command is judged by what it writes, and the gate can read only Bash, so it does not run. Do the step with the Write/Edit tools or an ordinary Bash call, or use the skill again after the cycle ends.`,
          ),
  },
  {
    stage: 'cycle',
    id: 'worktree-switch',
    doc: 'The session stays in its work tree while a cycle is active.',
    check: (f) =>
      f.kind !== 'worktree'
        ? undefined
        : deny(
            'worktree-switch',
            `Blocked EnterWorktree (phase ${f.phase}): while a TDD cycle is active the session stays in this work tree and on this branch; the cycle's state and frozen files belong to it. Continue here; worktrees can be used after \`tdd-gate done\`, or after the user aborts the cycle.`,
          ),
  },
  {
    stage: 'cycle',
    id: 'hardened-cli',
    doc: 'Hardened mode: a Bash command that names the CLI is one plain call, since the CLI runs outside the sandbox (wall/sandboxGate.ts).',
    ids: ['hardened-record', 'hardened-result-file', 'hardened-cli-call'],
    check: (f) => unlessPass(f.hardened?.()),
  },
  {
    stage: 'cycle',
    id: 'monitor-idle',
    doc: 'A Monitor that runs no command (a WebSocket watch) writes nothing.',
    check: (f) => (f.kind === 'monitor' && bashOf(f) === null ? PASS : undefined),
  },
  {
    stage: 'cycle',
    id: 'sandbox-off',
    doc: 'Commands run inside the sandbox the user configured.',
    check: (f) =>
      f.sandboxDisabled === true
        ? deny(
            'sandbox-off',
            `Blocked Bash with dangerouslyDisableSandbox (phase ${f.phase}): while a TDD cycle is active, commands run inside the sandbox the user configured. Run the command without that flag; if the sandbox stops something the task needs, stop and tell the user.`,
          )
        : undefined,
  },
  {
    stage: 'cycle',
    id: 'plugin-programs',
    doc: "No command runs the hook program, and the CLI runs only under a name the gate reads (tamper/pluginPrograms.ts).",
    ids: ['hook-feed', 'cli-spelling'],
    check: (f) => unlessPass(f.programs?.()),
  },
  {
    stage: 'cycle',
    id: 'subagent-cli',
    doc: "Subagents run only the CLI's read-only verbs; the orchestrator moves the cycle.",
    check: (f) => {
      const b = bashOf(f);
      if (b === null || b.facts.agentType === undefined) return undefined;
      for (const call of b.analysis.cliCalls) {
        if (cliEffect(call.verb, call.args) === 'read') continue;
        return deny(
          'subagent-cli',
          `Blocked \`${short(call.text)}\` ${bashWhere(b.facts)}: subagents never run the tdd-gate CLI's state-changing verbs (${call.verb ?? 'a verb that is not static'}); only the orchestrator moves the cycle. Read-only verbs (${readOnlyVerbs().join(', ')}) are fine. Finish your task and report back in your tdd-result block.`,
        );
      }
      return undefined;
    },
  },
  {
    stage: 'cycle',
    id: 'head-move',
    doc: "HEAD stays on the cycle's branch and commit.",
    check: (f) => {
      const b = bashOf(f);
      if (b === null) return undefined;
      for (const move of b.analysis.headMoves) {
        // A git command that certainly runs in another repository leaves this cycle's branch alone.
        if (move.cwds.every((c) => c !== null && b.facts.outsideProject(c))) continue;
        const u = move.unlessPaths;
        if (u && u.cwd !== null && b.facts.allExist(u.paths, u.cwd)) continue;
        return deny(
          'head-move',
          `Blocked \`${short(move.text)}\` ${bashWhere(b.facts)}: while a TDD cycle is active, git commands that move HEAD to another branch or commit or bring in other commits (checkout/switch of a branch, worktree add, merge, rebase, cherry-pick, pull, am, revert, reset to a commit, stash branch, a stash entry named by a value that is not static) are blocked: the cycle's state belongs to this branch and frozen files must not change out of sight. Stay on this branch; to restore a single file use \`git checkout -- <file>\` or \`git restore <file>\`, and to bring back a stash use \`git stash pop\` or \`git stash apply stash@{N}\` with a literal N (each judged like the writes it makes). Branch work can resume after \`tdd-gate done\`, or after the user aborts the cycle.`,
        );
      }
      return undefined;
    },
  },
  {
    stage: 'cycle',
    id: 'bash-unresolved',
    doc: 'A command whose writes the analysis cannot pin down is blocked (fails closed).',
    check: (f) => {
      const b = bashOf(f);
      if (b === null || b.analysis.unknown.length === 0) return undefined;
      return deny('bash-unresolved', `Blocked Bash command ${bashWhere(b.facts)}: ${b.analysis.unknown.slice(0, 3).join('; ')}. ${UNRESOLVED}`);
    },
  },
  // ── Each written file (the phase table and the roles) ─────────────────────────────────────
  {
    stage: 'target',
    id: 'bash-unresolved',
    doc: 'A Bash write whose file cannot be pinned down, or that covers too many files to check, is blocked.',
    check: ({ target: t, cycle }) => {
      if (t.tooMany === true) {
        return deny(
          'bash-unresolved',
          `Blocked Bash command ${where(cycle())}: a glob or directory it writes covers more than ${MAX_FILES} files, too many to check against the phase rules. Name the files or a narrower directory.`,
        );
      }
      return t.unresolved === undefined ? undefined : deny('bash-unresolved', `Blocked Bash command ${where(cycle())}: ${t.unresolved}. ${UNRESOLVED}`);
    },
  },
  {
    stage: 'target',
    id: 'dependency-edit',
    doc: 'Installed dependencies hold the test runner: not edited by hand while the tests are frozen.',
    check: ({ target: t, cycle }) => {
      const c = cycle();
      if (!t.dependency || !frozenTests(c)) return undefined;
      return deny(
        'dependency-edit',
        `Blocked write to ${t.display} ${where(c)}: installed dependencies (node_modules, a virtualenv's site-packages) hold the test runner and its assertions, so they are not edited by hand while the tests are frozen. Change production source files; add or update a dependency with the package manager (for example \`npm install <pkg>\` or \`pip install <pkg>\`).`,
      );
    },
  },
  {
    stage: 'target',
    id: 'runner-settings-frozen',
    doc: "The runner's settings inside otherwise editable files (package.json's test script, pytest sections) stay as frozen.",
    check: ({ target: t, cycle }) => {
      const c = cycle();
      return t.frozenPart && frozenTests(c) ? deny('runner-settings-frozen', frozenPartReason(c, t, t.frozenPart)) : undefined;
    },
  },
  {
    stage: 'class',
    id: 'validator-read-only',
    doc: 'In standard mode the test-validator writes nothing.',
    check: ({ target: t, cycle }) => {
      const c = cycle();
      if (!rolesEnforced(c.mode) || c.role !== ROLE.testValidator) return undefined;
      return deny(
        'validator-read-only',
        `Blocked write to ${t.display} ${where(c)}: the test-validator only reads and reports. End your turn with the tdd-result block holding your verdict (PASS, CONCERNS or BLOCKER) and findings.`,
      );
    },
  },
  {
    stage: 'class',
    id: 'control-file',
    doc: "Control files (.tdd/ state, Claude Code's settings and plugins) are read-only during a cycle; the plan too, once the cycle leaves tdd-plan.",
    check: ({ target: t, cls, cycle }) => {
      if (cls === 'control') {
        return deny(
          'control-file',
          `Blocked write to ${t.display} ${where(cycle())}: it is a control file (tdd-gate state under .tdd/, or a Claude Code settings/plugin file that can switch hooks off) and is read-only while a TDD cycle is active. Phase changes go through the tdd-gate CLI (run \`tdd-gate status\` for the next step); settings changes are for the user, after the cycle ends.`,
        );
      }
      const c = cycle();
      if (cls !== 'plan' || c.phase === 'tdd-plan') return undefined;
      return deny('control-file', `Blocked write to ${t.display} ${where(c)}: the plan is fixed once the cycle leaves tdd-plan; .tdd/ is changed only by the tdd-gate CLI.`);
    },
  },
  {
    stage: 'class',
    id: 'spec-frozen',
    doc: 'The SPEC is the oracle of the cycle and stays unchanged while it is active.',
    check: ({ target: t, cls, cycle }) =>
      cls !== 'spec'
        ? undefined
        : deny(
            'spec-frozen',
            `Blocked write to the SPEC ${t.display} ${where(cycle())}: the SPEC is the oracle of this cycle and stays unchanged while it is active. To change requirements, finish or abort the cycle and write a delta SPEC (ADDED / MODIFIED / REMOVED) for a new cycle.`,
          ),
  },
  {
    stage: 'class',
    id: 'spec-drift',
    doc: 'When the SPEC changed after the freeze, no test or source is written until it is restored.',
    check: ({ target: t, cls, cycle }) => {
      if (!isWork(cls)) return undefined;
      const c = cycle();
      if (!c.specDrift || !frozenTests(c)) return undefined;
      const live = c.specDrift.live === null ? 'missing' : c.specDrift.live.slice(0, 12);
      return deny(
        'spec-drift',
        `Blocked write to ${kindOf(t, cls)} ${t.display} ${where(c)}: the SPEC ${c.specRel} changed after the freeze (frozen ${c.specDrift.frozen.slice(0, 12)}, live ${live}), so the certified oracle no longer holds and every test and source write is blocked. Stop and tell the user; the SPEC must be restored or the cycle aborted and re-certified with a delta SPEC.`,
      );
    },
  },
  {
    stage: 'class',
    id: 'plan-phase',
    doc: 'In tdd-plan only the test plan is written.',
    check: ({ target: t, cls, cycle }) => {
      if (!isWork(cls)) return undefined;
      const c = cycle();
      if (c.phase !== 'tdd-plan') return undefined;
      return deny(
        'plan-phase',
        `Blocked write to ${cls} file ${t.display} ${where(c)}: in tdd-plan only the test plan under .tdd/plans/ is written. Finish the plan; then the orchestrator runs \`tdd-gate advance red --plan <file>\`.`,
      );
    },
  },
  {
    stage: 'class',
    id: 'red-source',
    doc: `In tdd-red only tests are written; a source only as a stub that keeps the ${STUB_MARKER} marker as a comment at the stubbed function.`,
    check: ({ target: t, cls, cycle }) => {
      if (cls !== 'source') return undefined;
      const c = cycle();
      if (c.phase !== 'tdd-red' || (t.contentAfter != null && stubMarked(t.contentAfter))) return undefined;
      return deny(
        'red-source',
        `Blocked write to source file ${t.display} ${where(c)}: in tdd-red only tests are written. A source file may be touched only as a stub that still carries the marker \`${STUB_MARKER}\` after the write, as a comment at the stubbed function (for example \`// ${STUB_MARKER}\` on the line above a function that returns a placeholder; the marker in a string or far from a function does not count), so the tests compile and fail on their assertions. ${t.contentAfter === null ? 'The gate cannot tell what this command leaves in the file (only plain substitutions, line inserts and deletions of `sed -i` and `perl -pi`, heredocs and copies are computed), so it cannot see the marker; make the change with the Edit or Write tool, keeping the marker.' : 'Add the marker, or write the failing test first.'}`,
      );
    },
  },
  {
    stage: 'class',
    id: 'tests-frozen',
    doc: 'In GREEN and REFACTOR the tests, the runner configuration frozen with them and the test regions inside sources are read-only.',
    check: ({ target: t, cls, cycle }) => {
      if (!isWork(cls)) return undefined;
      const c = cycle();
      if (!frozenTests(c)) return undefined;
      if (cls === 'source') {
        if (!t.testRegionChanged) return undefined;
        return deny(
          'tests-frozen',
          `Blocked write to source file ${t.display} ${where(c)}: it changes the file's inline tests (its inline test module, a #[cfg(test)] item, a #[test] function or a doc example that was there at the freeze), and tests are frozen after the freeze. Change the code outside them only. If a frozen test is wrong, stop and report \`TEST_BUG: <file>:<line> — <why>\` to the orchestrator instead of changing it.`,
        );
      }
      if (t.config === true) {
        return deny(
          'tests-frozen',
          `Blocked write to ${t.display} ${where(c)}: it is test-runner configuration frozen with the tests (a file that decides which tests run or how they load and report), so it is read-only in ${c.phase}, like the tests. ${c.phase === 'tdd-green' ? 'Make the tests pass by changing source files only.' : 'Refactor source files only, keeping the tests green.'} ${TEST_BUG}`,
        );
      }
      return deny(
        'tests-frozen',
        `Blocked write to test file ${t.display} ${where(c)}: the tests were certified and frozen, so they are read-only in ${c.phase}. ${c.phase === 'tdd-green' ? 'Make them pass by changing source files only.' : 'Refactor source files only, keeping the tests green.'} ${TEST_BUG}`,
      );
    },
  },
  {
    stage: 'class',
    id: 'runner-reach',
    doc: 'In GREEN and REFACTOR a source passes the tests by doing its job, not by reaching into the test runner.',
    check: ({ target: t, cls, cycle }) => {
      if (cls !== 'source') return undefined;
      const c = cycle();
      if (!frozenTests(c) || t.runnerReachAllowed === true || t.contentAfter == null) return undefined;
      const r = runnerReach(t.display, t.contentAfter, t.contentBefore ?? null, Array.isArray(t.runnerReachAllowed) ? t.runnerReachAllowed : []);
      return r === null ? undefined : deny('runner-reach', `Blocked write to source file ${where(c)}: ${runnerReachReason(t.display, r, t.rel)}`);
    },
  },
  {
    stage: 'class',
    id: 'role',
    doc: "In standard mode each phase's files are written by its agent: the plan by the planner (or the orchestrator), tests and sources by the phase's writer.",
    check: ({ target: t, cls, cycle }) => {
      const c = cycle();
      if (!rolesEnforced(c.mode)) return undefined;
      if (cls === 'plan') {
        if (c.role === null || c.role === ROLE.planner) return undefined;
        return deny('role', `Blocked write to ${t.display} ${where(c)}: in standard mode the plan is written by ${ROLE.planner} or the orchestrator. Report back instead.`);
      }
      if (!isWork(cls)) return undefined;
      const writer = phaseWriter(c.phase);
      if (c.role === writer) return undefined;
      return deny(
        'role',
        `Blocked write to ${kindOf(t, cls)} ${t.display} ${where(c)}: in standard mode only ${writer ?? 'no agent'} writes tests and sources in ${c.phase}. ${c.role === null ? `As the orchestrator, dispatch the ${writer ?? 'right'} subagent instead of editing yourself.` : 'Do not edit; finish your task and report back in your tdd-result block.'}`,
      );
    },
  },
  // ── The command, after its writes ─────────────────────────────────────────────────────────
  {
    stage: 'cycle',
    id: 'bash-mentions',
    doc: 'A command the parser could not read that names a file the phase protects is blocked (it may write it).',
    ids: ['bash-unresolved'],
    check: (f) => {
      const b = bashOf(f);
      if (b === null) return undefined;
      for (const m of b.analysis.mentions) {
        const cwd = m.cwd ?? b.facts.cwd;
        for (const candidate of m.candidates) {
          const classes = b.facts.classesOf(cwd, candidate);
          if (classes.every((c) => c === 'other')) continue;
          const d = judgeTarget({ display: candidate, classes, contentAfter: null }, () => b.facts.cycle());
          if (d.kind === 'pass') continue;
          return deny(
            'bash-unresolved',
            `Blocked Bash command ${bashWhere(b.facts)}: ${m.reason}, and it names ${candidate}, which this phase protects (${d.ruleId}). The gate cannot tell whether the command writes it, so it fails closed. Rewrite the command so it parses and names its targets literally, or use the Write/Edit tools.`,
          );
        }
      }
      return undefined;
    },
  },
  {
    stage: 'cycle',
    id: 'bash-unmodelled',
    doc: 'Without the OS wall, a command that starts a program the analysis does not know, uses an option that runs a command, computes its command word or runs in the background is asked about (denied where no person can answer) (ADR 010).',
    check: (f) => {
      const b = bashOf(f);
      return b === null ? undefined : unlessPass(unmodelled(b.analysis, b.facts));
    },
  },
  {
    stage: 'cycle',
    id: 'cli-confirm',
    doc: 'Ending a cycle early (`abort`) or resuming a halted loop (`result`) is the person\'s to confirm.',
    check: (f) => {
      const b = bashOf(f);
      if (b === null || b.facts.agentType !== undefined) return undefined;
      const call = b.analysis.cliCalls.find((c) => cliEffect(c.verb, c.args) === 'confirm');
      if (!call) return undefined;
      return ask(
        'cli-confirm',
        call.verb === 'result'
          ? `\`${short(call.text)}\` resumes the TDD loop after a halt (its retry bounds were reached). Confirm only if you, the user, have looked at the halt report and want the agents to continue; it is recorded either way.`
          : `\`${short(call.text)}\` ends the active TDD cycle (phase ${b.facts.phase}, SPEC ${b.facts.specId}) early. Confirm only if you, the user, want to stop this cycle; it is recorded either way.`,
      );
    },
  },
];

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
    return ask('bash-unmodelled', `This Bash command ${bashWhere(f)} does something the TDD gate cannot check: ${list}. Without the OS wall (the sandbox), the gate cannot tell what it writes, so it could change the cycle's records or frozen tests. Confirm only if you, the user, know what it does. ${allow}`);
  }
  return deny(
    'bash-unmodelled',
    `Blocked Bash command ${bashWhere(f)}: ${list}. While a TDD cycle is active and the OS wall (the sandbox) is off, every program a command starts must be one the gate knows, with options it models, named literally, in the foreground; no person can confirm this call here. Use a known program or the Write/Edit tools, or ask the user to allow it. ${allow}`,
  );
}

function allowExample(program: string): string {
  const clean = program.split('"').join('').split('\\').join('');
  return clean === '' || clean.startsWith('&') || clean.includes('$') || clean.includes('`') ? 'make test' : clean;
}

/** The target and class rules, in the list's order. */
const TARGET_RULES = RULES.filter((r): r is TargetRule => r.stage === 'target');
const CLASS_RULES = RULES.filter((r): r is ClassRule => r.stage === 'class');

/** The block of target and class rules for one written file: the first to say something decides. */
export function judgeTarget(target: WriteTarget, cycle: () => CycleFacts): Decision {
  for (const rule of TARGET_RULES) {
    const d = rule.check({ target, cycle });
    if (d !== undefined) return d;
  }
  for (const cls of target.classes) {
    for (const rule of CLASS_RULES) {
      const d = rule.check({ target, cls, cycle });
      if (d !== undefined) return d;
    }
  }
  return PASS;
}
