/**
 * The Bash analysis: walk every construct of a command line and collect what it may write, which
 * git commands move HEAD, which tdd-gate verbs it runs, and what could not be resolved. Pure: the
 * caller resolves paths on disk and decides.
 */
import { runCommand } from './commands.js';
import { analyzeInline } from './inline.js';
import { cliVerb } from './cliCalls.js';
import { parseShell, type AndOr, type Command, type CommandNode, type ParsedScript, type PipelineNode, type Redirection, type Statement, type Word } from './parser.js';
import { isAbsolute, isDeviceSink } from './paths.js';
import { Scope } from './scope.js';
import type { Call, Sink, Stdin, WriteExtra } from './sink.js';
import type { AnalyzeContext, BashAnalysis, BashHeadMove } from './types.js';
import { resolveSingle, resolveWord, type Arg, type WordEnv } from './words.js';
import { knownOutput } from './substitutions.js';

/** Nested `bash -c` / `eval` / heredoc shells deeper than this are not followed: unknown. */
const MAX_REPARSE_DEPTH = 8;
/** Candidate words checked when text cannot be parsed; beyond this the text is unknown. */
const MAX_MENTIONS = 2000;

export function analyzeBash(command: string, ctx: AnalyzeContext): BashAnalysis {
  const a = new Analyzer(ctx);
  a.source(command, new Scope(ctx.cwd), 'the command');
  return a.result;
}

const DECLARE = new Set(['export', 'local', 'declare', 'typeset', 'readonly']);

class Analyzer implements Sink {
  readonly result: BashAnalysis = { writes: [], unknown: [], mentions: [], cliCalls: [], headMoves: [], parseErrors: [] };
  private depth = 0;
  private readonly unparsed: string[] = [];
  private readonly env: WordEnv;

  constructor(readonly ctx: AnalyzeContext) {
    this.env = {
      home: ctx.home,
      ...(ctx.inherited ? { inherited: ctx.inherited } : {}),
      substitute: (script, text, scope) => this.substitute(script, text, scope),
    };
  }

  /** Parse and walk shell text; a parse error makes the text's words mentions. */
  source(text: string, scope: Scope, via: string): void {
    const script = parseShell(text);
    this.script(script, scope, text, via);
  }

  private script(script: ParsedScript | undefined, scope: Scope, text: string, via: string): void {
    if (script === undefined) {
      this.mention(scope, `${via} could not be parsed`, mentionWords(text));
      return;
    }
    if (script.errors && script.errors.length > 0) {
      const msg = script.errors.map((e) => e.message).slice(0, 3).join('; ');
      this.result.parseErrors.push(msg);
      // Nested substitutions repeat their parent's text: mention each stretch of text once.
      if (!this.unparsed.some((t) => t.includes(text))) {
        this.unparsed.push(text);
        this.mention(scope, `${via} could not be parsed (${msg})`, mentionWords(text));
      }
    }
    this.statements(script.commands, scope);
  }

  private statements(list: readonly Statement[], scope: Scope): void {
    for (const st of list) {
      if (!scope.live) return;
      if (st.background) this.node(st.command, scope.fork(), { kind: 'terminal' });
      else this.node(st.command, scope, { kind: 'terminal' });
    }
  }

