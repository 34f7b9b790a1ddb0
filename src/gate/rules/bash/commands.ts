/**
 * The command table: each command name to the handler that says what it writes or runs, and
 * the shell builtins that only change the walker's state.
 */
import { has, parseArgv } from './argv.js';
import { formatterCommand } from './formatters.js';
import { ghCommand, gitCommand } from './git.js';
import { stdinText, writeAll, type Handler } from './handler.js';
import { baseName, isAbsolute, joinPath } from './paths.js';
import { cd, dirs, evalCmd, interpreter, make, namedScript, npmLike, npx, popd, pushd, shell, wrapper } from './runners.js';
import type { Call, Sink } from './sink.js';
import { escapeGlob, type Arg, type Output } from './words.js';
import { builtins } from './builtins.js';
import { listers, moreWriters } from './tables.js';
import {
  awk,
  chmodLike,
  claudeCli,
  compressor,
  copyLike,
  curl,
  dd,
  editor,
  find,
  operandsAfterValues,
  patch,
  rm,
  rsync,
  sed,
  sort,
  tar,
  tee,
  unzip,
  wget,
  xargs,
} from './writers.js';

function echoOut(args: readonly Arg[]): string | null {
  let i = 0;
  let newline = true;
  while (i < args.length && (args[i]?.text ?? '').startsWith('-') && /^-[neE]+$/.test(args[i]?.text ?? '')) {
    if (args[i]?.text?.includes('n')) newline = false;
    i++;
  }
  const rest = args.slice(i);
  if (rest.some((a) => a.text === null)) return null;
  return rest.map((a) => a.text).join(' ') + (newline ? '\n' : '');
}

const exitCmd: Handler = (call) => {
  call.scope.live = false;
  return null;
};

const read: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['-a', '-d', '-i', '-n', '-N', '-p', '-t', '-u', '-C', '-c', '-O', '-s']);
  const list = call.scope.readList;
  for (const v of argv.operands) {
    if (v.text === null) continue;
    // `read 'a[$(cmd)]'`: the subscript is arithmetic.
    if (v.text.includes('[')) sink.arith(v.text.slice(v.text.indexOf('[') + 1, v.text.lastIndexOf(']') > 0 ? v.text.lastIndexOf(']') : undefined), call.scope, `read ${v.raw}`);
    // `git ls-files src | while read -r f`: one variable takes each listed path.
    if (list !== null && argv.operands.length === 1 && !argv.values.has('-d')) {
      call.scope.vars.set(v.text, list);
      call.scope.globVars.add(v.text);
    } else {
      call.scope.vars.set(v.text, null);
      call.scope.globVars.delete(v.text);
    }
    call.scope.numeric.delete(v.text);
    call.scope.slashFree.delete(v.text);
  }
  const arr = argv.values.get('-a')?.text;
  if (arr) {
    call.scope.vars.set(arr, null);
    call.scope.arrays.set(arr, null);
  }
  return null;
};

const unset: Handler = (call) => {
  const fns = call.args.some((a) => a.text === '-f');
  for (const v of call.args) {
    if (v.text === null || v.text.startsWith('-')) continue;
    if (fns) call.scope.functions.delete(v.text);
    else {
      call.scope.vars.delete(v.text);
      call.scope.arrays.delete(v.text);
    }
  }
  return null;
};

