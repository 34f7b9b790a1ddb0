/** The writer table: which arguments of which command are written. */
import { has, parseArgv, shortFlags } from './argv.js';
import { lit, stdinText, writeAll, type Handler } from './handler.js';
import { baseName, child, isAbsolute } from './paths.js';
import type { Call, Sink, WriteExtra } from './sink.js';
import { findListing } from './tables.js';
import { escapeGlob, type Arg } from './words.js';

/** A copy/move destination: the path itself, and `dest/<name>` in case it is a directory. */
function writeDest(call: Call, sink: Sink, dest: Arg, sources: readonly Arg[], via: string, recursive: boolean): void {
  // A single plain file copied: the destination's content is the source's (the RED stub check reads it).
  const only = sources.length === 1 && !recursive && sources[0]?.text != null && !sources[0].glob ? sources[0].text : null;
  const extra = recursive ? { tree: true } : only !== null ? { copyOf: only } : {};
  sink.write(call.scope, dest, via, extra);
  if (dest.text === null || dest.glob) return;
  for (const s of sources) {
    if (s.text !== null && !s.glob) sink.write(call.scope, lit(child(dest.text, baseName(s.text))), via, extra);
    else if (s.glob) sink.write(call.scope, { text: `${escapeGlob(dest.text)}/*`, glob: true, raw: dest.raw }, via);
  }
}

export function copyLike(removesSources: boolean): Handler {
  return (call, sink) => {
    const argv = parseArgv(call.args, ['-t', '--target-directory', '-S', '--suffix', '-m', '--mode', '-o', '--owner', '-g', '--group']);
    const via = call.name;
    const dir = argv.values.get('-t') ?? argv.values.get('--target-directory');
    const ops = argv.operands;
    // A moved directory takes everything under it; a recursive copy writes everything under the destination.
    const recursive = removesSources || has(argv, '-r', '-R', '-a', '--recursive', '--archive');
    if (removesSources) for (const s of dir ? ops : ops.slice(0, -1)) sink.write(call.scope, s, `${via} (source removed)`, { tree: true, removes: true });
    // A link is a second, writable name for its target: linking a protected file counts as writing it,
    // and a later write through the link in the same command lands on the target.
    const links = via === 'ln' || (via === 'cp' && has(argv, '-l', '--link', '-s', '--symbolic-link'));
    if (links) {
      const symbolic = has(argv, '-s', '--symbolic', '--symbolic-link');
      const targets = dir ? ops : ops.length >= 2 ? ops.slice(0, -1) : ops;
      const dest = dir ?? (ops.length >= 2 ? ops[ops.length - 1] : undefined);
      for (const t of targets) {
        sink.write(call.scope, t, `${via} (link target)`);
        // A relative symlink target is resolved from the link's directory.
        if (symbolic && via === 'ln' && dest?.text != null && t.text !== null && !isAbsolute(t.text)) {
          const linkDir = dir ? dest.text : dest.text.includes('/') ? dest.text.slice(0, dest.text.lastIndexOf('/')) : '.';
          sink.write(call.scope, lit(child(linkDir, t.text)), 'ln -s (link target)');
        }
      }
    }
    if (dir) writeDest(call, sink, dir, ops, via, recursive);
    else if (ops.length >= 2) writeDest(call, sink, ops[ops.length - 1] as Arg, ops.slice(0, -1), via, recursive);
    else if (ops.length === 1 && via === 'ln') sink.write(call.scope, lit(baseName(ops[0]?.text ?? '')), via);
    if (links) {
      const symbolic = via === 'ln' && has(argv, '-s', '--symbolic');
      const dest = dir ?? (ops.length >= 2 ? ops[ops.length - 1] : undefined);
      for (const t of dir ? ops : ops.length >= 2 ? ops.slice(0, -1) : ops) {
        if (dest !== undefined) sink.link(call.scope, t, dest, symbolic);
        else if (t.text !== null) sink.link(call.scope, t, lit(baseName(t.text)), symbolic);
      }
    }
    return null;
  };
}

