/** What a Bash command may do to the file system and to the cycle, as far as static analysis can tell. */
import type { InPlaceEdit } from './inPlace.js';

export interface BashWrite {
  /** The path as written (after word resolution), or a glob pattern when `glob` is set. */
  path: string;
  /** Directory a relative `path` is resolved from; null when a `cd` went somewhere unknown. */
  cwd: string | null;
  /** What writes it, for the reason the model reads (`rm`, `> redirection`, `python -c`). */
  via: string;
  /** `path` is a glob pattern: literal glob characters are backslash-escaped (minimatch syntax). */
  glob?: boolean;
  /** Anything under `path` may change (archive extraction, `git stash`, `eslint --fix .`). */
  tree?: boolean;
  /** A tree write that only touches test files (snapshot updates). */
  onlyTests?: boolean;
  /** The file's content after the write, when statically known (RED stub check). */
  content?: string;
  /** An in-place edit (`sed -i`, `perl -pi`): the content after is the current one with this edit applied. */
  inPlace?: InPlaceEdit;
  /** `content` is appended to the existing file. */
  append?: boolean;
  /** The file becomes a copy of this one (resolved from `cwd`): its content is on disk. */
  copyOf?: string;
  /** The file is removed (`rm`, `unlink`, the source of `mv`). */
  removes?: boolean;
  /** Changes times or creates an empty file (`touch`): an existing file keeps its content. */
  metadataOnly?: boolean;
  /**
   * `path` is only the static beginning of the target (`/tmp/build-` in `/tmp/build-$(date +%s).log`);
   * the rest is computed at run time. Outside the project it stays outside, unless an entry it could
   * name is a directory or a link (judged on disk).
   */
  dynamicTail?: boolean;
  /** With `dynamicTail`: the computed rest holds no `/` (`/tmp/$(basename "$f")`): it names an entry of that directory. */
  slashFree?: boolean;
  /** With `slashFree`: the literal end of the name. */
  tailSuffix?: string;
  /** Globs match regardless of case (`shopt -s nocaseglob`). */
  nocase?: boolean;
  /**
   * The target is a patch: the files it changes are named in its headers. `path` is the patch
   * file (read on disk), unless `text` holds the patch already (a heredoc, a file this command
   * wrote, or one the analysis read). `root`: paths may also be relative to it (git apply).
   */
  patch?: { strip: number | null; directory: string | null; text?: string; root?: string };
  /**
   * `git stash pop|apply`: the files of the stash entries `stash@{from}` … `stash@{to}` as they are
   * before the command (the range covers entries this command pushed before, which may be none).
   */
  stash?: { from: number; to: number };
  /** A package.json edited by its package manager (`npm pkg set`): the keys it changes; null when not static. */
  pkgKeys?: string[] | null;
}

/** Text that could not be analysed; it is a problem only if it names a protected path. */
interface BashMention {
  reason: string;
  candidates: string[];
  cwd: string | null;
}

interface BashCliCall {
  /** `verify red`, `abort`, …; null when the verb is not static. */
  verb: string | null;
  args: string[];
  /** Every argument was literal (not `$X`, not a substitution). */
  literal: boolean;
  text: string;
}

export interface BashHeadMove {
  text: string;
  /** Where the git command may run (null: not statically known). */
  cwds: (string | null)[];
  /** `git checkout x` is a file write, not a branch switch, when every `x` exists as a path. */
  unlessPaths?: { paths: string[]; cwd: string | null };
}

export interface BashAnalysis {
  writes: BashWrite[];
  /** Writes whose target cannot be resolved: each is a reason to fail closed. */
  unknown: string[];
  mentions: BashMention[];
  cliCalls: BashCliCall[];
  headMoves: BashHeadMove[];
  parseErrors: string[];
  /**
   * Programs, options and constructs the analysis does not model (an unknown program, an option
   * that runs a command, a computed command word, a background job): without the OS wall, none of
   * them runs silently during a cycle (ADR 010).
   */
  unmodelled: BashUnmodelled[];
}

interface BashUnmodelled {
  /** The program, option or construct, as the command spells it. */
  program: string;
  /** What it does that the analysis cannot check, for the reason. */
  what: string;
}

export interface AnalyzeContext {
  cwd: string;
  home: string;
  /** The project root, for `$(git rev-parse --show-toplevel)`. */
  root: string;
  /** Environment variables whose values the command sees too (an allowlist chosen by the caller). */
  inherited?: Readonly<Record<string, string>>;
  /**
   * Reads a file the command runs (a script, package.json, a Makefile) when the hook runs;
   * null when it cannot be read. Without it nothing is followed.
   */
  read?: (absPath: string) => string | null;
  /** The path exists (a program file that is missing runs nothing); without it, a file that cannot be read is unmodelled. */
  exists?: (absPath: string) => boolean;
  /** stack.json `bash_allow`, each entry split into words: programs (and subcommands) the project allows unmodelled. */
  allow?: readonly (readonly string[])[];
}
