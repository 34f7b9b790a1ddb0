import { readFileSync } from 'node:fs';
import { KILL_SWITCH } from '../hooks/output.js';
import { RefusalError } from '../state/rules/errors.js';
import { currentTicket } from '../tamper/cliAuthority.js';
import type { Session } from './session.js';

/** The rule of the gate's question to the person (src/gate/rules/decideBash.ts, `confirm`). */
const CONFIRM_RULE = 'cli-confirm';

/**
 * The verbs that end or override a cycle (`abort`, `init --force` over an active cycle, `result
 * --resume`) are the person's: a Bash call that runs one gets the gate's `ask`, and the gate marks
 * that call in flight as asked. Run inside Claude Code without such a mark, the command did not
 * pass that question: a shell command a skill or slash command embeds on a client without the
 * PreSkillShellCommand event (Claude Code before 2.1.332), or hooks switched off. It is refused
 * (main.ts records the refusal). In a terminal (no Claude Code variable, no Claude Code process above it) the person runs it themselves; with the person's
 * own kill switch the gate is off on purpose.
 */
export function requirePersonAsked(s: Session, what: string): void {
  const env = s.io.env;
  if (env[KILL_SWITCH] === '1' || !insideClaudeCode(env, process.ppid)) return;
  // The ticket the CLI took for this run (src/tamper/cliAuthority.ts) carries the gate's question.
  if (currentTicket()?.asked === CONFIRM_RULE) return;
  throw new RefusalError(notAskedMessage(what));
}

export function notAskedMessage(what: string): string {
  return `\`tdd-gate ${what}\` is the user's decision, and this command ran inside Claude Code without passing the gate's question to the user (a shell command that a skill or slash command embeds runs without hooks before Claude Code 2.1.332, or hooks are switched off, or another program started it), so nothing changed. The user runs it in a terminal, or confirms it when it runs as an ordinary Bash call.`;
}

/** A process of Claude Code's own: the native binary (`claude`, `claude.exe`) or its package run by node. */
export function isClaudeProcess(comm: string, cmdline: string): boolean {
  return comm === 'claude' || comm === 'claude.exe' || cmdline.includes('@anthropic-ai/claude-code');
}

/**
 * Inside Claude Code: the variables the client sets for every shell command it runs, or, since a
 * command can unset those (`env -u CLAUDECODE …`), a Claude Code process among this process's
 * ancestors (Linux's /proc; elsewhere the variables alone). A command that detaches itself from
 * its parents is beyond this check: that is the OS wall's.
 */
export function insideClaudeCode(env: NodeJS.ProcessEnv, parent: number): boolean {
  if ((env.CLAUDECODE ?? '') !== '' || (env.CLAUDE_CODE_ENTRYPOINT ?? '') !== '') return true;
  let pid = parent;
  for (let depth = 0; depth < 64 && pid > 1; depth++) {
    let stat: string;
    let cmdline: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      return false;
    }
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read around the last `)`.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    if (isClaudeProcess(comm, cmdline)) return true;
    pid = Number(stat.slice(close + 2).split(' ')[1]);
  }
  return false;
}
