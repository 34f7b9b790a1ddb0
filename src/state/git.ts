import { execFileSync, type ExecFileSyncOptions } from 'node:child_process';

/**
 * Every git the gate itself runs (in the hook and in the CLI) goes through here, and runs with the
 * configuration the person had at the freeze, never with code the agent planted in a config file:
 * no global, XDG or system configuration (GIT_CONFIG_GLOBAL=/dev/null, GIT_CONFIG_NOSYSTEM), no
 * configuration passed through the environment, no fsmonitor, no hooks, no attributes file outside
 * the repository, and every filter or diff driver the repository configures switched off (a
 * driver's command would run on `git status`). What git reads from the repository itself
 * (`.git/config`, `.gitattributes`) is in the control set the wall and the integrity check hold.
 */

/** Environment variables through which a process could hand git configuration or a program to run. */
const DROP = /^(GIT_CONFIG(_COUNT|_PARAMETERS|_KEY_\d+|_VALUE_\d+)?|GIT_EXEC_PATH|GIT_EXTERNAL_DIFF|GIT_PAGER|PAGER|GIT_EDITOR|GIT_SSH|GIT_SSH_COMMAND|GIT_ASKPASS|SSH_ASKPASS|GIT_PROXY_COMMAND|GIT_TRACE\w*|GIT_ATTR_SOURCE|GIT_TEMPLATE_DIR)$/;

function safeGitEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!DROP.test(k)) out[k] = v;
  out.GIT_CONFIG_GLOBAL = '/dev/null';
  out.GIT_CONFIG_NOSYSTEM = '1';
  out.GIT_ATTR_NOSYSTEM = '1';
  out.GIT_TERMINAL_PROMPT = '0';
  out.GIT_OPTIONAL_LOCKS = '0';
  return out;
}

/** `-c` settings that switch off what would run a program. */
const SAFE_GIT_CONFIG = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.attributesFile=/dev/null',
  'core.pager=cat',
  'core.sshCommand=false',
  'diff.external=',
  'protocol.ext.allow=never',
  'credential.helper=',
  'gc.auto=0',
  'maintenance.auto=false',
];

const driverCache = new Map<string, string[]>();

/** `-c` overrides emptying every filter and diff driver the repository's configuration names. */
function driverOverrides(cwd: string, env: NodeJS.ProcessEnv): string[] {
  const cached = driverCache.get(cwd);
  if (cached !== undefined) return cached;
  let listed = '';
  try {
    listed = execFileSync('git', [...SAFE_GIT_CONFIG.flatMap((c) => ['-c', c]), 'config', '--name-only', '--get-regexp', String.raw`^(filter|diff|merge)\..*\.(clean|smudge|process|textconv|command|driver)$`], {
      cwd,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
    });
  } catch {
    listed = ''; // none configured (exit 1), or no repository
  }
  const out = listed.split('\n').filter((k) => k !== '').flatMap((k) => ['-c', `${k}=`]);
  driverCache.set(cwd, out);
  return out;
}

/** Arguments put before git's own: the safe settings and the driver overrides. */
function safeGitArgs(cwd: string, env: NodeJS.ProcessEnv = safeGitEnv()): string[] {
  return [...SAFE_GIT_CONFIG.flatMap((c) => ['-c', c]), ...driverOverrides(cwd, env)];
}

type Opts = Omit<ExecFileSyncOptions, 'env' | 'cwd'> & { cwd: string; env?: NodeJS.ProcessEnv };

/** git, run safely; throws as execFileSync does. */
export function gitExec(args: readonly string[], opts: Opts & { encoding: BufferEncoding }): string;
export function gitExec(args: readonly string[], opts: Opts): Buffer;
export function gitExec(args: readonly string[], opts: Opts): string | Buffer {
  const env = safeGitEnv(opts.env ?? process.env);
  return execFileSync('git', [...safeGitArgs(opts.cwd, env), ...args], { ...opts, env });
}

function git(root: string, args: string[]): string | null {
  try {
    return gitExec(args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null;
  }
}

/** The commit HEAD points at, or null in a repository without commits. */
export function gitHead(root: string): string | null {
  const out = git(root, ['rev-parse', '--verify', '-q', 'HEAD']);
  return out === null ? null : out.trim() || null;
}

export function gitStashCount(root: string): number {
  const out = git(root, ['stash', 'list']);
  if (out === null) return 0;
  return out.split('\n').filter((l) => l.trim() !== '').length;
}

/** Which of `rels` the index knows (tracked files). */
export function gitTracked(root: string, rels: readonly string[]): Set<string> {
  if (rels.length === 0) return new Set();
  const out = git(root, ['ls-files', '-z', '--', ...rels.map((r) => `:(literal)${r}`)]);
  return new Set((out ?? '').split('\0').filter((l) => l !== ''));
}
