import path from 'node:path';
import { CANARY_TOOLS, callContext, canaryVerdict, describeCanary } from '../tamper/rules/canary.js';
import { canonicalize } from '../state/canonicalPath.js';
import { GateError } from '../state/rules/errors.js';
import { appendEvent } from '../state/eventLog.js';
import { takeSeen } from '../tamper/seenCalls.js';
import { loadCycles, type ActiveCycle } from '../state/cycle.js';
import { describeFindings, integrityOf, isClean, logFindings } from '../tamper/integrityGate.js';
import { NOTHING, postToolUseBlock, postToolUseContext, postToolUseFailureContext, type HookResult } from './output.js';
import { clearInflight } from '../state/anchorInflight.js';
import { candidateDirs } from '../state/projectDirs.js';
import { wallStopExplanation } from '../wall/explainStop.js';
import { driftedParts } from '../gate/frozenParts.js';
import { REAL_DEPS, type HookDeps } from '../state/store.js';

/**
 * PostToolUse on Bash: the second wall behind the static analysis. Scripts, npm scripts and
 * two-step tricks can change a control file out of sight; after every Bash call in an active
 * cycle the control set is checked (frozen files, .tdd/, Claude Code's settings and runtime
 * files), what moved is put back from its copy, and the model and the person are told. On the
 * file tools it is the canary: a write the PreToolUse gate never saw (see `canary` below).
 */
export function postToolUse(input: unknown, env: NodeJS.ProcessEnv, eventName = 'PostToolUse', deps: HookDeps = REAL_DEPS): HookResult {
  const { cwd, tool_name, tool_input, tool_use_id } = (input ?? {}) as { cwd?: unknown; tool_name?: unknown; tool_use_id?: unknown; tool_input?: { command?: unknown; run_in_background?: unknown } };
  const fileTool = typeof tool_name === 'string' && CANARY_TOOLS.has(tool_name);
  if (typeof tool_name !== 'string' || !(fileTool || tool_name === 'Bash' || tool_name.startsWith('mcp__')) || typeof cwd !== 'string' || cwd === '') return NOTHING;
  const answer = (reason: string, notice: string) => (eventName === 'PostToolUseFailure' ? postToolUseFailureContext(reason, notice) : postToolUseBlock(reason, notice));
  let cycles: ActiveCycle[];
  try {
    // The session's cwd moves with `cd`: every project the command can reach is checked (as in PreToolUse).
    cycles = loadCycles(candidateDirs(input as Record<string, unknown>, env), env, deps.store);
  } catch (err) {
    if (err instanceof GateError && err.ruleId === 'state-tampered') {
      return answer(err.message, 'the TDD state of this branch was deleted or rewritten outside the tdd-gate CLI; run `tdd-gate recover` to restore it.');
    }
    return NOTHING; // a broken cycle is reported (and blocked) by the PreToolUse gate
  }
  if (fileTool) return eventName === 'PostToolUse' ? canary(input as Record<string, unknown>, cwd, tool_name, cycles, deps.clock.now()) : NOTHING;
  const command = typeof tool_input?.command === 'string' ? tool_input.command.slice(0, 500) : '';
  // A foreground command has finished: its in-flight mark goes (a background one keeps running).
  if (tool_name === 'Bash' && typeof tool_use_id === 'string' && tool_input?.run_in_background !== true) {
    for (const cycle of cycles) clearInflight(cycle.anchorPaths, tool_use_id);
  }
  for (const cycle of cycles) {
    const r = integrityOf(cycle);
    if (isClean(r)) continue;
    logFindings(cycle, r, 'post-tool-use', { command, role: agentOf(input) });
    const d = describeFindings(r, cycle.repo.root, cycle.state.phase, tool_name === 'Bash' ? 'the last Bash command' : `the last ${tool_name} call`);
    return answer(`tdd-gate [${d.ruleId}]: ${d.reason}`, d.notice);
  }
  // The runner settings frozen inside editable files (package.json's test scripts, the pytest
  // sections): a write whose result the gate could not compute passed, and is checked here.
  for (const cycle of cycles) {
    const files = driftedParts(cycle);
    if (files.length === 0) continue;
    appendEvent(cycle.repo.root, { type: 'runner-settings-drift', source: 'post-tool-use', files, command, role: agentOf(input), phase: cycle.state.phase });
    const list = files.join(', ');
    return answer(
      `tdd-gate [runner-settings-frozen]: after ${tool_name === 'Bash' ? 'the last Bash command' : `the last ${tool_name} call`}, the runner settings frozen inside ${list} (the scripts the test command runs, the runner's keys and sections) are no longer as they were at the freeze. \`tdd-gate verify\` refuses until they are: put them back with the Edit tool (\`git diff -- ${list}\` shows what changed); the file's other edits (a dependency, another script) can stay. If a frozen test or its settings are wrong, stop and report \`TEST_BUG: <file>:<line> — <why>\` to the orchestrator instead.`,
      `the runner settings frozen inside ${list} changed; the model was told to put them back.`,
    );
  }
  // The OS wall stopped a write: the command saw only "Read-only file system"; say which rule and what to do.
  if (tool_name === 'Bash') {
    for (const cycle of cycles) {
      const text = wallStopExplanation(cycle.repo, cwd, input as Record<string, unknown>, env);
      if (text !== null) return postToolUseContext(text, eventName === 'PostToolUseFailure' ? 'PostToolUseFailure' : 'PostToolUse');
    }
  }
  return NOTHING;
}

