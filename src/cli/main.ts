import { appendEvent } from '../state/eventLog.js';
import { GateError, RefusalError, UsageError } from '../state/rules/errors.js';
import { StateLockError } from '../state/stateStore.js';
import { findRepo } from '../state/repo.js';
import { helpFor, isHelpFlag, verbHelp, verbsUnder } from './help.js';
import { VERBS } from './registry.js';
import type { CliIo, Verb } from './verb.js';
import { KILL_SWITCH } from '../hooks/output.js';
import { authoriseVerb } from '../tamper/cliAuthority.js';
import { insideClaudeCode, notAskedMessage } from './personAsked.js';
import { VERSION } from '../state/version.js';
import { VERB_TABLE, verbEntry } from '../state/rules/verbs.js';

function helpText(): string {
  const width = Math.max(...VERBS.map((v) => v.name.length));
  const lines = VERBS.map((v) => `  ${v.name.padEnd(width)}  ${v.summary}`);
  return [
    `tdd-gate ${VERSION}: phase transitions on evidence (RED → GREEN → REFACTOR).`,
    '',
    'usage: tdd-gate <verb> [flags]     (tdd-gate <verb> --help for one verb, tdd-gate verify --help for a group; tdd-gate --version)',
    '',
    ...lines,
    '',
    'exit codes: 0 ok, 1 refused (the evidence does not hold: the phase does not move; a verify run still records its receipt), 2 usage error, 3 halt (`result`: stop and show the report) or could not run (`audit`).',
  ].join('\n');
}

/** The longest verb name the arguments start with ("verify red" before a one-word "verify"). */
function findVerb(argv: string[]): { verb: Verb; rest: string[] } | null {
  const most = Math.max(...VERBS.map((v) => v.name.split(' ').length));
  for (let n = Math.min(most, argv.length); n > 0; n--) {
    const name = argv.slice(0, n).join(' ');
    const verb = VERBS.find((v) => v.name === name);
    if (verb) return { verb, rest: argv.slice(n) };
  }
  return null;
}

/** One line, never a stack trace: the reason and what to do. */
function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim();
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || (argv[0] === 'help' && argv.length === 1)) {
    io.stdout.write(helpText() + '\n');
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === '--version' || argv[0] === '-V' || argv[0] === 'version') {
    io.stdout.write(`tdd-gate ${VERSION}\n`);
    return 0;
  }
  // `tdd-gate help <verb>` and `tdd-gate <verb or group> --help`, for every verb of the registry.
  if (argv[0] === 'help') {
    const text = helpFor(argv.slice(1), VERBS);
    if (text !== null) {
      io.stdout.write(`${text}\n`);
      return 0;
    }
    io.stderr.write(`tdd-gate: unknown verb "${argv.slice(1).join(' ')}"; run \`tdd-gate --help\` for the list\n`);
    return 2;
  }
  const found = findVerb(argv);
  if (!found) {
    const help = argv.some(isHelpFlag) ? helpFor(argv, VERBS) : null;
    if (help !== null) {
      io.stdout.write(`${help}\n`);
      return 0;
    }
    const group = verbsUnder(argv[0] ?? '', VERBS);
    const hint = group.length > 0 ? `did you mean ${group.map((v) => `\`${v.name}\``).join(' or ')}?` : 'run `tdd-gate --help` for the list';
    io.stderr.write(`tdd-gate: unknown verb "${argv.slice(0, group.length > 0 ? 2 : 1).join(' ')}"; ${hint}\n`);
    return 2;
  }
  const { verb, rest } = found;
  if (rest.some(isHelpFlag)) {
    io.stdout.write(`${verbHelp(verb)}\n`);
    return 0;
  }
  try {
    // Inside Claude Code a state-changing verb runs only on the hook's ticket (src/tamper/cliAuthority.ts).
    if (VERB_TABLE[verb.name].mutates && io.env[KILL_SWITCH] !== '1') authoriseVerb(verb.name, argv, io.cwd, io.env, insideClaudeCode(io.env, process.ppid), (v) => notAskedMessage(confirmSpelling(v, argv)));
    return await verb.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`tdd-gate ${verb.name}: ${oneLine(err.message)}\n`);
      return 2;
    }
    const expected = err instanceof RefusalError || err instanceof GateError || err instanceof StateLockError;
    const message = oneLine(err instanceof Error ? err.message : String(err));
    io.stderr.write(expected ? `tdd-gate ${verb.name}: refused: ${message}\n` : `tdd-gate ${verb.name}: internal error: ${message} (please report it)\n`);
    recordRefusal(io.cwd, verb, message);
    return 1;
  }
}

/** The person's verb as the refusal names it: `init --force`, `result --resume`, `abort`. */
function confirmSpelling(verb: string, argv: readonly string[]): string {
  const flag = verbEntry(verb)?.confirm;
  return typeof flag === 'string' && argv.includes(flag) ? `${verb} ${flag}` : verb;
}

function recordRefusal(cwd: string, verb: Verb, reason: string): void {
  if (!VERB_TABLE[verb.name].mutates) return;
  try {
    const repo = findRepo(cwd);
    if (repo) appendEvent(repo.root, { type: 'refusal', verb: verb.name, reason });
  } catch {
    // no repository: nothing to record into
  }
}
