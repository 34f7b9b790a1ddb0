/**
 * Commands that run other code: shells (`bash -c`, a heredoc-fed shell), interpreters (`node -e`,
 * `python -c`), wrappers (`env`, `sudo`, `timeout`, `npx`), package managers, `eval` and `cd`.
 */
import { has, parseArgv } from './argv.js';
import { cliVerb } from './cliCalls.js';
import { snapshotUpdate } from './formatters.js';
import { writeAll, type Handler } from './handler.js';
import { isAbsolute, joinPath } from './paths.js';
import type { Call, Sink } from './sink.js';
import type { Arg } from './words.js';

/** A shell: `-c code`, a script file (passes), or commands on stdin. */
export const shell: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['-o', '-O', '+o', '+O', '--rcfile', '--init-file'], { stopAtOperand: true });
  if (has(argv, '-c')) {
    sink.shell(argv.operands[0]?.text ?? null, call.scope, `${call.name} -c`, false);
    return null;
  }
  const script = argv.operands[0];
  if (script !== undefined && !has(argv, '-s') && !readsStdin(script)) return namedScript(call, sink, script);
  return readsProgram(call, sink, (code) => sink.shell(code, call.scope, `${call.name} reading ${describeStdin(call)}`, false));
};

/** `-` and `/dev/stdin` name the standard input, not a script file. */
function readsStdin(a: Arg): boolean {
  return a.text === '-' || a.text === '/dev/stdin';
}

/** A script file passes the static check; a process substitution (`bash <(…)`) is code from a command's output. */
export function namedScript(call: Call, sink: Sink, script: Arg): null {
  if (script.text !== null && script.text.startsWith('/dev/fd/')) sink.unknown(`${call.name} runs a program produced by a process substitution`);
  return null;
}

function describeStdin(call: Call): string {
  return call.stdin.kind === 'text' ? call.stdin.from : 'its input';
}

/** An interpreter with no program argument reads its program from stdin. */
function readsProgram(call: Call, sink: Sink, analyse: (code: string | null) => void): null {
  switch (call.stdin.kind) {
    case 'text':
      analyse(call.stdin.text);
      return null;
    case 'file':
      return null; // `python < script.py`: a named script
    case 'terminal':
      return null;
  }
}

