import { at, tokenize, type Tok, type TokLang } from './tokens.js';
import { goRunnerReach, jsRunnerReach, pyRunnerReach, rsRunnerReach } from './runnerState.js';

/**
 * Source that special-cases the test run or the comparison (pure). Read from tokens, so a comment
 * or a string that spells the construct is not it, and spacing, quotes or line breaks do not hide
 * it. Each finding names its construct; a project that needs one lists it in `runner_reach_allow`
 * as `<glob>#<construct>` (or the whole file by its glob).
 */
export type Construct = 'test-mode' | 'process-args' | 'call-stack' | 'matcher-protocol' | 'always-equal' | 'build-flag' | 'thread-name' | 'runner-state' | 'assert-shadow';

interface Finding {
  construct: Construct;
  /** What the source does, for the reason the model sees. */
  what: string;
  line: number;
  /** The construct's tokens, for telling a finding the file already had from a new one. */
  key: string;
}

interface ScanOptions {
  /** A program's own entry (a script with a `#!` line, a JavaScript file under `bin/`, a Python `__main__.py`): it may read its arguments. */
  program?: boolean;
  /** Rust library code (not a binary's main, a build script, an example or a benchmark), or a Go package other than main. */
  library?: boolean;
  /** Constructs the project allows in this file (runner_reach_allow): not findings, so they do not hide the next one. */
  allowed?: readonly string[];
}

/** The words a comparison with the runner's mode is made with. */
const TEST_WORDS = new Set(['test', 'tests', 'testing', 'vitest', 'jest', 'mocha', 'pytest', 'unittest', 'nextest']);
/** An environment variable's name that says tests are running (its value is beside the point). */
const TEST_ENV_NAME = /(?:^|_)(?:TEST|TESTS|TESTING|UNITTEST)(?:_|$)|VITEST|JEST|MOCHA|PYTEST|NEXTEST|^CARGO_TARGET_TMPDIR$/i;

const WHAT: Record<Construct, string> = {
  'test-mode': 'reads whether it runs under test (an environment variable or mode compared with a test value)',
  'process-args': 'reads the program’s own name or arguments (how a source tells the test runner’s process apart)',
  'call-stack': 'inspects the call stack (how a source tells a test calling it from a program)',
  'matcher-protocol': 'returns values that carry a test framework’s matcher protocol (asymmetricMatch, $$typeof), which the framework’s equality trusts',
  'always-equal': 'defines an equality that is always true (or an inequality that is always false)',
  'build-flag': 'compiles differently in the test build (debug_assertions is on under cargo test)',
  'thread-name': 'reads the thread’s name (the test harness names each thread after its test)',
  'runner-state': 'reaches into the test runner or its assertion library, where the tests’ verdict is kept (a hook, a matcher or a state change there decides what passes)',
  'assert-shadow': 'shadows the assertion machinery the tests call, so their assertions are no longer the real ones',
};

const envNameAt = (toks: readonly Tok[], j: number): string | null => {
  const t = toks[j];
  if (t === undefined) return null;
  if (t.k === 'w' || t.k === 's') return t.v;
  return null;
};

/** A test word among the string literals near `i` (the same statement, roughly), or a `case` of one in a switch that follows. */
function testWordNear(toks: readonly Tok[], i: number, line: number): boolean {
  for (let j = Math.max(0, i - 10); j < Math.min(toks.length, i + 14); j++) {
    const t = toks[j] as Tok;
    if (t.k === 's' && t.line >= line - 1 && t.line <= line + 1 && TEST_WORDS.has(t.v.trim().toLowerCase())) return true;
  }
  if (at(toks, i - 2, 'switch', '(') || at(toks, i - 3, 'match')) {
    for (let j = i; j < Math.min(toks.length, i + 200); j++) {
      const t = toks[j] as Tok;
      if ((at(toks, j, 'case', '$s') || (t.k === 's' && at(toks, j + 1, '=>'))) && TEST_WORDS.has((toks[t.k === 's' ? j : j + 1] as Tok).v.trim().toLowerCase())) return true;
    }
  }
  return false;
}

