/**
 * git: the subcommands that write the work tree, and those that move HEAD or bring in commits
 * (DESIGN §3: denied while a cycle is active).
 */
import { has, parseArgv } from './argv.js';
import { joinPath, isAbsolute, baseName, child } from './paths.js';
import type { Call, Sink } from './sink.js';
import type { Arg } from './words.js';

const GLOBAL_VALUED = ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env', '--super-prefix'];

/** `git … --abort` style escapes leave the tree as it was before an operation: harmless. */
const ESCAPES = ['--abort', '--quit', '--skip', '--show-current-patch'];

export function gitCommand(call: Call, sink: Sink): null {
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
      const alias = name === '-c' ? /^alias\.[^=]+=!(.*)$/s.exec(v?.text ?? '') : null;
      if (alias) sink.shell(alias[1] ?? null, scope, 'git alias', false);
      if (name === '-c' && v?.text === null) sink.unknown('git -c sets a configuration that is not statically known');
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
      const verb = argv.operands[0]?.text ?? 'push';
      if (verb === 'pop' || verb === 'apply' || verb === 'branch') sink.headMove(text, scope);
      else if (verb === 'push' || verb === 'save' || verb === '-u' || argv.operands.length === 0) writeTree([], 'git stash');
      return null;
    }
    case 'clean':
      if (!has(argv, '-n', '--dry-run')) writeTree(argv.operands, 'git clean');
      return null;
    case 'rm':
      if (!has(argv, '--cached')) for (const p of argv.operands) sink.write(scope, p, 'git rm', { tree: true });
      return null;
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
    case 'apply':
      if (!has(argv, '--check', '--stat', '--numstat', '--summary', '--cached')) sink.unknown('git apply writes the files named inside the patch, which cannot be seen statically');
      return null;
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
