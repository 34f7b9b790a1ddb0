import type { ActivePhase, Mode } from '../schema/state.js';
import type { PathClass } from './classify.js';
import { STUB_MARKER } from './contentAfter.js';
import { stubMarked } from '../tamper/rules/stubMarker.js';
import { type Decision, PASS, deny } from './decision.js';
import { ROLE, type Role, describeRole, phaseWriter, rolesEnforced } from './roles.js';
import { decideRunnerReach } from './runnerReach.js';

/** The active cycle as the gate sees it. */
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
  /** The file as it is before the write (what it already did is the project's, not this write's). */
  contentBefore?: string | null;
  /** A file frozen with the tests that is not a test (a runner configuration, a file the run loads). */
  config?: boolean;
  /** Inside installed dependencies (node_modules): an edit there could rewrite the test runner. */
  dependency?: boolean;
  /** The stack's runner_reach_allow lists this source (test helpers shipped as source). */
  runnerReachAllowed?: boolean;
  /** The write changes a test region frozen inside this source (Rust's inline test module). */
  testRegionChanged?: boolean;
  /**
   * GREEN/REFACTOR: the write changes runner settings frozen with the tests inside an otherwise
   * editable file (package.json's test script, a pytest section): which ones, or null when the
   * gate cannot tell what the write leaves in them (a Bash write).
   */
  frozenPart?: { file: string; keys: readonly string[] | null };
}

const TEST_BUG =
  'If a frozen test is wrong, stop and report `TEST_BUG: <file>:<line> — <why>` to the orchestrator instead of changing it.';

function where(c: CycleFacts): string {
  return `(phase ${c.phase}, mode ${c.mode}, ${describeRole(c.role)})`;
}

