import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, lstatSync, readdirSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { gitCommonDir } from '../state/anchorPaths.js';
import { wholeDirOf, type HardeningFacts, type SettingsSection as HardeningSection } from './rules/sandbox.js';
import { wallCandidates } from './rules/controlPaths.js';
import { longTmpLine, unavailableLine, wallMode, type OsWallSetting, type WallMode } from './rules/mode.js';
import { carriesHardening } from './rules/sandboxMerge.js';
import type { Phase } from '../state/schema/state.js';
import type { Repo } from '../state/repo.js';
import { parseSettings, readRecord, SETTINGS_REL } from './settingsMerge.js';
import { TDD_DIR } from '../state/rules/tddDir.js';

export { RELOAD_MS } from './settingsMerge.js';

export interface WallAvailability {
  ok: boolean;
  /** What is missing and how to get it, when not ok. */
  problem?: string;
  backend: 'bubblewrap' | 'seatbelt' | 'none';
}

function onPath(bin: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const p = path.join(dir, bin);
    try {
      if (statSync(p).isFile()) return p;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * Whether Claude Code's Bash sandbox can run here. On Linux it needs bubblewrap (able to create its
 * namespaces, which some containers forbid) and socat; macOS has Seatbelt built in; native Windows
 * has no Bash sandbox the client uses for this.
 */
export function wallAvailability(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): WallAvailability {
  if (platform === 'win32') {
    return { ok: false, backend: 'none', problem: 'native Windows has no Bash sandbox for Claude Code to use; run Claude Code in WSL 2 with bubblewrap and socat installed' };
  }
  if (platform === 'darwin') return existsSync('/usr/bin/sandbox-exec') ? { ok: true, backend: 'seatbelt' } : { ok: false, backend: 'none', problem: '/usr/bin/sandbox-exec (Seatbelt) is missing' };
  const bwrap = onPath('bwrap', env);
  const socat = onPath('socat', env);
  const missing = [bwrap ? null : 'bubblewrap', socat ? null : 'socat'].filter((x) => x !== null);
  if (missing.length > 0) {
    return { ok: false, backend: 'none', problem: `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not installed; install ${missing.join(' and ')} (Debian/Ubuntu: \`sudo apt-get install ${missing.join(' ')}\`; Fedora: \`sudo dnf install ${missing.join(' ')}\`)` };
  }
  const probe = spawnSync(bwrap!, ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-net', '--die-with-parent', 'true'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000, env });
  if (probe.status !== 0) {
    const why = (probe.stderr?.toString('utf8') ?? '').trim() || probe.error?.message || `exit ${String(probe.status)}`;
    return { ok: false, backend: 'none', problem: `bubblewrap cannot create its sandbox here (${why}); enable unprivileged user namespaces (e.g. \`sysctl kernel.unprivileged_userns_clone=1\`, or the AppArmor profile for bwrap on Ubuntu 24.04) or run outside this container` };
  }
  return { ok: true, backend: 'bubblewrap' };
}

/** The command the orchestrator types to run this CLI: `node "<plugin>/dist/cli.mjs"` (see skills/tdd/SKILL.md). */
function cliCommandOf(argv1: string | undefined = process.argv[1]): string {
  return `node "${path.resolve(argv1 ?? 'dist/cli.mjs')}"`;
}

/** Registry hosts the person configured, so their installs keep working through the sandbox's proxy. */
function configuredRegistryHosts(root: string, env: NodeJS.ProcessEnv): string[] {
  const urls: string[] = [];
  for (const key of ['npm_config_registry', 'NPM_CONFIG_REGISTRY', 'PIP_INDEX_URL', 'UV_INDEX_URL', 'GOPROXY']) {
    const v = env[key];
    if (v) urls.push(...v.split(/[,|]/));
  }
  for (const rc of [path.join(root, '.npmrc'), path.join(env.HOME ?? homedir(), '.npmrc')]) {
    try {
      for (const m of readFileSync(rc, 'utf8').matchAll(/^\s*(?:@[^:\s]+:)?registry\s*=\s*(\S+)/gm)) urls.push(m[1]!);
    } catch {
      // no such file
    }
  }
  const hosts: string[] = [];
  for (const u of urls) {
    try {
      const host = new URL(u.trim()).hostname;
      if (host && host !== 'localhost' && !/^[\d.]+$/.test(host) && !host.includes(':')) hosts.push(host);
    } catch {
      // `direct`, `off` and other non-URLs
    }
  }
  return [...new Set(hosts)];
}

interface StateFacts {
  phase: Phase;
  spec_path: string;
  frozen?: { files?: Record<string, string> } | undefined;
}

/** Where the test runner is installed, as recorded at the freeze (absolute folders); none when not recorded. */
function runnerRootsOf(state: StateFacts): string[] {
  const raw = (state as { runner_roots?: unknown; frozen?: { runner_roots?: unknown } }).runner_roots ?? (state.frozen as { runner_roots?: unknown } | undefined)?.runner_roots;
  return Array.isArray(raw) ? raw.filter((r): r is string => typeof r === 'string' && r.startsWith('/')) : [];
}

/** Python user site folders (`~/.local/lib/python3.*\/site-packages`, or under PYTHONUSERBASE). */
function pythonUserSites(home: string, env: NodeJS.ProcessEnv): string[] {
  const base = env.PYTHONUSERBASE ?? path.join(home, '.local');
  const lib = path.join(base, 'lib');
  try {
    return readdirSync(lib).filter((d) => d.startsWith('python')).map((d) => path.join(lib, d, 'site-packages'));
  } catch {
    return [];
  }
}

/** Facts for the pure computation, read from the repository and the environment. */
export function hardeningFactsFor(repo: Repo, state: StateFacts, stack: { language: string; testGlobs: string[] }, env: NodeJS.ProcessEnv, argv1?: string): HardeningFacts {
  const home = realOrSelf(env.HOME ?? homedir());
  const tmp = [...new Set(['/tmp', realOrSelf(env.TMPDIR ?? tmpdir())])].filter((d) => d !== '');
  const data = env.CLAUDE_PLUGIN_DATA;
  const facts: HardeningFacts = {
    root: repo.root,
    home,
    gitDir: realOrSelf(repo.gitDir),
    gitCommonDir: realOrSelf(gitCommonDir(repo.gitDir)),
    phase: state.phase,
    specPath: state.spec_path,
    frozenFiles: Object.keys(state.frozen?.files ?? {}),
    testGlobs: stack.testGlobs,
    cliCommand: cliCommandOf(argv1),
    language: stack.language,
    extraDomains: configuredRegistryHosts(repo.root, env),
    tmpDirs: tmp,
    pathDirs: (env.PATH ?? '').split(path.delimiter).filter((d) => d !== ''),
    wall: {
      xdgConfigHome: env.XDG_CONFIG_HOME?.startsWith('/') ? realOrSelf(env.XDG_CONFIG_HOME) : null,
      zdotdir: env.ZDOTDIR?.startsWith('/') ? realOrSelf(env.ZDOTDIR) : null,
      recordDirs: typeof data === 'string' && data.startsWith('/') ? [realOrSelf(data)] : [],
      runnerRoots: runnerRootsOf(state).map(realOrSelf),
      pythonUserSites: pythonUserSites(home, env),
      nestedInstructionFiles: [],
    },
    clientTmp: env.TMPDIR ?? tmpdir(),
  };
  // Which candidates exist decides where a placeholder would appear (src/wall/rules/controlPaths.ts).
  const frozen = state.phase === 'tdd-green' || state.phase === 'tdd-refactor';
  const candidates = wallCandidates({ ...facts.wall!, root: facts.root, home, gitDir: facts.gitDir, gitCommonDir: facts.gitCommonDir, frozen, specPath: facts.specPath, frozenFiles: facts.frozenFiles, testDirs: facts.testGlobs.map(wholeDirOf).filter((d): d is string => d !== null) });
  facts.existing = new Set(candidates.map((c) => c.path).filter((p) => existsSync(p)));
  return facts;
}

function realOrSelf(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

/**
 * Give every frozen file a fresh inode (copy + rename over it): a hard link made before the freeze
 * is then a separate file, not a writable second name of the frozen one.
 */
export function refreshInodes(root: string, rels: readonly string[]): string[] {
  const done: string[] = [];
  for (const rel of rels) {
    const file = path.join(root, rel);
    let st;
    try {
      st = lstatSync(file);
    } catch {
      continue;
    }
    if (!st.isFile()) continue;
    const tmp = `${file}.tdd-gate-fresh-${process.pid}`;
    try {
      copyFileSync(file, tmp);
      chmodSync(tmp, st.mode & 0o7777);
      renameSync(tmp, file);
      done.push(rel);
    } catch {
      try {
        unlinkSync(tmp);
      } catch {
        // nothing to clean
      }
    }
  }
  return done;
}

interface Wall {
  /** Writable (the project, the package caches, temp). */
  writable: readonly string[];
  /** Read-only inside the writable set (what the phase protects). */
  readOnly: readonly string[];
  /** Writable again inside a read-only path (the runner's report directory). */
  carveOut: readonly string[];
}

/**
 * \`bwrap\` arguments for a wall like the client's sandbox: the whole file system read-only, the
 * writable set bound back, the protected paths read-only inside it. Later binds win.
 */
function wallArgs(wall: Wall): string[] {
  const args = ['--ro-bind', '/', '/', '--dev-bind', '/dev', '/dev', '--die-with-parent'];
  const add = (flag: string, list: readonly string[]) => {
    for (const p of list) if (existsSync(p)) args.push(flag, p, p);
  };
  add('--bind', wall.writable);
  add('--ro-bind', wall.readOnly);
  add('--bind', wall.carveOut);
  return args;
}

/**
 * The wall in force for \`root\` when hardened mode has a section applied: the CLI walls the commands
 * it runs (it is itself outside the client's sandbox) the same way the client walls Bash calls,
 * plus what the client always protects (git hooks and config: git run later by the CLI, outside
 * any sandbox, would execute them).
 */
function appliedWall(repo: Repo): Wall | null {
  let record;
  try {
    record = readRecord(repo.gitDir);
  } catch {
    return null;
  }
  if (!record.applied?.section.sandbox) return null;
  const fs = record.applied.section.sandbox.filesystem;
  const gitDirs = [...new Set([repo.gitDir, gitCommonDir(repo.gitDir)])];
  return {
    writable: [repo.root, ...fs.allowWrite],
    readOnly: [...fs.denyWrite, ...gitDirs.flatMap((g) => [path.join(g, 'hooks'), path.join(g, 'config')])],
    carveOut: [path.join(repo.root, TDD_DIR, 'runs')],
  };
}

export interface WallStatus {
  /** The wall is meant to be up here (on by default, or required). */
  on: boolean;
  mode: WallMode;
  availability: WallAvailability;
  /** The settings file carries the section computed for the current phase. */
  applied: boolean;
  /** Milliseconds since the section was written (the client applies it about 1 s later). */
  sinceWriteMs: number | null;
  /** Observed from inside a Bash call: a write to `.tdd/` failed (true) or went through (false); null outside Claude Code. */
  probed: boolean | null;
  problems: string[];
}

/** The settings file carries `section` (parsed; a broken file does not). */
export function settingsCarry(root: string, section: HardeningSection): boolean {
  try {
    return carriesHardening(parseSettings(readFileSync(path.join(root, SETTINGS_REL), 'utf8')), section);
  } catch {
    return false;
  }
}

/**
 * Try to create a file in `.tdd/`: inside the wall that fails with a read-only error (true). Outside
 * it (or with the wall down) the file is created and removed again (false).
 */
export function probeWall(root: string): boolean {
  const probe = path.join(root, TDD_DIR, `.wall-probe-${process.pid}`);
  try {
    writeFileSync(probe, '', { flag: 'wx' });
    unlinkSync(probe);
    return false;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      try {
        unlinkSync(probe);
        return false;
      } catch (e) {
        return isReadOnly(e);
      }
    }
    return isReadOnly(err);
  }
}

function isReadOnly(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EROFS' || code === 'EPERM' || code === 'EACCES';
}

/**
 * How the CLI spawns a project command (tests, lint): inside a bubblewrap wall with the applied
 * denyWrite list read-only, when hardened mode has one and this process is outside the client's
 * sandbox (the CLI's own verbs run outside it to write `.tdd/`). Null: run it as it is. `writable`:
 * existing folders the command must write although the wall protects what holds them.
 */
export function walledSpawn(root: string, command: string, findRepoFn: (cwd: string) => Repo | null, platform: NodeJS.Platform = process.platform, writable: readonly string[] = []): { file: string; args: string[] } | null {
  const repo = findRepoFn(root);
  if (repo === null) return null;
  const applied = appliedWall(repo);
  if (applied === null || probeWall(root)) return null;
  // Folders of the CLI's own that the run must write inside a protected one (the oracle's build
  // folder for held-out tests, in their store): writable again, and nothing else there.
  const wall = writable.length > 0 ? { ...applied, carveOut: [...applied.carveOut, ...writable] } : applied;
  if (platform === 'darwin') return { file: '/usr/bin/sandbox-exec', args: ['-p', seatbeltProfile(wall), '/bin/sh', '-c', command] };
  const bwrap = onPath('bwrap', process.env);
  if (bwrap === null) throw new Error('hardened mode is on but bubblewrap (bwrap) is not on PATH, so the tests cannot run behind the wall; install it or turn hardened mode off (`tdd-gate harden off`, from a terminal)');
  return { file: bwrap, args: [...wallArgs(wall), '--', '/bin/sh', '-c', command] };
}

/** The same wall for macOS's Seatbelt (the last matching rule wins; paths as the kernel sees them). */
export function seatbeltProfile(wall: Wall): string {
  const q = (p: string) => `"${realOrSelf(p).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  const sub = (list: readonly string[]) => list.map((p) => `(subpath ${q(p)})`).join(' ');
  return [
    '(version 1)',
    '(allow default)',
    '(deny file-write*)',
    `(allow file-write* ${sub(wall.writable)} (regex #"^/dev/"))`,
    wall.readOnly.length > 0 ? `(deny file-write* ${sub(wall.readOnly)})` : '',
    wall.carveOut.length > 0 ? `(allow file-write* ${sub(wall.carveOut)})` : '',
  ].filter(Boolean).join('\n');
}

/**
 * The SessionStart note about the OS wall while a cycle is active: one line when the sandbox
 * cannot run here (with what to install), whether the wall is really up otherwise. Null when the
 * wall is off by choice.
 */
export function hardeningNote(repo: Repo, env: NodeJS.ProcessEnv, osWall?: OsWallSetting): string | null {
  let record;
  try {
    record = readRecord(repo.gitDir);
  } catch (err) {
    return `tdd-gate: OS wall: ${(err as Error).message}.`;
  }
  const worktree = record.off === true ? 'off' : record.on ? 'on' : null;
  if (worktree === 'off' || (worktree === null && osWall === 'off')) return null;
  const a = wallAvailability(env);
  const mode = wallMode({ stack: osWall, worktree, available: a.ok, problem: a.problem });
  if (mode.kind === 'off') return null;
  if (mode.kind === 'unavailable') return mode.required ? `tdd-gate: the OS wall is required here but Claude Code's Bash sandbox cannot run (${mode.problem}). Stop and tell the user.` : unavailableLine(mode.problem);
  // A new session: no sandboxed command of this project is running yet, so leftover placeholders can go.
  const applied = record.applied !== null && settingsCarry(repo.root, record.applied.section);
  const weak = foreignWeakenings(repo.root, env.HOME ?? homedir());
  if (applied && weak.length > 0) {
    return `tdd-gate: the OS wall has holes: ${weak.join('; ')}. Stop and tell the user; the static gate still applies.`;
  }
  const tmpLine = longTmpLine(env.TMPDIR ?? tmpdir());
  if (applied && tmpLine !== null) return tmpLine;
  if (applied) {
    return `tdd-gate: the OS wall is up: Bash runs in Claude Code's sandbox (${a.backend}), where the cycle's records, Claude Code's and git's settings, the shell start-up files, the SPEC${record.applied?.phase === 'tdd-green' || record.applied?.phase === 'tdd-refactor' ? ', the frozen tests and the test runner' : ''} are read-only. Run the tdd-gate CLI as one plain call, exactly as the /tdd skill shows; write files with the Write and Edit tools where the phase allows.`;
  }
  return `tdd-gate: the OS wall is NOT up: ${SETTINGS_REL} does not carry its section (run \`tdd-gate status\`; any phase verb puts it back). The static gate still applies.`;
}

/** Settings files the client merges with the local one (the local one is tdd-gate's to manage). */
function otherSettingsFiles(root: string, home: string): string[] {
  return [path.join(root, '.claude', 'settings.json'), path.join(home, '.claude', 'settings.json'), '/etc/claude-code/managed-settings.json'];
}

/**
 * What other settings sources do to the wall: `excludedCommands` entries are merged across all of
 * them (each takes commands out of the sandbox), and user or managed settings can switch the
 * filesystem part off or the sandbox itself. One line per finding.
 */
export function foreignWeakenings(root: string, home: string): string[] {
  const found: string[] = [];
  for (const file of otherSettingsFiles(root, home)) {
    let settings;
    try {
      settings = parseSettings(readFileSync(file, 'utf8'), file);
    } catch {
      continue;
    }
    const sb = settings.sandbox;
    if (typeof sb !== 'object' || sb === null || Array.isArray(sb)) continue;
    const excluded = Array.isArray(sb.excludedCommands) ? sb.excludedCommands.filter((e) => typeof e === 'string') : [];
    if (excluded.length > 0) found.push(`${file} sets sandbox.excludedCommands (${excluded.join(', ')}): those commands run outside the wall`);
    if (sb.enabled === false && !file.startsWith(root)) found.push(`${file} sets sandbox.enabled: false`);
    const fs = sb.filesystem;
    if (typeof fs === 'object' && fs !== null && !Array.isArray(fs) && fs.disabled === true) found.push(`${file} sets sandbox.filesystem.disabled: true (no filesystem wall at all)`);
  }
  return found;
}
