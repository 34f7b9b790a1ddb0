/** The interface command handlers report through, so the writer table stays free of the walker. */
import type { BashWrite, AnalyzeContext } from './types.js';
import type { Scope } from './scope.js';
import type { Arg } from './words.js';

/** Where a command's standard input comes from, as far as it matters for interpreters. */
export type Stdin =
  | { kind: 'terminal' }
  /** Literal text (a heredoc, a here-string, `echo … |`); null when it comes from a dynamic source. */
  | { kind: 'text'; text: string | null; from: string }
  | { kind: 'file' };

export interface Call {
  name: string;
  args: Arg[];
  scope: Scope;
  stdin: Stdin;
  /** The command as written, for messages. */
  text: string;
}

export type WriteExtra = Partial<Pick<BashWrite, 'tree' | 'onlyTests' | 'content' | 'append' | 'copyOf'>>;

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
  /** Shell code to analyse as if typed (`bash -c`, `eval`, a heredoc-fed shell); null = unknown code. */
  shell(code: string | null, scope: Scope, via: string, sameScope: boolean): void;
  /** Inline interpreter code (`node -e`, `python -c`); null = the program is not statically known. */
  inline(lang: string, code: string | null, scope: Scope, via: string, argv?: readonly Arg[]): void;
  /** Analyse a nested command (wrappers, `xargs`, `find -exec`); returns its stdout when known. */
  run(call: Call): string | null;
}