/** `(` at `i`: the index after its closing `)`. */
function closeParen(toks: readonly Tok[], i: number): number {
  let depth = 0;
  for (let j = i; j < toks.length; j++) {
    const t = toks[j] as Tok;
    if (t.k !== 'p') continue;
    if (t.v === '(' || t.v === '[') depth++;
    else if (t.v === ')' || t.v === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return toks.length;
}

function js(toks: readonly Tok[], add: (c: Construct, i: number, n: number) => void): void {
  const errors = new Set<string>();
  const held = new Set<string>();
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i] as Tok;
    const prevDot = at(toks, i - 1, '.') || at(toks, i - 1, '?.');
    // process.env.X / process.env['X'] / import.meta.env.X
    // (import.meta as …).env in TypeScript: the `.env` after import.meta, past a cast
    let metaEnv = -1;
    if (at(toks, i, 'import', '.', 'meta')) for (let j = i + 3; j < Math.min(toks.length, i + 24); j++) if (at(toks, j, '.', 'env')) {
      metaEnv = j + 2;
      break;
    }
    const env = at(toks, i, 'process', '.', 'env') ? i + 3 : metaEnv !== -1 ? metaEnv : at(toks, i, 'Deno', '.', 'env') ? i + 3 : -1;
    if (env !== -1 && !at(toks, i - 1, '.')) {
      const name = at(toks, env, '.') || at(toks, env, '?.') ? envNameAt(toks, env + 1) : at(toks, env, '[') ? envNameAt(toks, env + 1) : null;
      if ((name !== null && TEST_ENV_NAME.test(name)) || testWordNear(toks, i, t.line) || testWordNear(toks, env, (toks[env - 1] as Tok).line)) add('test-mode', i, env - i + 2);
      // held in a name and compared later: `const mode = process.env.NODE_ENV; … mode === 'test'`
      else if (at(toks, i - 2, '$w', '=')) held.add((toks[i - 2] as Tok).v);
      continue;
    }
    if (t.k === 'w' && held.has(t.v) && !prevDot && !at(toks, i + 1, '=') && testWordNear(toks, i, t.line)) {
      add('test-mode', i, 1);
      continue;
    }
    if (t.k === 'w' && t.v === 'process' && !prevDot && at(toks, i + 1, '.')) {
      const prop = toks[i + 2];
      if (prop?.v === 'argv0' || prop?.v === 'execArgv' || prop?.v === 'title') add('process-args', i, 3);
      else if (prop?.v === 'argv') {
        // process.argv.slice(2) and process.argv[2…] are a program's arguments; [0], [1] and a
        // search of the whole list read the runner's own command line.
        if (at(toks, i + 3, '[')) {
          const idx = toks[i + 4];
          if (idx?.k !== 'n' || Number(idx.v) < 2) add('process-args', i, 5);
        } else if (at(toks, i + 3, '.', 'slice', '(')) {
          const n = toks[i + 6];
          if (n?.k === 'n' && Number(n.v) < 2) add('process-args', i, 6);
        } else if (at(toks, i + 3, '.', '$w', '(') && !['slice', 'length'].includes(toks[i + 4]?.v ?? '')) add('process-args', i, 5);
      }
      continue;
    }
    // require.main, except the guard of a runnable script: `if (require.main === module) { … }` at the top level, without an else
    if (at(toks, i, 'require', '.', 'main') && !prevDot) {
      const guard = (at(toks, i - 2, 'if', '(') && at(toks, i + 3, '===', 'module', ')')) || (at(toks, i - 4, 'if', '(', 'module', '===') && at(toks, i + 3, ')'));
      let ok = false;
      if (guard && t.depth === 0) {
        const close = at(toks, i + 3, ')') ? i + 3 : i + 5;
        const body = toks[close + 1];
        if (body?.v === '{') {
          let j = close + 1;
          while (j < toks.length && !((toks[j] as Tok).v === '}' && (toks[j] as Tok).depth === 0)) j++;
          ok = !at(toks, j + 1, 'else');
        }
      }
      if (!ok) add('process-args', i, 3);
      continue;
    }
    // the call stack: new Error().stack, a name holding a new Error read for its .stack, prepareStackTrace, callee.caller
    if ((at(toks, i, 'new', '$w', '(') || (at(toks, i, '$w', '(') && !prevDot && !at(toks, i - 1, 'new'))) && /Error$/.test(toks[at(toks, i, 'new') ? i + 1 : i]?.v ?? '')) {
      const open = at(toks, i, 'new') ? i + 2 : i + 1;
      const after = closeParen(toks, open);
      if (at(toks, after, '.', 'stack')) add('call-stack', i, after - i + 2);
      if (at(toks, i - 2, '$w', '=') || at(toks, i - 2, '$w', ':=')) errors.add((toks[i - 2] as Tok).v);
      continue;
    }
    if (t.k === 'w' && errors.has(t.v) && !prevDot && at(toks, i + 1, '.', 'stack')) {
      add('call-stack', i, 3);
      continue;
    }
    if (at(toks, i, 'Error', '.', 'prepareStackTrace') || at(toks, i, 'callee', '.', 'caller')) {
      add('call-stack', i, 3);
      continue;
    }
    if (at(toks, i, 'Error', '.', 'captureStackTrace', '(') && !at(toks, i + 4, 'this')) {
      add('call-stack', i, 4);
      continue;
    }
    // the matcher protocol
    if ((t.k === 'w' && t.v === 'asymmetricMatch') || (t.k === 's' && (t.v === 'asymmetricMatch' || t.v.startsWith('jest.asymmetricMatcher')))) {
      add('matcher-protocol', i, 1);
      continue;
    }
    // a `$$typeof` property set (an object's key, or assigned), not a variable of that name
    const prop = t.k === 'w' ? at(toks, i - 1, '.') || at(toks, i - 1, '{') || at(toks, i - 1, ',') : at(toks, i - 1, '[');
    if ((t.k === 'w' || t.k === 's') && t.v === '$$typeof' && prop && (at(toks, i + 1, ':') || at(toks, i + 1, '=') || at(toks, i + 1, ']', '=') || at(toks, i + 1, ']', ':'))) {
      add('matcher-protocol', i, 2);
    }
  }
}

