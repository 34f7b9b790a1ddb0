/**
 * The control set (ADR 006): every file that changes what a later program does. Claude Code's
 * settings and everything under `.claude/` and `~/.claude/`, the CLAUDE*.md instruction files, the
 * git directory's config, hooks and info, git's global and XDG configuration and attributes, the
 * project's .gitattributes, npm's user and project rc, pip's configuration and Python's user site
 * start-up files, and the shell start-up files the client's shell snapshot is built from.
 * During a cycle no tool writes them, and the anchor records them at `init` and checks them by
 * identity at every gated call. Pure: paths from facts, no fs.
 */

export interface ControlFacts {
  /** The project root (canonical). */
  root: string;
  /** The work tree's git dir and the common one (the same in a plain repository). */
  gitDir: string;
  commonDir: string;
  home: string;
  /** XDG_CONFIG_HOME when set and absolute; otherwise ~/.config. */
  xdgConfigHome: string | null;
  /** Python's user site-packages directories that exist (~/.local/lib/python3.X/site-packages). */
  userSites?: readonly string[];
  /** CLAUDE*.md and .gitattributes deeper in the project when the cycle began (project-relative). */
  nested?: readonly string[];
}

interface ControlEntry {
  path: string;
  what: string;
  /** A repository's git configuration: a change of ordinary keys only is accepted (src/tamper/rules/gitConfigDiff.ts). */
  gitConfig?: true;
}

interface ControlSet {
  /** Single files, present or not (a file created during the cycle is a change too). */
  files: ControlEntry[];
  /** Directories whose every file is control (recorded file by file, new files included). */
  trees: ControlEntry[];
}

/** The shell start-up files the client's shell snapshot is built from. */
const SHELL_STARTUP = ['.bashrc', '.bash_profile', '.bash_login', '.profile', '.zshrc', '.zprofile', '.zshenv'];

/** The files of the git dir's info/ that git reads (attributes, excludes, sparse checkout, grafts). */
const GIT_INFO_READ = ['attributes', 'exclude', 'sparse-checkout', 'grafts'];

function xdg(f: ControlFacts): string {
  return f.xdgConfigHome !== null && f.xdgConfigHome.startsWith('/') ? f.xdgConfigHome : `${f.home}/.config`;
}

function uniqueGitDirs(f: ControlFacts): string[] {
  return f.gitDir === f.commonDir ? [f.commonDir] : [f.commonDir, f.gitDir];
}

export function controlSet(f: ControlFacts): ControlSet {
  const files: ControlEntry[] = [];
  const trees: ControlEntry[] = [];
  const file = (path: string, what: string, gitConfig = false) => files.push(gitConfig ? { path, what, gitConfig } : { path, what });
  const tree = (path: string, what: string) => trees.push({ path, what });
  // Claude Code's instruction channels (settings are watched by their guarded keys elsewhere).
  file(`${f.root}/CLAUDE.md`, 'the project instructions CLAUDE.md');
  file(`${f.root}/CLAUDE.local.md`, 'the local instructions CLAUDE.local.md');
  file(`${f.root}/.claude/CLAUDE.md`, 'the project instructions .claude/CLAUDE.md');
  file(`${f.root}/.claude/scheduled_tasks.json`, 'the scheduled tasks .claude/scheduled_tasks.json');
  file(`${f.home}/.claude/CLAUDE.md`, 'the user instructions ~/.claude/CLAUDE.md');
  file(`${f.home}/.claude/scheduled_tasks.json`, 'the scheduled tasks ~/.claude/scheduled_tasks.json');
  tree(`${f.root}/.claude/rules`, 'the project rules .claude/rules');
  tree(`${f.root}/.claude/output-styles`, 'the output styles .claude/output-styles');
  tree(`${f.home}/.claude/rules`, 'the user rules ~/.claude/rules');
  tree(`${f.home}/.claude/output-styles`, 'the output styles ~/.claude/output-styles');
  // git: what every git command reads and runs.
  for (const dir of uniqueGitDirs(f)) {
    file(`${dir}/config`, `the git configuration ${dir}/config`, true);
    tree(`${dir}/hooks`, `the git hooks ${dir}/hooks`);
    // info/: what git reads from it (`git gc` writes info/refs and info/packs for dumb servers: not control).
    for (const name of GIT_INFO_READ) file(`${dir}/info/${name}`, `the git info file ${dir}/info/${name}`);
  }
  if (f.gitDir !== f.commonDir) file(`${f.gitDir}/config.worktree`, `the git configuration ${f.gitDir}/config.worktree`, true);
  file(`${f.home}/.gitconfig`, 'the global git configuration ~/.gitconfig');
  tree(`${xdg(f)}/git`, 'the git configuration and attributes in ~/.config/git');
  file(`${f.root}/.gitattributes`, 'the git attributes .gitattributes');
  // npm: script-shell, node-options and friends run code at the next `npm test`.
  file(`${f.root}/.npmrc`, 'the project npm configuration .npmrc');
  file(`${f.home}/.npmrc`, 'the user npm configuration ~/.npmrc');
  // pip and Python's start-up.
  tree(`${xdg(f)}/pip`, "pip's configuration in ~/.config/pip");
  file(`${f.home}/.pip/pip.conf`, "pip's configuration ~/.pip/pip.conf");
  for (const site of f.userSites ?? []) {
    file(`${site}/usercustomize.py`, `Python's user start-up ${site}/usercustomize.py`);
    file(`${site}/sitecustomize.py`, `Python's start-up ${site}/sitecustomize.py`);
  }
  for (const rel of f.nested ?? []) file(`${f.root}/${rel}`, `the instructions or attributes ${rel}`);
  // The shell start-up files the client sources to build the next session's shell snapshot.
  for (const name of SHELL_STARTUP) file(`${f.home}/${name}`, `the shell start-up file ~/${name}`);
  return { files, trees };
}

/** Client-managed folders under ~/.claude that tools write in ordinary work (plan mode's plans). */
const HOME_CLAUDE_OPEN = ['plans', 'todos', 'projects'];

/**
 * Is a write to `abs` (canonical) a write to the control set? `rel` is its project-relative path
 * (posix) when inside the project. By location and by name: a CLAUDE*.md or .gitattributes
 * anywhere in the project, anything under `.claude/` or `~/.claude/` (but the client's own plan
 * and transcript folders).
 */
export function controlWhat(abs: string, rel: string | null, f: ControlFacts): string | null {
  const set = controlSet(f);
  for (const e of set.files) if (e.path === abs) return e.what;
  for (const e of set.trees) if (abs === e.path || abs.startsWith(`${e.path}/`)) return `${e.what}/${abs.slice(e.path.length + 1)}`;
  const homeClaude = `${f.home}/.claude`;
  if (abs === homeClaude || abs.startsWith(`${homeClaude}/`)) {
    const first = abs.slice(homeClaude.length + 1).split('/')[0] ?? '';
    if (!HOME_CLAUDE_OPEN.includes(first)) return `~/.claude/${abs.slice(homeClaude.length + 1)}`;
  }
  if (rel !== null) {
    const parts = rel.split('/');
    const name = parts[parts.length - 1] ?? '';
    if (parts.includes('.claude')) return rel;
    if (name.startsWith('CLAUDE') && name.endsWith('.md')) return `the instructions ${rel}`;
    if (name === '.gitattributes') return `the git attributes ${rel}`;
  }
  return null;
}