export function operandsAfterValues(valued: string[], via?: string): Handler {
  return (call, sink) => writeAll(call, sink, parseArgv(call.args, valued).operands, via ?? call.name);
}

export const sed: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['-e', '--expression', '-f', '--file', '-l', '--line-length']);
  const inPlace = has(argv, '--in-place') || call.args.some((a) => /^-[a-zA-Z]*i/.test(a.text ?? '') || (a.text ?? '').startsWith('--in-place'));
  const scripts = argv.all.get('-e') ?? argv.all.get('--expression') ?? [];
  const fromFile = has(argv, '-f', '--file');
  let files = argv.operands;
  if (scripts.length === 0 && !fromFile) {
    const s = files[0];
    files = files.slice(1);
    if (s) scripts.push(s);
  }
  for (const f of argv.all.get('-f') ?? argv.all.get('--file') ?? []) {
    const text = f.text === null ? null : sink.read(call.scope, f.text)?.text ?? null;
    if (text === null) sink.unknown(`sed -f ${f.raw}: a script the gate cannot read (sed scripts can run commands and write files)`);
    else scripts.push(lit(text));
  }
  for (const s of scripts) {
    if (s.text === null) continue;
    sedExec(call, sink, s.text);
    // `w file` / `s/a/b/w file`: sed writes that file itself.
    for (const m of s.text.matchAll(/(?:^|[;\n{}]|\/[gpiImMe0-9]*)\s*[wW]\s+([^;\n}]+)/g)) {
      const f = (m[1] ?? '').trim();
      if (f !== '' && f !== '/dev/stdout' && f !== '/dev/stderr') sink.write(call.scope, lit(f), 'sed w');
    }
  }
  if (!inPlace) return null;
  // What the edit leaves is computed from each file when the script is known and line-by-line (no -n, no -z).
  const flags = shortFlags(call.args, 'i', 'efl');
  const plain = scripts.every((s) => s.text !== null) && !['n', 'z'].some((f) => flags.has(f)) && !has(argv, '--quiet', '--silent', '--null-data');
  const edit: WriteExtra = plain ? { inPlace: { lang: 'sed', scripts: scripts.map((s) => s.text as string), ...(flags.has('E') || flags.has('r') || has(argv, '--regexp-extended') ? { extended: true } : {}) } } : {};
  for (const f of files) sink.write(call.scope, f, 'sed -i (in-place edit)', edit);
  return null;
};

/**
 * GNU sed runs shell commands: `e command`, and `e` or the `s///e` flag run the pattern space
 * (text from the file) as a command, which is code the analysis cannot see.
 */
function sedExec(call: Call, sink: Sink, script: string): void {
  let i = 0;
  const n = script.length;
  const skipSpace = () => {
    while (i < n && /[ \t;!\n{}]/.test(script[i] as string)) i++;
  };
  const delimited = (d: string) => {
    while (i < n && script[i] !== d) i += script[i] === '\\' ? 2 : 1;
    i++;
  };
  while (i < n) {
    skipSpace();
    // Addresses: numbers, $, /re/, \cREc, first~step, ranges.
    for (let k = 0; k < 2 && i < n; k++) {
      if (/[0-9$]/.test(script[i] as string)) while (i < n && /[0-9$~+]/.test(script[i] as string)) i++;
      else if (script[i] === '/') {
        i++;
        delimited('/');
        while (/[IM]/.test(script[i] ?? '')) i++;
      } else if (script[i] === '\\') {
        const d = script[i + 1] ?? '/';
        i += 2;
        delimited(d);
      }
      if (script[i] === ',') i++;
      else break;
    }
    while (i < n && /[ \t!]/.test(script[i] as string)) i++;
    const c = script[i];
    i++;
    if (c === undefined) break;
    const lineEnd = () => {
      const end = script.slice(i).search(/[;\n}]/);
      const text = end < 0 ? script.slice(i) : script.slice(i, i + end);
      i = end < 0 ? n : i + end;
      return text.trim();
    };
    if (c === 's' || c === 'y') {
      const d = script[i] ?? '/';
      i++;
      delimited(d);
      delimited(d);
      let flags = '';
      while (i < n && /[gpiImMe0-9w]/.test(script[i] as string)) {
        if (script[i] === 'w') break;
        flags += script[i];
        i++;
      }
      if (c === 's' && flags.includes('e')) sink.unknown('sed s///e runs the edited text (file content) as a shell command');
      if (script[i] === 'w') lineEnd();
    } else if (c === 'e') {
      const cmd = lineEnd();
      if (cmd === '') sink.unknown('sed e runs the pattern space (file content) as a shell command');
      else sink.shell(cmd, call.scope, 'sed e', false);
    } else if (/[aicrRwWbtTv:#lLqQ]/.test(c)) lineEnd();
  }
}

export const awk: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['-f', '--file', '-v', '--assign', '-F', '--field-separator', '-i', '--include', '-e', '--source', '-l', '--load']);
  const inPlace = (argv.all.get('-i') ?? argv.all.get('--include') ?? []).some((a) => a.text === 'inplace' || a.text === null);
  let files = argv.operands;
  const programs = [...(argv.all.get('-e') ?? []), ...(argv.all.get('--source') ?? [])];
  if (!has(argv, '-f', '--file') && programs.length === 0) {
    const p = files[0];
    files = files.slice(1);
    if (p) programs.push(p);
  }
  for (const p of programs) {
    if (p.text === null) {
      sink.unknown(`${call.name} runs a program that is not statically known`);
      continue;
    }
    awkProgram(call, sink, p.text);
  }
  if (inPlace) writeAll(call, sink, files, `${call.name} -i inplace`);
  return null;
};

