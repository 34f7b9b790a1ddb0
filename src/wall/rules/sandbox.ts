import type { Phase } from '../../state/schema/state.js';
import { wallCandidates, wallDenyList, type WallClass, type WallPathFacts } from './controlPaths.js';
import { shortTmpFor } from './mode.js';
import { TDD_DIR } from '../../state/rules/tddDir.js';
import { unsandboxedVerbs } from '../../state/rules/verbs.js';

/**
 * Hardened mode: the `sandbox` and `permissions.deny` section tdd-gate keeps in the project's
 * `.claude/settings.local.json` while a cycle is active, computed from facts alone.
 *
 * Claude Code's Bash sandbox (bubblewrap on Linux, Seatbelt on macOS) makes every path in
 * `sandbox.filesystem.denyWrite` read-only for every sandboxed command, however it is written.
 * Sharp edges this module is built around (measured with the real client, see docs/hardened.md):
 * `*`-globs in denyWrite are ignored on Linux (exact paths and `dir/**`-free directory paths work),
 * Write/Edit are not sandboxed (the `Edit(…)` deny rules cover them), and
 * `dangerouslyDisableSandbox` escapes unless `allowUnsandboxedCommands` is false.
 */

export interface HardeningFacts {
  /** Canonical project root (absolute, `/`-separated). */
  root: string;
  /** The person's home directory (absolute). */
  home: string;
  /** The worktree's git directory and the common one (absolute): tdd-gate's records live in their `tdd-gate/`. */
  gitDir: string;
  gitCommonDir: string;
  phase: Phase;
  /** Root-relative path of the SPEC. */
  specPath: string;
  /** Root-relative paths frozen at the freeze (tests, test configs, the SPEC); empty before it. */
  frozenFiles: readonly string[];
  /** Root-relative test globs (stack.json `test_file_glob`): a whole `dir/**` becomes a directory wall. */
  testGlobs: readonly string[];
  /** How the orchestrator runs the CLI, e.g. `node "/plugins/tdd-gate/dist/cli.mjs"`. */
  cliCommand: string;
  /** stack.json `language`. */
  language: string;
  /** Registry hosts the person configured (npm `registry`, pip `index-url`…), added to the allow-list. */
  extraDomains: readonly string[];
  /** Temporary directories to keep writable (`/tmp`, `$TMPDIR`). */
  tmpDirs: readonly string[];
  /** Absolute `PATH` entries: a writable one would let a command plant the `node` the CLI runs with. */
  pathDirs?: readonly string[];
  /** The rest of what the wall holds (control set, records, runner): see src/wall/rules/controlPaths.ts. */
  wall?: Omit<WallPathFacts, 'root' | 'home' | 'gitDir' | 'gitCommonDir' | 'frozen' | 'specPath' | 'frozenFiles' | 'testDirs'>;
  /** Which candidates exist (absolute); absent: all of them (a missing one then gets a placeholder). */
  existing?: ReadonlySet<string>;
  /** The client's own temporary folder (its bridge sockets live there); absent: unknown. */
  clientTmp?: string;
  /** Held-out tests out of sight (docs/heldout.md): the store's folders and the held-out files' places (absolute). */
  heldout?: { stores: readonly string[]; files: readonly string[] } | null;
}

/** What tdd-gate keeps in the settings file: the hardened section, or (held-out tests alone, hardened mode off) its permission rules only. */
export type SettingsSection = Omit<HardeningSection, 'sandbox'> & { sandbox?: SandboxSection };

/**
 * `Read(…)` deny rules for held-out tests out of sight: the store's folders and the files' places in
 * the tree (they cover Read, Grep and Glob in the client; `//` starts an absolute path).
 */
function heldoutReadRules(heldout: { stores: readonly string[]; files: readonly string[] }): string[] {
  return [...heldout.stores.map((d) => `Read(/${d}/**)`), ...heldout.files.map((f) => `Read(/${f})`)];
}

/** The section kept in the settings for held-out tests alone, when hardened mode is off. */
export function heldoutSection(heldout: { stores: readonly string[]; files: readonly string[] }): SettingsSection {
  return { deny: heldoutReadRules(heldout) };
}

interface SandboxSection {
  enabled: true;
  failIfUnavailable: true;
  allowUnsandboxedCommands: false;
  excludedCommands: string[];
  filesystem: { allowWrite: string[]; denyWrite: string[]; denyRead?: string[] };
  /** `allowLocalBinding`: servers on localhost (macOS; on Linux each sandboxed command has its own network). */
  network: { allowedDomains: string[]; allowLocalBinding?: true };
}

