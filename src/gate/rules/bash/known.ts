/**
 * Default-deny without the OS wall (ADR 010): the programs the analysis knows, and for each one
 * that can run other code, the options and subcommands that do. A command passes silently only
 * when every program it starts is here (or is a shell builtin, or has a handler in the command
 * tables) and none of the listed options is used. The tables are data, generalised by class:
 * one row per program family, never one row per attack.
 */
import type { Scope } from './scope.js';
import type { Call } from './sink.js';
import type { AnalyzeContext } from './types.js';

/** How a known program can run code the analysis does not see. */
interface OptionModel {
  /**
   * Options that run a command or load code: exact spellings; long ones also match `--opt=…`,
   * two-letter short ones also with the value attached (`-Igzip`).
   */
  runs?: readonly string[];
  /** Arguments starting with one of these run code (`vim +'!cmd'`). */
  prefixes?: readonly string[];
  /** Subcommands (the first operand) that run code the analysis does not see: `true`, or the options that do. */
  subs?: Readonly<Record<string, true | readonly string[]>>;
}

const NONE: OptionModel = {};

/**
 * Programs that read, print, compute or write only what their arguments name (the writers among
 * them are modelled in writers.ts and tables.ts): coreutils, text tools, archivers, network
 * clients, the everyday developer toolchains. Grouped by family.
 */
