/**
 * The only module that knows the shell parser. Everything else sees these re-exported node types,
 * so swapping the parser means re-implementing this file and the node shapes it exposes.
 */
import { parse } from 'unbash';
import type { ParsedScript } from 'unbash';

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
