/**
 * More programs that run other commands or write files: process wrappers (`setsid`, `flock`,
 * `chroot`, `unshare`, …), multiplexers and shells in disguise (`tmux`, `sqlite3 .shell`),
 * `rename`, `link`; and the listers whose output names files (`ls`, `grep -l`, `find`), so a
 * loop or `xargs` over them knows where it writes.
 */
import { has, parseArgv } from './argv.js';
import { lit, writeAll, type Handler } from './handler.js';
import { baseName, isAbsolute, joinPath } from './paths.js';
import { wrapper } from './runners.js';
import { escapeGlob, type Arg, type Output } from './words.js';

/** Wrappers that run their operand as a command in the same file system view. */
const WRAPPERS: Record<string, Handler> = {
  setsid: wrapper(['-w']),
  nohup: wrapper([]),
  caffeinate: wrapper(['-t', '-w']),
  'xvfb-run': wrapper(['-n', '--server-num', '-s', '--server-args', '-f', '--auth-file', '-e', '--error-file', '-p', '--xauth-protocol', '-w', '--wait']),
  'dbus-run-session': wrapper(['--config-file', '--dbus-daemon']),
  unbuffer: wrapper([]),
  faketime: wrapper(['-m', '-f'], { skipFirstOperand: true }),
  prlimit: wrapper(['-p', '--pid']),
  numactl: wrapper(['-i', '--interleave', '-N', '--cpunodebind', '-m', '--membind', '-C', '--physcpubind', '-p', '--preferred']),
  cgexec: wrapper(['-g']),
  runuser: wrapper(['-u', '--user', '-g', '--group', '-G', '--supp-group', '-s', '--shell', '-w', '--whitelist-environment']),
  sg: wrapper([], { skipFirstOperand: true }),
  torsocks: wrapper([]),
  proxychains: wrapper(['-f']),
  proxychains4: wrapper(['-f']),
  catchsegv: wrapper([]),
  strace: wrapper(['-e', '-o', '-p', '-s', '-u', '-E', '-P', '-a', '-b', '-I', '-O', '-S', '-X']),
  ltrace: wrapper(['-e', '-o', '-p', '-s', '-u', '-a', '-A', '-D', '-F', '-l', '-n']),
  valgrind: wrapper([]),
  'systemd-run': wrapper(['-u', '--unit', '-p', '--property', '--description', '--slice', '-E', '--setenv', '--uid', '--gid', '--working-directory', '-M', '--machine', '--on-active', '--on-calendar'], { chdir: ['--working-directory'] }),
  firejail: wrapper([]),
  'ionice': wrapper(['-c', '--class', '-n', '--classdata', '-p', '--pid', '-P', '--pgid', '-u', '--uid']),
  time: wrapper(['-f', '--format', '-o', '--output']),
  gtimeout: wrapper(['-s', '--signal', '-k', '--kill-after'], { skipFirstOperand: true }),
  retry: wrapper(['-t', '--tries', '-d', '--delay', '-m', '--min', '-x', '--max']),
  entr: wrapper([]),
  chronic: wrapper([]),
  ts: wrapper([]),
  nsenter: wrapper(['-t', '--target', '-m', '--mount', '-u', '--uts', '-i', '--ipc', '-n', '--net', '-p', '--pid', '-U', '--user', '-S', '--setuid', '-G', '--setgid', '-r', '--root', '-w', '--wd']),
};

/** `strace -o f`, `time -o f`, `ltrace -o f`: the tool writes its log there. */
function withLog(name: string, valued: string[], log: string[]): Handler {
  const inner = WRAPPERS[name] as Handler;
  return (call, sink) => {
    const argv = parseArgv(call.args, valued, { stopAtOperand: true });
    for (const f of log) for (const v of argv.all.get(f) ?? []) sink.write(call.scope, v, `${name} ${f}`);
    return inner(call, sink);
  };
}