const PLAIN = [
  // coreutils and friends
  'ls', 'cat', 'head', 'tail', 'wc', 'sort', 'uniq', 'cut', 'paste', 'join', 'tr', 'nl', 'fold', 'fmt', 'pr', 'expand', 'unexpand',
  'tac', 'rev', 'shuf', 'comm', 'diff', 'diff3', 'sdiff', 'cmp', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'b2sum', 'cksum', 'sum',
  'base32', 'base64', 'basenc', 'od', 'hexdump', 'strings', 'file', 'stat', 'du', 'df', 'pwd', 'realpath', 'readlink', 'dirname', 'basename',
  'mkdir', 'mktemp', 'true', 'false', 'yes', 'seq', 'date', 'sleep', 'uname', 'hostname', 'whoami', 'id', 'groups', 'tty', 'nproc',
  'printenv', 'which', 'whereis', 'type', 'tput', 'clear', 'test', '[', 'expr', 'factor', 'numfmt', 'tsort', 'ptx', 'csplit', 'column',
  'look', 'uptime', 'free', 'ps', 'pgrep', 'pidof', 'lsof', 'who', 'w', 'last', 'locale', 'getconf', 'arch', 'env', 'logname', 'users',
  'kill', 'pkill', 'killall', 'tree', 'grep', 'egrep', 'fgrep', 'zgrep', 'zcat', 'bzcat', 'xzcat', 'zless', 'less', 'more', 'most',
  'colordiff', 'wdiff', 'jq', 'gojq', 'jaq', 'yq', 'xq', 'tomlq', 'xmllint', 'xmlstarlet', 'csvlook', 'mlr', 'dasel', 'fx', 'gron',
  'bc', 'dc', 'cal', 'iconv', 'dos2unix', 'unix2dos', 'mac2unix', 'sponge', 'pv', 'cygpath', 'lsb_release', 'ulimit', 'getent',
  'tput', 'stty', 'sync', 'chattr', 'lsattr', 'setfacl', 'getfacl', 'ldd', 'nm', 'objdump', 'readelf', 'size', 'strip',
  'file', 'bat', 'batcat', 'eza', 'exa', 'lsd', 'dust', 'duf', 'tokei', 'cloc', 'scc', 'hyperfine', 'fzf', 'delta', 'difft', 'icdiff',
  'ag', 'ack', 'rg', 'fd', 'fdfind', 'locate', 'plocate', 'ctags', 'shellcheck', 'shfmt', 'hadolint', 'actionlint', 'yamllint',
  'jsonlint', 'codespell', 'typos', 'vale', 'editorconfig-checker', 'ls-lint', 'taplo', 'tldr', 'man', 'info', 'help', 'apropos',
  'ping', 'nslookup', 'dig', 'host', 'ss', 'netstat', 'ip', 'ifconfig', 'nc', 'ncat', 'curl', 'wget', 'http', 'https', 'xh', 'grpcurl',
  'openssl', 'ssh-keygen', 'gpg', 'cp', 'mv', 'rm', 'rmdir', 'ln', 'link', 'unlink', 'touch', 'truncate', 'chmod', 'chown', 'chgrp',
  'install', 'dd', 'tee', 'sed', 'gsed', 'awk', 'gawk', 'mawk', 'nawk', 'patch', 'shred', 'rename', 'mkfifo', 'split', 'xxd',
  // shells: the code they run is analysed like the command's own
  'bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'busybox',
  // archives and compressors
  'tar', 'gtar', 'bsdtar', 'zip', 'unzip', 'gzip', 'gunzip', 'bzip2', 'bunzip2', 'xz', 'unxz', 'zstd', 'unzstd', 'lz4', '7z', '7za',
  'brotli', 'pigz', 'rsync', 'sqlite3',
  // version control
  'git', 'gh', 'git-lfs', 'tig', 'hub', 'glab',
  // JavaScript and TypeScript
  'node', 'nodejs', 'npm', 'npx', 'pnpm', 'pnpx', 'yarn', 'bun', 'bunx', 'deno', 'corepack', 'nvm', 'fnm', 'volta', 'tsc', 'tsx',
  'ts-node', 'vitest', 'jest', 'mocha', 'ava', 'tap', 'c8', 'nyc', 'playwright', 'cypress', 'eslint', 'prettier', 'biome', 'oxlint',
  'standard', 'xo', 'stylelint', 'markdownlint', 'markdownlint-cli2', 'dprint', 'vite', 'webpack', 'rollup', 'esbuild', 'swc',
  'babel', 'parcel', 'tsup', 'unbuild', 'turbo', 'nx', 'lerna', 'next', 'nuxt', 'astro', 'svelte-kit', 'svelte-check', 'vue-tsc',
  'ng', 'react-scripts', 'storybook', 'changeset', 'semantic-release', 'rimraf', 'mkdirp', 'cross-env', 'concurrently', 'nodemon',
  'ts-jest', 'knip', 'depcheck', 'madge', 'size-limit', 'publint', 'attw', 'typedoc', 'api-extractor', 'tsd', 'wrangler', 'serve',
  'http-server', 'json-server', 'degit', 'create-vite', 'prisma', 'drizzle-kit', 'typeorm', 'knex', 'sequelize', 'husky', 'lint-staged',
  // Python
  'python', 'python3', 'pip', 'pip3', 'pipx', 'uv', 'uvx', 'poetry', 'pipenv', 'pdm', 'hatch', 'rye', 'conda', 'mamba', 'pyenv',
  'virtualenv', 'pytest', 'py.test', 'tox', 'nox', 'coverage', 'mypy', 'pyright', 'basedpyright', 'pyre', 'ruff', 'black', 'isort',
  'flake8', 'pylint', 'pyflakes', 'pycodestyle', 'pydocstyle', 'bandit', 'autopep8', 'yapf', 'pre-commit', 'twine', 'build',
  'sphinx-build', 'mkdocs', 'django-admin', 'alembic', 'flask', 'uvicorn', 'gunicorn', 'hypercorn', 'ipython', 'jupyter', 'pyinstrument',
  'py-spy', 'maturin', 'pip-compile', 'pip-sync', 'deptry', 'vulture', 'radon', 'interrogate', 'pyupgrade', 'docformatter',
  // Go, Rust, C and the JVM
  'go', 'gofmt', 'goimports', 'golangci-lint', 'staticcheck', 'gopls', 'govulncheck', 'gotestsum', 'mockgen', 'stringer',
  'cargo', 'rustc', 'rustup', 'rustfmt', 'rust-analyzer', 'cargo-nextest', 'clippy-driver', 'wasm-pack', 'trunk',
  'make', 'gmake', 'cmake', 'ctest', 'ninja', 'meson', 'gcc', 'g++', 'cc', 'c++', 'clang', 'clang++', 'clang-format', 'clang-tidy',
  'ld', 'ar', 'pkg-config', 'autoconf', 'automake', 'autoreconf', 'libtool', 'bazel', 'bazelisk', 'buck2', 'pants',
  'java', 'javac', 'jar', 'mvn', 'gradle', 'kotlin', 'kotlinc', 'sbt', 'scala', 'dotnet', 'swift', 'swiftc', 'xcodebuild', 'xcrun',
  // Ruby, PHP, others
  'ruby', 'gem', 'bundle', 'bundler', 'rake', 'rspec', 'rubocop', 'irb', 'php', 'composer', 'phpunit', 'php-cs-fixer', 'phpstan',
  'perl', 'prove', 'cpanm', 'elixir', 'mix', 'erl', 'rebar3', 'ghc', 'cabal', 'stack', 'zig', 'nim', 'dart', 'flutter',
  // editors used without a terminal, pagers, terminals of the session itself
  'code', 'cursor', 'subl', 'claude',
];

