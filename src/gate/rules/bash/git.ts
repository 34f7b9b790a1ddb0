/**
 * git: the subcommands that write the work tree, and those that move HEAD or bring in commits
 * (DESIGN §3: denied while a cycle is active).
 */
import { has, parseArgv } from './argv.js';
import { joinPath, isAbsolute, baseName, child } from './paths.js';
import type { Scope } from './scope.js';
import type { Call, Sink } from './sink.js';
import { patchInput } from './writers.js';
import { escapeGlob, type Arg, type Output } from './words.js';
import { safeKey, safeName } from '../../../tamper/rules/gitConfigDiff.js';

/** Configuration keys whose value is a command git runs (through a shell) or a place it loads code from. */
const COMMAND_KEYS = /^(?:core\.(?:fsmonitor|pager|editor|sshcommand|askpass|gitproxy)|sequence\.editor|diff\.external|diff\..+\.(?:textconv|command)|merge\..+\.driver|filter\..+\.(?:clean|smudge|process)|credential(?:\..+)?\.helper|gpg(?:\..+)?\.program|pager\..+|interactive\.difffilter|uploadpack\.packobjectshook|remote\..+\.(?:receivepack|uploadpack|vcs)|sendemail\..+cmd|mergetool\..+\.cmd|difftool\..+\.cmd|web\.browser|browser\..+\.cmd|man\..+\.cmd|alias\..+)$/i;
/** Keys that point git at files or directories of code or configuration it will load. */
const CODE_PATH_KEYS = /^(?:core\.hookspath|include\.path|includeif\..+\.path|core\.worktree|init\.templatedir|protocol\.ext\.allow)$/i;

/**
 * A configuration value git may run: `alias.x='!sh …'`, `core.pager`, `core.fsmonitor`, filters.
 * The value is analysed as the shell code it is; a hooks path or an include is code the gate cannot read.
 */
export function gitConfig(key: string, value: string | null, scope: Scope, sink: Sink): void {
  if (COMMAND_KEYS.test(key)) {
    if (/^alias\./i.test(key)) {
      if (value === null) sink.unknown(`the git alias ${key} is not statically known`);
      else if (value.startsWith('!')) sink.shell(value.slice(1), scope, `git ${key}`, false);
      return;
    }
    // `core.fsmonitor=true` and `credential.helper=store` name built-ins, not commands.
    if (value !== null && /^(?:true|false|store|cache|osxkeychain|manager(?:-core)?)$/i.test(value)) return;
    sink.shell(value === null ? null : value.replace(/^!/, ''), scope, `git ${key}`, false);
  } else if (CODE_PATH_KEYS.test(key)) {
    sink.unknown(`git ${key} makes git load hooks or configuration from a place the gate cannot follow`);
  }
}

const GLOBAL_VALUED = ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env', '--super-prefix'];

/** `git … --abort` style escapes leave the tree as it was before an operation: harmless. */
const ESCAPES = ['--abort', '--quit', '--skip', '--show-current-patch'];