const COMMANDS: Record<string, Handler> = {
  echo: (call) => echoOut(call.args),
  printf: (call) => (call.args.some((a) => a.text === null) ? null : call.args.map((a) => a.text).join(' ')),
  cat: (call) => {
    const argv = parseArgv(call.args);
    const files = argv.operands.filter((o) => o.text !== '-');
    if (files.length === 0) return stdinText(call);
    // `cat f | …` hands on the file's bytes, like `… < f` (options that change them aside).
    const only = files.length === 1 && argv.operands.length === 1 && argv.flags.size === 0 ? files[0] : undefined;
    if (only?.text == null || only.glob) return null;
    const cwd = call.scope.cwds.length === 1 ? call.scope.cwds[0] : null;
    if (isAbsolute(only.text)) return { file: joinPath('/', only.text) };
    return cwd == null ? null : { file: joinPath(cwd, only.text) };
  },
  rm,
  rmdir: operandsAfterValues([]),
  unlink: (call, sink) => {
    for (const t of parseArgv(call.args).operands) sink.write(call.scope, t, 'unlink', { removes: true });
    return null;
  },
  shred: operandsAfterValues(['-n', '--iterations', '-s', '--size', '--random-source']),
  touch: (call, sink) => {
    // An existing file keeps its content (only its times change); a new one is created empty.
    for (const t of parseArgv(call.args, ['-r', '--reference', '-d', '--date', '-t']).operands) sink.write(call.scope, t, 'touch', { metadataOnly: true });
    return null;
  },
  truncate: operandsAfterValues(['-s', '--size', '-r', '--reference']),
  chmod: chmodLike,
  chown: chmodLike,
  chgrp: chmodLike,
  mv: copyLike(true),
  cp: copyLike(false),
  install: copyLike(false),
  ln: copyLike(false),
  dd,
  tee,
  sed,
  gsed: sed,
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  sort,
  patch,
  tar,
  gtar: tar,
  bsdtar: tar,
  unzip,
  rsync,
  curl,
  wget,
  find,
  xargs,
  git: gitCommand,
  gh: ghCommand,
  cd,
  pushd,
  popd,
  eval: evalCmd,
  exit: exitCmd,
  return: exitCmd,
  read,
  mapfile: read,
  readarray: read,
  unset,
  env: wrapper(['-u', '--unset', '-C', '--chdir', '-S', '--split-string'], { skipAssignments: true, chdir: ['-C', '--chdir'] }),
  command: wrapper([]),
  builtin: wrapper([]),
  exec: wrapper(['-a']),
  nice: wrapper(['-n', '--adjustment']),
  nohup: wrapper([]),
  time: wrapper(['-f', '--format', '-o', '--output']),
  timeout: wrapper(['-s', '--signal', '-k', '--kill-after'], { skipFirstOperand: true }),
  stdbuf: wrapper(['-i', '-o', '-e', '--input', '--output', '--error']),
  sudo: wrapper(['-u', '--user', '-g', '--group', '-h', '--host', '-p', '--prompt', '-C', '--close-from', '-D', '--chdir', '-r', '--role', '-t', '--type', '-T', '--command-timeout', '-U', '--other-user']),
  doas: wrapper(['-u', '-C']),
  ionice: wrapper(['-c', '--class', '-n', '--classdata', '-p', '--pid', '-P', '--pgid', '-u', '--uid']),
  chrt: wrapper([], { skipFirstOperand: true }),
  taskset: wrapper([], { skipFirstOperand: true }),
  watch: (call, sink) => {
    // watch hands its words to `sh -c`, joined: a quoted command string is shell code.
    const ops = parseArgv(call.args, ['-n', '--interval', '-d', '--differences', '-c'], { stopAtOperand: true }).operands;
    sink.shell(ops.some((o) => o.text === null) ? null : ops.map((o) => o.text).join(' '), call.scope, 'watch', false);
    return null;
  },
  trap: (call, sink) => {
    // `trap 'code' EXIT`: the handler is shell code that runs later in this shell.
    const [code, ...signals] = call.args;
    if (code !== undefined && signals.length > 0 && !(code.text ?? '').startsWith('-')) sink.shell(code.text, call.scope, 'trap', true);
    return null;
  },
  su: (call, sink) => {
    const code = parseArgv(call.args, ['-c', '--command', '-s', '--shell', '-g', '--group']).values.get('-c');
    if (code) sink.shell(code.text, call.scope, 'su -c', false);
    return null;
  },
  script: (call, sink) => {
    const code = parseArgv(call.args, ['-c', '--command', '-E', '--echo', '-T', '--log-timing', '-I', '-O', '-B']).values.get('-c');
    if (code) sink.shell(code.text, call.scope, 'script -c', false);
    return null;
  },
  parallel: (call, sink) => {
    // GNU parallel: `parallel cmd ::: args`; the command line is shell code with {} replaced by each arg.
    const sep = call.args.findIndex((a) => a.text === ':::' || a.text === '::::');
    const cmd = (sep < 0 ? call.args : call.args.slice(0, sep)).filter((a) => !(a.text ?? '').startsWith('-'));
    const args = sep < 0 || call.args[sep]?.text === '::::' ? null : call.args.slice(sep + 1);
    if (cmd.length === 0) return null;
    if (args === null || args.some((a) => a.text === null) || cmd.some((a) => a.text === null)) {
      sink.unknown('parallel runs a command on arguments that are not statically known');
      return null;
    }
    const line = cmd.map((a) => a.text).join(' ');
    for (const a of args) sink.shell(line.includes('{}') ? line.split('{}').join(a.text ?? '') : `${line} ${a.text ?? ''}`, call.scope, 'parallel', false);
    return null;
  },
  npx,
  pnpx: npx,
  bunx: npx,
  npm: npmLike,
  pnpm: npmLike,
  yarn: npmLike,
  bun: (call, sink) => {
    const first = call.args[0]?.text;
    if (first === 'x') return npx({ ...call, args: call.args.slice(1) }, sink);
    if (first === 'test' || first === 'run') return npmLike(call, sink);
    return interpreter('js', ['-e', '--eval', '-p', '--print'], ['-r', '--require', '--preload'])(call, sink);
  },
  node: interpreter('js', ['-e', '--eval', '-p', '--print'], ['-r', '--require', '--import', '--loader', '--experimental-loader', '--input-type', '-C', '--conditions', '--env-file', '--stack-size', '--max-old-space-size', '--title'], undefined, ['-r', '--require', '--import', '--loader', '--experimental-loader']),
  tsx: interpreter('js', ['-e', '--eval', '-p', '--print'], ['--tsconfig', '-r', '--require', '--import'], undefined, ['-r', '--require', '--import']),
  'ts-node': interpreter('js', ['-e', '--eval', '-p', '--print'], ['-r', '--require', '-P', '--project', '-C', '--compiler', '-O', '--compiler-options']),
  deno: (call, sink) => {
    const [sub, ...rest] = call.args;
    if (sub?.text === 'eval') {
      const code = parseArgv(rest, ['--ext', '--config', '-c']).operands[0];
      sink.inline('js', code?.text ?? null, call.scope, 'deno eval');
    }
    formatterCommand(call, sink);
    return null;
  },
  python: interpreter('python', ['-c'], ['-m', '-W', '-X', '-Q']),
  ruby: interpreter('ruby', ['-e'], ['-r', '-I', '-C', '-E', '-F', '-x'], '-i', ['-r']),
  perl: interpreter('perl', ['-e', '-E'], ['-M', '-m', '-I', '-x', '-0', '-l', '-C', '-F'], '-i'),
  php: interpreter('php', ['-r'], ['-d', '-c', '-f', '-z', '-B', '-E', '-R', '-F']),
  lua: interpreter('js', ['-e'], ['-l']),
  source: (call, sink) => (call.args[0] ? namedScript(call, sink, call.args[0], 'shell', call.args.slice(1), true) : null),
  '.': (call, sink) => (call.args[0] ? namedScript(call, sink, call.args[0], 'shell', call.args.slice(1), true) : null),
  make,
  gmake: make,
  dirs,
  sponge: operandsAfterValues([]),
  dos2unix: operandsAfterValues([]),
  unix2dos: operandsAfterValues([]),
  mac2unix: operandsAfterValues([]),
  gzip: compressor,
  gunzip: compressor,
  bzip2: compressor,
  bunzip2: compressor,
  xz: compressor,
  unxz: compressor,
  zstd: compressor,
  unzstd: compressor,
  vi: editor,
  vim: editor,
  nvim: editor,
  ex: editor,
  ed: editor,
  nano: editor,
  emacs: editor,
  micro: editor,
  kak: editor,
  yq: (call, sink) => {
    const argv = parseArgv(call.args, ['-o', '--output-format', '-p', '--input-format', '--expression', '--from-file']);
    if (has(argv, '-i', '--inplace')) writeAll(call, sink, argv.operands.slice(1), 'yq -i');
    return null;
  },
  iconv: (call, sink) => {
    const out = parseArgv(call.args, ['-f', '--from-code', '-t', '--to-code', '-o', '--output']);
    const o = out.values.get('-o') ?? out.values.get('--output');
    if (o) sink.write(call.scope, o, 'iconv -o');
    return null;
  },
  xxd: (call, sink) => {
    const ops = parseArgv(call.args, ['-c', '-g', '-l', '-s', '-o', '-n']).operands;
    if (ops[1]) sink.write(call.scope, ops[1], 'xxd (output file)');
    return null;
  },
  split: (call, sink) => {
    const ops = parseArgv(call.args, ['-a', '-b', '-C', '-l', '-n', '-t', '--additional-suffix', '--filter']).operands;
    const prefix = ops[1]?.text ?? 'x';
    sink.write(call.scope, { text: `${escapeGlob(prefix)}*`, glob: true, raw: prefix }, 'split (output files)');
    return null;
  },
  alias: (call) => {
    for (const a of call.args) {
      const m = a.text === null ? null : /^([^=]+)=(.*)$/s.exec(a.text);
      if (m && m[1] !== undefined && m[2] !== undefined) call.scope.aliases.set(m[1], m[2]);
    }
    return null;
  },
  claude: claudeCli,
  bash: shell,
  sh: shell,
  zsh: shell,
  dash: shell,
  ksh: shell,
  ash: shell,
  mksh: shell,
  fish: shell,
};