/** Programs that run other code by design, with the options or subcommands that do. */
const MODELS: Record<string, OptionModel> = {
  tar: { runs: ['-I', '--use-compress-program', '--checkpoint-action', '--to-command', '--info-script', '--new-volume-script', '-F', '--rsh-command', '--rmt-command'] },
  zip: { runs: ['-TT', '--unzip-command'] },
  sort: { runs: ['--compress-program'] },
  split: { runs: ['--filter'] },
  env: { runs: ['-S', '--split-string'] },
  rg: { runs: ['--pre'] },
  rsync: { runs: ['-e', '--rsh', '--rsync-path'] },
  vi: { runs: ['-S', '-s', '-y', '--remote-send', '--remote-expr', '--servername'] },
  less: { prefixes: ['+'] },
  more: { prefixes: ['+'] },
  make: { runs: ['--eval', '-E'] },
  gcc: { runs: ['-wrapper', '-fplugin', '-B', '-specs', '--specs'] },
  cmake: { runs: ['-E', '-P', '-C'] },
  go: { runs: ['-exec', '-toolexec', '-vettool', '-overlay'], subs: { run: true, generate: true, env: ['-w'] } },
  cargo: { runs: ['--config'], subs: { run: true } },
  npm: { runs: ['--script-shell', '--node-options'], subs: { explore: true, edit: true } },
  pnpm: { runs: ['--script-shell'], subs: { edit: true } },
  yarn: { subs: { exec: true } },
  git: {
    runs: ['--exec-path', '--upload-pack', '--receive-pack', '--exec', '-x', '--extcmd', '--config-env', '--template'],
    subs: { difftool: true, mergetool: true, 'filter-branch': true, 'filter-repo': true, instaweb: true, 'web--browse': true, 'send-email': true, 'credential': true, 'daemon': true },
  },
  strace: {},
  ltrace: {},
  ed: {},
  sqlite3: {},
  xargs: {},
  find: {},
};
for (const alias of ['vim', 'nvim', 'ex', 'view', 'vimdiff', 'rvim']) MODELS[alias] = MODELS.vi as OptionModel;
for (const alias of ['gtar', 'bsdtar']) MODELS[alias] = MODELS.tar as OptionModel;
for (const alias of ['g++', 'cc', 'c++', 'clang', 'clang++']) MODELS[alias] = MODELS.gcc as OptionModel;
MODELS.gmake = MODELS.make as OptionModel;

/**
 * Keys of `git -c key=value` that change nothing a later program runs (names, colours, output).
 * Any other key (`core.*`, `alias.*`, filters, helpers, paths) may run a command: unmodelled.
 */
const GIT_SAFE_CONFIG = ['user.', 'color.', 'advice.', 'init.defaultbranch', 'commit.gpgsign', 'tag.gpgsign', 'log.', 'pull.rebase', 'pull.ff', 'merge.conflictstyle', 'column.', 'format.pretty', 'core.quotepath', 'core.autocrlf', 'core.pager=cat', 'core.pager=less', 'diff.noprefix', 'status.', 'push.autosetupremote', 'push.default', 'rebase.autostash', 'fetch.prune', 'safe.directory', 'i18n.', 'gc.auto'];

