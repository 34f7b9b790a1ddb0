import { compileGlobs } from '../../state/rules/globs.js';

/**
 * Reading held-out tests (docs/heldout.md): from the freeze to `done` no tool call may read them,
 * whoever makes it (the implementer, the refactorer, the orchestrator, which could pass their
 * content on). Pure decisions over facts the hook gathers: canonical paths and the command's text.
 */

export interface HeldoutFacts {
  /** Canonical project root (absolute, `/`-separated). */
  root: string;
  /** Root-relative held-out files. */
  files: readonly string[];
  /** The other frozen files (visible tests, test configs): a pattern that matches them too is not aimed at the held-out ones. */
  others: readonly string[];
  /** The store's folders (canonical, absolute): the copy and its mirror. */
  stores: readonly string[];
  /** The git common directory (canonical, absolute): the store lives inside it. */
  gitCommonDir: string;
  /** The plugin's data directory, when Claude Code gives one (the mirror lives there). */
  pluginData: string | null;
}

export type ReadVerdict = { hidden: false } | { hidden: true; what: string };

const OK: ReadVerdict = { hidden: false };

function within(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

function base(rel: string): string {
  return rel.slice(rel.lastIndexOf('/') + 1);
}

/**
 * A file tool's path (canonical, absolute): the store or anything in it, a held-out file's place
 * in the tree, or — for tools that walk a folder (Grep, Glob) — a folder the store is inside,
 * within the git directory or the plugin's data directory.
 */
export function pathReachesHeldout(f: HeldoutFacts, p: string, walks: boolean): ReadVerdict {
  for (const s of f.stores) if (within(p, s)) return { hidden: true, what: "the cycle's held-out store" };
  for (const rel of f.files) if (p === `${f.root}/${rel}`) return { hidden: true, what: `the held-out test ${rel}` };
  if (walks) {
    const containers = [f.gitCommonDir, ...(f.pluginData !== null ? [f.pluginData] : [])];
    for (const s of f.stores) if (within(s, p) && containers.some((c) => within(p, c))) return { hidden: true, what: "a folder that holds the cycle's held-out store" };
  }
  return OK;
}

/** Words that name the held-out tests or the way to their store, in any text a tool is given (lower case). */
function heldoutWords(f: HeldoutFacts): string[] {
  // (not the bare word "heldout": a project or a folder may be called so)
  const words = new Set<string>(['tdd-gate-oracle-copy']);
  for (const rel of f.files) {
    words.add(rel.toLowerCase());
    if (base(rel).length >= 4) words.add(base(rel).toLowerCase());
  }
  for (const s of f.stores) words.add(s.toLowerCase());
  return [...words];
}

/** Text a tool is given (a search pattern, an MCP argument) that names the held-out tests or their store. */
export function textNamesHeldout(f: HeldoutFacts, text: string): ReadVerdict {
  const lower = text.toLowerCase();
  for (const w of heldoutWords(f)) if (lower.includes(w)) return { hidden: true, what: `"${w.length > 60 ? `${w.slice(0, 60)}…` : w}"` };
  return OK;
}

/** A glob pattern (Glob's, Grep's `glob`) that matches a held-out file, by its path or its base name. */
export function globNamesHeldout(f: HeldoutFacts, pattern: string): ReadVerdict {
  let match: (rel: string) => boolean;
  try {
    const p = pattern.startsWith(`${f.root}/`) ? pattern.slice(f.root.length + 1) : pattern;
    match = compileGlobs([p], false);
  } catch {
    return OK;
  }
  // A pattern that also matches ordinary test files is a search of the tests (the held-out ones are not in the tree).
  if (f.others.some((rel) => match(rel) || match(base(rel)))) return OK;
  for (const rel of f.files) if (match(rel) || match(base(rel))) return { hidden: true, what: `files matching ${pattern}: the held-out tests` };
  return OK;
}

/** Spellings that lead a shell command into the git directory or the plugin's data directory, where the store is. */
const GIT_DIR_WORDS = ['.git/', '--git-dir', '--git-common-dir', '--absolute-git-dir', 'git_dir', 'git_common_dir', 'claude_plugin_data', 'gitdir'];

/** Code that decompresses (the store's copies are compressed): an inline program or a script saying one of these reads it. */
const DECOMPRESS_WORDS = ['gzip', 'gunzip', 'zlib', 'inflate', 'decompress', 'zcat'];

/** Programs that decompress or unpack files. */
const DECOMPRESSORS = new Set(['zcat', 'gunzip', 'gzcat', 'zless', 'zmore', 'zgrep', 'zegrep', 'zfgrep', 'zdiff', 'zcmp', 'unpigz', 'pigz', 'gzip', '7z', '7za', 'bsdtar', 'tar', 'busybox', 'uncompress', 'zstdcat', 'zipgrep']);

/** Programs that copy or archive a whole folder (a copy of the store, read elsewhere). */
const TREE_COPIERS = new Set(['cp', 'rsync', 'tar', 'zip', 'cpio', 'scp', 'ditto', 'pax', 'bsdtar', 'find']);

/**
 * The text of a shell command, or of a script or inline program it runs: names a held-out test, the
 * store, the oracle's private copy, the way into the git directory or the plugin's data directory
 * (`.git/`, `git rev-parse --git-dir`, `$CLAUDE_PLUGIN_DATA`), or — for code — decompression.
 */
export function shellTextReaches(f: HeldoutFacts, text: string, code: boolean): ReadVerdict {
  const named = textNamesHeldout(f, text);
  if (named.hidden) return named;
  const lower = text.toLowerCase();
  const dirs = [f.gitCommonDir, ...(f.pluginData !== null ? [f.pluginData] : [])].map((d) => d.toLowerCase());
  for (const w of [...GIT_DIR_WORDS, ...dirs]) if (lower.includes(w)) return { hidden: true, what: w.startsWith('/') ? 'the git directory' : `"${w}"` };
  if (lower.endsWith('.git') || lower.includes('.git ') || lower.includes('.git"') || lower.includes(".git'") || lower.includes('.git;') || lower.includes('.git)')) return { hidden: true, what: '".git"' };
  if (code) for (const w of DECOMPRESS_WORDS) if (lower.includes(w)) return { hidden: true, what: `code that decompresses ("${w}")` };
  return OK;
}

/** One simple command of a shell command line, as the hook's parser gives it. */
export interface ShellCall {
  /** The program's base name; null when computed. */
  program: string | null;
  /** Its arguments: the literal text, or null for an argument computed at run time. */
  args: (string | null)[];
  /** Canonical absolute paths of the literal arguments that exist on disk (relative ones from the command's folder). */
  paths: string[];
  /** The folder the command runs in (canonical), or null when a `cd` made it unknown. */
  cwd: string | null;
}

/**
 * A command that could reach the store by a path the text does not show: a decompressor or a
 * folder copier/walker whose arguments are computed, or that runs over a folder holding the store
 * (its own folder when no path is given), and programs whose name is itself computed.
 */
export function callReaches(f: HeldoutFacts, c: ShellCall): ReadVerdict {
  if (c.program === null) return { hidden: true, what: 'a program whose name is computed at run time' };
  if (c.program === 'xargs') {
    // xargs runs the program its arguments name on what it reads: judged as that program over its folder.
    const inner = c.args.find((a) => a === null || !a.startsWith('-'));
    if (inner === undefined) return OK;
    if (inner === null) return { hidden: true, what: 'xargs running a program whose name is computed' };
    return callReaches(f, { ...c, program: inner.slice(inner.lastIndexOf('/') + 1), args: [], paths: [] });
  }
  // find only lists names unless it runs a program on what it finds.
  if (c.program === 'find' && !c.args.some((a) => a === null || a.startsWith('-exec') || a.startsWith('-ok'))) return OK;
  const risky = DECOMPRESSORS.has(c.program) || TREE_COPIERS.has(c.program);
  if (!risky) return OK;
  if (c.args.some((a) => a === null)) return { hidden: true, what: `${c.program} with an argument computed at run time` };
  const targets = c.paths.length > 0 ? c.paths : c.cwd === null ? [] : [c.cwd];
  if (c.paths.length === 0 && c.cwd === null) return { hidden: true, what: `${c.program} in a folder the command computes` };
  for (const p of targets) {
    for (const s of f.stores) if (within(s, p) || within(p, s)) return { hidden: true, what: `${c.program} over a folder that holds the cycle's held-out store` };
  }
  return OK;
}

/** The deny reason: what was blocked, by which rule, what to do. Never how the store is laid out. */
export function heldoutDenyReason(tool: string, what: string, phase: string, who: string): string {
  return `Blocked ${tool} (phase ${phase}, ${who}): it would read ${what}. Held-out tests are unseen tests of the same behaviour: from the freeze until \`tdd-gate done\` no agent reads them, and the oracle runs them at every verify. Implement the behaviour the SPEC describes for every input, not the examples of the visible tests; a held-out refusal from \`verify green\` names the failing test and its assertion message. If you believe a held-out test is wrong, stop and report \`TEST_BUG: held-out test "<name>" — <why>\` to the orchestrator. This attempt was recorded.`;
}