  /** Walk one node; returns the node's stdout text when statically known (for pipes). */
  private node(n: PipelineNode | AndOr, scope: Scope, stdin: Stdin): string | null {
    if (n.type === 'AndOr') {
      this.andOr(n, scope);
      return null;
    }
    if (n.type === 'Pipeline') {
      let input: Stdin = stdin;
      let out: string | null = null;
      // Every element of a pipeline runs in its own subshell.
      for (const c of n.commands) {
        out = this.command(c, scope.fork(), input);
        input = { kind: 'text', text: out, from: 'a pipe' };
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

  private command(c: CommandNode, scope: Scope, stdin: Stdin): string | null {
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
        const branches = [c.then, ...c.elif.flatMap((e) => [e.clause, e.then]), ...(c.else ? [c.else] : [])];
        const results = branches.map((b) => {
          const s = start.fork();
          this.statements(b.commands, s);
          return s;
        });
        if (!c.else) results.push(start);
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
        this.statements(c.body.commands, body);
        scope.absorb(body);
        return null;
      }
      case 'While':
      case 'ArithmeticFor': {
        if (c.type === 'While') this.statements(c.clause.commands, scope);
        const body = scope.fork();
        this.statements(c.body.commands, body);
        scope.absorb(body);
        return null;
      }
      case 'Case': {
        resolveWord(c.word, scope, this.env);
        const start = scope.fork();
        scope.live = false;
        scope.absorb(start);
        for (const item of c.items) {
          const s = start.fork();
          this.statements(item.body.commands, s);
          scope.absorb(s);
        }
        return null;
      }
      case 'Function': {
        // Walked where it is defined, as if it were called there: its writes count either way.
        const body = c.body;
        const s = scope.fork();
        if (body.type === 'CompoundList') this.statements(body.commands, s);
        else this.command(body, s, { kind: 'terminal' });
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
        this.command(c.command, scope, input);
        this.redirectOutputs(c.redirects, scope, null, 'redirection');
        return null;
      }
      case 'TestCommand':
      case 'ArithmeticCommand':
        return null;
    }
  }

  private simple(c: Command, scope: Scope, stdin: Stdin): string | null {
    // Assignment values may hold substitutions with their own effects: resolve them all.
    const assigned = c.prefix.flatMap((p) => (p.type === 'Assignment' ? [p] : []));
    const values = assigned.map((a) => ({ name: a.name, value: a.value.type === 'Word' ? resolveWord(a.value, scope, this.env) : null }));
    if (c.name === undefined) {
      for (const { name, value } of values) scope.vars.set(name, varValue(value));
      this.redirectOutputs(c.redirects, scope, null, 'redirection');
      return null;
    }
    const nameArgs = resolveWord(c.name, scope, this.env);
    const args: Arg[] = [];
    for (const s of c.suffix) {
      if (s.type === 'Word') args.push(...resolveWord(s, scope, this.env));
      else if (s.type === 'Assignment') {
        const v = s.value.type === 'Word' ? resolveWord(s.value, scope, this.env) : null;
        args.push({ text: s.text, glob: false, raw: s.text });
        if (DECLARE.has(c.name.value)) scope.vars.set(s.name, varValue(v));
      }
    }
    const input = this.redirectInput(c.redirects, scope, stdin);
    const text = sliceText(c);
    const head = nameArgs[0];
    let out: string | null = null;
    if (head === undefined || head.text === null) {
      this.mention(scope, `the command name ${c.name.text} is not static`, [...nameArgs.slice(1), ...args].map((a) => a.text ?? a.raw));
    } else {
      out = this.run({ name: head.text, args: [...nameArgs.slice(1), ...args], scope, stdin: input, text });
    }
    this.redirectOutputs(c.redirects, scope, out, 'redirection');
    return out;
  }

  /** Standard input from `<<`, `<<<` or `<`, else the pipe or terminal it inherits. */
  private redirectInput(redirects: readonly Redirection[], scope: Scope, stdin: Stdin): Stdin {
    let input = stdin;
    for (const r of redirects) {
      const fd = r.descriptor?.type === 'FileDescriptor' ? r.descriptor.value : 0;
      if (fd !== 0) continue;
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
        input = { kind: 'text', text: content, from: 'a heredoc' };
      } else if (r.type === 'HereString') {
        const v = r.target ? resolveSingle(r.target, scope, this.env).text : null;
        input = { kind: 'text', text: v === null ? null : v + '\n', from: 'a here-string' };
      } else if (r.operator === '<') {
        if (r.target) resolveWord(r.target, scope, this.env);
        input = { kind: 'file' };
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
        if (targets.length === 1 && t != null && /^(\d+|-|\d+-)$/.test(t)) continue;
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
    if (target.text === null) {
      this.unknown(`${via} writes to ${target.raw}, which cannot be resolved statically`);
      return;
    }
    if (!target.glob && isDeviceSink(target.text)) return;
    const path = target.text;
    if (isAbsolute(path)) {
      this.result.writes.push({ path, cwd: null, via, ...(target.glob ? { glob: true } : {}), ...extra });
      return;
    }
    for (const cwd of scope.cwds) {
      if (cwd === null) {
        this.unknown(`${via} writes to ${path} relative to a directory that cannot be resolved statically (after a cd)`);
        continue;
      }
      this.result.writes.push({ path, cwd, via, ...(target.glob ? { glob: true } : {}), ...extra });
    }
  }

  unknown(reason: string): void {
    if (!this.result.unknown.includes(reason)) this.result.unknown.push(reason);
  }

  mention(scope: Scope, reason: string, texts: readonly string[]): void {
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
    this.result.cliCalls.push({ verb, args: args.map((a) => a.text ?? a.raw), text });
  }

  shell(code: string | null, scope: Scope, via: string, sameScope: boolean): void {
    if (code === null) {
      this.unknown(`${via} runs shell code that is not statically known`);
      return;
    }
    if (this.depth >= MAX_REPARSE_DEPTH) {
      this.unknown(`${via} nests shells too deeply to follow`);
      return;
    }
    this.depth++;
    try {
      this.source(code, sameScope ? scope : scope.fork(), via);
    } finally {
      this.depth--;
    }
  }

  inline(lang: string, code: string | null, scope: Scope, via: string, argv: readonly Arg[] = []): void {
    if (code === null) {
      this.unknown(`${via} runs ${lang} code that is not statically known`);
      return;
    }
    const found = analyzeInline(lang, code);
    if (!found.writes) return;
    for (const cmd of found.shellCommands) this.shell(cmd, scope, `${via} (shell command in the code)`, false);
    if (found.paths.length === 0 && argv.length === 0) {
      this.unknown(`${via} calls a file-writing API on a path that is not a literal`);
      return;
    }
    // The API may remove or copy a whole directory (rmtree, rmSync recursive): a path counts with its contents.
    for (const p of found.paths) {
      const path = p === '~' || p.startsWith('~/') ? this.ctx.home + p.slice(1) : p;
      this.write(scope, { text: path, glob: false, raw: p }, via, { tree: true });
    }
    // Arguments after the code reach it as argv: they are likely the paths it writes.
    for (const a of argv) this.write(scope, a, `${via} (argument)`, { tree: true });
  }

  run(call: Call): string | null {
    const alias = call.scope.aliases.get(call.name);
    if (alias !== undefined) {
      call.scope.aliases.delete(call.name); // an alias does not expand inside itself
      try {
        const [name, ...words] = alias.trim().split(/\s+/);
        if (name !== undefined && name !== '') return this.run({ ...call, name, args: [...words.map((w) => ({ text: w, glob: false, raw: w })), ...call.args] });
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

  private substitute(script: ParsedScript | undefined, text: string, scope: Scope): string | null {
    const s = scope.fork();
    this.script(script, s, text, `the substitution ${text.slice(0, 80)}`);
    return knownOutput(script, scope, this.ctx, this.env);
  }
}

function varValue(value: Arg[] | null): string[] | null {
  if (value === null || value.length === 0) return value === null ? null : [''];
  // An assignment does not split or glob: the fields join back into one string.
  if (value.some((v) => v.text === null)) return null;
  return [value.map((v) => v.text as string).join(' ')];
}

function sliceText(c: Command): string {
  const words = [c.name?.text ?? '', ...c.suffix.map((s) => ('text' in s ? s.text : ''))];
  return words.join(' ').slice(0, 300);
}

function mentionWords(text: string): string[] {
  return [text];
}