export function gitCommand(call: Call, sink: Sink): Output {
  const scope = call.scope.fork();
  let i = 0;
  const args = call.args;
  // Global options up to the subcommand; `-C dir` changes where the subcommand runs.
  for (; i < args.length; i++) {
    const t = args[i]?.text;
    if (t === null || t === undefined || !t.startsWith('-')) break;
    const name = t.includes('=') ? t.slice(0, t.indexOf('=')) : t;
    if (GLOBAL_VALUED.includes(name) && !t.includes('=')) {
      const v = args[++i];
      // `git -c alias.x='!cmd' x`: a shell alias is shell code.
      if (name === '-c') {
        if (v?.text == null) sink.unknown('git -c sets a configuration that is not statically known');
        else {
          const eq = v.text.indexOf('=');
          gitConfig(eq < 0 ? v.text : v.text.slice(0, eq), eq < 0 ? 'true' : v.text.slice(eq + 1), scope, sink);
        }
      }
      if (name === '--config-env') sink.unknown('git --config-env sets a configuration from the environment, which is not statically known');
      if (name === '-C') scope.cwds = scope.cwds.map((c) => (v?.text == null ? null : isAbsolute(v.text) ? joinPath('/', v.text) : c === null ? null : joinPath(c, v.text)));
      if (name === '--work-tree' || name === '--git-dir') scope.cwds = v?.text != null && isAbsolute(v.text) ? [v.text] : [null];
    }
  }
  const sub = args[i];
  if (sub === undefined) return null;
  if (sub.text === null) {
    sink.mention(scope, `git ${sub.raw}: the subcommand is not static`, args.slice(i + 1).map((a) => a.text ?? a.raw));
    return null;
  }
  const rest = args.slice(i + 1);
  const argv = parseArgv(rest, ['-b', '-B', '-c', '-C', '--orphan', '-s', '--source', '-m', '-F', '-X', '--strategy', '--pathspec-from-file', '-o', '-u', '-U']);
  const text = call.text;
  const writeTree = (paths: Arg[], via: string) => {
    const targets = paths.length > 0 ? paths : [{ text: '.', glob: false, raw: '.' }];
    for (const p of targets) sink.write(scope, p, via, { tree: true });
  };
  if (has(argv, ...ESCAPES) && ['merge', 'rebase', 'cherry-pick', 'revert', 'am'].includes(sub.text)) return null;
  switch (sub.text) {
    case 'checkout': {
      if (has(argv, '-b', '-B', '--orphan', '--detach')) {
        sink.headMove(text, scope);
        return null;
      }
      const dd = rest.findIndex((a) => a.text === '--');
      if (dd >= 0) {
        writeTree(rest.slice(dd + 1), 'git checkout');
        return null;
      }
      if (argv.operands.length === 0) return null;
      // `git checkout x`: a branch switch, unless every operand is an existing path (then a file restore).
      sink.headMove(text, scope, argv.operands);
      writeTree(argv.operands.filter((a) => a.text !== null), 'git checkout');
      return null;
    }
    case 'switch':
      if (!has(argv, '--help', '-h')) sink.headMove(text, scope);
      return null;
    case 'restore': {
      const worktree = has(argv, '--worktree', '-W') || !has(argv, '--staged', '-S');
      if (worktree) writeTree(argv.operands, 'git restore');
      return null;
    }
    case 'reset': {
      const hard = has(argv, '--hard', '--merge', '--keep');
      const dd = rest.findIndex((a) => a.text === '--');
      const ops = dd >= 0 ? argv.operands.slice(0, argv.operands.length - (rest.length - dd - 1)) : argv.operands;
      const commit = ops[0];
      if (commit !== undefined && commit.text !== 'HEAD' && commit.text !== '@') {
        // `git reset <commit>` moves HEAD; `git reset <path>` only unstages.
        if (dd >= 0 || hard || has(argv, '--soft', '--mixed')) sink.headMove(text, scope);
        else sink.headMove(text, scope, [commit]);
      }
      if (hard) writeTree([], 'git reset --hard');
      return null;
    }
    case 'stash': {
      const dd = rest.findIndex((a) => a.text === '--');
      const first = argv.operands[0]?.text;
      const verb = dd >= 0 && (first === undefined || argv.operands.length === rest.length - dd - 1) ? 'push' : (first ?? 'push');
      if (verb === 'pop' || verb === 'apply') {
        // A stash entry holds files of this branch: judged like writes of the files it changes.
        const ref = argv.operands[1];
        const m = ref === undefined ? ['', '0'] : ref.text === null ? null : /^(?:stash@\{(\d+)\}|(\d+))$/.exec(ref.text);
        const n = m === null ? null : Number(m[1] ?? m[2]);
        if (n === null || argv.operands.length > 2) sink.headMove(text, scope);
        else sink.write(scope, { text: '.', glob: false, raw: text }, `git stash ${verb}`, { stash: { from: Math.max(0, n - scope.stash.pushes), to: n } });
      } else if (verb === 'branch') sink.headMove(text, scope);
      else if (verb === 'push' || verb === 'save' || verb === '-u' || argv.operands.length === 0 || dd >= 0) {
        // `git stash push -- <pathspec>` stashes (and resets) only those paths.
        const pathspec = dd >= 0 ? rest.slice(dd + 1) : verb === 'push' ? argv.operands.slice(1) : [];
        writeTree(pathspec, 'git stash');
        scope.stash.pushes++;
      }
      return null;
    }
    case 'sparse-checkout':
      // Changing the sparse set removes (or brings back) files all over the work tree.
      if (!['list', 'check-rules'].includes(argv.operands[0]?.text ?? 'list')) writeTree([], `git sparse-checkout ${argv.operands[0]?.text ?? ''}`.trim());
      return null;
    case 'config': {
      configCommand(rest, scope, sink);
      return null;
    }
    case 'ls-files':
    case 'ls-tree':
    case 'diff':
      return listing(sub.text, argv, scope);
    case 'clean':
      if (!has(argv, '-n', '--dry-run')) writeTree(argv.operands, 'git clean');
      return null;
    case 'rm':
      // `--cached` leaves the file on disk but drops it from what the index (and the next commit) holds: a write to it.
      for (const p of argv.operands) sink.write(scope, p, has(argv, '--cached') ? 'git rm --cached (drops it from the index)' : 'git rm', has(argv, '--cached') ? { tree: true } : { tree: true, removes: true });
      return null;
    case 'update-index':
      // What the index holds for these paths (or, from stdin, for any path).
      if (has(argv, '--stdin', '--index-info', '--again', '-g', '--refresh', '--really-refresh') && argv.operands.length === 0) writeTree([], 'git update-index');
      else for (const p of argv.operands) sink.write(scope, p, 'git update-index', { tree: true });
      return null;
    case 'read-tree':
    case 'checkout-index': {
      // `--prefix=dir/` writes copies of the indexed files under dir; otherwise the index (or every file) is replaced.
      const prefix = rest.find((a) => a.text !== null && a.text.startsWith('--prefix='));
      if (prefix !== undefined) sink.write(scope, { ...prefix, text: (prefix.text as string).slice('--prefix='.length) || '.' }, `git ${sub.text} --prefix`, { tree: true });
      else if (rest.some((a) => a.text === null && a.raw.startsWith('--prefix'))) sink.unknown(`git ${sub.text} --prefix names a folder that is not statically known`);
      if (sub.text === 'read-tree' || has(argv, '-a', '--all', '--stdin') || argv.operands.length === 0) writeTree([], `git ${sub.text}`);
      else for (const p of argv.operands) sink.write(scope, p, `git ${sub.text}`, { tree: true });
      return null;
    }
    case 'submodule': {
      // `git submodule add <repo> <path>` clones into <path> (`./` clones this very repository, tests included).
      const [verb, ...more] = argv.operands;
      if (verb?.text === 'add') {
        const dest = more.length > 1 ? more[more.length - 1] : undefined;
        if (dest !== undefined) sink.write(scope, dest, 'git submodule add', { tree: true });
        else writeTree([], 'git submodule add');
      }
      return null;
    }
    case 'mv': {
      for (const p of argv.operands) sink.write(scope, p, 'git mv', { tree: true });
      const dest = argv.operands[argv.operands.length - 1];
      if (dest?.text != null) {
        for (const src of argv.operands.slice(0, -1)) {
          if (src.text !== null) sink.write(scope, { ...dest, text: child(dest.text, baseName(src.text)) }, 'git mv');
        }
      }
      return null;
    }
    case 'apply': {
      if (has(argv, '--check', '--stat', '--numstat', '--summary', '--cached')) return null;
      const p = parseArgv(rest, ['-p', '--directory', '--exclude', '--include', '-C', '--whitespace', '--build-fake-ancestor']);
      const strip = p.values.get('-p')?.text;
      if (strip !== undefined && (strip === null || !/^\d+$/.test(strip))) {
        sink.unknown('git apply strips a number of path components that is not statically known from the files its patch names');
        return null;
      }
      // Paths in a patch are relative to the top of the work tree (or to where git runs, for a patch outside a repository).
      const how = { strip: strip != null ? Number(strip) : 1, directory: p.values.get('--directory')?.text ?? null, root: sink.ctx.root };
      if (p.operands.length === 0) patchInput(call, sink, scope, null, 'git apply', how);
      for (const f of p.operands) patchInput(call, sink, scope, f.text === '-' ? null : f, 'git apply', how);
      return null;
    }
    case 'am':
    case 'merge':
    case 'rebase':
    case 'cherry-pick':
    case 'pull':
    case 'revert':
      sink.headMove(text, scope);
      return null;
    case 'worktree':
      if (argv.operands[0]?.text === 'add') sink.headMove(text, scope);
      return null;
    case 'bisect': {
      const verb = argv.operands[0]?.text;
      if (verb !== 'log' && verb !== 'view' && verb !== 'visualize' && verb !== 'help') sink.headMove(text, scope);
      return null;
    }
    case 'update-ref':
    case 'filter-branch':
    case 'filter-repo':
      sink.headMove(text, scope);
      return null;
    case 'subtree':
      if (['add', 'merge', 'pull'].includes(argv.operands[0]?.text ?? '')) sink.headMove(text, scope);
      return null;
    case 'symbolic-ref':
      if (argv.operands.length >= 2) sink.headMove(text, scope);
      return null;
    case 'branch':
      // Renaming the checked-out branch renames the state file the gate looks for: the cycle would vanish.
      if (has(argv, '-m', '-M', '--move')) sink.headMove(text, scope);
      return null;
    default:
      return null;
  }
}

