/**
 * Commands that run other code: shells (`bash -c`, a script file, a heredoc-fed shell),
 * interpreters (`node -e`, `python x.py`), wrappers (`env`, `sudo`, `timeout`, `npx`), package
 * managers and their scripts, `make`, `eval`, and the builtins that move the working directory.
 */
import { has, parseArgv, shortFlags } from './argv.js';
import { cliVerb } from './cliCalls.js';
import { injectedEnv } from './envPrefix.js';
import { snapshotUpdate } from './formatters.js';
import type { Handler } from './handler.js';
import { makeRecipes } from './makefile.js';
import { isAbsolute, joinPath } from './paths.js';
import type { Scope } from './scope.js';
import type { Call, Lang, Sink } from './sink.js';
import type { Arg } from './words.js';

/** A shell: `-c code`, a script file (followed when it can be read), or commands on stdin. */
export const shell: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['-o', '-O', '+o', '+O', '--rcfile', '--init-file'], { stopAtOperand: true });
  for (const rc of [argv.values.get('--rcfile'), argv.values.get('--init-file')]) if (rc) namedScript(call, sink, rc, 'shell');
  if (has(argv, '-c')) {
    sink.shell(argv.operands[0]?.text ?? null, call.scope, `${call.name} -c`, false);
    return null;
  }
  const script = argv.operands[0];
  if (script !== undefined && !has(argv, '-s') && !readsStdin(script)) return namedScript(call, sink, script, 'shell', argv.operands.slice(1));
  return readsProgram(call, sink, 'shell', (code) => sink.shell(code, call.scope, `${call.name} reading ${describeStdin(call)}`, false));
};

/** `-`, `/dev/stdin`, `/dev/fd/0` and `/proc/<pid>/fd/0` name the standard input, not a script file. */
function readsStdin(a: Arg): boolean {
  return a.text === '-' || /^\/(?:dev\/stdin|dev\/fd\/0|proc\/[^/]+\/fd\/0)$/.test(a.text ?? '');
}

/**
 * A script file: followed when it can be read (its code analysed like the command's own); a
 * process substitution (`bash <(…)`) is code from a command's output, unknown.
 */
export function namedScript(call: Call, sink: Sink, script: Arg, lang: Lang, args: readonly Arg[] = [], sameScope = false): null {
  if (script.text !== null && /^\/(?:dev\/fd|proc\/[^/]+\/fd)\/\d+$/.test(script.text)) {
    sink.unknown(`${call.name} runs a program produced by a process substitution`);
    return null;
  }
  if (readsStdin(script)) {
    readsProgram(call, sink, lang, (code) => (lang === 'shell' ? sink.shell(code, call.scope, `${call.name} reading ${describeStdin(call)}`, sameScope) : sink.inline(lang, code, call.scope, `${call.name} reading ${describeStdin(call)}`)));
    return null;
  }
  // A script the gate cannot read still passes, unless what it is given names a protected path.
  if (!sink.follow(call.scope, script, lang, call.name, { sameScope, args })) {
    if (!sink.missing(call.scope, script)) sink.unmodelled(`${call.name} ${script.raw}`, 'runs a file the gate cannot read, so what it does cannot be checked');
    sink.mention(call.scope, `${call.name} runs ${script.raw}, which the gate cannot read, and hands it a path`, args.map((a) => a.text ?? a.raw));
  }
  return null;
}

function describeStdin(call: Call): string {
  return call.stdin.kind === 'text' || call.stdin.kind === 'list' ? call.stdin.from : 'its input';
}

/** An interpreter with no program argument reads its program from stdin. */
function readsProgram(call: Call, sink: Sink, lang: Lang, analyse: (code: string | null) => void): null {
  switch (call.stdin.kind) {
    case 'text':
      analyse(call.stdin.text);
      return null;
    case 'list':
      analyse(null);
      return null;
    case 'file':
      // `python < script.py`: the file is the program.
      if (call.stdin.path !== null) sink.follow(call.scope, call.stdin.path, lang, call.name);
      return null;
    case 'terminal':
      return null;
  }
}