export interface HardeningSection {
  sandbox: SandboxSection;
  /** `Edit(…)` deny rules (they cover Write, Edit and NotebookEdit, which the sandbox does not). */
  deny: string[];
  /** Environment for the client (a short TMPDIR when its own is too long for the bridge sockets). */
  env?: Record<string, string>;
  /** What each denyWrite entry is (its class), for the explanation when the wall stops a write. */
  classes?: Record<string, WallClass>;
}

/**
 * The CLI verbs that run outside the sandbox: they write `.tdd/`, which the sandbox denies. The
 * gate lets them through only as one plain call (see `isPlainCliCall`), and the CLI walls the
 * commands it runs itself (tests, lint) with the same denyWrite list. `status` and `harden` stay
 * sandboxed: `harden status` proves the wall from inside it, and `harden off` cannot run from
 * inside it (the person turns the wall off outside Claude Code, or ends the cycle).
 */

/** Public registries of each stack: package installs keep working through the sandbox's proxy. */
const REGISTRIES: Record<string, readonly string[]> = {
  node: ['registry.npmjs.org', 'registry.yarnpkg.com', 'codeload.github.com'],
  python: ['pypi.org', 'files.pythonhosted.org'],
  go: ['proxy.golang.org', 'sum.golang.org', 'storage.googleapis.com'],
  rust: ['crates.io', 'index.crates.io', 'static.crates.io'],
};

const LANGUAGE_FAMILY: Record<string, keyof typeof REGISTRIES> = {
  typescript: 'node',
  javascript: 'node',
  ts: 'node',
  js: 'node',
  node: 'node',
  python: 'python',
  py: 'python',
  go: 'go',
  golang: 'go',
  rust: 'rust',
};

/** Package caches the stacks write during ordinary work (installs, builds, test runs). */
const HOME_CACHES = ['.npm', '.cache', '.yarn', '.pnpm-store', '.local/share/pnpm', '.cargo/registry', '.cargo/git', 'go/pkg'];

function join(...parts: string[]): string {
  return parts.join('/').replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
}

/** The literal directory of a `dir/**` glob (the whole directory holds tests), else null. */
export function wholeDirOf(glob: string): string | null {
  const m = /^(?:\.\/)?([^*?[\]{}!]+?)\/\*\*(?:\/\*)?$/.exec(glob.trim());
  if (!m?.[1]) return null;
  const dir = m[1];
  if (dir.split('/').some((seg) => seg === '..' || seg === '.' || seg === '')) return null;
  return dir;
}

function unique(xs: readonly string[]): string[] {
  return [...new Set(xs)];
}

interface ProtectedPath {
  path: string;
  /** A directory: everything under it is covered (an `Edit(…/**)` rule for the file tools). */
  dir: boolean;
}

/**
 * What sandboxed commands must not write in `phase` (absolute; no globs: Linux ignores them): the
 * control set, the cycle's records, the SPEC and, from the freeze on, the frozen set, the whole
 * test directories and the test runner's installation (src/wall/rules/controlPaths.ts). Git itself
 * stays writable (commits are ordinary work); its configuration, hooks and info do not.
 */
export function protectedPaths(f: HardeningFacts): (ProtectedPath & { cls: WallClass })[] {
  const frozen = f.phase === 'tdd-green' || f.phase === 'tdd-refactor';
  const wall: WallPathFacts = {
    xdgConfigHome: null,
    zdotdir: null,
    recordDirs: [],
    runnerRoots: [],
    pythonUserSites: [],
    nestedInstructionFiles: [],
    ...f.wall,
    root: f.root,
    home: f.home,
    gitDir: f.gitDir,
    gitCommonDir: f.gitCommonDir,
    frozen,
    specPath: f.specPath,
    frozenFiles: f.frozenFiles,
    testDirs: f.testGlobs.map(wholeDirOf).filter((d): d is string => d !== null),
  };
  const candidates = wallCandidates(wall);
  const existing = f.existing ?? new Set(candidates.map((c) => c.path));
  return wallDenyList(candidates, existing, [f.root, ...writableDirs(f)], f.root).map((p) => ({ path: p.path, dir: p.dir, cls: p.cls }));
}

