import { KILL_SWITCH } from '../hooks/output.js';
import { personAsked } from '../io/anchorInflight.js';
import { anchorPaths } from '../io/anchorPaths.js';
import { RefusalError } from '../io/errors.js';
import type { Session } from './session.js';

/** The rule of the gate's question to the person (src/core/decideBash.ts, `confirm`). */
const CONFIRM_RULE = 'cli-confirm';

/**
 * The verbs that end or override a cycle (`abort`, `init --force` over an active cycle, `result
 * --resume`) are the person's: a Bash call that runs one gets the gate's `ask`, and the gate marks
 * that call in flight as asked. Run inside Claude Code without such a mark, the command did not
 * pass that question: a shell command a skill or slash command embeds on a client without the
 * PreSkillShellCommand event (Claude Code before 2.1.332), or hooks switched off. It is refused
 * (main.ts records the refusal). In a terminal (no CLAUDECODE) the person runs it themselves; with the person's
 * own kill switch the gate is off on purpose.
 */
export function requirePersonAsked(s: Session, what: string): void {
  const env = s.io.env;
  if (env.CLAUDECODE !== '1' || env[KILL_SWITCH] === '1') return;
  if (personAsked(anchorPaths(s.repo, env), CONFIRM_RULE)) return;
  throw new RefusalError(
    `\`tdd-gate ${what}\` is the user's decision, and this command ran inside Claude Code without passing the gate's question to the user (a shell command that a skill or slash command embeds runs without hooks before Claude Code 2.1.332, or hooks are switched off), so nothing changed. The user runs it in a terminal, or confirms it when it runs as an ordinary Bash call.`,
  );
}