/** `print > "file"` writes the file; `print > $1` or `> FILENAME` writes somewhere unknown. */
function awkProgram(call: Call, sink: Sink, program: string): void {
  for (const m of program.matchAll(/\bprintf?\b[^;{}>|]*(>>?|\|)\s*("(?:[^"\\]|\\.)*"|[^\s;}]+)/g)) {
    const target = m[2] ?? '';
    if (m[1] === '|') {
      sink.shell(target.startsWith('"') ? target.slice(1, -1) : null, call.scope, `${call.name} print |`, false);
      continue;
    }
    if (target.startsWith('"')) sink.write(call.scope, lit(target.slice(1, -1)), `${call.name} print >`);
    else sink.unknown(`${call.name} prints to ${target}, a file name computed at run time`);
  }
  for (const m of program.matchAll(/\bsystem\s*\(\s*("(?:[^"\\]|\\.)*")?/g)) {
    sink.shell(m[1] ? m[1].slice(1, -1) : null, call.scope, `${call.name} system()`, false);
  }
}

export const tar: Handler = (call, sink) => {
  let args = call.args;
  const first = args[0]?.text;
  // Old-style `tar xzf a.tgz`: the first word is a cluster of options without the dash.
  if (first != null && !first.startsWith('-') && /^[A-Za-z]+$/.test(first)) args = [lit('-' + first), ...args.slice(1)];
  const argv = parseArgv(args, ['-f', '--file', '-C', '--directory', '-T', '--files-from', '-X', '--exclude-from', '-b', '-H', '--format', '-I', '--use-compress-program', '-K', '-N', '-V', '-g']);
  const archive = argv.values.get('-f') ?? argv.values.get('--file');
  if (has(argv, '-x', '--extract', '--get')) {
    const dir = argv.values.get('-C') ?? argv.values.get('--directory') ?? lit('.');
    if (argv.operands.length > 0 && dir.text !== null) {
      for (const m of argv.operands) sink.write(call.scope, m.text === null ? m : { ...m, text: child(dir.text, m.text) }, 'tar -x', { tree: true });
    } else sink.write(call.scope, dir, 'tar -x (archive contents are unknown)', { tree: true });
  } else if (has(argv, '-c', '--create', '-r', '--append', '-u', '--update') && archive && archive.text !== '-') {
    sink.write(call.scope, archive, 'tar -c');
  }
  return null;
};

export const unzip: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['-d', '-x', '-P']);
  if (has(argv, '-l', '-t', '-Z', '-v', '-p', '-c')) return null;
  sink.write(call.scope, argv.values.get('-d') ?? lit('.'), 'unzip (archive contents are unknown)', { tree: true });
  return null;
};