export function interpreter(lang: string, codeFlags: string[], valued: string[], inPlace?: string): Handler {
  return (call, sink) => {
    const argv = parseArgv(call.args, [...codeFlags, ...valued], { stopAtOperand: true });
    const via = `${call.name} ${codeFlags.find((f) => argv.flags.has(f)) ?? ''}`.trim();
    const code = codeFlags.flatMap((f) => argv.all.get(f) ?? []);
    const [first, ...more] = argv.operands;
    if (inPlace !== undefined && (has(argv, inPlace) || call.args.some((a) => /^-[a-zA-Z]*i/.test(a.text ?? '')))) {
      writeAll(call, sink, code.length > 0 ? argv.operands : more, `${call.name} -i (in-place edit)`);
    }
    if (code.length > 0) {
      for (const c of code) sink.inline(lang, c.text, call.scope, via, argv.operands);
      return null;
    }
    // The plugin's CLI, even where its location is a variable (`node "$CLAUDE_PLUGIN_ROOT/dist/cli.mjs"`).
    if (call.name === 'node' && first !== undefined && /(^|\/)dist\/cli\.mjs$/.test(first.text ?? first.raw.replace(/["']/g, ''))) {
      sink.cli(cliVerb(more), more, call.text);
      return null;
    }
    if (first !== undefined && !readsStdin(first)) return namedScript(call, sink, first);
    return readsProgram(call, sink, (c) => sink.inline(lang, c, call.scope, `${call.name} reading ${describeStdin(call)}`));
  };
}

/** Wrappers run their operand as a command: look through them. */
export function wrapper(valued: string[], opts: { skipAssignments?: boolean; skipFirstOperand?: boolean } = {}): Handler {
  return (call, sink) => {
    let args = call.args;
    let scope = call.scope;
    const argv = parseArgv(args, valued, { stopAtOperand: true });
    let ops = argv.operands;
    if (call.name === 'env') {
      const dir = argv.values.get('-C') ?? argv.values.get('--chdir');
      if (dir) scope = cdScope(call, dir);
      const split = argv.values.get('-S') ?? argv.values.get('--split-string');
      if (split) {
        sink.shell(split.text === null ? null : [split.text, ...ops.map((o) => o.text ?? o.raw)].join(' '), scope, 'env -S', false);
        return null;
      }
    }
    if (call.name === 'command' && has(argv, '-v', '-V')) return null;
    if (opts.skipAssignments) while (ops[0]?.text != null && /^[A-Za-z_][A-Za-z0-9_]*=/.test(ops[0].text)) ops = ops.slice(1);
    if (opts.skipFirstOperand) ops = ops.slice(1);
    args = ops;
    const [name, ...rest] = args;
    if (name === undefined) return null;
    if (name.text === null) {
      sink.mention(scope, `${call.name} runs a command whose name is not static (${name.raw})`, rest.map((a) => a.text ?? a.raw));
      return null;
    }
    return sink.run({ ...call, name: name.text, args: rest, scope });
  };
}

function cdScope(call: Call, dir: Arg) {
  const s = call.scope.fork();
  s.cwds = s.cwds.map((c) => resolveDir(c, dir.text));
  return s;
}

function resolveDir(cwd: string | null, dir: string | null): string | null {
  if (dir === null) return null;
  if (isAbsolute(dir)) return joinPath('/', dir);
  return cwd === null ? null : joinPath(cwd, dir);
}

export const cd: Handler = (call, sink) => {
  const ops = parseArgv(call.args).operands;
  const target = ops[0];
  const home = sink.ctx.home;
  if (target === undefined) call.scope.setCwd(home);
  else if (target.text === '-') call.scope.setCwd(null);
  else call.scope.cwds = call.scope.cwds.map((c) => resolveDir(c, target.glob ? null : target.text));
  return null;
};

export const pushd: Handler = (call, sink) => {
  const before = [...call.scope.cwds];
  cd(call, sink);
  call.scope.dirStack.push(before.length === 1 ? (before[0] ?? null) : null);
  return null;
};

export const popd: Handler = (call) => {
  const top = call.scope.dirStack.pop();
  call.scope.setCwd(top ?? null);
  return null;
};

export const npmLike: Handler = (call, sink) => {
  const [sub, ...rest] = call.args;
  const s = sub?.text;
  if (s === 'exec' || s === 'x' || s === 'dlx') return wrapper(['-p', '--package', '-c', '--call'])({ ...call, args: rest }, sink);
  if (call.name === 'yarn' && s != null && !YARN_BUILTINS.has(s) && !s.startsWith('-')) return sink.run({ ...call, name: s, args: rest });
  snapshotUpdate(call, sink);
  return null;
};

const YARN_BUILTINS = new Set(['add', 'install', 'remove', 'run', 'test', 'build', 'init', 'upgrade', 'up', 'why', 'info', 'list', 'config', 'cache', 'global', 'link', 'unlink', 'publish', 'pack', 'version', 'workspace', 'workspaces', 'set', 'plugin', 'node', 'bin', 'dedupe', 'exec', 'dlx', 'outdated', 'audit', 'licenses', 'login', 'logout', 'owner', 'tag', 'team', 'import', 'generate-lock-entry', 'check', 'autoclean', 'create', 'help', 'constraints', 'npm', 'patch', 'patch-commit', 'rebuild', 'search', 'stage', 'unplug']);

export const npx: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['-p', '--package', '-c', '--call', '--node-options'], { stopAtOperand: true });
  const c = argv.values.get('-c') ?? argv.values.get('--call');
  if (c) {
    sink.shell(c.text, call.scope, `${call.name} -c`, false);
    return null;
  }
  const [name, ...rest] = argv.operands;
  if (name === undefined) return null;
  if (name.text === null) {
    sink.mention(call.scope, `${call.name} runs a command whose name is not static`, rest.map((a) => a.text ?? a.raw));
    return null;
  }
  return sink.run({ ...call, name: name.text.replace(/@[^/]*$/, ''), args: rest });
};

export const evalCmd: Handler = (call, sink) => {
  const code = call.args.some((a) => a.text === null || a.glob) ? null : call.args.map((a) => a.text).join(' ');
  sink.shell(code, call.scope, 'eval', true);
  return null;
};

