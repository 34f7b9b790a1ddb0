/**
 * The Bash analysis: walk every construct of a command line and collect what it may write, which
 * git commands move HEAD, which tdd-gate verbs it runs, and what could not be resolved. Pure: the
 * caller resolves paths on disk and decides.
 *
 * Every node kind of the parser's tree is handled here (test/bash/nodes.test.ts checks the list
 * against the parser's own type declarations): walked for the code it runs, or, where bash
 * evaluates code the analysis cannot, the scope is tainted and later writes become unknown.
 */
import { isDigit, isWordChar } from '../../../state/rules/ascii.js';
import { Arith } from './arith.js';
import { runCommand } from './commands.js';
import { injectedEnv } from './envPrefix.js';
import { analyzeInline, analyzeProgramFile } from './inline.js';
import { cliVerb } from './cliCalls.js';
import {
  parseShell,
  type AndOr,
  type ArithmeticExpression,
  type Assignment,
  type Command,
  type CommandNode,
  type ParsedScript,
  type PipelineNode,
  type Redirection,
  type Statement,
  type TestExpression,
  type Word,
} from './parser.js';
import { baseName, isAbsolute, isDeviceSink, joinPath } from './paths.js';
import { Scope, type FunctionDef } from './scope.js';
import type { Call, Lang, Sink, Stdin, WriteExtra } from './sink.js';
import type { AnalyzeContext, BashAnalysis, BashHeadMove, BashWrite } from './types.js';
import { resolveSingle, resolveWord, slashFreeOutput, walkWord, type Arg, type Output, type WordEnv } from './words.js';
import { knownOutput } from './substitutions.js';

/** Nested `bash -c` / `eval` / heredoc shells deeper than this are not followed: unknown. */
const MAX_REPARSE_DEPTH = 8;
/** Candidate words checked when text cannot be parsed; beyond this the text is unknown. */
const MAX_MENTIONS = 2000;
/** Nested loops deeper than this are walked once (a second pass doubles the work at every level). */
const MAX_LOOP_PASSES = 3;
/** Function calls nested deeper than this (recursion) are not followed again. */
const MAX_CALL_DEPTH = 8;

/** Every node `type` the walker handles (test/bash/nodes.test.ts compares it with the parser's). */
export const HANDLED_NODE_TYPES = [
  'Script', 'Statement', 'CompoundList', 'AndOr', 'Pipeline', 'Time', 'Negation', 'Command', 'Subshell', 'BraceGroup',
  'If', 'Elif', 'For', 'Select', 'While', 'ArithmeticFor', 'Case', 'CaseItem', 'Function', 'Coproc', 'Redirected',
  'TestCommand', 'ArithmeticCommand', 'TestUnary', 'TestBinary', 'TestLogical', 'TestNot', 'TestGroup',
  'Word', 'Literal', 'Glob', 'SingleQuoted', 'DoubleQuoted', 'AnsiCQuoted', 'LocaleString', 'SimpleExpansion',
  'ParameterExpansion', 'CommandExpansion', 'ArithmeticExpansion', 'ProcessSubstitution', 'ExtendedGlob', 'BraceExpansion',
  'Default', 'Remove', 'Replace', 'Slice', 'CaseModification', 'Transform', 'Names', 'Unknown',
  'ArithmeticBinary', 'ArithmeticUnary', 'ArithmeticTernary', 'ArithmeticGroup', 'ArithmeticWord', 'ArithmeticCommandExpansion',
  'Assignment', 'ArrayValue', 'Redirect', 'HereString', 'HereDoc', 'HereDocDelimiter', 'HereDocBody',
  'FileDescriptor', 'FileDescriptorVariable',
] as const;

export function analyzeBash(command: string, ctx: AnalyzeContext): BashAnalysis {
  const a = new Analyzer(ctx);
  a.source(command, new Scope(ctx.cwd), 'the command');
  a.finish();
  return a.result;
}

const DECLARE = new Set(['export', 'local', 'declare', 'typeset', 'readonly']);
/** Prompt and trace strings: bash expands them (command substitutions included) when it prints them. */
const PROMPT_VARS = new Set(['PS0', 'PS1', 'PS2', 'PS3', 'PS4']);
/** Arithmetic comparison operators of `[[ ]]`: their operands are evaluated as arithmetic. */
const TEST_ARITH = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

class Analyzer implements Sink {
  readonly result: BashAnalysis = { writes: [], unknown: [], mentions: [], cliCalls: [], headMoves: [], parseErrors: [] };
  private depth = 0;
  /** Loops being walked inside each other: only the outer few get a second pass. */
  private loops = 0;
  /**
   * Above zero while code read from disk is followed (a script, a package.json script, a recipe):
   * what cannot be resolved there passes like a script that cannot be read; known writes still count.
   */
  private lenient = 0;
  private callDepth = 0;
  private readonly unparsed: string[] = [];
  private readonly env: WordEnv;
  private readonly arith_: Arith;
  private readonly following = new Set<string>();
  private readonly defined: FunctionDef[] = [];
  /** Files this command writes, with their content when known: a script written and then run is followed from here. */
  private readonly written = new Map<string, string | null>();

  constructor(readonly ctx: AnalyzeContext) {
    this.env = {
      home: ctx.home,
      ...(ctx.inherited ? { inherited: ctx.inherited } : {}),
      substitute: (script, text, scope) => this.substitute(script, text, scope),
      arith: (expr, scope, text) => this.arith_.expr(expr, scope, text),
      arithText: (text, scope, what) => this.arith_.text(text, scope, what),
      promptCode: (value, scope, what) => this.promptCode(value, scope, what),
      taint: (scope, reason) => this.taint(scope, reason),
      unparsed: (text, scope) => {
        this.mention(scope, `the expansion ${text.slice(0, 60)} could not be parsed as bash reads it`, [text]);
        this.taint(scope, `the expansion ${text.slice(0, 60)} could not be parsed as bash reads it`);
      },
    };
    this.arith_ = new Arith(this.env);
  }

