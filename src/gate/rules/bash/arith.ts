/**
 * Arithmetic as bash evaluates it: `$(( ))`, `(( ))`, `for (( ))`, `let`, `[[ a -eq b ]]`, array
 * subscripts, slice offsets. A variable's value is itself evaluated as an expression, and an array
 * subscript inside that value expands again (`x='a[$(cmd)]'; echo $((x))` runs cmd), so a value
 * that is not known is code the analysis cannot see.
 */
import { parseShell, type ArithmeticExpression, type ParsedScript, type Word } from './parser.js';
import type { Scope } from './scope.js';
import { lookup, resolveWord, type WordEnv } from './words.js';

const MAX_DEPTH = 6;
/** Commands whose output is a number: safe to evaluate (`$(( $(wc -l < f) + 1 ))`). */
const NUMERIC_COMMANDS = new Set(['wc', 'nproc', 'date', 'seq', 'id', 'getconf', 'stat', 'du', 'printf']);
const NUMBER = /^\s*[-+]?\s*(?:0[xX][0-9a-fA-F]+|\d+#[0-9a-zA-Z@_]+|\d+)\s*$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Special parameters that always hold numbers. */
const NUMERIC_SPECIALS = new Set(['$', '!', '?', '#', 'RANDOM', 'SRANDOM', 'BASHPID', 'PPID', 'UID', 'EUID', 'SECONDS', 'EPOCHSECONDS', 'LINENO', 'SHLVL', 'COLUMNS', 'LINES', 'OPTIND']);

export class Arith {
  constructor(private readonly env: WordEnv) {}

  /** Walk an expression; false (and the scope tainted) when it may run code that cannot be seen. */
  expr(e: ArithmeticExpression | undefined, scope: Scope, text: string, depth = 0): boolean {
    if (e === undefined) {
      this.env.taint(scope, `the arithmetic ${short(text)} could not be parsed`);
      return false;
    }
    switch (e.type) {
      case 'ArithmeticBinary': {
        const ok = this.expr(e.left, scope, text, depth) && this.expr(e.right, scope, text, depth);
        if (/^(?:[-+*/%&|^]|<<|>>|\*\*)?=$/.test(e.operator) && e.left.type === 'ArithmeticWord') this.assigned(e.left.value, scope);
        return ok;
      }
      case 'ArithmeticUnary': {
        const ok = this.expr(e.operand, scope, text, depth);
        if ((e.operator === '++' || e.operator === '--') && e.operand.type === 'ArithmeticWord') this.assigned(e.operand.value, scope);
        return ok;
      }
      case 'ArithmeticTernary':
        return [e.test, e.consequent, e.alternate].map((x) => this.expr(x, scope, text, depth)).every(Boolean);
      case 'ArithmeticGroup':
        return this.expr(e.expression, scope, text, depth);
      case 'ArithmeticCommandExpansion':
        return this.substitution(e.script, e.text, scope);
      case 'ArithmeticWord': {
        let value: string | null = e.value;
        if (e.parts !== undefined && e.parts.length > 0) {
          // `$x`, `${a[i]}`, `$(cmd)` inside arithmetic expand first; the result is evaluated again.
          const word = { type: 'Word', text: e.value, value: e.value, pos: e.pos, end: e.end, parts: e.parts } as unknown as Word;
          const onlySub = e.parts.length === 1 && e.parts[0]?.type === 'CommandExpansion' ? e.parts[0] : null;
          const fields = resolveWord(word, scope, this.env);
          if (onlySub !== null && fields.some((f) => f.text === null)) return this.numericSubstitution(onlySub.script, onlySub.text, scope);
          value = fields.length === 1 && fields[0]?.text != null ? fields[0].text : null;
          if (value === null && e.parts.every((p) => p.type === 'SimpleExpansion' || p.type === 'ParameterExpansion') && e.parts.every((p) => this.numericName(p.text.replace(/^\$\{?|\}$/g, ''), scope))) return true;
        }
        return this.text(value, scope, `the arithmetic ${short(text)}`, depth);
      }
    }
  }

  /** Text evaluated as an arithmetic expression (a variable's value, an array subscript). */
  text(value: string | null, scope: Scope, what: string, depth = 0): boolean {
    if (value === null) {
      this.env.taint(scope, `${what} evaluates a value that is not known, which bash may run as code`);
      return false;
    }
    if (value.trim() === '' || NUMBER.test(value)) return true;
    if (NAME.test(value.trim())) return this.variable(value.trim(), scope, what, depth);
    if (depth >= MAX_DEPTH) {
      this.env.taint(scope, `${what} nests arithmetic too deeply to follow`);
      return false;
    }
    const script = parseShell(`(( ${value} ))`);
    const only = script.commands.length === 1 ? script.commands[0]?.command : undefined;
    if (script.errors?.length || only?.type !== 'ArithmeticCommand') {
      this.env.taint(scope, `${what} evaluates ${short(value)}, which the analysis cannot read`);
      return false;
    }
    return this.expr(only.expression, scope, value, depth + 1);
  }

  private variable(name: string, scope: Scope, what: string, depth: number): boolean {
    if (this.numericName(name, scope)) return true;
    // Never assigned in this command: its value comes from the environment the command cannot set.
    if (!scope.vars.has(name)) return true;
    const v = lookup(name, scope, this.env);
    if (v === null) {
      this.env.taint(scope, `${what} evaluates $${name}, whose value is not known and may hold code (an array subscript)`);
      return false;
    }
    return v.every((x) => this.text(x, scope, what, depth + 1));
  }

  private numericName(name: string, scope: Scope): boolean {
    return scope.numeric.has(name) || NUMERIC_SPECIALS.has(name) || /^\d+$/.test(name);
  }

  private assigned(name: string, scope: Scope): void {
    if (!NAME.test(name)) return;
    scope.vars.set(name, null);
    scope.numeric.add(name);
  }

  private substitution(script: ParsedScript | undefined, text: string, scope: Scope): boolean {
    const out = this.env.substitute(script, text, scope);
    if (typeof out === 'string') return this.text(out, scope, `the arithmetic ${short(text)}`);
    return out === null && numericScript(script) ? true : this.text(null, scope, `the arithmetic ${short(text)}`);
  }

  private numericSubstitution(script: ParsedScript | undefined, text: string, scope: Scope): boolean {
    if (numericScript(script)) return true;
    return this.text(null, scope, `the arithmetic ${short(text)}`);
  }
}

/** The substitution's last command prints a number (`wc -l`, `date +%s`). */
function numericScript(script: ParsedScript | undefined): boolean {
  let node = script?.commands.length === 1 ? script.commands[0]?.command : undefined;
  if (node?.type === 'Pipeline') node = node.commands[node.commands.length - 1];
  if (node?.type !== 'Command' || node.name === undefined) return false;
  const name = node.name.value;
  if (name === 'date') return node.suffix.every((s) => s.type === 'Word' && /^\+%[sNYmdHMS]+$|^-u$/.test(s.value));
  if (name === 'printf') return node.suffix[0]?.type === 'Word' && /^%[dix]$/.test(node.suffix[0].value);
  return NUMERIC_COMMANDS.has(name);
}

function short(text: string): string {
  return text.length > 60 ? text.slice(0, 57) + '…' : text;
}