/** Shell builtins and keywords: they run no program. `hash -p` and `disown` are handled apart. */
const BUILTINS = [
  ':', '.', 'source', 'alias', 'unalias', 'bg', 'fg', 'jobs', 'wait', 'bind', 'break', 'continue', 'builtin', 'caller', 'cd', 'command',
  'compgen', 'complete', 'compopt', 'declare', 'typeset', 'dirs', 'echo', 'enable', 'eval', 'exec', 'exit', 'export', 'fc', 'getopts',
  'hash', 'history', 'let', 'local', 'logout', 'mapfile', 'readarray', 'popd', 'printf', 'pushd', 'read', 'readonly', 'return', 'set',
  'shift', 'shopt', 'suspend', 'times', 'trap', 'umask', 'unset', 'time', 'true', 'false', 'test', '[', 'ulimit', 'type', 'kill',
];

/** Programs whose job is to start something that outlives the call, or at a later time. */
/** Listing or removing scheduled jobs starts nothing: `crontab -l`, `at -l`. */
export function onlyLists(name: string, call: Call): boolean {
  if (name !== 'crontab' && name !== 'at' && name !== 'batch') return false;
  return call.args.some((a) => a.text === '-l' || a.text === '-r' || a.text === '-d' || a.text === '-c');
}

export const BACKGROUND = new Set(['nohup', 'setsid', 'disown', 'at', 'batch', 'systemd-run', 'crontab', 'daemonize', 'start-stop-daemon', 'tmux', 'screen', 'dtach', 'abduco', 'pm2', 'forever']);

export const BACKGROUND_BUILTINS = ['bg'];

const KNOWN = new Set<string>([...PLAIN, ...BUILTINS, ...Object.keys(MODELS)]);

/**
 * Wrappers the analysis looks through to the program they run (that program is judged in turn):
 * their own options change nothing a later program runs.
 */
const LOOK_THROUGH = new Set(['command', 'builtin', 'exec', 'nice', 'timeout', 'gtimeout', 'stdbuf', 'time', 'ionice', 'chrt', 'taskset', 'xvfb-run', 'unbuffer', 'chronic', 'ts', 'retry', 'busybox', 'flock', 'npx', 'pnpx', 'bunx', 'sudo', 'doas', 'watch', 'parallel', 'xargs', 'find', 'prlimit', 'numactl', 'faketime', 'catchsegv', 'valgrind', 'dbus-run-session', 'caffeinate', 'cgexec', 'entr']);

export function isKnownProgram(name: string): boolean {
  return KNOWN.has(name) || LOOK_THROUGH.has(name);
}

/**
 * What a known program's arguments make it run that the analysis does not see: the offending
 * option or subcommand, or null when none.
 */
export function runningOption(name: string, call: Call): string | null {
  if (name === 'git') return gitOption(call);
  const content = contentOption(name, call);
  if (content !== null) return content;
  const model = MODELS[name] ?? NONE;
  const args = call.args;
  let firstOperand: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const t = args[i]?.text;
    if (t == null) continue;
    if (t === '--') break;
    if (model.prefixes !== undefined && model.prefixes.some((p) => t.startsWith(p))) return t;
    if (t.charCodeAt(0) !== 45 /* - */) {
      if (firstOperand === null) {
        firstOperand = t;
        const sub = model.subs?.[t];
        if (sub === true) return `${name} ${t}`;
      }
      continue;
    }
    const hit = matchOption(t, model.runs);
    if (hit !== null) return hit;
    const sub = firstOperand === null ? undefined : model.subs?.[firstOperand];
    if (sub !== undefined && sub !== true) {
      const subHit = matchOption(t, sub);
      if (subHit !== null) return `${firstOperand} ${subHit}`;
    }
  }
  return null;
}

function matchOption(t: string, list: readonly string[] | undefined): string | null {
  if (list === undefined) return null;
  for (const o of list) {
    if (t === o) return o;
    if (o.startsWith('--') || (o.length > 2 && !o.startsWith('--'))) {
      if (t.startsWith(o + '=')) return o;
      // gcc spells -fplugin=… and -B<dir> attached; single-dash long options with `=`.
      if (o.length > 2 && t.startsWith(o) && (o === '-fplugin' || o === '-specs')) return o;
    } else if (t.length > 2 && t.startsWith(o) && t.charCodeAt(1) !== 45) return o; // `-Igzip`, `-Bdir`
  }
  return null;
}