/** GitHub's CLI switches branches too: `gh pr checkout 12`, `gh repo sync`. */
export function ghCommand(call: Call, sink: Sink): null {
  const [group, verb] = call.args.map((a) => a.text);
  if ((group === 'pr' && (verb === 'checkout' || verb === 'co')) || (group === 'repo' && verb === 'sync')) sink.headMove(call.text, call.scope);
  return null;
}

/**
 * `git config [--global|--local|--file f] key value`: a write of the configuration; code-bearing keys
 * are analysed. A repository-local write of a key ordinary git work sets (`user.email`,
 * `remote.<name>.url`, `branch.<name>.merge`: src/tamper/rules/gitConfigDiff.ts) is ordinary work;
 * any other key, the user's or the system's configuration, a named file and the editor stay writes
 * of the control set.
 */
function configCommand(rest: readonly Arg[], scope: Scope, sink: Sink): void {
  const argv = parseArgv(rest, ['-f', '--file', '--blob', '--type', '--default', '--comment', '-t']);
  const words = argv.operands.map((a) => a.text);
  const verb = words[0];
  const target = (): Arg => {
    const file = argv.values.get('-f') ?? argv.values.get('--file');
    if (file) return file;
    if (has(argv, '--global')) return { text: `${sink.ctx.home}/.gitconfig`, glob: false, raw: 'git config --global' };
    return { text: `${sink.ctx.root}/.git/config`, glob: false, raw: 'git config' };
  };
  const how = () => (argv.values.has('-f') || argv.values.has('--file') ? 'git config --file' : has(argv, '--global') ? 'git config --global (the user configuration)' : 'git config (the repository configuration)');
  // The editor rewrites the whole file with whatever it (or GIT_EDITOR) writes.
  if (has(argv, '-e', '--edit') || verb === 'edit') {
    if (has(argv, '--system')) sink.unknown('git config --system --edit rewrites the system configuration, which every git command reads');
    else sink.write(scope, target(), `${how()} --edit`);
    return;
  }
  const reading = has(argv, '-l', '--list', '--get', '--get-all', '--get-regexp', '--get-urlmatch', '--get-color', '--get-colorbool', '--show-origin', '--show-scope', '--help');
  let [, key, value] = words;
  if (!['set', 'unset', 'get', 'list', 'edit', 'rename-section', 'remove-section'].includes(verb ?? '')) [key, value] = words;
  else if (verb === 'get' || verb === 'list') return;
  const unset = verb === 'unset' || has(argv, '--unset', '--unset-all');
  if (reading || key === undefined || (value === undefined && verb !== 'set' && !unset && !has(argv, '--add', '--replace-all'))) return;
  if (key === null) {
    sink.unknown('git config sets a key that is not statically known');
    return;
  }
  gitConfig(key, value ?? null, scope, sink);
  // GIT_CONFIG is a `--file` by the environment; GIT_DIR and GIT_COMMON_DIR move the repository's own file.
  const moved = ['GIT_CONFIG', 'GIT_DIR', 'GIT_COMMON_DIR'].some((v) => scope.vars.has(v));
  const local = !moved && !argv.values.has('-f') && !argv.values.has('--file') && !has(argv, '--global', '--system', '--blob');
  const section = verb === 'rename-section' || verb === 'remove-section';
  if (local && !section && ordinaryKey(key, unset ? undefined : (value ?? null))) return;
  if (has(argv, '--system')) sink.unknown('git config --system writes the system configuration, which every git command reads');
  else sink.write(scope, target(), how());
}