export const rsync: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['-e', '--rsh', '--exclude', '--include', '--filter', '-f', '--files-from', '--exclude-from', '--include-from', '-T', '--temp-dir', '--backup-dir', '--suffix', '--chmod', '--chown', '--log-file', '--partial-dir', '--link-dest', '--compare-dest', '--copy-dest']);
  if (has(argv, '-n', '--dry-run', '--list-only')) return null;
  const dest = argv.operands[argv.operands.length - 1];
  if (argv.operands.length >= 2 && dest && !(dest.text ?? '').match(/^[^/]*:/)) writeDest(call, sink, dest, argv.operands.slice(0, -1), 'rsync', true);
  return null;
};

export const curl: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['-o', '--output', '-D', '--dump-header', '-c', '--cookie-jar', '--output-dir', '-H', '--header', '-d', '--data', '--data-raw', '--data-binary', '--data-urlencode', '-X', '--request', '-u', '--user', '-A', '--user-agent', '-e', '--referer', '-b', '--cookie', '-F', '--form', '-T', '--upload-file', '-w', '--write-out', '-m', '--max-time', '--connect-timeout', '-x', '--proxy', '-r', '--range', '-K', '--config', '--retry', '--cacert', '--cert', '--key', '-E', '--trace', '--trace-ascii', '--stderr']);
  const dir = argv.values.get('--output-dir')?.text ?? null;
  const inDir = (a: Arg): Arg => (dir !== null && a.text !== null && !isAbsolute(a.text) ? { ...a, text: child(dir, a.text) } : a);
  for (const o of [...(argv.all.get('-o') ?? []), ...(argv.all.get('--output') ?? [])]) if (o.text !== '-') sink.write(call.scope, inDir(o), 'curl -o');
  for (const f of ['-D', '--dump-header', '-c', '--cookie-jar', '--trace', '--trace-ascii', '--stderr']) {
    const v = argv.values.get(f);
    if (v && v.text !== '-') sink.write(call.scope, v, `curl ${f}`);
  }
  if (has(argv, '-O', '--remote-name', '--remote-name-all')) {
    for (const url of argv.operands) {
      const name = url.text === null ? null : baseName(url.text.replace(/[?#].*$/, ''));
      sink.write(call.scope, name === null ? url : inDir(lit(name)), 'curl -O');
    }
  }
  return null;
};

export const wget: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['-O', '--output-document', '-o', '--output-file', '-a', '--append-output', '-P', '--directory-prefix', '-U', '--user-agent', '--header', '-t', '--tries', '-T', '--timeout', '-e', '--execute', '-i', '--input-file', '--post-data', '--post-file']);
  for (const f of ['-o', '--output-file', '-a', '--append-output']) {
    const v = argv.values.get(f);
    if (v) sink.write(call.scope, v, `wget ${f}`);
  }
  const out = argv.values.get('-O') ?? argv.values.get('--output-document');
  if (out) {
    if (out.text !== '-') sink.write(call.scope, out, 'wget -O');
    return null;
  }
  if (has(argv, '--spider')) return null;
  const prefix = argv.values.get('-P') ?? argv.values.get('--directory-prefix');
  if (has(argv, '-r', '--recursive', '-m', '--mirror')) {
    sink.write(call.scope, prefix ?? lit('.'), 'wget -r', { tree: true });
    return null;
  }
  for (const url of argv.operands) {
    const name = url.text === null ? null : baseName(url.text.replace(/[?#].*$/, '').replace(/^[a-z]+:\/\/[^/]*\/?$/, 'index.html')) || 'index.html';
    const target = name === null ? url : lit(prefix?.text != null ? child(prefix.text, name) : name);
    sink.write(call.scope, target, 'wget');
  }
  return null;
};

/** `find … -delete`, `-exec cmd {} ;`, `-fprint file`: what it finds is any file under the start paths. */
export const find: Handler = (call, sink) => {
  const args = call.args;
  let i = 0;
  const starts: Arg[] = [];
  for (; i < args.length; i++) {
    const t = args[i]?.text;
    if (t != null && (t.startsWith('-') || t === '(' || t === '!' || t === '\\(')) break;
    starts.push(args[i] as Arg);
  }
  if (starts.length === 0) starts.push(lit('.'));
  const expr = args.slice(i);
  const names = expr.flatMap((a, j) => (['-name', '-iname'].includes(a.text ?? '') && expr[j + 1]?.text != null ? [expr[j + 1]?.text as string] : []));
  const found = (s: Arg): Arg => {
    if (s.text === null) return s;
    const base = escapeGlob(s.text.replace(/\/+$/, '') || '/');
    return { text: names.length === 1 ? `${base}/**/${names[0] ?? '*'}` : `${base}/**`, glob: true, raw: s.raw };
  };
  let acts = false;
  for (let j = 0; j < expr.length; j++) {
    const t = expr[j]?.text;
    if (t === '-delete' || t === '-fprint' || t === '-fprint0' || t === '-fprintf' || t === '-fls' || t === '-exec' || t === '-execdir' || t === '-ok' || t === '-okdir') acts = true;
    if (t === '-delete') for (const s of starts) sink.write(call.scope, found(s), 'find -delete', names.length === 1 ? {} : { tree: true });
    else if (t === '-fprint' || t === '-fprint0' || t === '-fprintf' || t === '-fls') {
      const f = expr[j + 1];
      if (f) sink.write(call.scope, f, `find ${t}`);
    } else if (t === '-exec' || t === '-execdir' || t === '-ok' || t === '-okdir') {
      const end = expr.findIndex((a, k) => k > j && (a.text === ';' || a.text === '+'));
      const cmd = expr.slice(j + 1, end < 0 ? expr.length : end);
      const [name, ...rest] = cmd;
      if (name === undefined) continue;
      for (const s of starts) {
        const filled = rest.map((a) => (a.text === '{}' ? found(s) : a.text?.includes('{}') ? { ...a, text: null } : a));
        if (name.text === null) sink.mention(call.scope, `find ${t} runs a command whose name is not static`, filled.map((a) => a.text ?? a.raw));
        else sink.run({ ...call, name: name.text, args: filled, stdin: { kind: 'terminal' } });
      }
      j = end < 0 ? expr.length : end;
    }
  }
  // `find src -name '*.ts' | xargs …`: what it prints are paths under the start points.
  return acts ? null : findListing(call, starts, names);
};

/** `xargs cmd args`: cmd runs with more arguments read from input, which are unknown. */
export const xargs: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['-n', '--max-args', '-L', '--max-lines', '-P', '--max-procs', '-s', '--max-chars', '-d', '--delimiter', '-E', '--eof', '-I', '--replace', '-a', '--arg-file', '--process-slot-var'], { stopAtOperand: true });
  const replace = argv.values.get('-I')?.text ?? argv.values.get('--replace')?.text ?? null;
  const [name, ...rest] = argv.operands;
  if (name === undefined) return null;
  // `git ls-files src | xargs …`: each argument is one of the listed paths.
  const input: Arg = call.stdin.kind === 'list' && call.stdin.patterns.length > 0 ? { text: call.stdin.patterns.length === 1 ? (call.stdin.patterns[0] as string) : `{${call.stdin.patterns.join(',')}}`, glob: true, raw: '<paths read by xargs>' } : { text: null, glob: false, raw: '<arguments read by xargs>' };
  if (input.glob && call.stdin.kind === 'list' && call.stdin.patterns.length > 1) {
    // One write per listed pattern: run the command once per pattern.
    let out = null;
    for (const p of call.stdin.patterns) {
      const a: Arg = { text: p, glob: true, raw: '<paths read by xargs>' };
      const args = replace !== null ? rest.map((x) => (x.text?.includes(replace) ? a : x)) : [...rest, a];
      if (name.text !== null) out = sink.run({ ...call, name: name.text, args, stdin: { kind: 'terminal' } });
    }
    if (name.text !== null) return out;
  }
  const args = replace !== null ? rest.map((a) => (a.text?.includes(replace) ? input : a)) : [...rest, input];
  if (name.text === null) {
    sink.mention(call.scope, 'xargs runs a command whose name is not static', rest.map((a) => a.text ?? a.raw));
    return null;
  }
  return sink.run({ ...call, name: name.text, args, stdin: { kind: 'terminal' } });
};

export const dd: Handler = (call, sink) => {
  for (const a of call.args) {
    if (a.text === null) sink.unknown(`dd ${a.raw}: the operand cannot be resolved statically`);
    else if (a.text.startsWith('of=')) sink.write(call.scope, { ...a, text: a.text.slice(3) }, 'dd of=');
  }
  return null;
};

export const tee: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['--output-error']);
  const content = stdinText(call);
  const append = has(argv, '-a', '--append');
  for (const t of argv.operands) sink.write(call.scope, t, 'tee', content === null ? {} : { content, append });
  return content;
};