/** git: global options and `-c` keys that run commands, URLs with a command transport, subcommands that run tools. */
function gitOption(call: Call): string | null {
  const model = MODELS.git as OptionModel;
  const args = call.args;
  let sub: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const t = args[i]?.text;
    if (t == null) continue;
    if (t.startsWith('ext::') || t.startsWith('fd::')) return `the ${t.slice(0, t.indexOf(':'))}:: transport`;
    if (sub === null && (t === '-c' || t.startsWith('-c'))) {
      const kv = t === '-c' ? (args[++i]?.text ?? null) : t.slice(2);
      if (kv === null) return 'git -c with a value that is not static';
      const lower = kv.toLowerCase();
      if (!GIT_SAFE_CONFIG.some((k) => (k.includes('=') ? lower === k || lower === k.slice(0, -1) : lower.startsWith(k)))) return `git -c ${kv.slice(0, 60)}`;
      continue;
    }
    if (t.charCodeAt(0) !== 45) {
      if (sub === null) {
        sub = t;
        if (model.subs?.[t] === true) return `git ${t}`;
        continue;
      }
      // `git bisect run cmd`, `git submodule foreach cmd`: they run a command.
      if ((sub === 'bisect' && t === 'run') || (sub === 'submodule' && t === 'foreach')) return `git ${sub} ${t}`;
      continue;
    }
    // `-u` is --upload-pack for fetch/clone/pull/ls-remote/archive; `-x`/--exec for rebase too.
    if (t === '-u' && sub !== null && ['fetch', 'clone', 'pull', 'ls-remote', 'archive'].includes(sub)) return `git ${sub} -u`;
    const hit = matchOption(t, model.runs);
    if (hit !== null && !(hit === '-x' && sub !== 'difftool' && sub !== 'rebase')) return sub === null ? `git ${hit}` : `git ${sub} ${hit}`;
  }
  return null;
}

/**
 * `PATH=…`: the folders searched for a command name. A folder the project or this command can
 * fill (a relative one, one inside the project other than its package managers' tool folders)
 * lets a file stand in for a known program. Returns the first such folder, or null.
 */
export function pathShadow(raw: string, scope: Scope, ctx: AnalyzeContext): string | null {
  const text = raw.length >= 2 && (raw[0] === '"' || raw[0] === "'") && raw[raw.length - 1] === raw[0] ? raw.slice(1, -1) : raw;
  for (const entry of splitPath(text)) {
    if (entry === '$PATH' || entry === '${PATH}') continue;
    // A virtualenv's `deactivate` puts back the PATH it saved, when it saved one.
    if (SAVED_PATH.includes(entry) && (scope.vars.get('_OLD_VIRTUAL_PATH') ?? null) === null) continue;
    for (const dir of expandEntry(entry, scope, ctx)) {
      if (dir === null) return entry;
      if (!dir.startsWith('/')) return entry === '' ? '(the working directory)' : entry;
      const clean = dir.endsWith('/') && dir.length > 1 ? dir.slice(0, -1) : dir;
      if (clean === ctx.root || clean.startsWith(ctx.root + '/')) {
        if (!PROJECT_TOOL_DIRS.includes(clean.slice(ctx.root.length + 1))) return entry;
      } else if (clean.endsWith('/bin') && ctx.read?.(clean.slice(0, -4) + '/pyvenv.cfg') != null) {
        // A virtualenv's bin folder wherever it lives (poetry, pipenv and virtualenvwrapper keep them under the home).
      } else if (!SYSTEM_DIRS.some((s) => clean === s || clean.startsWith(s + '/')) && !HOME_TOOL_DIRS.some((h) => clean === ctx.home + h || clean.startsWith(ctx.home + h + '/'))) return entry;
    }
  }
  return null;
}