  /** Parse and walk shell text; a parse error makes the text's words mentions. */
  source(text: string, scope: Scope, via: string): void {
    const script = parseShell(text);
    this.script(script, scope, text, via);
  }

  /** Functions defined but never called where the analysis can see: their bodies still count. */
  finish(): void {
    for (let i = 0; i < this.defined.length; i++) {
      const f = this.defined[i] as FunctionDef;
      if (f.called) continue;
      f.called = true;
      this.functionBody(f, f.defined.fork());
    }
    // Loops are walked twice: the same write found twice is one write.
    const seen = new Set<string>();
    this.result.writes = this.result.writes.filter((w) => {
      const key = JSON.stringify(w);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    this.result.mentions = this.result.mentions.filter((m) => {
      const key = JSON.stringify(m);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  /** Walk a parsed script; returns what its only statement prints, when known (for substitutions). */
  private script(script: ParsedScript | undefined, scope: Scope, text: string, via: string): Output {
    if (script === undefined) {
      this.mention(scope, `${via} could not be parsed`, [text]);
      return null;
    }
    if (script.errors && script.errors.length > 0) {
      const msg = script.errors.map((e) => e.message).slice(0, 3).join('; ');
      this.result.parseErrors.push(msg);
      // Nested substitutions repeat their parent's text: mention each stretch of text once.
      if (!this.unparsed.some((t) => t.includes(text))) {
        this.unparsed.push(text);
        this.mention(scope, `${via} could not be parsed (${msg})`, [text]);
      }
    }
    return this.statements(script.commands, scope);
  }

  private statements(list: readonly Statement[], scope: Scope): Output {
    let out: Output = null;
    for (const st of list) {
      if (!scope.live) return null;
      if (st.background) this.node(st.command, scope.fork(), { kind: 'terminal' });
      else out = this.node(st.command, scope, { kind: 'terminal' });
    }
    return list.length === 1 ? out : null;
  }

  /** Walk one node; returns the node's stdout when statically known (for pipes). */
  private node(n: PipelineNode | AndOr, scope: Scope, stdin: Stdin): Output {
    if (n.type === 'AndOr') {
      this.andOr(n, scope);
      return null;
    }
    if (n.type === 'Pipeline') {
      // `time` and `!` prefixes change nothing the analysis models.
      let input: Stdin = stdin;
      let out: Output = null;
      // Every element of a pipeline runs in its own subshell.
      for (const c of n.commands) {
        out = this.command(c, scope.fork(), input);
        input = stdinOf(out, 'a pipe');
      }
      return out;
    }
    return this.command(n, scope, stdin);
  }

  /** `a && b || c`: which side runs is never guessed; each command sees every state it may run in. */
  private andOr(n: AndOr, scope: Scope): void {
    const outcomes: Scope[] = [];
    let before = scope.fork();
    this.node(n.commands[0] as PipelineNode, scope, { kind: 'terminal' });
    n.commands.slice(1).forEach((c, i) => {
      const op = n.operators[i];
      const after = scope.fork();
      if (op === '&&') {
        // The previous command failed: this one is skipped, in whatever state the failure left.
        const failed = before.fork();
        failed.absorb(after);
        outcomes.push(failed);
      } else {
        outcomes.push(after);
        scope.absorb(before);
      }
      before = scope.fork();
      this.node(c, scope, { kind: 'terminal' });
    });
    for (const o of outcomes) scope.absorb(o);
  }

  private command(c: CommandNode, scope: Scope, stdin: Stdin): Output {
    switch (c.type) {
      case 'Command':
        return this.simple(c, scope, stdin);
      case 'Subshell':
        this.statements(c.body.commands, scope.fork());
        return null;
      case 'BraceGroup':
        this.statements(c.body.commands, scope);
        return null;
      case 'If': {
        this.statements(c.clause.commands, scope);
        const start = scope.fork();
        const results: Scope[] = [];
        // Each elif's condition runs only when the conditions before it failed.
        let rest = start;
        const arms = [{ clause: null, then: c.then }, ...c.elif.map((e) => ({ clause: e.clause, then: e.then }))];
        for (const arm of arms) {
          if (arm.clause !== null) {
            rest = rest.fork();
            this.statements(arm.clause.commands, rest);
          }
          const s = rest.fork();
          this.statements(arm.then.commands, s);
          results.push(s);
        }
        if (c.else) {
          const s = rest.fork();
          this.statements(c.else.commands, s);
          results.push(s);
        } else results.push(rest);
        scope.live = false;
        for (const r of results) scope.absorb(r);
        return null;
      }
      case 'For':
      case 'Select': {
        const body = scope.fork();
        const values = c.wordlist ? c.wordlist.flatMap((w) => resolveWord(w, scope, this.env)) : [{ text: null, glob: false, raw: '"$@"' }];
        // A loop variable takes each listed value; a glob in the list stays a glob (it names the matches).
        body.vars.set(c.name.value, values.every((v) => v.text !== null) ? values.map((v) => v.text as string) : null);
        if (values.some((v) => v.glob)) body.globVars.add(c.name.value);
        else body.globVars.delete(c.name.value);
        body.numeric.delete(c.name.value);
        body.slashFree.delete(c.name.value);
        this.loop(() => this.statements(c.body.commands, body));
        // A second pass sees what the first left behind (a variable changed in the body).
        const again = body.fork();
        if (this.loops < MAX_LOOP_PASSES) this.loop(() => this.statements(c.body.commands, again));
        scope.absorb(body);
        scope.absorb(again);
        return null;
      }
      case 'While': {
        // `… | while read f; do …; done`: the lines read are the listed paths.
        const savedList = scope.readList;
        if (stdin.kind === 'list') scope.readList = stdin.patterns;
        this.statements(c.clause.commands, scope);
        const body = scope.fork();
        this.loop(() => this.statements(c.body.commands, body));
        this.statements(c.clause.commands, body);
        const again = body.fork();
        if (this.loops < MAX_LOOP_PASSES) this.loop(() => this.statements(c.body.commands, again));
        scope.absorb(body);
        scope.absorb(again);
        scope.readList = savedList;
        return null;
      }
      case 'ArithmeticFor': {
        const header = `for ((…))`;
        this.arithExpr(c.initialize, scope, header);
        this.arithExpr(c.test, scope, header);
        const body = scope.fork();
        this.loop(() => this.statements(c.body.commands, body));
        this.arithExpr(c.update, body, header);
        this.arithExpr(c.test, body, header);
        const again = body.fork();
        if (this.loops < MAX_LOOP_PASSES) this.loop(() => this.statements(c.body.commands, again));
        scope.absorb(body);
        scope.absorb(again);
        return null;
      }
      case 'Case': {
        resolveWord(c.word, scope, this.env);
        const start = scope.fork();
        scope.live = false;
        scope.absorb(start);
        let fallthrough: Scope | null = null;
        for (const item of c.items) {
          const s = start.fork();
          // Patterns are expanded (substitutions in them run) until one matches.
          for (const p of item.pattern) walkWord(p, s, this.env);
          if (fallthrough) s.absorb(fallthrough);
          this.statements(item.body.commands, s);
          scope.absorb(s);
          fallthrough = item.terminator === ';&' || item.terminator === ';;&' ? s : null;
        }
        return null;
      }
      case 'Function': {
        const name = c.name.value;
        const def: FunctionDef = { name, body: c.body, defined: scope.fork(), called: false };
        scope.functions.set(name, def);
        this.defined.push(def);
        return null;
      }
      case 'Coproc': {
        const body = c.body;
        const s = scope.fork();
        if (body.type === 'CompoundList') this.statements(body.commands, s);
        else this.command(body, s, { kind: 'terminal' });
        return null;
      }
      case 'Redirected': {
        const input = this.redirectInput(c.redirects, scope, stdin);
        const fds = this.openFds(c.redirects, scope);
        const inner = scope.fork();
        inner.fds = fds;
        this.command(c.command, scope, input);
        this.redirectOutputs(c.redirects, inner, null, 'redirection');
        return null;
      }
      case 'TestCommand':
        this.testExpr(c.expression, scope);
        return null;
      case 'ArithmeticCommand':
        this.arithExpr(c.expression, scope, `((${c.body}))`);
        return null;
    }
  }

  private loop(walk: () => void): void {
    this.loops++;
    try {
      walk();
    } finally {
      this.loops--;
    }
  }

  private arithExpr(e: ArithmeticExpression | undefined, scope: Scope, text: string): void {
    if (e === undefined && text === 'for ((…))') return; // an empty header part
    this.arith_.expr(e, scope, text);
  }

  /** `[[ … ]]`: every operand is expanded; `-eq` & co. evaluate theirs as arithmetic, `-v` its subscript. */
  private testExpr(e: TestExpression, scope: Scope): void {
    switch (e.type) {
      case 'TestUnary': {
        const v = resolveSingle(e.operand, scope, this.env);
        if (e.operator === '-v' && (v.text === null || v.text.includes('['))) {
          const t = v.text;
          this.arith_.text(t === null ? null : t.slice(t.indexOf('[') + 1, t.lastIndexOf(']') > 0 ? t.lastIndexOf(']') : undefined), scope, `[[ -v ${e.operand.text} ]]`);
        }
        return;
      }
      case 'TestBinary': {
        const l = resolveWord(e.left, scope, this.env);
        const r = resolveWord(e.right, scope, this.env);
        if (TEST_ARITH.has(e.operator)) {
          for (const [side, word] of [[l, e.left], [r, e.right]] as const) {
            if (this.numericWord(word, scope)) continue;
            this.arith_.text(side.length === 1 ? (side[0]?.text ?? null) : null, scope, `[[ ${e.left.text} ${e.operator} ${e.right.text} ]]`);
          }
        }
        return;
      }
      case 'TestLogical':
        for (const o of e.operands) this.testExpr(o, scope);
        return;
      case 'TestNot':
        this.testExpr(e.operand, scope);
        return;
      case 'TestGroup':
        this.testExpr(e.expression, scope);
        return;
    }
  }

  /** `$(… | wc -l)`, `"$n"` for a numeric n: a word that is known to be a number. */
  private numericWord(word: Word, scope: Scope): boolean {
    let parts = word.parts ?? [];
    if (parts.length === 1 && parts[0]?.type === 'DoubleQuoted') parts = parts[0].parts;
    if (parts.length !== 1) return false;
    const only = parts[0];
    if (only?.type === 'CommandExpansion') return this.numericSub(only.script);
    if (only?.type === 'SimpleExpansion') return scope.numeric.has(only.text.slice(1)) || /^\$[#?$!]$/.test(only.text);
    if (only?.type === 'ParameterExpansion') return only.operation === undefined && only.index === undefined && (scope.numeric.has(only.parameter) || only.prefix === '#');
    return only?.type === 'ArithmeticExpansion';
  }

  private assignment(a: Assignment, scope: Scope, store: boolean): void {
    if (a.index !== undefined) {
      const idx = resolveSingle(a.index, scope, this.env);
      this.arith_.text(idx.text, scope, `the array subscript in ${a.text}`);
    }
    if (a.value.type === 'ArrayValue') {
      const elems = a.value.elements.flatMap((w) => resolveWord(w, scope, this.env));
      if (!store) return;
      // `a=(x y)`: its elements when all are known (globs stay unknown: they expand on disk).
      const known = elems.every((e) => e.text !== null && !e.glob);
      const before = a.append ? scope.arrays.get(a.name) : [];
      scope.arrays.set(a.name, known && before !== null && before !== undefined ? [...before, ...elems.map((e) => e.text)] : null);
      scope.vars.set(a.name, known && elems[0]?.text != null && !a.append ? [elems[0].text] : null);
      if (elems.every((e) => e.text !== null && /^-?\d+$/.test(e.text))) scope.numeric.add(a.name);
      else scope.numeric.delete(a.name);
      return;
    }
    const value = resolveWord(a.value, scope, this.env);
    if (!store) return;
    if (a.index !== undefined) scope.arrays.set(a.name, null);
    else scope.arrays.delete(a.name);
    if (a.index !== undefined || a.append) {
      scope.vars.set(a.name, a.append && !a.index ? appendValue(scope.vars.get(a.name), value) : null);
      scope.numeric.delete(a.name);
    } else {
      scope.vars.set(a.name, varValue(value));
      const only = a.value.parts?.length === 1 ? a.value.parts[0] : undefined;
      const sub = only?.type === 'CommandExpansion' ? only : only?.type === 'DoubleQuoted' && only.parts.length === 1 && only.parts[0]?.type === 'CommandExpansion' ? only.parts[0] : undefined;
      const numeric = sub !== undefined ? this.numericSub(sub.script) : only?.type === 'ArithmeticExpansion';
      if (numeric) scope.numeric.add(a.name);
      else scope.numeric.delete(a.name);
      if (value.length === 1 && value[0]?.text === null && value[0].slashFree === true && value[0].prefix === undefined) scope.slashFree.add(a.name);
      else if (sub !== undefined && slashFreeOutput(sub.script)) scope.slashFree.add(a.name);
      else scope.slashFree.delete(a.name);
    }
    scope.globVars.delete(a.name);
    this.specialVar(a.name, scope.vars.get(a.name) ?? null, scope);
  }

  private numericSub(script: ParsedScript | undefined): boolean {
    let node = script?.commands.length === 1 ? script.commands[0]?.command : undefined;
    if (node?.type === 'Pipeline') node = node.commands[node.commands.length - 1];
    return node?.type === 'Command' && ['wc', 'nproc', 'date', 'seq', 'id', 'getconf', 'stat', 'du'].includes(node.name?.value ?? '');
  }

  /** Variables bash itself acts on: prompt strings, PROMPT_COMMAND, IFS (splitting is modelled on its value). */
  private specialVar(name: string, value: readonly string[] | null, scope: Scope): void {
    if (PROMPT_VARS.has(name)) this.promptCode(value !== null && value.length === 1 ? (value[0] ?? null) : null, scope, `the prompt string ${name}`);
    else if (name === 'PROMPT_COMMAND') for (const v of value ?? [null]) this.shell(v, scope, 'PROMPT_COMMAND', false);
  }

  private promptCode(value: string | null, scope: Scope, what: string): void {
    if (value === null) {
      this.taint(scope, `${what} holds a value that is not known, and bash runs the code in it`);
      return;
    }
    if (!/[$`]/.test(value)) return;
    // Prompt expansion decodes backslash escapes first (`\$` becomes `$`), then expands like "…".
    const text = value.replace(/\\([$`])/g, '$1').replace(/(["\\])/g, (m, c: string) => (c === '"' ? '\\"' : '\\'));
    this.shell(`: "${text}"`, scope, what, false);
  }

  private simple(c: Command, scope: Scope, stdin: Stdin): Output {
    // Assignment values may hold substitutions with their own effects: resolve them all.
    const assigned = c.prefix.flatMap((p) => (p.type === 'Assignment' ? [p] : []));
    if (c.name === undefined) {
      for (const a of assigned) this.assignment(a, scope, true);
      const fds = this.openFds(c.redirects, scope);
      this.redirectInput(c.redirects, scope, stdin);
      this.redirectOutputs(c.redirects, scope, null, 'redirection');
      scope.fds = fds;
      return null;
    }
    // `VAR=x cmd`: the values live for this command only, but the command sees them.
    const cmdScope = assigned.length > 0 ? scope.fork() : scope;
    for (const a of assigned) this.assignment(a, cmdScope, true);
    const nameArgs = resolveWord(c.name, cmdScope, this.env);
    const args: Arg[] = [];
    for (const s of c.suffix) {
      if (s.type === 'Word') args.push(...resolveWord(s, cmdScope, this.env));
      else if (s.type === 'Assignment') {
        const store = DECLARE.has(c.name.value);
        this.assignment(s, store ? scope : cmdScope.fork(), store);
        const v = s.value.type === 'Word' ? resolveWord(s.value, cmdScope, this.env) : null;
        args.push(v !== null && v.length === 1 && v[0]?.text != null ? { text: `${s.name}${s.append ? '+' : ''}=${v[0].text}`, glob: false, raw: s.text } : { text: s.text, glob: false, raw: s.text });
      }
    }
    const input = this.redirectInput(c.redirects, cmdScope, stdin);
    const fds = this.openFds(c.redirects, cmdScope);
    const text = sliceText(c);
    const head = nameArgs[0];
    let out: Output = null;
    const runScope = cmdScope === scope ? scope : cmdScope;
    if (head === undefined || head.text === null) {
      this.mention(scope, `the command name ${c.name.text} is not static`, [...nameArgs.slice(1), ...args].map((a) => a.text ?? a.raw));
    } else {
      if (assigned.length > 0) injectedEnv(assigned.map((a) => a.name), cmdScope, head.text, this);
      const saved = runScope.fds;
      runScope.fds = fds;
      out = this.run({ name: head.text, args: [...nameArgs.slice(1), ...args], scope: runScope, stdin: input, text });
      // `exec 3< f` with no command keeps its descriptors open for the rest of the shell.
      runScope.fds = head.text === 'exec' && nameArgs.length + args.length === 1 ? fds : saved;
      if (runScope !== scope) {
        // A prefix assignment is undone after the command, but what the command did to the shell stays.
        const prefixed = new Set(assigned.map((a) => a.name));
        const keep = new Map(scope.vars);
        for (const [name, v] of runScope.vars) if (!prefixed.has(name)) keep.set(name, v);
        for (const name of prefixed) if (!scope.vars.has(name)) keep.delete(name);
        for (const g of runScope.globVars) if (!prefixed.has(g)) scope.globVars.add(g);
        scope.cwds = runScope.cwds;
        scope.oldCwds = runScope.oldCwds;
        scope.dirStack = runScope.dirStack;
        scope.live = runScope.live;
        scope.tainted = runScope.tainted;
        scope.links = runScope.links;
        scope.nocaseglob = runScope.nocaseglob;
        scope.cdableVars = runScope.cdableVars;
        scope.vars = keep;
      }
    }
    const outScope = scope.fork();
    outScope.fds = fds;
    this.redirectOutputs(c.redirects, outScope, typeof out === 'string' ? out : null, 'redirection');
    if (outScope.tainted !== null) scope.tainted ??= outScope.tainted;
    return out;
  }

  /** The file descriptors a command's redirections open onto files (`3< f`, `4> g`). */
  private openFds(redirects: readonly Redirection[], scope: Scope): Map<number, string | null> {
    const fds = new Map(scope.fds);
    for (const r of redirects) {
      if (r.type !== 'Redirect' || r.target === undefined) continue;
      const fd = r.descriptor?.type === 'FileDescriptor' ? r.descriptor.value : r.descriptor === undefined ? (r.operator.startsWith('<') ? 0 : 1) : null;
      if (fd === null) continue;
      const t = resolveSingle(r.target, scope, this.env).text;
      if (r.operator === '>&' || r.operator === '<&') {
        if (t !== null && /^\d+$/.test(t)) fds.set(fd, fds.get(Number(t)) ?? null);
        else if (t === '-') fds.delete(fd);
        continue;
      }
      const abs = t === null ? null : this.absolute(t, scope);
      if (abs !== null && isDeviceSink(abs)) fds.delete(fd);
      else fds.set(fd, abs);
    }
    return fds;
  }

  private absolute(p: string, scope: Scope): string | null {
    if (isAbsolute(p)) return joinPath('/', p);
    const cwd = scope.cwds.length === 1 ? scope.cwds[0] : null;
    return cwd == null ? null : joinPath(cwd, p);
  }

  /** Standard input from `<<`, `<<<` or `<`, else the pipe or terminal it inherits. */
  private redirectInput(redirects: readonly Redirection[], scope: Scope, stdin: Stdin): Stdin {
    let input = stdin;
    for (const r of redirects) {
      const fd = r.descriptor?.type === 'FileDescriptor' ? r.descriptor.value : r.descriptor === undefined ? 0 : -1;
      if (r.type === 'HereDoc') {
        const body = r.body;
        let content: string | null = body.text;
        if (r.delimiter && !r.delimiter.quoted && body.parts) {
          // A heredoc body expands like a double-quoted string: no splitting, no globbing.
          const quoted = { type: 'DoubleQuoted', text: body.text, pos: body.pos, end: body.end, parts: body.parts };
          const word = { type: 'Word', text: body.text, value: body.text, pos: body.pos, end: body.end, parts: [quoted] } as unknown as Word;
          const parts = resolveWord(word, scope, this.env);
          content = parts.length === 1 && parts[0]?.text != null ? parts[0].text : null;
        }
        if (fd === 0) input = { kind: 'text', text: content, from: 'a heredoc' };
      } else if (r.type === 'HereString') {
        const v = r.target ? resolveSingle(r.target, scope, this.env).text : null;
        if (fd === 0) input = { kind: 'text', text: v === null ? null : v + '\n', from: 'a here-string' };
      } else if (r.operator === '<' || r.operator === '<>') {
        const only = r.target?.parts?.length === 1 ? r.target.parts[0] : undefined;
        if (only?.type === 'ProcessSubstitution' && fd === 0) {
          // `done < <(git ls-files src)`: what the substitution prints is the input.
          input = stdinOf(this.substitute(only.script, only.text, scope), only.text);
          continue;
        }
        const target = r.target ? resolveSingle(r.target, scope, this.env) : null;
        if (fd === 0) input = { kind: 'file', path: target };
      }
    }
    return input;
  }

  private redirectOutputs(redirects: readonly Redirection[], scope: Scope, stdout: string | null, via: string): void {
    for (const r of redirects) {
      if (r.type !== 'Redirect' || r.target === undefined) continue;
      const op = r.operator;
      if (op === '<') continue;
      const fd = r.descriptor?.type === 'FileDescriptor' ? r.descriptor.value : op === '<>' || op === '<&' ? 0 : 1;
      const targets = resolveWord(r.target, scope, this.env);
      if (op === '<&' || op === '>&') {
        // 2>&1, >&2, 3>&-: descriptor duplication, not a file. `>&file` writes the file.
        const t = targets[0]?.text;
        if (targets.length === 1 && t != null && isDescriptorOperand(t)) continue;
        if (op === '<&') continue;
      }
      const append = op === '>>' || op === '&>>';
      const content = stdout !== null && (fd === 1 || op === '&>' || op === '&>>') ? stdout : undefined;
      const extra: WriteExtra = content === undefined ? {} : { content, append };
      for (const t of targets) this.write(scope, t, `${op} ${via}`, extra);
    }
  }

  // ---- Sink ----

  write(scope: Scope, target: Arg, via: string, extra: WriteExtra = {}): void {
    if (extra.copyOf !== undefined && this.written.size > 0) {
      // A copy of a file this command wrote first: its content is what was written, not what is on disk now.
      const from = this.absolute(extra.copyOf, scope);
      const made = from === null ? null : this.written.get(from);
      if (from === null || made !== undefined) {
        const { copyOf: _stale, ...rest } = extra;
        extra = made === null || made === undefined ? rest : { ...rest, content: made };
      }
    }
    if (target.text === null) {
      if (scope.tainted === null && target.prefix !== undefined && target.prefix.includes('/')) {
        this.dynamicWrite(scope, target.prefix, via, target.slashFree === true ? (target.suffix ?? '') : null);
        return;
      }
      this.unknown(`${via} writes to ${target.raw}, which cannot be resolved statically`);
      return;
    }
    const path = target.text;
    const glob = target.glob ? { glob: true, ...(scope.nocaseglob ? { nocase: true } : {}) } : {};
    const bases = isAbsolute(path) ? [null] : scope.cwds;
    for (const cwd of bases) {
      if (!isAbsolute(path) && cwd === null) {
        this.unknown(`${via} writes to ${path} relative to a directory that cannot be resolved statically (after a cd)`);
        continue;
      }
      const abs = isAbsolute(path) ? path : joinPath(cwd as string, path);
      const dev = !target.glob ? this.device(abs, scope) : undefined;
      if (dev === null) continue; // the terminal, a pipe, /dev/null
      if (dev !== undefined) {
        this.write(scope, { text: dev, glob: false, raw: target.raw }, `${via} (through ${path})`, extra);
        continue;
      }
      if (scope.tainted !== null) {
        this.unknown(`${via} writes to ${path} after ${scope.tainted}, so what it names is no longer known`);
        continue;
      }
      const w: BashWrite = isAbsolute(path) ? { path, cwd: null, via, ...glob, ...extra } : { path, cwd, via, ...glob, ...extra };
      this.result.writes.push(w);
      // A download is code from elsewhere, like a script already on disk: run later, it passes to the after-the-fact check.
      // A patch or a stash entry is read, not written: the files it names are judged on disk.
      const named = extra.patch !== undefined || extra.stash !== undefined;
      if (!target.glob && !extra.tree && !named && !isDownload(via)) {
        const before = this.written.get(abs);
        const content = extra.content === undefined ? null : extra.append ? (before === undefined ? null : before === null ? null : before + extra.content) : extra.content;
        this.written.set(abs, content);
      }
      // A link made earlier in the command: the write lands on its target.
      if (!target.glob && !named) {
        for (const l of scope.links) {
          if (abs === l.link || abs.startsWith(l.link + '/')) {
            this.result.writes.push({ path: l.target + abs.slice(l.link.length), cwd: null, via: `${via} (through the link ${l.link})`, ...extra });
          }
        }
      }
    }
  }

  /**
   * Device paths: `/dev/null` and the terminal write nothing (null); `/dev/fd/N`, `/dev/stdout`,
   * `/proc/self/fd/N` reopen whatever file that descriptor holds (its path); `/proc/<pid>/cwd/…`
   * and `/proc/<pid>/root/…` name paths under the working directory or `/`. Undefined: a plain path.
   */
  private device(abs: string, scope: Scope): string | null | undefined {
    if (!abs.startsWith('/dev/') && !abs.startsWith('/proc/')) return undefined;
    let m = /^\/proc\/[^/]+\/(cwd|root)(\/.*)?$/.exec(abs);
    if (m) {
      const rest = m[2] ?? '';
      if (m[1] === 'root') return rest === '' ? '/' : rest;
      const cwd = scope.cwds.length === 1 ? scope.cwds[0] : null;
      if (cwd == null) {
        this.unknown(`a write to ${abs} goes through a working directory that cannot be resolved statically`);
        return null;
      }
      return joinPath(cwd, '.' + rest);
    }
    m = /^\/(?:dev\/fd|proc\/[^/]+\/fd)\/(\d+)$/.exec(abs) ?? /^\/dev\/(stdin|stdout|stderr)$/.exec(abs);
    if (m) {
      const name = m[1] as string;
      const fd = name === 'stdin' ? 0 : name === 'stdout' ? 1 : name === 'stderr' ? 2 : Number(name);
      if (!scope.fds.has(fd)) return null;
      const file = scope.fds.get(fd);
      if (file === null || file === undefined) {
        this.unknown(`a write to ${abs} reaches a file that cannot be resolved statically`);
        return null;
      }
      return file;
    }
    return isDeviceSink(abs) || abs === '/dev/zero' || abs === '/dev/full' || abs === '/dev/random' || abs === '/dev/urandom' ? null : undefined;
  }

  /** A target whose beginning is static (`/tmp/build-$(date +%s).log`): judged on disk from that beginning. */
  private dynamicWrite(scope: Scope, prefix: string, via: string, slashFreeSuffix: string | null): void {
    const tail = slashFreeSuffix !== null ? { dynamicTail: true, slashFree: true, tailSuffix: slashFreeSuffix } : { dynamicTail: true };
    if (isAbsolute(prefix)) {
      this.result.writes.push({ path: prefix, cwd: null, via, ...tail });
      return;
    }
    for (const cwd of scope.cwds) {
      if (cwd === null) this.unknown(`${via} writes to ${prefix}… relative to a directory that cannot be resolved statically (after a cd)`);
      else this.result.writes.push({ path: prefix, cwd, via, ...tail });
    }
  }

  unknown(reason: string): void {
    if (this.lenient > 0) return;
    if (!this.result.unknown.includes(reason)) this.result.unknown.push(reason);
  }

  arith(text: string | null, scope: Scope, what: string): void {
    this.arith_.text(text, scope, what);
  }

  taint(scope: Scope, reason: string): void {
    // Followed code from disk (a sourced virtualenv `activate` sets PS1 from the environment) does not taint the caller.
    if (this.lenient > 0) return;
    scope.tainted ??= reason;
  }

  mention(scope: Scope, reason: string, texts: readonly string[]): void {
    if (this.lenient > 0) return;
    const candidates = [...new Set(texts.flatMap((t) => t.split(/[\s'"`;|&<>()=,]+/)).filter((t) => t !== '' && !t.startsWith('-')))];
    if (candidates.length === 0) return;
    if (candidates.length > MAX_MENTIONS) {
      this.unknown(`${reason}, and it is too large to check`);
      return;
    }
    for (const cwd of scope.cwds) this.result.mentions.push({ reason, candidates, cwd });
  }

  headMove(text: string, scope: Scope, unlessPaths?: Arg[]): void {
    const move: BashHeadMove = { text, cwds: [...scope.cwds] };
    if (unlessPaths && unlessPaths.every((p) => p.text !== null) && scope.cwds.length === 1) {
      move.unlessPaths = { paths: unlessPaths.map((p) => p.text as string), cwd: scope.cwds[0] ?? null };
    }
    this.result.headMoves.push(move);
  }

  cli(verb: string | null, args: readonly Arg[], text: string): void {
    this.result.cliCalls.push({ verb, args: args.map((a) => a.text ?? a.raw), literal: args.every((a) => a.text !== null), text });
  }

  shell(code: string | null, scope: Scope, via: string, sameScope: boolean, followed = false): void {
    if (code === null) {
      this.unknown(`${via} runs shell code that is not statically known`);
      return;
    }
    if (this.depth >= MAX_REPARSE_DEPTH) {
      this.unknown(`${via} nests shells too deeply to follow`);
      return;
    }
    this.depth++;
    if (followed) this.lenient++;
    try {
      this.source(code, sameScope ? scope : scope.fork(), via);
    } finally {
      this.depth--;
      if (followed) this.lenient--;
    }
  }

  inline(lang: string, code: string | null, scope: Scope, via: string, argv: readonly Arg[] = [], fromFile = false): void {
    if (code === null) {
      this.unknown(`${via} runs ${lang} code that is not statically known`);
      return;
    }
    const found = fromFile ? analyzeProgramFile(lang, code) : analyzeInline(lang, code);
    if (!found.writes) return;
    for (const cmd of found.shellCommands) {
      if (fromFile && !/\s/.test(cmd) && !cmd.includes('/')) continue; // a file's string constants: only command lines count
      this.shell(cmd, scope, `${via} (shell command in the code)`, false);
    }
    if (found.paths.length === 0 && argv.length === 0 && !fromFile) {
      this.unknown(`${via} calls a file-writing API on a path that is not a literal`);
      return;
    }
    // The API may remove or copy a whole directory (rmtree, rmSync recursive): a path counts with its contents.
    for (const p of found.paths) {
      if (fromFile && !/^[\w@.~/+-][\w@.~/+ -]*$/.test(p)) continue; // a file's other strings are not paths
      const path = p === '~' || p.startsWith('~/') ? this.ctx.home + p.slice(1) : p;
      this.write(scope, { text: path, glob: false, raw: p }, via, { tree: true });
    }
    // Arguments after the code reach it as argv: they are likely the paths it writes.
    for (const a of argv) this.write(scope, a, `${via} (argument)`, { tree: true });
  }

  link(scope: Scope, target: Arg, link: Arg, symbolic: boolean): void {
    if (target.text === null || link.text === null || target.glob || link.glob) return;
    const linkAbs = this.absolute(link.text, scope);
    if (linkAbs === null) return;
    const base = symbolic && !isAbsolute(target.text) ? linkAbs.slice(0, linkAbs.lastIndexOf('/')) || '/' : null;
    const targetAbs = base !== null ? joinPath(base, target.text) : this.absolute(target.text, scope);
    if (targetAbs === null) return;
    scope.links.push({ link: linkAbs, target: targetAbs });
    // `ln -s t dir`: when dir is a directory, the link is dir/<name of t>.
    const inDir = `${linkAbs}/${baseName(target.text)}`;
    const inDirTarget = base !== null ? joinPath(linkAbs, target.text) : targetAbs;
    scope.links.push({ link: inDir, target: inDirTarget });
  }

  read(scope: Scope, file: string): { text: string; abs: string } | null {
    const abs = this.absolute(file, scope);
    if (abs === null) return null;
    // A file this command changed before reading it (`sed -i … package.json && npm test`): what is on disk is not what runs.
    const made = this.written.get(abs);
    if (made === null) {
      this.unknown(`the command reads ${file} after changing it, so what it holds then is not known`);
      return null;
    }
    if (made !== undefined) return { text: made, abs };
    if (this.ctx.read === undefined) return null;
    const text = this.ctx.read(abs);
    return text === null ? null : { text, abs };
  }

  follow(scope: Scope, file: Arg, lang: Lang, via: string, opts: { sameScope?: boolean; args?: readonly Arg[] } = {}): boolean {
    if (file.text === null || file.glob) return false;
    const abs = this.absolute(file.text, scope);
    const made = abs === null ? undefined : this.written.get(abs);
    if (made === null) {
      this.unknown(`${via} runs ${file.text}, which this command writes with content that is not statically known`);
      return true;
    }
    const got = made !== undefined && abs !== null ? { text: made, abs } : this.read(scope, file.text);
    if (got === null) return false;
    if (this.following.has(got.abs) || this.depth >= MAX_REPARSE_DEPTH) return true; // already being followed: its effects count once
    this.following.add(got.abs);
    this.depth++;
    // A script this command wrote is the command's own code (strict); one read from disk is followed leniently.
    const fromDisk = made === undefined;
    if (fromDisk) this.lenient++;
    try {
      const what = `${via} (${file.text})`;
      if (lang === 'shell') {
        const s = opts.sameScope ? scope : scope.fork();
        const saved = s.positional;
        if (opts.args) s.positional = opts.args.map((a) => a.text);
        this.script(parseShell(stripShebang(got.text)), s, got.text, what);
        s.positional = saved;
      } else this.inline(lang, got.text, scope, what, [], true);
      return true;
    } finally {
      this.depth--;
      if (fromDisk) this.lenient--;
      this.following.delete(got.abs);
    }
  }

  run(call: Call): Output {
    const fn = call.scope.functions.get(call.name);
    if (fn !== undefined && this.callDepth < MAX_CALL_DEPTH) {
      fn.called = true;
      this.callDepth++;
      const saved = call.scope.positional;
      call.scope.positional = call.args.map((a) => a.text);
      try {
        this.functionBody(fn, call.scope);
      } finally {
        call.scope.positional = saved;
        this.callDepth--;
      }
      return null;
    }
    const alias = call.scope.aliases.get(call.name);
    if (alias !== undefined) {
      call.scope.aliases.delete(call.name); // an alias does not expand inside itself
      try {
        // The alias text replaces the command's name and is parsed again: `;`, `&&`, `$(…)` in it are code.
        const rest = call.args.map((a) => (a.text === null ? a.raw : quote(a.text))).join(' ');
        this.shell(`${alias} ${rest}`, call.scope, `the alias ${call.name}`, true);
        return null;
      } finally {
        call.scope.aliases.set(call.name, alias);
      }
    }
    if (call.name === 'tdd-gate' || call.name.endsWith('/tdd-gate')) {
      this.cli(cliVerb(call.args), call.args, call.text);
      return null;
    }
    return runCommand(call, this);
  }

  private functionBody(fn: FunctionDef, scope: Scope): void {
    const body = fn.body as CommandNode | { type: 'CompoundList'; commands: readonly Statement[] };
    if (body.type === 'CompoundList') this.statements(body.commands, scope);
    else this.command(body, scope, { kind: 'terminal' });
    scope.live = true; // `return` ends the function, not the caller
  }

  private substitute(script: ParsedScript | undefined, text: string, scope: Scope): Output {
    const s = scope.fork();
    const printed = this.script(script, s, text, `the substitution ${text.slice(0, 80)}`);
    if (s.tainted !== null) scope.tainted ??= s.tainted;
    // `$(git ls-files src)`, `$(find src -name '*.ts')`: the lines are paths under known directories.
    return knownOutput(script, scope, this.ctx, this.env) ?? (printed !== null && typeof printed === 'object' && 'patterns' in printed ? printed : null);
  }
}

/** What a command reads when another one's output is its input: `cat f |` is the file itself. */
function stdinOf(out: Output, from: string): Stdin {
  if (out === null || typeof out === 'string') return { kind: 'text', text: out, from };
  if ('file' in out) return { kind: 'file', path: { text: out.file, glob: false, raw: out.file } };
  if ('glob' in out) return { kind: 'text', text: null, from };
  return { kind: 'list', patterns: out.patterns, from };
}

function stripShebang(text: string): string {
  return text.startsWith('#!') ? text.slice(text.indexOf('\n') + 1) : text;
}

/** Single-quote a known argument so re-parsing (alias expansion) keeps it one word. */
function quote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function varValue(value: Arg[] | null): string[] | null {
  if (value === null || value.length === 0) return value === null ? null : [''];
  // An assignment does not split or glob: the fields join back into one string.
  if (value.some((v) => v.text === null)) return null;
  return [value.map((v) => v.text as string).join(' ')];
}

function appendValue(before: readonly string[] | null | undefined, value: Arg[]): string[] | null {
  const add = varValue(value);
  if (add === null || before === null) return null;
  if (before === undefined) return add;
  return before.flatMap((b) => add.map((a) => b + a));
}

function sliceText(c: Command): string {
  const words = [c.name?.text ?? '', ...c.suffix.map((s) => ('text' in s ? s.text : ''))];
  return words.join(' ').slice(0, 300);
}

/** `2>&1`, `>&-`, `3>&2-`: the operand of a descriptor duplication (a number, `-`, or a number and `-`). */
function isDescriptorOperand(t: string): boolean {
  const digits = t.endsWith('-') ? t.slice(0, -1) : t;
  return t === '-' || (digits !== '' && [...digits].every(isDigit));
}

/** A write made by `curl` or `wget` (its label starts with the program's name). */
function isDownload(via: string): boolean {
  return ['curl', 'wget'].some((p) => via.startsWith(p) && !isWordChar(via.charAt(p.length)));
}