export const sort: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['-o', '--output', '-k', '--key', '-t', '--field-separator', '-S', '--buffer-size', '-T', '--temporary-directory', '--parallel', '--files0-from', '--compress-program', '--batch-size', '--random-source']);
  const out = argv.values.get('-o') ?? argv.values.get('--output');
  if (out) sink.write(call.scope, out, 'sort -o');
  return null;
};

/**
 * `patch [file] < diff`, `patch -i diff`: the files a diff changes are read from its headers, on
 * disk or from the text a heredoc, a here-string or `cat f |` hands it.
 */
export const patch: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['-i', '--input', '-o', '--output', '-p', '--strip', '-d', '--directory', '-B', '--prefix', '-r', '--reject-file', '-D', '--ifdef', '-F', '--fuzz', '-z', '--suffix', '-V', '-Y', '--basename-prefix']);
  if (has(argv, '--dry-run', '-C', '--check')) return null;
  const out = argv.values.get('-o') ?? argv.values.get('--output');
  const reject = argv.values.get('-r') ?? argv.values.get('--reject-file');
  if (reject && reject.text !== '-') sink.write(call.scope, reject, 'patch -r');
  if (out) {
    sink.write(call.scope, out, 'patch -o');
    return null;
  }
  if (argv.operands[0]) {
    sink.write(call.scope, argv.operands[0], 'patch');
    return null;
  }
  const strip = argv.values.get('-p') ?? argv.values.get('--strip');
  const dir = argv.values.get('-d') ?? argv.values.get('--directory');
  if (strip !== undefined && !/^\d+$/.test(strip.text ?? '')) {
    sink.unknown('patch strips a number of path components that is not statically known from the files its diff names');
    return null;
  }
  const input = argv.values.get('-i') ?? argv.values.get('--input') ?? null;
  patchInput(call, sink, call.scope, input, 'patch', { strip: strip?.text != null ? Number(strip.text) : null, directory: dir?.text ?? null });
  return null;
};

