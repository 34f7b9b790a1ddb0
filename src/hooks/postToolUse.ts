import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { appendEvent } from '../io/eventLog.js';
import { hashFile } from '../io/projectFiles.js';
import { snapshotCopyPath } from '../io/snapshots.js';
import { loadCycles, type ActiveCycle } from './cycle.js';
import { candidateDirs } from './projectDirs.js';
import type { HookResult } from './run.js';

const NOTHING: HookResult = { stdout: '', stderr: '', exitCode: 0 };

const TEST_BUG = 'If a frozen test is wrong, stop and report `TEST_BUG: <file>:<line> — <why>` to the orchestrator instead of changing it.';

/**
 * PostToolUse on Bash: the second layer behind the static analysis. Scripts, npm scripts and
 * two-step tricks can change a frozen file out of sight; after every Bash call in an active cycle
 * the frozen files are hashed, and any that moved is put back from its snapshot copy.
 */
export function postToolUse(input: unknown, env: NodeJS.ProcessEnv): HookResult {
  const { cwd, tool_name, tool_input } = (input ?? {}) as { cwd?: unknown; tool_name?: unknown; tool_input?: { command?: unknown } };
  if (tool_name !== 'Bash' || typeof cwd !== 'string' || cwd === '') return NOTHING;
  let cycles: ActiveCycle[];
  try {
    // The session's cwd moves with `cd`: every project the command can reach is checked (as in PreToolUse).
    cycles = loadCycles(candidateDirs(input as Record<string, unknown>, env), env);
  } catch {
    return NOTHING; // a broken cycle is reported (and blocked) by the PreToolUse gate
  }
  const results = cycles.map((cycle) => restoreDrift(cycle, input, tool_input?.command)).filter((r) => r !== null);
  return results[0] ?? NOTHING;
}

function restoreDrift(cycle: ActiveCycle, input: unknown, rawCommand: unknown): HookResult | null {
  const files = frozenFiles(cycle.state);
  if (files === null) return null;
  const root = cycle.repo.root;
  const drifted = Object.entries(files).filter(([rel, hash]) => hashFile(root, rel) !== hash);
  if (drifted.length === 0) return null;

  const restored: string[] = [];
  const failed: string[] = [];
  for (const [rel, hash] of drifted) {
    if (restore(root, rel, hash)) restored.push(rel);
    else failed.push(rel);
  }
  const command = typeof rawCommand === 'string' ? rawCommand.slice(0, 500) : '';
  appendEvent(root, { type: 'hook-restore', files: restored, ...(failed.length > 0 ? { failed } : {}), command, role: agentOf(input), phase: cycle.state.phase });
  return { stdout: JSON.stringify(output(restored, failed, cycle.state.phase)), stderr: '', exitCode: 0 };
}

/** `frozen.files` from the state (docs/contracts.md), or null before the freeze. */
function frozenFiles(state: object): Record<string, string> | null {
  const frozen = (state as { frozen?: { files?: unknown } }).frozen;
  const files = frozen?.files;
  if (typeof files !== 'object' || files === null) return null;
  const out: Record<string, string> = {};
  for (const [rel, hash] of Object.entries(files)) if (typeof hash === 'string' && safeRel(rel)) out[rel] = hash;
  return Object.keys(out).length > 0 ? out : null;
}

/** A root-relative path that stays inside the root (the state is ours, but a hand-edit must not reach out). */
function safeRel(rel: string): boolean {
  return rel !== '' && !path.isAbsolute(rel) && !rel.split(/[\\/]/).includes('..');
}

/** Put the snapshot copy back, only if the copy still has the frozen hash. */
function restore(root: string, rel: string, hash: string): boolean {
  const copy = snapshotCopyPath(root, 'frozen', rel);
  if (hashFile(path.dirname(copy), path.basename(copy)) !== hash) return false;
  const dest = path.join(root, rel);
  try {
    // Remove first: the file may have become a symlink or a directory; copying would follow or fail.
    rmSync(dest, { recursive: true, force: true });
    mkdirSync(path.dirname(dest), { recursive: true });
    copyFileSync(copy, dest);
    return hashFile(root, rel) === hash;
  } catch {
    return false;
  }
}

function agentOf(input: unknown): string {
  const t = (input as { agent_type?: unknown }).agent_type;
  return typeof t === 'string' ? t : 'main';
}

function output(restored: string[], failed: string[], phase: string): Record<string, unknown> {
  const list = (xs: string[]) => xs.slice(0, 10).join(', ') + (xs.length > 10 ? ` and ${xs.length - 10} more` : '');
  const parts: string[] = [];
  if (restored.length > 0) {
    parts.push(`tdd-gate [frozen-restored]: the last Bash command changed ${restored.length} frozen file(s) (${list(restored)}); they were restored from the snapshot taken at the freeze. The tests and the SPEC are certified and read-only in ${phase}: make the tests pass by changing source files only. ${TEST_BUG}`);
  }
  if (failed.length > 0) {
    parts.push(`tdd-gate [frozen-drift]: frozen file(s) ${list(failed)} changed and could not be restored (the snapshot copy is missing or altered). Stop and tell the user: \`tdd-gate verify green\` and \`done\` refuse while frozen files differ; restore them with \`git checkout -- <file>\`.`);
  }
  const reason = parts.join('\n');
  // `reason` reaches the model (once: additionalContext with the same text would repeat it);
  // `systemMessage` tells the person.
  return {
    decision: 'block',
    reason,
    systemMessage: `tdd-gate: ${restored.length > 0 ? `restored frozen file(s) ${list(restored)}` : ''}${failed.length > 0 ? `${restored.length > 0 ? '; ' : ''}could not restore ${list(failed)}` : ''} after a Bash command changed them.`,
  };
}