/** Decide one write target; the first deny wins for a call with several targets. */
export function decideWriteTarget(c: CycleFacts, t: WriteTarget): Decision {
  if (t.dependency && (c.phase === 'tdd-green' || c.phase === 'tdd-refactor')) {
    return deny(
      'dependency-edit',
      `Blocked write to ${t.display} ${where(c)}: installed dependencies (node_modules, a virtualenv's site-packages) hold the test runner and its assertions, so they are not edited by hand while the tests are frozen. Change production source files; add or update a dependency with the package manager (for example \`npm install <pkg>\` or \`pip install <pkg>\`).`,
    );
  }
  if (t.frozenPart && (c.phase === 'tdd-green' || c.phase === 'tdd-refactor')) return deny('runner-settings-frozen', frozenPartReason(c, t, t.frozenPart));
  for (const cls of t.classes) {
    const d = decideClass(c, t, cls);
    if (d.kind !== 'pass') return d;
  }
  return PASS;
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

export function decideWrites(c: CycleFacts, targets: readonly WriteTarget[]): Decision {
  for (const t of targets) {
    const d = decideWriteTarget(c, t);
    if (d.kind !== 'pass') return d;
  }
  return PASS;
}

function decideClass(c: CycleFacts, t: WriteTarget, cls: PathClass): Decision {
  const p = t.display;
  if (rolesEnforced(c.mode) && c.role === ROLE.testValidator) {
    return deny(
      'validator-read-only',
      `Blocked write to ${p} ${where(c)}: the test-validator only reads and reports. End your turn with the tdd-result block holding your verdict (PASS, CONCERNS or BLOCKER) and findings.`,
    );
  }
  switch (cls) {
    case 'other':
      return PASS;
    case 'control':
      return deny(
        'control-file',
        `Blocked write to ${p} ${where(c)}: it is a control file (tdd-gate state under .tdd/, or a Claude Code settings/plugin file that can switch hooks off) and is read-only while a TDD cycle is active. Phase changes go through the tdd-gate CLI (run \`tdd-gate status\` for the next step); settings changes are for the user, after the cycle ends.`,
      );
    case 'plan':
      return decidePlan(c, p);
    case 'spec':
      return deny(
        'spec-frozen',
        `Blocked write to the SPEC ${p} ${where(c)}: the SPEC is the oracle of this cycle and stays unchanged while it is active. To change requirements, finish or abort the cycle and write a delta SPEC (ADDED / MODIFIED / REMOVED) for a new cycle.`,
      );
    case 'test':
    case 'source':
      return decideWork(c, t, cls);
  }
}

function decidePlan(c: CycleFacts, p: string): Decision {
  if (c.phase !== 'tdd-plan') {
    return deny(
      'control-file',
      `Blocked write to ${p} ${where(c)}: the plan is fixed once the cycle leaves tdd-plan; .tdd/ is changed only by the tdd-gate CLI.`,
    );
  }
  if (rolesEnforced(c.mode) && c.role !== null && c.role !== ROLE.planner) {
    return deny(
      'role',
      `Blocked write to ${p} ${where(c)}: in standard mode the plan is written by ${ROLE.planner} or the orchestrator. Report back instead.`,
    );
  }
  return PASS;
}

function decideWork(c: CycleFacts, t: WriteTarget, cls: 'test' | 'source'): Decision {
  const p = t.display;
  const kind = cls === 'test' ? (t.config === true ? 'test-runner configuration file' : 'test file') : 'source file';
  if (c.specDrift && (c.phase === 'tdd-green' || c.phase === 'tdd-refactor')) {
    const live = c.specDrift.live === null ? 'missing' : c.specDrift.live.slice(0, 12);
    return deny(
      'spec-drift',
      `Blocked write to ${kind} ${p} ${where(c)}: the SPEC ${c.specRel} changed after the freeze (frozen ${c.specDrift.frozen.slice(0, 12)}, live ${live}), so the certified oracle no longer holds and every test and source write is blocked. Stop and tell the user; the SPEC must be restored or the cycle aborted and re-certified with a delta SPEC.`,
    );
  }
  const phaseDecision = decidePhaseTable(c, t, cls);
  if (phaseDecision.kind !== 'pass') return phaseDecision;
  if (rolesEnforced(c.mode)) {
    const writer = phaseWriter(c.phase);
    if (c.role !== writer) {
      return deny(
        'role',
        `Blocked write to ${kind} ${p} ${where(c)}: in standard mode only ${writer ?? 'no agent'} writes tests and sources in ${c.phase}. ${c.role === null ? `As the orchestrator, dispatch the ${writer ?? 'right'} subagent instead of editing yourself.` : 'Do not edit; finish your task and report back in your tdd-result block.'}`,
      );
    }
  }
  return PASS;
}

function decidePhaseTable(c: CycleFacts, t: WriteTarget, cls: 'test' | 'source'): Decision {
  const p = t.display;
  switch (c.phase) {
    case 'tdd-plan':
      return deny(
        'plan-phase',
        `Blocked write to ${cls} file ${p} ${where(c)}: in tdd-plan only the test plan under .tdd/plans/ is written. Finish the plan; then the orchestrator runs \`tdd-gate advance red --plan <file>\`.`,
      );
    case 'tdd-red':
      if (cls === 'test') return PASS;
      if (t.contentAfter != null && stubMarked(t.contentAfter)) return PASS;
      return deny(
        'red-source',
        `Blocked write to source file ${p} ${where(c)}: in tdd-red only tests are written. A source file may be touched only as a stub that still carries the marker \`${STUB_MARKER}\` after the write, as a comment at the stubbed function (for example \`// ${STUB_MARKER}\` on the line above a function that returns a placeholder; the marker in a string or far from a function does not count), so the tests compile and fail on their assertions. ${t.contentAfter === null ? 'The gate cannot tell what this command leaves in the file (only plain substitutions, line inserts and deletions of `sed -i` and `perl -pi`, heredocs and copies are computed), so it cannot see the marker; make the change with the Edit or Write tool, keeping the marker.' : 'Add the marker, or write the failing test first.'}`,
      );
    case 'tdd-green':
    case 'tdd-refactor':
      if (cls === 'source') return decideRunnerReach(t, where(c));
      if (t.config === true) {
        return deny(
          'tests-frozen',
          `Blocked write to ${p} ${where(c)}: it is test-runner configuration frozen with the tests (a file that decides which tests run or how they load and report), so it is read-only in ${c.phase}, like the tests. ${c.phase === 'tdd-green' ? 'Make the tests pass by changing source files only.' : 'Refactor source files only, keeping the tests green.'} ${TEST_BUG}`,
        );
      }
      return deny(
        'tests-frozen',
        `Blocked write to test file ${p} ${where(c)}: the tests were certified and frozen, so they are read-only in ${c.phase}. ${c.phase === 'tdd-green' ? 'Make them pass by changing source files only.' : 'Refactor source files only, keeping the tests green.'} ${TEST_BUG}`,
      );
  }
}