/** `key` split as git splits it (section and name lower-cased); `value` undefined for an unset (any value goes). */
function ordinaryKey(key: string, value: string | null | undefined): boolean {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first <= 0 || last === key.length - 1) return false;
  const entry = { section: key.slice(0, first).toLowerCase(), subsection: first === last ? null : key.slice(first + 1, last), name: key.slice(last + 1).toLowerCase() };
  return value === undefined ? safeName(entry) : safeKey({ ...entry, value });
}

/** `git ls-files src`, `git diff --name-only src`: every line is a path under the pathspecs. */
function listing(sub: string, argv: ReturnType<typeof parseArgv>, scope: Scope): Output {
  if (sub === 'diff' && !has(argv, '--name-only', '--name-status')) return null;
  if (sub === 'ls-tree' && !has(argv, '--name-only', '-r')) return null;
  // Revisions and paths mix in `git diff`: only ls-files is narrowed to its pathspecs.
  const specs = sub === 'ls-files' ? argv.operands : [];
  if (specs.some((s) => s.text === null || /[*?[\]:]/.test(s.text))) return null;
  const cwd = scope.cwds.length === 1 ? scope.cwds[0] : null;
  if (cwd == null) return null;
  const bases = specs.length > 0 ? specs.map((s) => s.text as string) : ['.'];
  return { patterns: bases.map((b) => `${escapeGlob(joinPath(cwd, b))}/**`) };
}