export function interpreter(lang: Lang, codeFlags: string[], valued: string[], inPlace?: string, moduleFlags: string[] = []): Handler {
  return (call, sink) => {
    const argv = parseArgv(call.args, [...codeFlags, ...valued], { stopAtOperand: true });
    const via = `${call.name} ${codeFlags.find((f) => argv.flags.has(f)) ?? ''}`.trim();
    const code = codeFlags.flatMap((f) => argv.all.get(f) ?? []);
    const [first, ...more] = argv.operands;
    if (inPlace !== undefined && (has(argv, inPlace) || call.args.some((a) => /^-[a-zA-Z]*i/.test(a.text ?? '')))) {
      // `perl -pi -e 's/a/b/g' f`: a print loop of substitutions, whose result is computed from each file.
      const flags = shortFlags(call.args, 'i', 'eE');
      const printLoop = lang === 'perl' && flags.has('p') && code.length > 0 && code.every((c) => c.text !== null) && [...flags].every((f) => 'piweE'.includes(f));
      const extra = printLoop ? { inPlace: { lang: 'perl' as const, scripts: code.map((c) => c.text as string) } } : {};
      for (const f of code.length > 0 ? argv.operands : more) sink.write(call.scope, f, `${call.name} -i (in-place edit)`, extra);
    }
    // Modules loaded before the program (`node -r ./x.js`, `ruby -r ./x.rb`) are code files too.
    for (const f of moduleFlags) for (const m of argv.all.get(f) ?? []) if (/^[./~]/.test(m.text ?? '')) sink.follow(call.scope, m, lang, `${call.name} ${f}`);
    if (code.length > 0) {
      for (const c of code) sink.inline(lang, c.text, call.scope, via, argv.operands);
      return null;
    }
    // The plugin's CLI, even where its location is a variable (`node "$CLAUDE_PLUGIN_ROOT/dist/cli.mjs"`).
    if (call.name === 'node' && first !== undefined && /(^|\/)dist\/cli\.mjs$/.test(first.text ?? first.raw.replace(/["']/g, ''))) {
      sink.cli(cliVerb(more), more, call.text);
      return null;
    }
    if (has(argv, '-m')) return null; // `python -m pytest`: an installed module
    if (first !== undefined) return namedScript(call, sink, first, lang, more);
    return readsProgram(call, sink, lang, (c) => sink.inline(lang, c, call.scope, `${call.name} reading ${describeStdin(call)}`));
  };
}

/** Wrappers run their operand as a command: look through them. */
export function wrapper(valued: string[], opts: { skipAssignments?: boolean; skipFirstOperand?: boolean; skip?: number; chdir?: string[] } = {}): Handler {
  return (call, sink) => {
    let scope = call.scope;
    const argv = parseArgv(call.args, valued, { stopAtOperand: true });
    let ops = argv.operands;
    for (const flag of opts.chdir ?? []) {
      const dir = argv.values.get(flag);
      if (dir) scope = cdScope(call, dir);
    }
    if (call.name === 'env') {
      const split = argv.values.get('-S') ?? argv.values.get('--split-string');
      if (split) {
        sink.shell(split.text === null ? null : [split.text, ...ops.map((o) => o.text ?? o.raw)].join(' '), scope, 'env -S', false);
        return null;
      }
    }
    if (call.name === 'command' && has(argv, '-v', '-V')) return null;
    if (opts.skipAssignments) {
      const names: string[] = [];
      while (ops[0]?.text != null && /^[A-Za-z_][A-Za-z0-9_]*=/.test(ops[0].text)) {
        const t = ops[0].text;
        if (scope === call.scope) scope = call.scope.fork();
        const name = t.slice(0, t.indexOf('='));
        scope.vars.set(name, [t.slice(t.indexOf('=') + 1)]);
        names.push(name);
        ops = ops.slice(1);
      }
      if (ops[0]?.text === null && /^['"]?[A-Za-z_][A-Za-z0-9_]*=/.test(ops[0].raw)) {
        sink.unknown(`${call.name} sets ${ops[0].raw}, a value that is not statically known`);
        ops = ops.slice(1);
      }
      const next = ops[0]?.text;
      if (names.length > 0 && next != null) injectedEnv(names, scope, next, sink);
    }
    if (opts.skipFirstOperand) ops = ops.slice(1);
    if (opts.skip) ops = ops.slice(opts.skip);
    const [name, ...rest] = ops;
    if (name === undefined) return null;
    if (name.text === null) {
      sink.unmodelled(name.raw, `is a command name computed when the command runs (${call.name} runs it)`);
      sink.mention(scope, `${call.name} runs a command whose name is not static (${name.raw})`, rest.map((a) => a.text ?? a.raw));
      return null;
    }
    return sink.run({ ...call, name: name.text, args: rest, scope });
  };
}

function cdScope(call: Call, dir: Arg): Scope {
  const s = call.scope.fork();
  s.cwds = s.cwds.map((c) => resolveDir(c, dir.text));
  return s;
}

function resolveDir(cwd: string | null, dir: string | null): string | null {
  if (dir === null) return null;
  if (isAbsolute(dir)) return joinPath('/', dir);
  return cwd === null ? null : joinPath(cwd, dir);
}

/**
 * `cd` as bash does it: `cd -` goes back, a relative name is searched along CDPATH first (unless
 * it starts with `.` or `..`), and with `cdable_vars` a name that is no directory may be a variable.
 * Which of those exists is not known here, so every candidate is kept.
 */
function cdTargets(scope: Scope, target: Arg, home: string, sink: Sink): (string | null)[] {
  if (target.text === '-') return scope.oldCwds;
  if (target.glob || target.text === null) return [null];
  const dir = target.text;
  const out = scope.cwds.map((c) => resolveDir(c, dir));
  if (!isAbsolute(dir) && !/^\.\.?(\/|$)/.test(dir)) {
    const cdpath = scope.vars.has('CDPATH') ? scope.vars.get('CDPATH') : sink.ctx.inherited?.CDPATH !== undefined ? [sink.ctx.inherited.CDPATH] : undefined;
    if (cdpath === null) out.push(null);
    else for (const entry of (cdpath ?? []).flatMap((p) => p.split(':'))) if (entry !== '') out.push(...scope.cwds.map((c) => resolveDir(c, joinPath(entry.startsWith('/') ? entry : `${c ?? ''}/${entry}`, dir))));
    if (scope.cdableVars && /^[A-Za-z_][A-Za-z0-9_]*$/.test(dir)) {
      const v = dir === 'HOME' ? [home] : scope.vars.get(dir);
      if (v === undefined || v === null) out.push(null);
      else out.push(...v.flatMap((x) => scope.cwds.map((c) => resolveDir(c, x))));
    }
  }
  return [...new Set(out)];
}

export const cd: Handler = (call, sink) => {
  const ops = parseArgv(call.args).operands;
  const target = ops[0];
  const home = sink.ctx.home;
  const next = target === undefined ? [scopeHome(call.scope, home)] : cdTargets(call.scope, target, home, sink);
  call.scope.oldCwds = [...call.scope.cwds];
  call.scope.cwds = next;
  return null;
};

function scopeHome(scope: Scope, home: string): string | null {
  const v = scope.vars.get('HOME');
  return v === undefined ? home : v !== null && v.length === 1 ? (v[0] ?? null) : null;
}

/** The directory stack as bash shows it (`dirs`): the current directory first. */
function stack(scope: Scope): (string | null)[] {
  return [scope.cwds.length === 1 ? (scope.cwds[0] ?? null) : null, ...scope.dirStack];
}

function setStack(scope: Scope, dirs: (string | null)[]): void {
  const [top = null, ...rest] = dirs;
  scope.oldCwds = [...scope.cwds];
  scope.cwds = [top];
  scope.dirStack = rest;
}

/** `+N` counts from the left of `dirs`, `-N` from the right; null when it is not such a word. */
function stackIndex(word: string | null, length: number): number | null {
  const m = /^([+-])(\d+)$/.exec(word ?? '');
  if (!m) return null;
  const n = Number(m[2]);
  return m[1] === '+' ? n : length - 1 - n;
}

export const pushd: Handler = (call, sink) => {
  const ops = parseArgv(call.args.filter((a) => !/^[+-]\d+$/.test(a.text ?? ''))).operands;
  const rot = call.args.find((a) => a.text === null || /^[+-]\d+$/.test(a.text));
  const dirs = stack(call.scope);
  if (rot !== undefined || ops.length === 0) {
    // `pushd +N` rotates the stack so that entry N is on top; plain `pushd` swaps the top two.
    const i = rot === undefined ? 1 : stackIndex(rot.text, dirs.length);
    if (i === null || i < 0 || i >= dirs.length) {
      if (rot?.text === null) setStack(call.scope, dirs.map(() => null));
      return null;
    }
    if (rot === undefined) setStack(call.scope, [dirs[1] ?? null, dirs[0] ?? null, ...dirs.slice(2)]);
    else setStack(call.scope, [...dirs.slice(i), ...dirs.slice(0, i)]);
    return null;
  }
  const before = dirs;
  cd({ ...call, args: ops.slice(0, 1) }, sink);
  call.scope.dirStack = before;
  return null;
};

export const popd: Handler = (call) => {
  const dirs = stack(call.scope);
  const word = call.args.find((a) => !['-n'].includes(a.text ?? ''));
  if (word?.text === null) {
    setStack(call.scope, dirs.slice(1).map(() => null));
    return null;
  }
  const i = word === undefined ? 0 : stackIndex(word.text, dirs.length);
  if (i === null || i < 0 || i >= dirs.length) return null;
  const rest = [...dirs.slice(0, i), ...dirs.slice(i + 1)];
  if (i === 0) setStack(call.scope, rest.length > 0 ? rest : [null]);
  else call.scope.dirStack = rest.slice(1);
  return null;
};

export const dirs: Handler = (call) => {
  if (call.args.some((a) => a.text === '-c')) call.scope.dirStack = [];
  return null;
};

/** Lifecycle scripts npm runs around a command (and pnpm/yarn/bun around theirs). */
const LIFECYCLE: Record<string, string[]> = {
  test: ['pretest', 'test', 'posttest'],
  start: ['prestart', 'start', 'poststart'],
  stop: ['prestop', 'stop', 'poststop'],
  restart: ['prerestart', 'prestop', 'stop', 'poststop', 'restart', 'prestart', 'start', 'poststart', 'postrestart'],
  install: ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare'],
  pack: ['prepack', 'prepare', 'postpack'],
  publish: ['prepublishOnly', 'prepack', 'prepare', 'postpack', 'publish', 'postpublish'],
  version: ['preversion', 'version', 'postversion'],
};
const ALIASES: Record<string, string> = { t: 'test', tst: 'test', i: 'install', ci: 'install', 'install-clean': 'install', 'clean-install': 'install', add: 'install', isntall: 'install', in: 'install', ins: 'install', inst: 'install', insta: 'install', instal: 'install', isnt: 'install', isnta: 'install', isntal: 'install', 'install-test': 'install', it: 'install' };

/** The scripts of the nearest package.json, read when the hook runs; null when there is none. */
function packageScripts(scope: Scope, sink: Sink): { dir: string; scripts: Record<string, string> } | null {
  const cwd = scope.cwds.length === 1 ? scope.cwds[0] : null;
  if (cwd == null) return null;
  for (let dir = cwd, i = 0; i < 12; i++) {
    const got = sink.read(scope, `${dir === '/' ? '' : dir}/package.json`);
    if (got !== null) {
      try {
        const json = JSON.parse(got.text) as { scripts?: unknown };
        const scripts = json.scripts !== null && typeof json.scripts === 'object' ? (json.scripts as Record<string, unknown>) : {};
        return { dir, scripts: Object.fromEntries(Object.entries(scripts).filter((e): e is [string, string] => typeof e[1] === 'string')) };
      } catch {
        return null;
      }
    }
    if (dir === '/') break;
    dir = dir.slice(0, dir.lastIndexOf('/')) || '/';
  }
  return null;
}

/** Run package.json scripts as the shell code they are, from the package's directory. */
function runScripts(call: Call, sink: Sink, names: readonly string[], extra: readonly Arg[]): boolean {
  const pkg = packageScripts(call.scope, sink);
  if (pkg === null) return false;
  const scope = call.scope.fork();
  scope.setCwd(pkg.dir);
  let found = false;
  names.forEach((name, i) => {
    const body = pkg.scripts[name];
    if (body === undefined) return;
    found = true;
    // Arguments after `--` go to the main script only.
    const args = i === names.length - 1 || !name.startsWith('pre') ? extra.map((a) => (a.text === null ? a.raw : shellWord(a.text))).join(' ') : '';
    sink.shell(args === '' ? body : `${body} ${args}`, scope, `${call.name} script "${name}" (package.json)`, false, true);
  });
  return found;
}

function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * `npm pkg set|delete|fix`, `npm set-script`: the package manager edits package.json itself. The
 * write names the keys it changes, so a change to another script or a dependency can be told
 * from one to the settings frozen with the tests.
 */
function packageEdit(call: Call, sink: Sink, prefix: Arg | null, sub: string, rest: readonly Arg[]): void {
  const ops = rest.filter((a) => a.text === null || !a.text.startsWith('-'));
  let keys: string[] | null;
  if (sub === 'set-script') keys = ops[0]?.text == null ? null : [`scripts.${ops[0].text}`];
  else {
    const verb = ops[0]?.text;
    if (verb === 'get' || verb === undefined) return;
    const named = ops.slice(1).map((a) => (a.text === null ? null : verb === 'set' ? (a.text.split('=')[0] ?? null) : a.text));
    keys = (verb === 'set' || verb === 'delete') && named.every((k): k is string => k !== null && k !== '') ? named : null;
  }
  let target: Arg;
  if (prefix !== null) target = prefix.text === null ? { ...prefix, text: null } : { text: `${prefix.text.replace(/\/+$/, '')}/package.json`, glob: false, raw: prefix.raw };
  else {
    const pkg = packageDir(call.scope, sink);
    target = { text: pkg === null ? 'package.json' : `${pkg === '/' ? '' : pkg}/package.json`, glob: false, raw: 'package.json' };
  }
  sink.write(call.scope, target, `${call.name} ${sub}`, { pkgKeys: keys });
}

/** The directory of the nearest package.json, where the package manager edits it. */
function packageDir(scope: Scope, sink: Sink): string | null {
  const cwd = scope.cwds.length === 1 ? scope.cwds[0] : null;
  if (cwd == null) return null;
  for (let dir = cwd, i = 0; i < 12; i++) {
    if (sink.read(scope, `${dir === '/' ? '' : dir}/package.json`) !== null) return dir;
    if (dir === '/') break;
    dir = dir.slice(0, dir.lastIndexOf('/')) || '/';
  }
  return null;
}

/** Packages that run or judge tests: installing, linking or rebuilding one changes the runner's installation. */
const RUNNER_PACKAGE = /^(vitest|jest|mocha|chai|expect|should|power-assert|jest-[a-z-]+|babel-jest|ts-jest|@vitest\/.+|@jest\/.+|@swc\/jest|tsx|ts-node|uvu|ava|tap|c8|nyc)(@.*)?$/;

/** A spec that names a folder, a tarball, a link or a URL rather than a package from the registry. */
function pathSpec(spec: string): boolean {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('~')) return true;
  if (/^(file|link|portal|git\+[a-z]+|git|https?):/.test(spec) || spec.endsWith('.tgz') || spec.endsWith('.tar.gz') || spec.endsWith('.tar')) return true;
  // `name@file:…`, `name@../dir`; `owner/repo` (a GitHub shorthand) but not `@scope/name`
  const at = spec.indexOf('@', 1);
  if (at > 0 && pathSpec(spec.slice(at + 1))) return true;
  return !spec.startsWith('@') && spec.includes('/');
}

/**
 * A local folder installed by path (`./pkgs/util`, `file:../lib`) whose package.json names a
 * package that does not run or judge tests: ordinary work, like a registry install. A tarball, a
 * URL, a git spec or a folder whose name cannot be read stays a write to the runner's installation.
 */
function ordinaryFolder(scope: Scope, sink: Sink, spec: string): boolean {
  const folder = spec.startsWith('file:') ? spec.slice('file:'.length) : spec;
  if (!(folder.startsWith('.') || folder.startsWith('/')) || folder.endsWith('.tgz') || folder.endsWith('.tar.gz') || folder.endsWith('.tar')) return false;
  const got = sink.read(scope, `${folder.endsWith('/') ? folder.slice(0, -1) : folder}/package.json`);
  if (got === null) return false;
  try {
    const name = (JSON.parse(got.text) as { name?: unknown }).name;
    return typeof name === 'string' && name !== '' && !RUNNER_PACKAGE.test(name);
  } catch {
    return false;
  }
}

/**
 * `npm install <folder|tarball|runner>`, `npm link`, `npm rebuild`: the package manager rewrites
 * node_modules where the test runner and its assertions live. The write is reported on
 * node_modules/.package-lock.json (npm's own record of the tree), so the phase rule for installed
 * dependencies judges it. Installing an ordinary package from the registry is not reported.
 */
function runnerInstall(call: Call, sink: Sink, sub: string, rest: readonly Arg[]): void {
  const canonical = ALIASES[sub] ?? sub;
  const specs = rest.filter((a) => a.text === null || !a.text.startsWith('-'));
  let what: string | null = null;
  if (canonical === 'link' || sub === 'ln' || canonical === 'rebuild' || sub === 'rb') what = `${call.name} ${sub}`;
  else if (canonical === 'install' || sub === 'update' || sub === 'up' || sub === 'upgrade') {
    const hit = specs.find((a) => a.text === null || RUNNER_PACKAGE.test(a.text) || (pathSpec(a.text) && !ordinaryFolder(call.scope, sink, a.text)));
    if (hit) what = `${call.name} ${sub} ${hit.text ?? hit.raw}`;
  }
  if (what === null) return;
  const dir = packageDir(call.scope, sink);
  const text = dir === null ? 'node_modules/.package-lock.json' : `${dir === '/' ? '' : dir}/node_modules/.package-lock.json`;
  sink.write(call.scope, { text, glob: false, raw: 'node_modules' }, what);
}

export const npmLike: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['--prefix', '-C', '--dir', '-w', '--workspace', '--filter', '--cwd'], { stopAtOperand: true });
  const [sub, ...rest] = argv.operands;
  const s = sub?.text;
  if (s === 'exec' || s === 'x' || s === 'dlx') return wrapper(['-p', '--package', '-c', '--call'])({ ...call, args: rest }, sink);
  snapshotUpdate(call, sink);
  if (s == null) return null;
  const dd = rest.findIndex((a) => a.text === '--');
  const extra = dd >= 0 ? rest.slice(dd + 1) : call.name === 'npm' ? [] : rest.slice(s === 'run' || s === 'run-script' ? 1 : 0);
  const canonical = ALIASES[s] ?? s;
  runnerInstall(call, sink, s, rest);
  if ((call.name === 'npm' || call.name === 'pnpm') && (s === 'pkg' || s === 'set-script')) {
    packageEdit(call, sink, argv.values.get('--prefix') ?? argv.values.get('-C') ?? argv.values.get('--dir') ?? null, s, rest);
    return null;
  }
  if (s === 'run' || s === 'run-script' || s === 'rum' || s === 'urn') {
    const name = rest[0]?.text;
    if (name === null) sink.unknown(`${call.name} run runs a script whose name is not static`);
    else if (name !== undefined) runScripts(call, sink, [`pre${name}`, name, `post${name}`], extra);
    return null;
  }
  if (LIFECYCLE[canonical]) {
    runScripts(call, sink, LIFECYCLE[canonical], extra);
    return null;
  }
  // `pnpm build`, `yarn build`, `bun build`: a package.json script of that name, else a binary.
  if (call.name !== 'npm' && !s.startsWith('-')) {
    if (runScripts(call, sink, [`pre${s}`, s, `post${s}`], rest)) return null;
    if (call.name === 'yarn' && !YARN_BUILTINS.has(s)) return sink.run({ ...call, name: s, args: rest });
  }
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
    sink.unmodelled(name.raw, `is a command name computed when the command runs (${call.name} runs it)`);
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

/**
 * `make [target…]`: the recipes of a Makefile that can be read are shell code, one shell per line,
 * run from the Makefile's directory. `make -f -` reads the Makefile from stdin. A Makefile that
 * cannot be read (or a target it does not define) is an unknown runner: it passes.
 */
export const make: Handler = (call, sink) => {
  const argv = parseArgv(call.args, ['-f', '--file', '--makefile', '-C', '--directory', '-I', '--include-dir', '-j', '--jobs', '-l', '-o', '-W', '--what-if', '--eval', '-E']);
  if (has(argv, '-n', '--just-print', '--dry-run', '--recon', '-q', '--question', '-p', '--print-data-base', '-v', '--version', '-h', '--help')) return null;
  let scope = call.scope;
  for (const d of argv.all.get('-C') ?? argv.all.get('--directory') ?? []) scope = cdScope({ ...call, scope }, d);
  for (const e of [...(argv.all.get('--eval') ?? []), ...(argv.all.get('-E') ?? [])]) {
    if (e.text === null || /\$\(shell|\$\(file|!=/.test(e.text)) sink.unknown('make --eval adds rules that the gate cannot follow');
  }
  const files = argv.all.get('-f') ?? argv.all.get('--file') ?? argv.all.get('--makefile') ?? [];
  const targets = argv.operands.filter((o) => !(o.text ?? '').includes('='));
  if (targets.some((t) => t.text === null)) {
    sink.unknown(`${call.name} builds a target that is not statically known`);
    return null;
  }
  let text: string | null = null;
  const cwd = scope.cwds.length === 1 ? scope.cwds[0] : null;
  if (files.some((f) => f.text === '-' || f.text === '/dev/stdin')) {
    text = call.stdin.kind === 'text' ? call.stdin.text : null;
    if (text === null) {
      sink.unknown(`${call.name} -f - reads a Makefile from its input, which is not statically known`);
      return null;
    }
  } else {
    const names = files.length > 0 ? files.map((f) => f.text) : ['GNUmakefile', 'makefile', 'Makefile'];
    for (const n of names) {
      if (n === null || cwd == null) break;
      const got = sink.read(scope, isAbsolute(n) ? n : `${cwd}/${n}`);
      if (got !== null) {
        text = got.text;
        break;
      }
    }
  }
  if (text === null) return null;
  const recipes = makeRecipes(text, targets.map((t) => t.text as string));
  if (recipes === null) {
    sink.unmodelled([call.name, ...targets.map((t) => t.text as string)].join(' '), 'builds a target whose recipe the analysis cannot compute (an include, a conditional or a pattern rule in the Makefile)');
    return null;
  }
  // A Makefile from the command's own input is the command's code; one on disk is followed.
  const fromInput = files.some((f) => f.text === '-' || f.text === '/dev/stdin');
  for (const line of recipes) sink.shell(line, scope, `${call.name} recipe`, false, !fromInput);
  return null;
};
