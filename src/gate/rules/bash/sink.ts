/** The interface command handlers report through, so the writer table stays free of the walker. */
import type { BashWrite, AnalyzeContext } from './types.js';
import type { Scope } from './scope.js';
import type { Arg, Output } from './words.js';

/** Where a command's standard input comes from, as far as it matters for interpreters. */
export type Stdin =
  | { kind: 'terminal' }
  /** Literal text (a heredoc, a here-string, `echo … |`); null when it comes from a dynamic source. */
  | { kind: 'text'; text: string | null; from: string }
  /** Lines that are paths matching these globs (`git ls-files src |`, `find src |`). */
  | { kind: 'list'; patterns: string[]; from: string }
  /** A file (`< f`); its path when known. */
  | { kind: 'file'; path: Arg | null };

export interface Call {
  name: string;
  args: Arg[];
  scope: Scope;
  stdin: Stdin;
  /** The command as written, for messages. */
  text: string;
}

export type WriteExtra = Partial<Pick<BashWrite, 'tree' | 'onlyTests' | 'content' | 'append' | 'copyOf' | 'metadataOnly' | 'patch' | 'pkgKeys' | 'stash' | 'inPlace' | 'removes'>>;

/** Languages the analysis follows into files: shell code, or inline-code analysis per interpreter. */
export type Lang = 'shell' | 'js' | 'python' | 'ruby' | 'perl' | 'php';

export interface Sink {
  readonly ctx: AnalyzeContext;
  /** A write to the path an argument names (resolved against every possible cwd). */
  write(scope: Scope, target: Arg, via: string, extra?: WriteExtra): void;
  /** A write whose target cannot be resolved statically. */
  unknown(reason: string): void;
  /** Unanalysable text: a problem only if one of `texts` names a protected path. */
  mention(scope: Scope, reason: string, texts: readonly string[]): void;
  /** A git command that moves HEAD, run in `scope`; with `unlessPaths`, a file restore when they all exist. */
  headMove(text: string, scope: Scope, unlessPaths?: Arg[]): void;
  cli(verb: string | null, args: readonly Arg[], text: string): void;
  /**
   * Shell code to analyse as if typed (`bash -c`, `eval`, a heredoc-fed shell); null = unknown code.
   * `followed`: the code was read from disk (package.json, a Makefile): what it leaves unresolved passes.
   */
  shell(code: string | null, scope: Scope, via: string, sameScope: boolean, followed?: boolean): void;
  /** Inline interpreter code (`node -e`, `python -c`); null = the program is not statically known. */
  inline(lang: string, code: string | null, scope: Scope, via: string, argv?: readonly Arg[]): void;
  /** Analyse a nested command (wrappers, `xargs`, `find -exec`); returns its stdout when known. */
  run(call: Call): Output;
  /** A link made by the command: later writes through `link` reach `target`. */
  link(scope: Scope, target: Arg, link: Arg, symbolic: boolean): void;
  /**
   * Follow a file the command runs (a script, a module), if it can be read when the hook runs;
   * false when it cannot (what it does then passes to the after-the-fact check).
   */
  follow(scope: Scope, file: Arg, lang: Lang, via: string, opts?: { sameScope?: boolean; args?: readonly Arg[] }): boolean;
  /** Read a file the command's tools read (package.json, a Makefile); null when it cannot be read. */
  read(scope: Scope, file: string): { text: string; abs: string } | null;
  /** Text bash evaluates as arithmetic (`let`, `declare -i`, an array subscript in a name). */
  arith(text: string | null, scope: Scope, what: string): void;
  /** Code the analysis cannot see ran: later writes are unknown. */
  taint(scope: Scope, reason: string): void;
}