function py(toks: readonly Tok[], add: (c: Construct, i: number, n: number) => void): void {
  const held = new Set<string>();
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i] as Tok;
    const prevDot = at(toks, i - 1, '.');
    if (t.k !== 'w' || prevDot) continue;
    // os.environ / os.getenv / environ.get: a test value nearby, or a name that says test
    const env = at(toks, i, 'os', '.', 'environ') ? i + 3 : at(toks, i, 'os', '.', 'getenv') ? i + 3 : at(toks, i, 'environ', '.', 'get') ? i + 3 : at(toks, i, 'getenv', '(') ? i + 1 : -1;
    if (env !== -1) {
      let name: string | null = null;
      for (let j = env; j < Math.min(toks.length, env + 5); j++) if ((toks[j] as Tok).k === 's') {
        name = (toks[j] as Tok).v;
        break;
      }
      if ((name !== null && TEST_ENV_NAME.test(name)) || testWordNear(toks, i, t.line)) add('test-mode', i, 3);
      else if (at(toks, i - 2, '$w', '=')) held.add((toks[i - 2] as Tok).v);
      continue;
    }
    if (held.has(t.v) && !at(toks, i + 1, '=') && testWordNear(toks, i, t.line)) {
      add('test-mode', i, 1);
      continue;
    }
    if (at(toks, i, 'sys', '.', 'modules') && testWordNear(toks, i, t.line)) {
      add('test-mode', i, 3);
      continue;
    }
    if (at(toks, i, 'sys', '.', 'argv', '[')) {
      const idx = toks[i + 4];
      if (idx?.k === 'n' && Number(idx.v) === 0 && !at(toks, i + 5, ':')) add('process-args', i, 5);
      continue;
    }
    if (at(toks, i, 'in', 'sys', '.', 'argv') || at(toks, i, 'sys', '.', 'orig_argv')) {
      add('process-args', i, 4);
      continue;
    }
    if (at(toks, i, 'inspect', '.', '$w', '(') && ['stack', 'currentframe', 'getouterframes', 'trace', 'getframeinfo'].includes((toks[i + 2] as Tok).v)) {
      add('call-stack', i, 3);
      continue;
    }
    if (at(toks, i, 'sys', '.', '_getframe') || at(toks, i, 'sys', '.', '_current_frames') || (at(toks, i, 'traceback', '.', '$w') && ['extract_stack', 'format_stack', 'print_stack', 'walk_stack'].includes((toks[i + 2] as Tok).v))) {
      add('call-stack', i, 3);
      continue;
    }
    if (t.v === 'f_back' && at(toks, i - 1, '.')) add('call-stack', i, 1);
    // def __eq__(self, other): return True — the whole body (a docstring aside)
    if (at(toks, i, 'def', '__eq__') || at(toks, i, 'def', '__ne__')) {
      const want = (toks[i + 1] as Tok).v === '__eq__' ? 'True' : 'False';
      let j = closeParen(toks, i + 2);
      if (at(toks, j, '->')) j += 2;
      if (!at(toks, j, ':')) continue;
      j++;
      if (toks[j]?.k === 's') j++;
      const next = toks[j + 2];
      if (at(toks, j, 'return', want) && (next === undefined || next.line > (toks[j + 1] as Tok).line)) add('always-equal', i, 2);
      continue;
    }
    if ((at(toks, i, '__eq__', '=', 'lambda') || at(toks, i, '__ne__', '=', 'lambda'))) {
      const want = t.v === '__eq__' ? 'True' : 'False';
      let j = i + 3;
      while (j < toks.length && !at(toks, j, ':')) j++;
      const next = toks[j + 2];
      if (at(toks, j + 1, want) && (next === undefined || next.line > (toks[j + 1] as Tok).line)) add('always-equal', i, 3);
    }
  }
}

