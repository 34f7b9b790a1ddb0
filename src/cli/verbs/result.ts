import { appendEvent } from '../../state/eventLog.js';
import { RefusalError, UsageError } from '../../state/rules/errors.js';
import { withState } from '../../state/stateStore.js';
import { blockTemplate, CODE_ROLES, isRole, parseResult, ROLES, type ParseOutcome, type Role } from '../../handoff/rules/block.js';
import { classify, MODE_NAMES, type RunOutcome } from '../../handoff/rules/classify.js';
import { checkCommand } from '../../handoff/rules/command.js';
import { activeCycle, readInput, rerun } from '../../handoff/io.js';
import { advanceLoop, NO_AC, readLoop, resumeLoop, type Next } from '../../handoff/rules/loop.js';
import { AC_PATTERN } from '../../handoff/rules/block.js';
import { isLaunchNotice, LAUNCH_NOTICE_HELP } from '../../handoff/rules/launchNotice.js';
import type { Limits } from '../../handoff/rules/loopState.js';
import { parseFlags } from '../args.js';
import { openSession, type Session } from '../session.js';
import { requirePersonAsked } from '../personAsked.js';
import type { CliIo, Verb } from '../verb.js';

const USAGE =
  'tdd-gate result <file|-> --role <role> [--ac AC-n] [--incomplete] [--max-cycles N] [--same-failure N] [--json]  |  tdd-gate result --resume [--max-cycles N] [--same-failure N]';

/** Exit code of a halt: distinct from a refusal (1), because the state did change (the halt is recorded). */
const HALT_EXIT = 3;

const OPTIONS = {
  role: { type: 'string' },
  ac: { type: 'string' },
  incomplete: { type: 'boolean' },
  resume: { type: 'boolean' },
  'max-cycles': { type: 'string' },
  'same-failure': { type: 'string' },
  json: { type: 'boolean' },
} as const;

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(value)) throw new UsageError(`${flag} must be a positive whole number. Usage: ${USAGE}`);
  return Number(value);
}

/** What to re-run to check the claim (or to show a retried child where things stand). */
function commandFor(parse: ParseOutcome, incomplete: boolean, testCommand: string): { command?: string; error?: string } {
  if (!parse.ok) return incomplete && parse.code === 'no-block' ? { command: testCommand } : {};
  const r = parse.result;
  if (r.status === 'blocked') return {};
  const needsRun = CODE_ROLES.includes(r.role) || (r.role === 'test-validator' && (r.verdict !== 'PASS' || r.status !== 'ok'));
  if (!needsRun) return {};
  if (r.command === undefined) return { command: testCommand };
  const check = checkCommand(r.command, testCommand);
  return check.ok ? { command: check.command } : { error: check.reason };
}

