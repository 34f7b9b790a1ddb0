import { realpathSync } from 'node:fs';
import path from 'node:path';
import { analyzeBash } from './rules/bash/analyze.js';
import { cliEffect } from './rules/bash/cliCalls.js';
import { literalWord as literal, parseShell, type Command, type PipelineNode, type Statement, type AndOr } from './rules/bash/parser.js';
import { scriptReader } from './scriptFacts.js';

/** Programs that only read files or print (in the forms let through below). */
const READERS = new Set([
  'ls', 'cat', 'head', 'tail', 'wc', 'grep', 'egrep', 'fgrep', 'rg', 'find', 'pwd', 'echo', 'printf', 'stat', 'file', 'tree',
  'du', 'df', 'diff', 'cmp', 'sort', 'uniq', 'cut', 'tr', 'jq', 'realpath', 'readlink', 'basename', 'dirname', 'which', 'true',
  'test', '[', 'date', 'whoami', 'id', 'nl', 'column', 'md5sum', 'sha256sum', 'sha1sum', 'cd', 'tdd-gate',
]);
/** git subcommands that only read. */
const GIT_READS = new Set(['status', 'diff', 'log', 'show', 'rev-parse', 'ls-files', 'blame', 'shortlog', 'describe', 'cat-file', 'ls-tree', 'grep']);
/** find's actions that run or write something. */
const FIND_ACTIONS = /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/;

/** The plugin's own CLI, where the running hook's bundle and CLAUDE_PLUGIN_ROOT put it. */
function isPluginCli(file: string, cwd: string, env: NodeJS.ProcessEnv): boolean {
  const real = (p: string) => {
    try {
      return realpathSync.native(p);
    } catch {
      return null;
    }
  };
  const target = real(path.resolve(cwd, file));
  if (target === null) return false;
  const self = process.argv[1];
  const homes = [typeof self === 'string' && self !== '' ? path.dirname(self) : null, env.CLAUDE_PLUGIN_ROOT ? path.join(env.CLAUDE_PLUGIN_ROOT, 'dist') : null];
  return homes.some((d) => d !== null && real(path.join(d, 'cli.mjs')) === target);
}

function commandReads(c: Command, cwd: string, env: NodeJS.ProcessEnv): boolean {
  if (c.prefix.some((p) => p.type === 'Assignment')) return false;
  const name = literal(c.name);
  if (name === null) return false;
  const args: string[] = [];
  for (const a of c.args) {
    if (a.type !== 'Word') return false;
    const t = literal(a);
    if (t === null) return false;
    args.push(t);
  }
  const base = name.slice(name.lastIndexOf('/') + 1);
  if (base === 'git') {
    const sub = args.find((a) => !a.startsWith('-'));
    return sub !== undefined && GIT_READS.has(sub) && !args.some((a) => a === '-c' || a.startsWith('--output') || a === '-o');
  }
  // The CLI as the skills spell it (`node …/dist/cli.mjs <verb>`, `npx tdd-gate <verb>`): its verb is judged below.
  if (base === 'node') return args[0] !== undefined && isPluginCli(args[0], cwd, env);
  if (base === 'npx') return args[0] === 'tdd-gate';
  if (base === 'find' && args.some((a) => FIND_ACTIONS.test(a))) return false;
  if (base === 'sort' && args.some((a) => a === '-o' || a.startsWith('--output'))) return false;
  return READERS.has(name) || (READERS.has(base) && name.startsWith('/'));
}

function nodeReads(n: PipelineNode | AndOr, cwd: string, env: NodeJS.ProcessEnv): boolean {
  // Compound commands, functions, subshells and the rest are more than a plain read.
  if (n.type === 'Command') return commandReads(n, cwd, env);
  if (n.type === 'Pipeline' || n.type === 'AndOr') return n.commands.every((c) => nodeReads(c, cwd, env));
  return false;
}

/**
 * A command that only reads: every program in it is a known reader in a form that writes nothing
 * (`ls`, `cat`, `grep`, `git status`, `git diff`, tdd-gate's read-only verbs such as `status`,
 * `log` and `stack check`), no word is computed at run time, and the analysis finds no write (a
 * device sink such as `2>/dev/null` is none). While the gate fails closed (a broken stack.json, a
 * state the anchor does not recognise), these still run: they are how the model finds out what is
 * wrong and tells the user. Anything else stays blocked.
 */
export function isPlainRead(command: string, cwd: string, root: string, home: string, env: NodeJS.ProcessEnv): boolean {
  let statements: readonly Statement[];
  try {
    const script = parseShell(command);
    if ((script.errors?.length ?? 0) > 0) return false;
    statements = script.commands;
  } catch {
    return false;
  }
  if (statements.length === 0 || !statements.every((s) => !s.background && nodeReads(s.command, cwd, env))) return false;
  let a;
  try {
    a = analyzeBash(command, { cwd, home, root, read: scriptReader() });
  } catch {
    return false;
  }
  return (
    a.writes.length === 0 &&
    a.unknown.length === 0 &&
    a.mentions.length === 0 &&
    a.headMoves.length === 0 &&
    a.parseErrors.length === 0 &&
    a.cliCalls.every((c) => cliEffect(c.verb, c.args) === 'read')
  );
}