/**
 * The handler for a command name. The tables are looked up in turn rather than merged into one
 * object when the hook starts: merging some three hundred entries cost more than a whole
 * command's analysis. A later table overrides an earlier one for a name both have.
 */
function handlerOf(name: string): Handler | undefined {
  for (const table of [listers, moreWriters, builtins, COMMANDS]) if (Object.hasOwn(table, name)) return table[name];
  return undefined;
}

/** The command's stdout when statically known (echo, printf, cat of a heredoc). */
export function runCommand(call: Call, sink: Sink): Output {
  const name = call.name.includes('/') ? baseName(call.name) : call.name;
  const normal = interpreterName(name);
  if (call.name.includes('/') && !isAbsolute(call.name) && !handlerOf(normal)) {
    // ./script.sh: a named script, followed when it can be read (its first line says in what language).
    const file: Arg = { text: call.name, glob: false, raw: call.name };
    const got = sink.read(call.scope, call.name);
    const lang = got === null ? 'shell' : shebangLang(got.text);
    if (lang !== null) sink.follow(call.scope, file, lang, call.name, { args: call.args });
    return null;
  }
  const handler = handlerOf(normal);
  if (handler) return handler({ ...call, name: normal }, sink);
  formatterCommand({ ...call, name: normal }, sink);
  return null;
}

