/**
 * The only module that knows the shell parser. Everything else sees these re-exported node types,
 * so swapping the parser means re-implementing this file and the node shapes it exposes.
 */
import { parse } from 'unbash';
import type { ParsedScript, Word } from 'unbash';

export type {
  ArithmeticExpression,
  AndOr,
  Assignment,
  Command,
  CommandNode,
  ParsedScript,
  PipelineNode,
  Redirection,
  Statement,
  TestExpression,
  Word,
  WordPart,
} from 'unbash';

export function parseShell(source: string): ParsedScript {
  return parse(source);
}

/** A word with no expansion of any kind: its text is what the program gets (null otherwise). */
export function literalWord(w: Word | undefined): string | null {
  if (w === undefined) return null;
  for (const p of w.parts ?? []) {
    if (p.type === 'Literal' || p.type === 'SingleQuoted') continue;
    if (p.type === 'DoubleQuoted' && p.parts.every((c) => c.type === 'Literal')) continue;
    return null;
  }
  return w.value;
}
