/**
 * What the OS wall makes read-only for every sandboxed Bash command, from facts alone (no file
 * system here): the control set (every file that changes what a later program does), the cycle's
 * records, the SPEC, the frozen set and the test runner's installation.
 *
 * Two steps, because the sandbox treats a missing path in a writable folder specially: Claude
 * Code's Linux sandbox puts a placeholder file (or folder) at a denied path that does not exist, so
 * that nothing can create it, and removes it only when no sandboxed command is left running. A
 * placeholder in the project shows up in `git status`, is swept into `git add -A`, and stays behind
 * when the session ends with a background command alive; a placeholder at `~/.gitconfig` or
 * `~/.bashrc` (a home inside a writable folder) cannot be read, and every git command and every
 * shell fails on it (measured: "unable to access '~/.gitconfig': Permission denied", "fatal").
 * So `wallCandidates` lists everything the wall should hold, and `wallDenyList` keeps a missing one
 * only outside every writable folder (the sandbox refuses its creation there with no placeholder).
 * A missing control file in a writable folder (`CLAUDE.md`, `.claude/rules/`, `.npmrc`,
 * `.gitattributes` in the project) is left to the gate's identity check of the control set, which
 * fails closed the moment one appears (and would take a placeholder of ours for one).
 */

export interface WallPathFacts {
  /** Canonical project root (absolute, `/`-separated). */
  root: string;
  /** The person's home directory (absolute). */
  home: string;
  /** `$XDG_CONFIG_HOME` when set (absolute), else null (`~/.config`). */
  xdgConfigHome: string | null;
  /** `$ZDOTDIR` when set and not the home (zsh's start-up files live there). */
  zdotdir: string | null;
  /** The worktree's git directory and the common one (absolute). */
  gitDir: string;
  gitCommonDir: string;
  /** The phase: the frozen set is walled from `tdd-green` on. */
  frozen: boolean;
  /** Root-relative path of the SPEC. */
  specPath: string;
  /** Root-relative frozen files (tests, test configs, the SPEC); empty before the freeze. */
  frozenFiles: readonly string[];
  /** Root-relative whole test directories (`dir/**` globs). */
  testDirs: readonly string[];
  /** The anchor store and the plugin's data folder (absolute), when known. */
  recordDirs: readonly string[];
  /** Where the test runner and its assertion packages are installed (absolute), recorded at the freeze; empty when unknown. */
  runnerRoots: readonly string[];
  /** Python user site directories (absolute): a `usercustomize.py` or `.pth` there runs in every interpreter. */
  pythonUserSites: readonly string[];
  /** `CLAUDE*.md` files found in the project below its root (root-relative). */
  nestedInstructionFiles: readonly string[];
}

export type WallClass = 'records' | 'claude' | 'git' | 'npm' | 'python' | 'shell' | 'spec' | 'frozen' | 'runner';

export interface WallPath {
  path: string;
  /** A folder: everything under it is covered. */
  dir: boolean;
  /** Which part of the control set it belongs to (the explanation names it). */
  cls: WallClass;
}

/** Project files under `.claude/` the client reads as settings, instructions or commands. */
const PROJECT_CLAUDE = ['settings.json', 'settings.local.json', 'CLAUDE.md', 'rules', 'output-styles', 'agents', 'commands', 'skills', 'hooks', 'scheduled_tasks.json', 'launch.json', 'workflows', 'routines'];
/** `~/.claude` entries that change a later session (home is outside the writable set, so missing ones cost nothing). */
const HOME_CLAUDE = ['settings.json', 'settings.local.json', 'CLAUDE.md', 'rules', 'output-styles', 'agents', 'commands', 'skills', 'hooks', 'plugins', 'keybindings.json', 'statusline.sh'];
/** Shell start-up files: the client builds each session's shell snapshot from them, outside any sandbox. */
const SHELL_RC = ['.bashrc', '.bash_profile', '.bash_login', '.profile', '.bash_logout', '.bash_aliases', '.zshrc', '.zshenv', '.zprofile', '.zlogin', '.zlogout', '.inputrc', '.envrc'];

function join(...parts: string[]): string {
  return parts.join('/').replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
}