function agentOf(input: unknown): string {
  const t = (input as { agent_type?: unknown }).agent_type;
  return typeof t === 'string' ? t : 'main';
}

/**
 * The canary (src/tamper/rules/canary.ts): a file write in an active cycle that PreToolUse did not record
 * ran without the gate. What moved in the control set is put back (the integrity check, from the
 * freeze's copies), the skip is recorded, and the model and the person are told which context it was.
 */
function canary(input: Record<string, unknown>, cwd: string, toolName: string, cycles: ActiveCycle[], now: number): HookResult {
  const id = typeof input.tool_use_id === 'string' && input.tool_use_id !== '' ? input.tool_use_id : null;
  const toolInput = (input.tool_input ?? {}) as { file_path?: unknown; notebook_path?: unknown };
  const written = typeof toolInput.file_path === 'string' ? toolInput.file_path : typeof toolInput.notebook_path === 'string' ? toolInput.notebook_path : '';
  for (const cycle of cycles) {
    const recorded = id !== null && takeSeen(cycle.anchorPaths, id);
    const started = Date.parse(cycle.state.started_at);
    const verdict = canaryVerdict({ toolName, toolUseId: id, recorded, phase: cycle.state.phase, cycleAgeMs: Number.isNaN(started) ? null : now - started });
    if (verdict !== 'skipped') continue;
    const root = cycle.repo.root;
    const abs = written === '' ? '' : canonicalize(path.resolve(cwd, written));
    const shown = abs === '' ? '(no path)' : relTo(root, abs);
    const context = callContext(input);
    const r = integrityOf(cycle);
    if (!isClean(r)) logFindings(cycle, r, 'canary', { tool: toolName, role: agentOf(input) });
    const restored = r.restored.map((f) => relTo(root, f.path));
    appendEvent(root, { type: 'gate-skipped', tool: toolName, target: shown, context: context.kind, role: context.agentType ?? 'main', tool_use_id: id, phase: cycle.state.phase, restored });
    const d = describeCanary({ toolName, target: shown, phase: cycle.state.phase, context, restored, targetRestored: r.restored.some((f) => f.path === abs) });
    const broken = r.broken.length > 0 ? `\n${describeFindings({ restored: [], broken: r.broken }, root, cycle.state.phase, `the ${toolName}`).reason}` : '';
    return postToolUseBlock(`tdd-gate [${d.ruleId}]: ${d.reason}${broken}`, d.notice);
  }
  return NOTHING;
}

function relTo(root: string, abs: string): string {
  const r = path.relative(root, abs);
  return r === '' || r.startsWith('..') || path.isAbsolute(r) ? abs : r.split(path.sep).join('/');
}