/**
 * A patch applied from `file`, or from the standard input when `file` is null: its text is read
 * now when it can be (a heredoc, `cat f |`, a file on disk or written earlier by this command);
 * otherwise the file is read when the hook gathers the facts. A patch from another command's
 * output cannot be seen.
 */
export function patchInput(call: Call, sink: Sink, scope: Call['scope'], file: Arg | null, via: string, how: { strip: number | null; directory: string | null; root?: string }): void {
  let source = file;
  if (source === null) {
    const stdin = call.stdin;
    if (stdin.kind === 'terminal') return; // no input: nothing to apply
    if (stdin.kind === 'file') source = stdin.path;
    else if (stdin.kind === 'text' && stdin.text !== null) {
      sink.write(scope, lit('.'), `${via} (a patch from ${stdin.from})`, { patch: { ...how, text: stdin.text } });
      return;
    } else {
      sink.unknown(`${via} applies a patch read from ${stdin.from}, which is another command's output, so the files it changes cannot be seen; apply a patch file that exists before the command runs, so its headers can be read`);
      return;
    }
    if (source === null) {
      sink.unknown(`${via} applies a patch from an input file that cannot be resolved statically`);
      return;
    }
  }
  const got = source.text !== null && !source.glob ? sink.read(scope, source.text) : null;
  sink.write(scope, source, via, { patch: got === null ? how : { ...how, text: got.text } });
}