/** The section to keep while a cycle is active; null when none is (phase `done`). */
export function hardeningFor(f: HardeningFacts): HardeningSection | null {
  if (f.phase === 'done') return null;
  const paths = protectedPaths(f);
  const family = LANGUAGE_FAMILY[f.language.trim().toLowerCase()];
  const domains = unique([...(family ? REGISTRIES[family]! : []), ...f.extraDomains.filter((d) => /^[A-Za-z0-9.-]+$/.test(d))]);
  const tmp = f.clientTmp === undefined ? null : shortTmpFor(f.clientTmp);
  return {
    sandbox: {
      enabled: true,
      failIfUnavailable: true,
      allowUnsandboxedCommands: false,
      excludedCommands: unsandboxedVerbs().map((verb) => `${f.cliCommand} ${verb} *`),
      filesystem: {
        allowWrite: writableDirs(f),
        denyWrite: paths.map((p) => p.path),
        // Held-out tests out of sight: no sandboxed command reads their store (docs/heldout.md).
        ...(f.heldout ? { denyRead: [...f.heldout.stores] } : {}),
      },
      network: { allowedDomains: domains, allowLocalBinding: true },
    },
    deny: [...editDenyRules(f, paths), ...(f.heldout ? heldoutReadRules(f.heldout) : [])],
    ...(tmp === null ? {} : { env: { TMPDIR: tmp } }),
    classes: Object.fromEntries(paths.map((p) => [p.path, p.cls])),
  };
}

/**
 * `Edit(…)` deny rules for the file tools (`//` starts an absolute path; `/**` covers a directory).
 * In tdd-plan the planner writes `.tdd/plans/**` with Write, and a deny rule cannot carve that out,
 * so `.tdd/` is covered by its stack.json and snapshots there (the gate's own check denies the state).
 */
function editDenyRules(f: HardeningFacts, paths: readonly ProtectedPath[]): string[] {
  const tdd = join(f.root, TDD_DIR);
  const rules: string[] = [];
  for (const p of paths) {
    if (f.phase === 'tdd-plan' && p.path === tdd) {
      // No `state-*` glob: the client warns about globs in Edit rules on Linux (its sandbox ignores them).
      rules.push(`Edit(/${join(tdd, 'stack.json')})`, `Edit(/${join(tdd, 'snapshots')}/**)`);
      continue;
    }
    rules.push(`Edit(/${p.path}${p.dir ? '/**' : ''})`);
  }
  return rules;
}

const PLAIN_WORD = String.raw`(?:[A-Za-z0-9_@%+=:,./-]+|'[^'\n]*'|"[^"$\x60\\!\n]*")`;
const HEREDOC = /^<<-?'([A-Za-z_][A-Za-z0-9_]*)'\n([\s\S]*)$/;

/**
 * Whether `command` is one plain call of the CLI: `<cli> <verb> <plain words…>`, optionally `2>&1`
 * and one quoted heredoc as its input (how the skill hands `result` a child's message), and nothing
 * else: no `;`, `&&`, pipes, redirects, `$(…)`, variables or leading assignments. Older clients take
 * a whole command line out of the sandbox when it merely starts with an excluded prefix; this is
 * what keeps a second command from riding along.
 */
export function isPlainCliCall(command: string, cliCommand: string): boolean {
  const text = command.replace(/^\s+/, '').replace(/\s+$/, '');
  if (!text.startsWith(`${cliCommand} `)) return false;
  let rest = text.slice(cliCommand.length);
  const nl = rest.indexOf('\n');
  let heredoc: string | null = null;
  if (nl >= 0) {
    const lineEnd = rest.slice(0, nl);
    const at = lineEnd.lastIndexOf(' <<');
    if (at < 0) return false;
    heredoc = rest.slice(at + 1);
    rest = lineEnd.slice(0, at);
  }
  if (!new RegExp(String.raw`^(?: +${PLAIN_WORD})+(?: +2>&1)?$`).test(rest)) return false;
  if (heredoc === null) return true;
  const m = HEREDOC.exec(heredoc);
  if (!m) return false;
  const lines = m[2]!.split('\n');
  // The delimiter closes the heredoc on the last line, and nowhere before it.
  return lines[lines.length - 1] === m[1] && !lines.slice(0, -1).includes(m[1]!);
}

/** The CLI command (`node "<…>/cli.mjs"`) that the section's excludedCommands were made for. */
export function cliCommandOfSection(section: SettingsSection): string | null {
  const first = section.sandbox?.excludedCommands[0];
  const m = first ? /^(node "[^"]+") \S+ \*$/.exec(first) : null;
  return m?.[1] ?? null;
}

/** Caches and temp, minus any that holds a PATH entry (pnpm puts its global bin in its data dir). */
function writableDirs(f: HardeningFacts): string[] {
  const path = f.pathDirs ?? [];
  const holdsPath = (dir: string) => path.some((p) => p === dir || p.startsWith(`${dir}/`));
  return unique([...HOME_CACHES.map((c) => join(f.home, c)), ...f.tmpDirs]).filter((d) => !holdsPath(d));
}

/** PATH entries a sandboxed command could write (relative, or inside the project): a planted `node` there runs outside the wall. */
export function writablePathEntries(pathDirs: readonly string[], root: string): string[] {
  return pathDirs.filter((p) => p !== '' && (!p.startsWith('/') || p === root || p.startsWith(`${root}/`)));
}