export const resultVerb: Verb = {
  name: 'result',
  summary: "check a child's tdd-result block, re-run its command, and print proceed, retry or halt",
  usage: USAGE,
  help: [
    "The child's final message, verbatim, from <file> or standard input (`-`, best through a quoted",
    "heredoc). It must end with exactly one fenced tdd-result block for the role it was dispatched as;",
    `--role is one of ${ROLES.join(', ')}. An implementer's block, for example:`,
    '',
    blockTemplate('implementer', 'AC-1'),
    '',
    'The first output line is the action: proceed, retry (dispatch the named role again with exactly',
    'the text after `--- retry prompt ---`) or halt (exit 3: show the report; `--resume` is the',
    "person's call).",
  ].join('\n'),
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseFlags(args, OPTIONS, USAGE, 1);
    const limits: Partial<Limits> = {};
    const maxCycles = positiveInt(values['max-cycles'], '--max-cycles');
    const sameFailure = positiveInt(values['same-failure'], '--same-failure');
    if (maxCycles !== undefined) limits.max_cycles = maxCycles;
    if (sameFailure !== undefined) limits.same_failure = sameFailure;
    const s = openSession(io);
    if (values.resume) return resume(s, limits);
    const input = positionals[0];
    if (input === undefined) throw new UsageError(`give the file holding the child's final message, or - for standard input. Usage: ${USAGE}`);
    const roleArg = values.role;
    if (roleArg === undefined || !isRole(roleArg)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}. Usage: ${USAGE}`);
    const role: Role = roleArg;
    if (values.ac !== undefined && !AC_PATTERN.test(values.ac)) throw new UsageError(`--ac must look like AC-1. Usage: ${USAGE}`);

    const cycle = activeCycle(s);
    const message = readInput(input, io.cwd);
    if (isLaunchNotice(message)) throw new UsageError(LAUNCH_NOTICE_HELP);
    const parse = parseResult(message, { role, ...(values.ac !== undefined && { ac: values.ac }) });
    const incomplete = values.incomplete === true;
    // A halted loop answers with its report; re-running the child's command would prove nothing new.
    const before = readLoop(cycle.state);
    const plan = before.halted !== null ? {} : commandFor(parse, incomplete, cycle.stack.config.test_command);
    let run: RunOutcome | undefined;
    // Judged as the role claims: RED for the test-writer (and a validator sending it back), GREEN otherwise.
    if (plan.command !== undefined) run = await rerun(s, cycle, plan.command, `result-${role}`, role === 'test-writer' || role === 'test-validator' ? 'red' : 'green');
    const verdict = classify({
      role,
      ac: values.ac ?? (parse.ok ? parse.result.ac : undefined) ?? before.current_ac ?? NO_AC,
      parse,
      incomplete,
      ...(plan.error !== undefined && { commandError: plan.error }),
      ...(run !== undefined && { run }),
    });

    let next: Next | undefined;
    await withState(s.statePath, (current) => {
      if (current === null || current.phase === 'done') throw new RefusalError('the TDD cycle ended while the command ran; nothing was recorded');
      const loop = readLoop(current);
      Object.assign(loop.limits, limits);
      const ac = values.ac ?? (parse.ok ? parse.result.ac : undefined) ?? loop.current_ac ?? NO_AC;
      next = advanceLoop(loop, role, ac, verdict, { now: s.now().toISOString(), isTest: cycle.rules.isTest });
      return { ...current, loop: next.loop };
    });
    if (!next) throw new Error('the state update did not run');
    const n = next;
    appendEvent(s.root, {
      type: 'result',
      role,
      ac: n.ac,
      action: n.action,
      mode: n.mode,
      status: parse.ok ? parse.result.status : null,
      ...(parse.ok ? {} : { format_error: parse.code }),
      ...(run !== undefined && { command: run.command, exit_code: run.exitCode }),
    });
    io.stdout.write(values.json ? JSON.stringify(toJson(n, run)) + '\n' : render(n));
    return n.action === 'halt' ? HALT_EXIT : 0;
  },
};

async function resume(s: Session, limits: Partial<Limits>): Promise<number> {
  requirePersonAsked(s, 'result --resume');
  const prior: { reason: string | null } = { reason: null };
  await withState(s.statePath, (current) => {
    if (current === null || current.phase === 'done') throw new RefusalError('no TDD cycle is active on this branch');
    const loop = readLoop(current);
    prior.reason = loop.halted?.reason ?? null;
    const next = resumeLoop(loop);
    Object.assign(next.limits, limits);
    return { ...current, loop: next };
  });
  appendEvent(s.root, { type: 'result', action: 'resume', reason: prior.reason });
  s.io.stdout.write(prior.reason === null ? 'not halted; limits updated\n' : `resumed after: ${prior.reason}\n`);
  return 0;
}

function toJson(n: Next, run: RunOutcome | undefined) {
  return {
    action: n.action,
    mode: n.mode,
    mode_name: n.mode === null ? null : MODE_NAMES[n.mode],
    role: n.role,
    ac: n.ac,
    detail: n.detail,
    retries: n.retries ?? null,
    retry_text: n.retryText ?? null,
    report: n.report ?? null,
    command: run?.command ?? null,
    exit_code: run?.exitCode ?? null,
  };
}

/** First line: the action. A retry's prompt follows the `--- retry prompt ---` line verbatim. */
function render(n: Next): string {
  switch (n.action) {
    case 'proceed':
      return `proceed\nrole: ${n.role}  ac: ${n.ac}\n${n.detail}\n`;
    case 'retry':
      return [
        'retry',
        `mode: ${n.mode ?? '-'}${n.mode ? ` (${MODE_NAMES[n.mode]})` : ''}`,
        `role: ${n.role}  ac: ${n.ac}  retry ${n.retries?.used ?? '?'} of ${n.retries?.limit ?? '?'} (${n.retries?.kind ?? '?'})`,
        `detail: ${n.detail}`,
        '--- retry prompt ---',
        n.retryText ?? '',
        '',
      ].join('\n');
    case 'halt':
      return `halt\n${n.report ?? n.detail}\n`;
  }
}