/** `python3.12`, `py` and `pypy3` are python, `node20` and `nodejs` node, `perl5.36` perl; other names stay. */
function interpreterName(name: string): string {
  let end = name.length;
  while (end > 0 && '0123456789.'.includes(name[end - 1] as string)) end--;
  const stem = name.slice(0, end);
  if (stem === 'python' || stem === 'pypy' || name === 'py') return 'python';
  if (stem === 'node' || stem === 'nodejs') return 'node';
  if (stem === 'perl' || stem === 'ruby' || stem === 'php') return stem;
  return name;
}

/** The language a script's `#!` line names; shell without one; null for a binary or unknown interpreter. */
function shebangLang(text: string): 'shell' | 'js' | 'python' | 'ruby' | 'perl' | 'php' | null {
  if (!text.startsWith('#!')) return text.includes('\u0000') ? null : 'shell';
  const line = text.slice(0, text.indexOf('\n') >>> 0);
  if (/\b(?:ba|z|da|k|a)?sh\b/.test(line)) return 'shell';
  if (/\b(?:node|nodejs|bun|deno|tsx|ts-node)\b/.test(line)) return 'js';
  if (/\bpython/.test(line)) return 'python';
  if (/\bruby\b/.test(line)) return 'ruby';
  if (/\bperl\b/.test(line)) return 'perl';
  if (/\bphp\b/.test(line)) return 'php';
  return null;
}