const PROJECT_TOOL_DIRS = ['node_modules/.bin', '.venv/bin', 'venv/bin'];
/** Folders package managers and toolchain installers own: PATH may name them (`export PATH="$HOME/.cargo/bin:$PATH"`). */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/opt', '/snap', '/nix', '/home/linuxbrew/.linuxbrew'];
const HOME_TOOL_DIRS = ['/.cargo/bin', '/go/bin', '/.local/bin', '/.nvm', '/.volta/bin', '/.pyenv', '/.rustup', '/.bun/bin', '/.deno/bin', '/.local/share/pnpm', '/.yarn/bin', '/.npm-global/bin', '/.poetry/bin', '/.sdkman'];
const SAVED_PATH = ['${_OLD_VIRTUAL_PATH:-}', '${_OLD_VIRTUAL_PATH}', '$_OLD_VIRTUAL_PATH'];

/** PATH's entries, with `:` inside `${…}` kept. */
function splitPath(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '{' && text[i - 1] === '$') depth++;
    else if (text[i] === '}' && depth > 0) depth--;
    else if (text[i] === ':' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** An entry's possible values: `$VAR/rest` and `${VAR}/rest` from the variables the analysis knows. */
function expandEntry(entry: string, scope: Scope, ctx: AnalyzeContext): (string | null)[] {
  if (entry.startsWith('~/')) return [ctx.home + entry.slice(1)];
  if (!entry.includes('$') && !entry.includes('`')) return [entry];
  if (entry.charCodeAt(0) !== 36 /* $ */) return [null];
  const braced = entry[1] === '{';
  let end = braced ? entry.indexOf('}') : 1;
  if (!braced) while (end < entry.length && /\w/.test(entry[end] as string)) end++;
  if (end < 0) return [null];
  const name = entry.slice(braced ? 2 : 1, end);
  const rest = entry.slice(braced ? end + 1 : end);
  if (rest.includes('$') || rest.includes('`')) return [null];
  const values = name === 'HOME' ? [ctx.home] : name === 'PWD' ? scope.cwds : (scope.vars.get(name) ?? (ctx.inherited?.[name] !== undefined ? [ctx.inherited[name]] : null));
  if (values === null || values === undefined || values.length === 0) return [null];
  return values.map((v) => (v === null ? null : v + rest));
}

/** Options whose value decides whether they run a command: `strace -o '|cmd'`, sqlite3's `.shell`, ed's `!`. */
function contentOption(name: string, call: Call): string | null {
  const args = call.args;
  if (name === 'strace' || name === 'ltrace') {
    for (let i = 0; i < args.length; i++) {
      const t = args[i]?.text ?? '';
      const v = t === '-o' || t === '--output' ? (args[i + 1]?.text ?? '|') : t.startsWith('-o') ? t.slice(2) : t.startsWith('--output=') ? t.slice(9) : null;
      if (v !== null && (v.startsWith('|') || v.startsWith('!'))) return `${t} ${v}`.slice(0, 60);
    }
    return null;
  }
  const stdin = call.stdin.kind === 'text' ? call.stdin.text : '';
  if (name === 'sqlite3') {
    for (const text of [...args.map((a) => a.text ?? ''), stdin ?? '']) {
      for (const cmd of ['.shell', '.system', '.read |', ".read '|", '.read "|', '.once |', '.output |', '.load', 'load_extension']) if (text.includes(cmd)) return cmd;
    }
    return null;
  }
  if (name === 'ed' && (stdin === null || stdin.includes('!'))) return 'ed !';
  if (VI.has(name)) return viOption(call);
  // `node --import 'data:text/javascript,…'`: a module whose code is the option's value.
  if ((name === 'node' || name === 'deno' || name === 'bun') && args.some((a) => a.text !== null && (a.text.startsWith('data:') || a.text.includes('=data:')))) return 'a data: URL module';
  if (name === 'make' || name === 'gmake') return makeOption(call);
  return null;
}

const VI = new Set(['vi', 'vim', 'nvim', 'ex', 'view', 'vimdiff', 'rvim']);

/**
 * Ex commands the analysis models (the editor handler reads `!cmd` and `:w file` in them): edits,
 * writes, settings and quitting. Anything else (`:call system()`, `:py`, `:source`, `:normal`,
 * `:execute`, `:let`, `:terminal`) can run code.
 */
const EX_MODELLED = new Set(['s', 'substitute', 'g', 'global', 'v', 'vglobal', 'd', 'delete', 'w', 'write', 'wq', 'x', 'xit', 'q', 'quit', 'qa', 'qall', 'wqa', 'wqall', 'xa', 'up', 'update', 'sav', 'saveas', 'set', 'se', 'setlocal', 'noh', 'e', 'edit', 'r', 'read', 'm', 'move', 't', 'co', 'copy', 'j', 'join', 'le', 'left', 'ri', 'right', 'ce', 'center', '>', '<', 'retab', 'ret', 'sort', 'sor', 'u', 'undo', 'red', 'redo', 'a', 'append', 'i', 'insert', 'c', 'change', 'p', 'print', 'nu', 'number', '=', 'bd', 'bn', 'bp', 'f', 'file', 'syntax', 'sy', 'filetype', 'echo', '']);

/** vim: `-u` a vimrc, `-es` reading commands from a pipe, ex commands outside the modelled set. */
function viOption(call: Call): string | null {
  const args = call.args;
  const commands: (string | null)[] = [];
  let fromStdin = false;
  for (let i = 0; i < args.length; i++) {
    const t = args[i]?.text ?? null;
    if (t === null) continue;
    if (t === '-c' || t === '--cmd') commands.push(args[++i]?.text ?? null);
    else if (t.startsWith('+')) commands.push(t.slice(1));
    else if (t === '-u' || t === '-U') {
      const v = args[++i]?.text ?? null;
      if (v !== 'NONE' && v !== 'NORC' && v !== 'DEFAULTS') return `${t} ${v ?? '…'}`;
    } else if (t === '-e' || t === '-E' || t === '-es' || t === '-Es' || (t.startsWith('-') && !t.startsWith('--') && t.includes('s') && t.includes('e'))) fromStdin = true;
  }
  if (fromStdin) {
    if (call.stdin.kind === 'text') for (const line of (call.stdin.text ?? '\u0000').split('\n')) commands.push(call.stdin.text === null ? null : line);
    else if (call.stdin.kind !== 'terminal') commands.push(null);
  }
  for (const c of commands) {
    if (c === null) return 'ex commands that are not statically known';
    for (const part of c.split('|')) {
      const word = exCommandName(part);
      if (word !== null && !EX_MODELLED.has(word)) return `the ex command ${part.trim().slice(0, 40)}`;
    }
  }
  return null;
}

/** The name of an ex command after its range (`:%s/a/b/` is `s`), or null for a `!` command (analysed as shell). */
function exCommandName(cmd: string): string | null {
  let i = 0;
  while (i < cmd.length && (cmd[i] === ' ' || cmd[i] === ':')) i++;
  while (i < cmd.length && '0123456789,.$%\';+-'.includes(cmd[i] as string)) i++;
  if (cmd[i] === '!') return null;
  let j = i;
  while (j < cmd.length && /[A-Za-z]/.test(cmd[j] as string)) j++;
  if (j === i) return cmd.slice(i, i + 1).trim();
  return cmd.slice(i, j);
}

/**
 * make: a variable set on its command line or earlier in the command can name the program a
 * recipe runs (`make PYTHON=tclsh test`, `export CC=…; make`); `SHELL=` replaces the recipe shell.
 */
function makeOption(call: Call): string | null {
  const values: [string, string | null][] = [];
  for (const a of call.args) {
    const t = a.text;
    if (t === null || t.startsWith('-')) continue;
    const eq = t.indexOf('=');
    if (eq > 0) values.push([t.slice(0, eq).replace(/[:?+]$/, ''), t.slice(eq + 1)]);
  }
  for (const [name, v] of call.scope.vars) values.push([name, v === null || v.length !== 1 ? null : (v[0] as string)]);
  for (const [name, v] of values) {
    if (name === 'SHELL' || name === 'MAKESHELL' || name === '.SHELLFLAGS') return `${name}=`;
    if (v === null) continue;
    const first = v.trim().split(' ')[0] ?? '';
    if (first === '' || first.startsWith('-')) continue;
    const base = first.includes('/') ? first.slice(first.lastIndexOf('/') + 1) : first;
    if (/^[A-Z_][A-Z0-9_]*$/.test(name) && (first.includes('/') || /^[a-z]/.test(first)) && !isKnownProgram(base) && !/[=.]/.test(first.slice(1))) return `${name}=${v.slice(0, 40)}`;
  }
  return null;
}