/** Everything the wall should hold in this phase, before the placeholder rule (see the module note). */
export function wallCandidates(f: WallPathFacts): WallPath[] {
  const home = (rel: string, dir: boolean, cls: WallClass): WallPath => ({ path: join(f.home, rel), dir, cls });
  const proj = (rel: string, dir: boolean, cls: WallClass): WallPath => ({ path: join(f.root, rel), dir, cls });
  const xdg = f.xdgConfigHome ?? join(f.home, '.config');
  const gitDirs = [...new Set([f.gitDir, f.gitCommonDir])];
  const list: WallPath[] = [
    // The cycle's records.
    proj('.tdd', true, 'records'),
    ...gitDirs.map((g) => ({ path: join(g, 'tdd-gate'), dir: true, cls: 'records' as const })),
    ...f.recordDirs.map((d) => ({ path: join(d), dir: true, cls: 'records' as const })),
    // HEAD names the branch, and the branch names the state file.
    { path: join(f.gitDir, 'HEAD'), dir: false, cls: 'records' },
    // Claude Code: settings, instructions, commands; in the project file by file (the client makes
    // its own mount points inside `.claude/`, which a read-only `.claude/` would break).
    ...PROJECT_CLAUDE.map((n) => proj(`.claude/${n}`, !n.includes('.'), 'claude')),
    proj('CLAUDE.md', false, 'claude'),
    proj('CLAUDE.local.md', false, 'claude'),
    ...f.nestedInstructionFiles.map((rel) => proj(rel, false, 'claude')),
    ...HOME_CLAUDE.map((n) => home(`.claude/${n}`, !n.includes('.'), 'claude')),
    home('.claude.json', false, 'claude'),
    // Git: the repository's own configuration, hooks and info (attributes, excludes), the global
    // and XDG configuration, the project's attributes.
    ...gitDirs.flatMap((g) => [
      { path: join(g, 'config'), dir: false, cls: 'git' as const },
      { path: join(g, 'config.worktree'), dir: false, cls: 'git' as const },
      { path: join(g, 'hooks'), dir: true, cls: 'git' as const },
      { path: join(g, 'info'), dir: true, cls: 'git' as const },
    ]),
    home('.gitconfig', false, 'git'),
    { path: join(xdg, 'git'), dir: true, cls: 'git' },
    proj('.gitattributes', false, 'git'),
    // npm (and its cousins): user and project rc.
    home('.npmrc', false, 'npm'),
    { path: join(xdg, 'npm'), dir: true, cls: 'npm' },
    proj('.npmrc', false, 'npm'),
    home('.yarnrc', false, 'npm'),
    home('.yarnrc.yml', false, 'npm'),
    // Python: pip's configuration and the user site.
    { path: join(xdg, 'pip'), dir: true, cls: 'python' },
    home('.pip', true, 'python'),
    home('.pydistutils.cfg', false, 'python'),
    ...f.pythonUserSites.map((d) => ({ path: join(d), dir: true, cls: 'python' as const })),
    // The shell start-up files.
    ...SHELL_RC.map((n) => home(n, false, 'shell')),
    ...(f.zdotdir !== null && f.zdotdir !== f.home ? ['.zshrc', '.zshenv', '.zprofile', '.zlogin'].map((n) => ({ path: join(f.zdotdir!, n), dir: false, cls: 'shell' as const })) : []),
    { path: join(xdg, 'fish'), dir: true, cls: 'shell' },
    // The SPEC, and from the freeze on the frozen set, the whole test directories and the runner.
    proj(f.specPath, false, 'spec'),
    ...(f.frozen ? f.frozenFiles.map((rel) => proj(rel, false, 'frozen')) : []),
    ...(f.frozen ? f.testDirs.map((d) => proj(d, true, 'frozen')) : []),
    ...(f.frozen ? f.runnerRoots.map((d) => ({ path: join(d), dir: true, cls: 'runner' as const })) : []),
  ];
  const seen = new Set<string>();
  return list.filter((p) => p.path !== '' && (seen.has(p.path) ? false : (seen.add(p.path), true)));
}

function under(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir === '/' ? '/' : `${dir}/`);
}

/**
 * The candidates the sandbox's `denyWrite` gets: every one that exists, and a missing one only
 * where its placeholder cannot land in a writable folder.
 * `writable` are the folders sandboxed commands may write (the project, caches, temp).
 */
export function wallDenyList(candidates: readonly WallPath[], exists: ReadonlySet<string>, writable: readonly string[], _root: string): WallPath[] {
  return candidates.filter((c) => {
    if (exists.has(c.path)) return true;
    return !writable.some((w) => under(c.path, w));
  });
}

/** The deny entry that covers `file` (absolute), if any: the longest match. */
export function coveringEntry(file: string, list: readonly WallPath[]): WallPath | null {
  let best: WallPath | null = null;
  for (const p of list) {
    if (file === p.path || (p.dir && file.startsWith(`${p.path}/`))) {
      if (best === null || p.path.length > best.path.length) best = p;
    }
  }
  return best;
}

/** Names a placeholder can take in the project: the client's own list at the project root, and ours. */
export const CLIENT_PLACEHOLDER_NAMES = [
  '.claude',
  ...PROJECT_CLAUDE.map((n) => `.claude/${n}`),
  '.gitconfig', '.gitmodules', '.bashrc', '.bash_profile', '.zshrc', '.zprofile', '.profile', '.ripgreprc', '.mcp.json', '.zshenv', '.zlogin', '.zlogout', '.bash_login', '.bash_aliases', '.bash_logout', '.envrc', '.claude.json', '.npmrc', '.yarnrc', '.yarnrc.yml',
];

export interface FileFact {
  /** Root-relative. */
  rel: string;
  /** Bytes for a file, entries for a folder. */
  size: number;
  kind: 'file' | 'dir' | 'other';
  /** Known to git (tracked or in the index). */
  tracked: boolean;
}

/**
 * Leftover sandbox placeholders in the project: empty, untracked regular files (or empty folders)
 * at the names the client and the wall block, that were not there when the cycle began. They are removed
 * when no sandboxed command can be running (the cycle's end, a new session).
 */
export function strayPlaceholders(files: readonly FileFact[], presentAtStart: ReadonlySet<string>): string[] {
  const names = new Set(CLIENT_PLACEHOLDER_NAMES);
  return files.filter((f) => names.has(f.rel) && f.kind !== 'other' && f.size === 0 && !f.tracked && !presentAtStart.has(f.rel)).map((f) => f.rel);
}