export const chmodLike: Handler = (call, sink) => {
  // A symbolic mode may start with a dash (`chmod -w f`): it is the mode, not an option.
  const args = call.name === 'chmod' ? call.args.map((a) => (a.text !== null && /^-[rwxXst]+$/.test(a.text) ? { ...a, text: `a${a.text}` } : a)) : call.args;
  const argv = parseArgv(args, ['--reference']);
  const targets = argv.values.has('--reference') ? argv.operands : argv.operands.slice(1);
  const tree = has(argv, '-R', '--recursive');
  for (const t of targets) sink.write(call.scope, t, call.name, tree ? { tree: true } : {});
  return null;
};

export const rm: Handler = (call, sink) => {
  const argv = parseArgv(call.args, []);
  const tree = has(argv, '-r', '-R', '--recursive');
  for (const t of argv.operands) sink.write(call.scope, t, call.name, tree ? { tree: true, removes: true } : { removes: true });
  return null;
};

/** gzip & co. replace each operand with its (de)compressed file unless told to write to stdout or keep it. */
export const compressor: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['-S', '--suffix', '-T', '--threads', '-o']);
  if (has(argv, '-c', '--stdout', '--to-stdout', '-l', '--list', '-t', '--test', '-k', '--keep')) return null;
  return writeAll(call, sink, argv.operands, call.name);
};

/** Editors run from scripts (`vim -es -c … f`, `ed f <<< …`) write the files they open. */
export const editor: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['-c', '--cmd', '-S', '-u', '-U', '-i', '-T', '-w', '-W', '--eval', '--load', '-l', '-f', '--funcall', '-p']);
  // `vim -c '!cmd'`, `+'!cmd'`, `:r !cmd`: ex commands that run the shell; `-c 'w file'` writes a file.
  const exCommands = [...(argv.all.get('-c') ?? []), ...(argv.all.get('--cmd') ?? []), ...argv.operands.filter((o) => (o.text ?? '').startsWith('+')).map((o) => ({ ...o, text: o.text?.slice(1) ?? null }))];
  for (const c of exCommands) {
    if (c.text === null) {
      sink.unknown(`${call.name} runs editor commands that are not statically known`);
      continue;
    }
    for (const cmd of c.text.split('|')) {
      const bang = /^\s*:?\s*(?:\d*,?\d*|%)?\s*(?:r(?:ead)?\s*|w(?:rite)?\s*)?!(.*)$/.exec(cmd);
      if (bang) sink.shell(bang[1] ?? null, call.scope, `${call.name} !`, false);
      else {
        const w = /^\s*:?\s*(?:\d*,?\d*|%)?\s*(?:w|write|sav|saveas|wq|x|up|update)!?\s+(\S+)/.exec(cmd);
        if (w) sink.write(call.scope, lit(w[1] ?? ''), `${call.name} :w`);
      }
    }
  }
  return writeAll(call, sink, argv.operands.filter((o) => !(o.text ?? '').startsWith('+')), call.name);
};

/**
 * `claude plugin disable|uninstall`, `claude config set`: Claude Code rewrites its settings, which can
 * switch this gate off. Judged as a write to the user settings file, a control file.
 */
export const claudeCli: Handler = (call, sink) => {
  const words = call.args.map((a) => a.text);
  const [group, verb] = words;
  const plugin = (group === 'plugin' || group === 'plugins') && verb != null && ['disable', 'uninstall', 'remove', 'rm', 'update', 'install', 'enable'].includes(verb);
  const marketplace = (group === 'plugin' || group === 'plugins') && verb === 'marketplace';
  const config = group === 'config' && verb != null && ['set', 'add', 'remove', 'rm', 'reset'].includes(verb);
  if (plugin || marketplace || config) {
    sink.write(call.scope, { text: `${sink.ctx.home}/.claude/settings.json`, glob: false, raw: `claude ${group} ${verb}` }, `claude ${group} ${verb}`);
  }
  return null;
};