function go(toks: readonly Tok[], add: (c: Construct, i: number, n: number) => void): void {
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i] as Tok;
    if (t.k !== 'w' || at(toks, i - 1, '.')) continue;
    if (at(toks, i, 'runtime', '.', '$w', '(') && ['Caller', 'Callers', 'Stack', 'FuncForPC', 'CallersFrames'].includes((toks[i + 2] as Tok).v)) add('call-stack', i, 3);
    else if (at(toks, i, 'debug', '.', '$w', '(') && ['Stack', 'PrintStack'].includes((toks[i + 2] as Tok).v)) add('call-stack', i, 3);
    else if (at(toks, i, 'os', '.', '$w', '(') && ['Getenv', 'LookupEnv'].includes((toks[i + 2] as Tok).v)) {
      const name = toks[i + 4];
      if ((name?.k === 's' && TEST_ENV_NAME.test(name.v)) || testWordNear(toks, i, t.line)) add('test-mode', i, 3);
    } else if (at(toks, i, 'func', '(')) {
      // func (x T) Equal(y T) bool { return true }
      const recv = closeParen(toks, i + 1);
      if (!at(toks, recv, 'Equal', '(')) continue;
      const params = closeParen(toks, recv + 1);
      if (at(toks, params, 'bool', '{', 'return', 'true', '}')) add('always-equal', i, params - i + 5);
    }
  }
}

function rs(toks: readonly Tok[], add: (c: Construct, i: number, n: number) => void, library: boolean): void {
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i] as Tok;
    if (t.k !== 'w') continue;
    if (t.v === 'debug_assertions') add('build-flag', i, 1);
    else if (at(toks, i, 'current', '(', ')', '.', 'name', '(') && at(toks, i - 2, 'thread', '::')) add('thread-name', i - 2, 8);
    else if (library && at(toks, i, 'env', '::', '$w') && ['args', 'args_os', 'current_exe'].includes((toks[i + 2] as Tok).v)) add('process-args', i, 3);
    else if (at(toks, i, 'env', '::', '$w', '(') && ['var', 'var_os'].includes((toks[i + 2] as Tok).v)) {
      const name = toks[i + 4];
      if ((name?.k === 's' && TEST_ENV_NAME.test(name.v)) || testWordNear(toks, i, t.line)) add('test-mode', i, 3);
    } else if (at(toks, i, 'Backtrace', '::', '$w') && ['capture', 'force_capture', 'new'].includes((toks[i + 2] as Tok).v)) add('call-stack', i, 3);
    else if (at(toks, i, 'fn', 'eq', '(') || at(toks, i, 'fn', 'ne', '(')) {
      const want = (toks[i + 1] as Tok).v === 'eq' ? 'true' : 'false';
      const params = closeParen(toks, i + 2);
      if (at(toks, params, '->', 'bool', '{', want, '}')) add('always-equal', i, 2);
    }
  }
}

/** Every construct of `text` (a source in `lang`) that special-cases the test run or the comparison, or reaches into the runner. */
export function testAwareness(text: string, lang: TokLang, opts: ScanOptions = {}): Finding[] {
  const toks = tokenize(text, lang);
  const out: Finding[] = [];
  const allowed = opts.allowed ?? [];
  const add = (construct: Construct, i: number, n: number, detail?: string, own?: string) => {
    if (allowed.includes(construct)) return;
    const first = toks[Math.max(0, i)];
    if (first === undefined) return;
    const key = `${construct}:${
      own ??
      toks
        .slice(Math.max(0, i), Math.max(0, i) + n)
        .map((t) => (t.k === 's' ? JSON.stringify(t.v) : t.v))
        .join(' ')
    }`;
    out.push({ construct, what: detail === undefined ? WHAT[construct] : `${detail}: ${WHAT[construct]}`, line: first.line, key });
  };
  // A program's entry may read its own arguments.
  const own = (c: Construct, i: number, n: number) => (opts.program === true && c === 'process-args' ? undefined : add(c, i, n));
  if (lang === 'js') {
    js(toks, own);
    jsRunnerReach(toks, add);
  } else if (lang === 'py') {
    py(toks, own);
    pyRunnerReach(text, toks, add);
  } else if (lang === 'go') {
    go(toks, add);
    goRunnerReach(text, toks, add);
  } else {
    rs(toks, add, opts.library ?? true);
    rsRunnerReach(toks, add);
  }
  return out.sort((a, b) => a.line - b.line);
}
/**
 * The first finding of `after` that `before` (the file as it was when the cycle began) did not
 * already have: a source that read NODE_ENV before the cycle may still be edited.
 */
export function newTestAwareness(after: string, before: string | null, lang: TokLang, opts: ScanOptions = {}): Finding | null {
  const found = testAwareness(after, lang, opts);
  if (found.length === 0) return null;
  const had = new Map<string, number>();
  if (before !== null) for (const f of testAwareness(before, lang, opts)) had.set(f.key, (had.get(f.key) ?? 0) + 1);
  for (const f of found) {
    const left = had.get(f.key) ?? 0;
    if (left > 0) {
      had.set(f.key, left - 1);
      continue;
    }
    return f;
  }
  return null;
}