export const moreWriters: Record<string, Handler> = {
  ...WRAPPERS,
  strace: withLog('strace', ['-e', '-o', '-p', '-s', '-u', '-E', '-P', '-a', '-b', '-I', '-O', '-S', '-X'], ['-o']),
  ltrace: withLog('ltrace', ['-e', '-o', '-p', '-s', '-u', '-a', '-A', '-D', '-F', '-l', '-n'], ['-o']),
  time: withLog('time', ['-f', '--format', '-o', '--output'], ['-o', '--output']),
  /** `flock [opts] file cmd…` or `flock [opts] file -c 'cmd'`; `flock fd` runs nothing. */
  flock: (call, sink) => {
    const argv = parseArgv(call.args, ['-w', '--timeout', '-E', '--conflict-exit-code', '-c', '--command'], { stopAtOperand: true });
    const [lock, ...rest] = argv.operands;
    const code = argv.values.get('-c') ?? argv.values.get('--command');
    if (lock !== undefined && lock.text !== null && !/^\d+$/.test(lock.text)) sink.write(call.scope, lock, 'flock (lock file)', { metadataOnly: true });
    const restArgv = parseArgv(rest, ['-c', '--command'], { stopAtOperand: true });
    const c = code ?? restArgv.values.get('-c') ?? restArgv.values.get('--command');
    if (c) {
      sink.shell(c.text, call.scope, 'flock -c', false);
      return null;
    }
    const [name, ...args] = rest;
    if (name === undefined) return null;
    if (name.text === null) {
      sink.unmodelled(name.raw, 'is a command name computed when the command runs (flock runs it)');
      sink.mention(call.scope, 'flock runs a command whose name is not static', args.map((a) => a.text ?? a.raw));
      return null;
    }
    return sink.run({ ...call, name: name.text, args });
  },
  /** `chroot dir cmd`: paths inside mean `dir/…`; the analysis resolves only the identity `chroot /`. */
  chroot: (call, sink) => {
    const argv = parseArgv(call.args, ['--userspec', '--groups'], { stopAtOperand: true });
    const [root, name, ...rest] = argv.operands;
    if (root === undefined) return null;
    if (root.text !== '/' && root.text !== '/.') {
      sink.unknown(`chroot ${root.raw} runs a command whose paths name files under another root`);
      return null;
    }
    if (name === undefined) return sink.run({ ...call, name: 'sh', args: [] });
    if (name.text === null) return null;
    return sink.run({ ...call, name: name.text, args: rest });
  },
  /** `unshare [opts] cmd`: a new namespace over the same files (mount namespaces may remap them). */
  unshare: (call, sink) => {
    const argv = parseArgv(call.args, ['-R', '--root', '-w', '--wd', '-S', '--setuid', '-G', '--setgid', '--propagation', '--map-user', '--map-group', '--map-users', '--map-groups', '--setgroups'], { stopAtOperand: true });
    if (argv.values.has('-R') || argv.values.has('--root')) {
      sink.unknown('unshare --root runs a command whose paths name files under another root');
      return null;
    }
    const [name, ...rest] = argv.operands;
    if (name === undefined) return sink.run({ ...call, name: 'sh', args: [] });
    if (name.text === null) {
      sink.unmodelled(name.raw, 'is a command name computed when the command runs (unshare runs it)');
      sink.mention(call.scope, 'unshare runs a command whose name is not static', rest.map((a) => a.text ?? a.raw));
      return null;
    }
    const wd = argv.values.get('-w') ?? argv.values.get('--wd');
    const scope = wd ? call.scope.fork() : call.scope;
    if (wd) scope.cwds = scope.cwds.map((c) => (wd.text === null ? null : isAbsolute(wd.text) ? wd.text : c === null ? null : joinPath(c, wd.text)));
    return sink.run({ ...call, name: name.text, args: rest, scope });
  },
  /** tmux runs shell commands: `new-session 'cmd'`, `send-keys 'cmd' Enter`, `run-shell 'cmd'`. */
  tmux: (call, sink) => {
    const words = call.args;
    const verbs = /^(?:new-session|new|new-window|neww|split-window|splitw|respawn-pane|respawnp|respawn-window|respawnw|run-shell|run|send-keys|send|if-shell|if|pipe-pane|pipep|display-popup|popup)$/;
    const verb = words.find((w) => w.text !== null && verbs.test(w.text));
    if (verb === undefined) return null;
    const at = words.indexOf(verb);
    const argv = parseArgv(words.slice(at + 1), ['-t', '-s', '-n', '-c', '-x', '-y', '-e', '-F', '-l', '-p', '-w', '-h', '-T', '-N'], { stopAtOperand: true });
    const cmd = argv.operands;
    if (cmd.length === 0) return null;
    if (/^send/.test(verb.text ?? '')) {
      const keys = cmd.filter((k) => k.text === null || !/^(?:Enter|C-m|KPEnter|Escape|C-[a-z])$/.test(k.text));
      sink.shell(keys.some((k) => k.text === null) ? null : keys.map((k) => k.text).join(' '), call.scope, 'tmux send-keys', false);
    } else sink.shell(cmd.some((k) => k.text === null) ? null : cmd.map((k) => k.text).join(' '), call.scope, `tmux ${verb.text ?? ''}`, false);
    return null;
  },
  screen: (call, sink) => {
    const argv = parseArgv(call.args, ['-S', '-c', '-t', '-p', '-X', '-L', '-Logfile', '-s'], { stopAtOperand: true });
    const [name, ...rest] = argv.operands;
    if (name?.text != null) return sink.run({ ...call, name: name.text, args: rest });
    return null;
  },
  /** sqlite3's dot-commands `.shell`/`.system` run shell code; `.output`/`.once` write files. */
  sqlite3: (call, sink) => {
    const argv = parseArgv(call.args, ['-cmd', '-init', '-separator', '-newline', '-nullvalue', '-vfs', '-lookaside', '-pagecache', '-mmap', '-maxsize']);
    const [db, ...sql] = argv.operands;
    const texts: (string | null)[] = [...(argv.all.get('-cmd') ?? []).map((a) => a.text), ...sql.map((a) => a.text)];
    if (sql.length === 0) texts.push(call.stdin.kind === 'text' ? call.stdin.text : call.stdin.kind === 'terminal' ? '' : null);
    const init = argv.values.get('-init');
    if (init) texts.push(sink.read(call.scope, init.text ?? '')?.text ?? (init.text === null ? null : ''));
    for (const t of texts) {
      if (t === null) {
        sink.unknown('sqlite3 runs commands that are not statically known (`.shell` and `.system` run shell code)');
        continue;
      }
      for (const m of t.matchAll(/(?:^|\n)\s*\.(?:shell|system)\s+([^\n]*)/g)) sink.shell(m[1] ?? null, call.scope, 'sqlite3 .shell', false);
      for (const m of t.matchAll(/(?:^|\n)\s*\.(?:output|once|save|backup|dump\s+>)\s+(?:-[a-z]+\s+)*("[^"]*"|'[^']*'|\S+)/g)) {
        const f = (m[1] ?? '').replace(/^["']|["']$/g, '');
        if (f !== '' && f !== 'stdout' && !f.startsWith('|')) sink.write(call.scope, lit(f), 'sqlite3 .output');
        else if (f.startsWith('|')) sink.shell(f.slice(1), call.scope, 'sqlite3 .output |', false);
      }
      if (/\b(?:load_extension|\.load)\b/.test(t)) sink.unknown('sqlite3 loads an extension (native code)');
      if (/\bwritefile\s*\(|\bedit\s*\(/i.test(t)) sink.unknown('sqlite3 writefile() writes a file named in SQL');
    }
    if (db !== undefined && db.text !== ':memory:') sink.write(call.scope, db, 'sqlite3 (database file)');
    return null;
  },
  /**
   * `rename 's/a/b/' files` (perl) or `rename from to files` (util-linux): each file moves to a
   * name computed from its path. A plain `s///` or a from/to pair is applied here (to the glob
   * text when the files are a glob); anything else is a name computed at run time.
   */
  rename: (call, sink) => {
    const argv = parseArgv(call.args, ['-e', '--expression']);
    if (has(argv, '-n', '--no-act', '--dry-run', '-h', '--help', '-V', '--version')) return null;
    const exprs = argv.all.get('-e') ?? argv.all.get('--expression') ?? [];
    let ops = argv.operands;
    const perl = exprs.length > 0 || /^(?:s|y|tr)\W/.test(ops[0]?.text ?? '');
    const rules = perl ? (exprs.length > 0 ? exprs : ops.slice(0, 1)) : ops.slice(0, 2);
    ops = perl ? (exprs.length > 0 ? ops : ops.slice(1)) : ops.slice(2);
    for (const f of ops) {
      sink.write(call.scope, f, 'rename (source)');
      const renamed = f.text === null ? null : perl ? perlRename(rules, f.text) : rules[0]?.text != null && rules[1]?.text != null ? f.text.replace(rules[0].text, rules[1].text) : null;
      if (renamed === null) sink.unknown(`rename moves ${f.raw} to a name computed at run time`);
      else sink.write(call.scope, { ...f, text: renamed }, 'rename (new name)');
    }
    return null;
  },
  /** `link target name`: a second name for the file. */
  link: (call, sink) => {
    const [target, name] = call.args;
    if (target === undefined || name === undefined) return null;
    sink.write(call.scope, target, 'link (link target)');
    sink.write(call.scope, name, 'link');
    sink.link(call.scope, target, name, false);
    return null;
  },
  mkfifo: (call, sink) => writeAll(call, sink, parseArgv(call.args, ['-m', '--mode', '-Z', '--context']).operands, 'mkfifo'),
  mknod: (call, sink) => {
    const ops = parseArgv(call.args, ['-m', '--mode', '-Z', '--context']).operands;
    if (ops[0]) sink.write(call.scope, ops[0], 'mknod');
    return null;
  },
  /** `at`/`batch` run shell code later: from `-f file` or their input. */
  at: scheduled('at'),
  batch: scheduled('batch'),
  /** `crontab file|-`: each entry's command runs later; `-l`, `-r` and `-e` install nothing from here. */
  crontab: (call, sink) => {
    const argv = parseArgv(call.args, ['-u']);
    if (has(argv, '-l', '-r', '-e', '-i', '-T')) return null;
    const src = argv.operands[0];
    const text = src === undefined || src.text === '-' ? (call.stdin.kind === 'text' ? call.stdin.text : null) : src.text === null ? null : (sink.read(call.scope, src.text)?.text ?? null);
    if (text === null) {
      sink.unknown('crontab installs entries that are not statically known');
      return null;
    }
    for (const line of text.split('\n')) {
      const m = /^\s*(?:@\w+|(?:\S+\s+){5})(.+)$/.exec(line);
      if (m && !line.trim().startsWith('#') && !/^\s*\w+=/.test(line)) sink.shell(m[1] ?? null, call.scope, 'crontab entry', false);
    }
    return null;
  },
  /** gdb's `shell`/`!` commands and expect's `spawn`/`exec` run programs. */
  gdb: (call, sink) => {
    // gdb spells its long options with one dash (`-batch`, `-ex`): scanned by hand.
    const args = call.args;
    for (let i = 0; i < args.length; i++) {
      const t = (args[i]?.text ?? '').replace(/^--/, '-');
      const v = args[i + 1];
      if (['-ex', '-iex', '-eval-command', '-init-eval-command'].includes(t) && v !== undefined) {
        i++;
        const m = v.text === null ? null : /^\s*(?:shell|!|pipe\b[^|]*\|)\s*(.*)$/.exec(v.text);
        if (v.text === null) sink.unknown('gdb runs commands that are not statically known');
        else if (m) sink.shell(m[1] ?? null, call.scope, 'gdb shell', false);
      } else if (['-x', '-ix', '-command', '-init-command'].includes(t) && v !== undefined) {
        i++;
        if (v.text !== null) sink.mention(call.scope, 'a gdb command file runs commands', [sink.read(call.scope, v.text)?.text ?? '']);
      }
    }
    return null;
  },
  expect: (call, sink) => {
    const argv = parseArgv(call.args, ['-c', '-f']);
    const code = [...(argv.all.get('-c') ?? []).map((c) => c.text), ...(argv.all.get('-f') ?? []).map((f) => (f.text === null ? null : (sink.read(call.scope, f.text)?.text ?? '')))];
    const file = argv.operands[0];
    if (file?.text != null && !argv.values.has('-c')) code.push(sink.read(call.scope, file.text)?.text ?? '');
    for (const c of code) {
      if (c === null) sink.unknown('expect runs a script that is not statically known');
      else sink.mention(call.scope, 'an expect script spawns programs', [c]);
    }
    return null;
  },
  less: pager,
  more: pager,
  busybox: (call, sink) => {
    const [name, ...rest] = call.args;
    return name?.text != null ? sink.run({ ...call, name: name.text, args: rest }) : null;
  },
};

/** `at now`, `batch`: the job is shell code from `-f file` or standard input, run later. */
function scheduled(name: string): Handler {
  return (call, sink) => {
    const argv = parseArgv(call.args, ['-f', '-q', '-t', '-M', '-m']);
    if (has(argv, '-l', '-d', '-r', '-c')) return null;
    const f = argv.values.get('-f');
    if (f) {
      if (!sink.follow(call.scope, f, 'shell', name)) sink.unknown(`${name} -f ${f.raw} schedules a script the gate cannot read`);
      return null;
    }
    sink.shell(call.stdin.kind === 'text' ? call.stdin.text : null, call.scope, `${name} job`, false);
    return null;
  };
}

/** `less +'!cmd'`: a pager's `!` runs a shell command. */
function pager(call: Parameters<Handler>[0], sink: Parameters<Handler>[1]): Output {
  for (const a of call.args) {
    const m = a.text === null ? null : /^\+.*?!(.*)$/.exec(a.text);
    if (m) sink.shell(m[1] ?? null, call.scope, `${call.name} !`, false);
  }
  return null;
}

/** The directories a listing covers, as glob patterns of the paths it prints. */
function under(call: Parameters<Handler>[0], roots: readonly Arg[], name: string | null): Output {
  if (roots.some((r) => r.text === null)) return null;
  const cwd = call.scope.cwds.length === 1 ? call.scope.cwds[0] : null;
  const base = (r: Arg) => {
    const t = r.text as string;
    return r.glob ? (isAbsolute(t) ? t : cwd == null ? null : `${escapeGlob(cwd)}/${t}`) : escapeGlob(isAbsolute(t) ? t : cwd == null ? '' : joinPath(cwd, t));
  };
  const out: string[] = [];
  for (const r of roots.length > 0 ? roots : [lit('.')]) {
    const b = base(r);
    if (b === null || b === '') return null;
    out.push(name === null ? `${b}/**` : `${b}/**/${name}`, b);
  }
  return { patterns: out };
}

export const listers: Record<string, Handler> = {
  /** `ls src/*.ts`, `ls -d src/*`: the named paths and what is under them. */
  ls: (call) => {
    const argv = parseArgv(call.args, ['-I', '--ignore', '-w', '--width', '--format', '--sort', '--time-style', '--color', '--hide']);
    if (has(argv, '-l', '-s', '-i', '-n', '-o', '-g', '--size', '--inode')) return null; // long listings print more than names
    return under(call, argv.operands, null);
  },
  /** `grep -rl pat src`: file names under the searched paths. */
  grep: (call) => {
    const argv = parseArgv(call.args, ['-e', '--regexp', '-f', '--file', '-m', '--max-count', '-A', '-B', '-C', '--include', '--exclude', '--exclude-dir', '--label', '-d', '-D', '--color', '--colour']);
    if (!has(argv, '-l', '-L', '--files-with-matches', '--files-without-match')) return null;
    const ops = argv.values.has('-e') || argv.values.has('--regexp') || argv.values.has('-f') ? argv.operands : argv.operands.slice(1);
    return under(call, ops, null);
  },
  rg: (call) => {
    const argv = parseArgv(call.args, ['-e', '--regexp', '-f', '--file', '-g', '--glob', '-t', '--type', '-T', '--type-not', '-m', '--max-count', '-A', '-B', '-C', '-j', '--threads', '--color', '--colors', '-M', '--max-columns']);
    if (!has(argv, '-l', '--files-with-matches', '--files', '--files-without-match')) return null;
    const ops = has(argv, '--files') || argv.values.has('-e') || argv.values.has('--regexp') ? argv.operands : argv.operands.slice(1);
    return under(call, ops, null);
  },
  fd: (call) => {
    const argv = parseArgv(call.args, ['-e', '--extension', '-t', '--type', '-E', '--exclude', '-d', '--max-depth', '--min-depth', '-x', '--exec', '-X', '--exec-batch', '-j', '--threads', '-S', '--size', '--changed-within', '--changed-before', '-o', '--owner', '--base-directory', '--search-path', '-c', '--color']);
    if (argv.values.has('-x') || argv.values.has('--exec') || argv.values.has('-X') || argv.values.has('--exec-batch')) return null;
    const paths = [...argv.operands.slice(1), ...(argv.all.get('--search-path') ?? [])];
    return under(call, paths, null);
  },
  fdfind: (call, sink) => (listers.fd as Handler)(call, sink),
  tree: () => null,
  basename: (call) => (call.args.length === 1 && call.args[0]?.text != null ? baseName(call.args[0].text) + '\n' : null),
};

/** Lets writers.find return its listing (`find src -name '*.ts' | xargs …`). */
export function findListing(call: Parameters<Handler>[0], starts: readonly Arg[], names: readonly string[]): Output {
  return under(call, starts, names.length === 1 ? (names[0] ?? null) : null);
}

/** Apply perl-rename expressions (`s/pat/rep/flags` only) to a path; null when one is not that simple. */
function perlRename(rules: readonly Arg[], path: string): string | null {
  let out = path;
  for (const r of rules) {
    const m = r.text === null ? null : /^s(.)((?:\\.|(?!\1).)*)\1((?:\\.|(?!\1).)*)\1([gi]*)$/s.exec(r.text);
    if (m === null) return null;
    const [, , pat = '', rep = '', flags = ''] = m;
    if (/\(\?[^:]|\\[GKQE]|\$\{|@/.test(pat) || /[\\$](?![1-9]\b)|[@%]/.test(rep.replace(/\\([1-9])/g, '$$$1').replace(/\$[1-9]/g, ''))) return null;
    try {
      out = out.replace(new RegExp(pat, flags), rep.replace(/\\([1-9])/g, '$$$1'));
    } catch {
      return null;
    }
  }
  return out;
}
