import { cliCommandOfSection, isPlainCliCall } from './rules/sandbox.js';
import { deny, type Decision } from '../gate/rules/decision.js';
import type { Repo } from '../state/repo.js';
// Not from sandbox.ts: that module starts child_process, which the hook's every Bash call would pay for.
import { readRecord, RELOAD_MS } from './settingsMerge.js';

/**
 * Hardened mode, for the PreToolUse gate: a Bash command that names the CLI must be one plain call,
 * since the CLI's writing verbs run outside the sandbox. Null when hardened mode has nothing
 * applied or the command does not name the CLI.
 */
export function hardenedBashCheck(repo: Repo, command: string): Decision | null {
  let cli: string | null = null;
  try {
    const applied = readRecord(repo.gitDir).applied;
    cli = applied ? cliCommandOfSection(applied.section) : null;
    if (applied) waitForReload(Date.parse(applied.at));
  } catch {
    return deny('hardened-record', 'the hardened-mode record in the git directory is unreadable, so Bash calls are blocked until it is fixed. Stop and tell the user: they can run `tdd-gate harden status` in a terminal.');
  }
  if (cli === null) return null;
  const file = cli.slice('node "'.length, -1);
  if (!command.includes(file)) return null;
  if (isPlainCliCall(command, cli)) {
    if (!command.includes('\n')) return null;
    // Newer clients keep any call with a heredoc inside the sandbox, where `result` cannot record.
    return deny(
      'hardened-result-file',
      `hardened mode: hand \`result\` the child's message in a file, not a heredoc: write the message verbatim with the Write tool to .tdd-result.md (replace its content each time), then run \`${cli} result .tdd-result.md --role <role> [--ac AC-n]\` on its own.`,
    );
  }
  return deny(
    'hardened-cli-call',
    `hardened mode: the tdd-gate CLI runs outside the Bash sandbox only as one plain call, exactly \`${cli} <verb> <arguments>\` with nothing before or after it (no \`cd\`, \`&&\`, \`;\`, pipes, redirects, \`$(…)\`, variables or VAR=value prefixes; a quoted heredoc as the input of \`result\` is fine). Run the CLI call on its own.`,
  );
}

/**
 * The OS wall: Claude Code's sandbox runs this worktree's Bash calls, configured by the gate
 * (its settings section applied, by default or by `harden on`). The one fact the Bash policy reads; an
 * unreadable record is no wall (the Bash check above denies on it anyway).
 */
export function osWallOn(repo: Repo): boolean {
  try {
    // Applied by default or by `harden on` alike; a section holding only the held-out tests' read
    // rules has no sandbox. `failIfUnavailable` is always set, so an applied sandbox runs or nothing does.
    const section: { sandbox?: { enabled?: boolean } } | undefined = readRecord(repo.gitDir).applied?.section;
    return section?.sandbox?.enabled === true;
  } catch {
    return false;
  }
}

/**
 * The client applies a changed settings file about a second after it is written, and a Bash call
 * gets the sandbox in force when it starts: a call right after a phase change waits out the rest.
 */
function waitForReload(writtenAt: number): void {
  const left = writtenAt + RELOAD_MS - Date.now();
  if (Number.isFinite(left) && left > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.min(left, RELOAD_MS));
}
