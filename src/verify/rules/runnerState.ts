import { at, constString, tokenize, type Tok } from './tokens.js';

/**
 * A source that reaches into the test runner or the assertion machinery itself (pure; read from
 * tokens, for testAware.ts): where the tests' verdict is kept in memory — the runner's state, its
 * hooks, its matchers — a source that gets hold of it can clear a failure, register a hook that
 * turns a failed test into a passed one, or hand the tests an assertion that never fails. Spelled
 * through literal text put together (`'vi' + 'test'`, `'\x76itest'`, `['py','test'].join('')`)
 * it is the same reach.
 */
export type Reach = 'runner-state' | 'assert-shadow';

/** What was found at token `i` (`n` tokens long), and how, in a few words for the model. */
export type Add = (construct: Reach, i: number, n: number, detail: string, key?: string) => void;

// --- JavaScript and TypeScript -------------------------------------------------------------

/**
 * Packages whose state the verdict lives in: the runners (their test state, hooks, reporters), and
 * the assertion libraries they compare with. Not their utilities that build tools use on their own
 * (jest-worker, jest-haste-map, jest-validate, jest-diff, pretty-format).
 */
const JS_RUNNER_PACKAGES = new Set([
  'vitest',
  'jest',
  'expect',
  'jest-circus',
  'jest-jasmine2',
  'jest-snapshot',
  'jest-runner',
  'jest-runtime',
  'jest-cli',
  'jest-mock',
  'jest-each',
  'jest-environment-node',
  'jest-environment-jsdom',
  'mocha',
  'chai',
  'should',
  'power-assert',
  'uvu',
  'ava',
  'tap',
  'tape',
  'jasmine',
  'jasmine-core',
  'qunit',
  'test', // the userland copy of node:test
  'node:test',
  'bun:test',
  'node:test/reporters',
]);
/** Scopes whose every package is the runner's. */
const JS_RUNNER_SCOPES = ['@vitest/', '@jest/globals', '@jest/expect', '@jest/core', '@jest/test-result', '@jest/reporters', '@jest/environment', '@jest/test-sequencer', '@tapjs/', '@playwright/test', 'playwright/test'];

/** The runner package a module specifier names, or null. */
function jsRunnerPackage(spec: string): string | null {
  if (JS_RUNNER_SCOPES.some((s) => (s.endsWith('/') ? spec.startsWith(s) : spec === s || spec.startsWith(`${s}/`)))) return spec;
  const bare = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string);
  if (spec === 'vitest/config') return null; // a config's helpers (defineConfig)
  if (JS_RUNNER_PACKAGES.has(spec) || JS_RUNNER_PACKAGES.has(bare)) return spec;
  if (bare.startsWith('chai-')) return spec; // chai's plugins extend its assertions
  return null;
}

/** Names of the runner's objects, by the global object they are reached through. */
const JS_GLOBALS = new Set(['expect', 'jest', 'vi', 'vitest', 'chai', 'Mocha', 'mocha', 'describe', 'it', 'test', 'suite', 'context', 'specify', 'before', 'after', 'beforeEach', 'afterEach', 'beforeAll', 'afterAll', 'setup', 'teardown', 'suiteSetup', 'suiteTeardown', 'xit', 'xtest', 'xdescribe', 'fit', 'fdescribe', 'onTestFinished', 'onTestFailed']);
/** Through `window` or `self`, which a browser build reads for its own reasons: only the names nothing else has. */
const JS_GLOBALS_STRICT = new Set(['expect', 'jest', 'vitest', 'Mocha', 'mocha', 'chai']);
const GLOBAL_OBJECTS = new Set(['globalThis', 'global', 'window', 'self']);
/** The runner's hook registrars, called bare (a runner that puts its API on the global object lends it to every module it loads). */
const JS_HOOKS = new Set(['beforeEach', 'afterEach', 'beforeAll', 'afterAll', 'onTestFinished', 'onTestFailed', 'suiteSetup', 'suiteTeardown']);
/** The runner's state kept under a registered symbol (jest-circus, expect, vitest). */
const JS_SYMBOLS = new Set(['JEST_STATE_SYMBOL', 'EVENT_HANDLERS', 'TEST_TIMEOUT_SYMBOL', 'RETRY_TIMES', 'RETRY_TIMES_SETTER', 'RETRY_IMMEDIATELY', 'WAIT_BEFORE_RETRY', 'LOG_ERRORS_BEFORE_RETRY', 'matchers-object', 'asymmetric-matchers-object', 'expect-global', 'secret:mocks']);
/** Names that are the runner's wherever a string holds them. */
function jsRunnerName(v: string): boolean {
  return v.toLowerCase().startsWith('__vitest') || v === 'JEST_STATE_SYMBOL' || v.startsWith('$$jest-');
}
const EXPECT_STATE = new Set(['extend', 'getState', 'setState', 'addSnapshotSerializer', 'addEqualityTesters']);

/** Names the file declares or imports itself: a local `afterEach` is not the runner's. */
function declaredNames(toks: readonly Tok[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i] as Tok;
    if (t.k !== 'w') continue;
    if (['function', 'const', 'let', 'var', 'class', 'as'].includes(t.v) && toks[i + 1]?.k === 'w') out.add((toks[i + 1] as Tok).v);
    // import { a, b as c } from '…' / const { a, b } = …
    if ((t.v === 'import' || t.v === 'const' || t.v === 'let' || t.v === 'var') && at(toks, i + 1, '{')) {
      for (let j = i + 2; j < toks.length && !at(toks, j, '}'); j++) if ((toks[j] as Tok).k === 'w' && !at(toks, j + 1, 'as') && !at(toks, j + 1, ':')) out.add((toks[j] as Tok).v);
    }
  }
  return out;
}

/** Names holding literal text (`const name = 've' + 'st'`), for reading a computed spelling. */
function heldStrings(toks: readonly Tok[], lang: 'js' | 'py'): Map<string, string> {
  const held = new Map<string, string>();
  for (let i = 0; i < toks.length; i++) {
    const decl = lang === 'js' ? at(toks, i, 'const', '$w', '=') || at(toks, i, 'let', '$w', '=') || at(toks, i, 'var', '$w', '=') : at(toks, i, '$w', '=') && !at(toks, i - 1, '.');
    if (!decl) continue;
    const name = toks[lang === 'js' ? i + 1 : i] as Tok;
    const v = constString(toks, lang === 'js' ? i + 3 : i + 2, lang, held);
    if (v !== null) held.set(name.v, v.v);
  }
  return held;
}

/** Is the `import`/`export` statement that ends in `from` at `i` type-only (erased before it runs)? */
function typeOnly(toks: readonly Tok[], from: number): boolean {
  for (let j = from - 1; j >= Math.max(0, from - 400); j--) {
    const t = toks[j] as Tok;
    if (t.k === 'w' && (t.v === 'import' || t.v === 'export') && !at(toks, j - 1, '.')) return at(toks, j + 1, 'type') && !at(toks, j + 2, 'from') && !at(toks, j + 2, ',');
    if (at(toks, j, ';')) return false;
  }
  return false;
}

export function jsRunnerReach(toks: readonly Tok[], add: Add): void {
  const held = heldStrings(toks, 'js');
  const declared = declaredNames(toks);
  const str = (i: number) => constString(toks, i, 'js', held);
  // names bound to a require function: const r = createRequire(import.meta.url)
  const requires = new Set(['require']);
  for (let i = 0; i < toks.length; i++) {
    if (!at(toks, i, '$w', '=')) continue;
    // const r = createRequire(…) / module.createRequire(…) / Module.createRequire(…)
    for (let j = i + 2; j < Math.min(toks.length, i + 6) && (toks[j] as Tok).line === (toks[i] as Tok).line; j++) {
      if (at(toks, j, 'createRequire', '(')) {
        requires.add((toks[i] as Tok).v);
        break;
      }
    }
  }
  const specifier = (i: number, j: number, how: string) => {
    const s = str(j);
    const pkg = s === null ? null : jsRunnerPackage(s.v);
    if (pkg !== null) add('runner-state', i, (s as { end: number }).end - i, `${how} \`${pkg}\``);
  };
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i] as Tok;
    const prevDot = at(toks, i - 1, '.') || at(toks, i - 1, '?.');
    if (t.k === 'w' && !prevDot) {
      // modules: import '…', … from '…', import('…'), require('…'), require.resolve('…'), import.meta.resolve('…')
      if (t.v === 'import' && toks[i + 1]?.k === 's') specifier(i, i + 1, 'imports');
      else if (t.v === 'from' && toks[i + 1]?.k === 's' && !typeOnly(toks, i)) specifier(i, i + 1, 'imports');
      else if (at(toks, i, 'import', '(')) specifier(i, i + 2, 'imports');
      else if (requires.has(t.v) && at(toks, i + 1, '(')) specifier(i, i + 2, 'requires');
      else if (at(toks, i, 'require', '.', 'resolve', '(')) specifier(i, i + 4, 'resolves');
      else if (at(toks, i, 'import', '.', 'meta', '.', 'resolve', '(')) specifier(i, i + 6, 'resolves');
      // the global object's runner names: globalThis.expect, global['__vitest_worker__'], Reflect.get(globalThis, 'jest')
      if (GLOBAL_OBJECTS.has(t.v) && (at(toks, i + 1, '.') || at(toks, i + 1, '?.')) && toks[i + 2]?.k === 'w') {
        const name = (toks[i + 2] as Tok).v;
        if ((t.v === 'window' || t.v === 'self' ? JS_GLOBALS_STRICT : JS_GLOBALS).has(name)) add('runner-state', i, 3, `reaches \`${t.v}.${name}\``);
      } else if (GLOBAL_OBJECTS.has(t.v) && at(toks, i + 1, '[')) {
        const s = str(i + 2);
        if (s !== null && (t.v === 'window' || t.v === 'self' ? JS_GLOBALS_STRICT : JS_GLOBALS).has(s.v)) add('runner-state', i, s.end - i + 1, `reaches \`${t.v}[${JSON.stringify(s.v)}]\``);
      }
      if ((at(toks, i, 'Reflect', '.', '$w', '(', '$w', ',') || at(toks, i, 'Object', '.', '$w', '(', '$w', ',')) && GLOBAL_OBJECTS.has((toks[i + 4] as Tok).v) && ['get', 'set', 'has', 'getOwnPropertyDescriptor', 'defineProperty'].includes((toks[i + 2] as Tok).v)) {
        const s = str(i + 6);
        if (s !== null && (JS_GLOBALS.has(s.v) || jsRunnerName(s.v))) add('runner-state', i, s.end - i, `reaches \`${(toks[i + 4] as Tok).v}\`'s \`${s.v}\``);
      }
      // every symbol on the global object: how jest-circus's unregistered state symbol is found without its name
      if ((at(toks, i, 'Object', '.', 'getOwnPropertySymbols', '(', '$w', ')') || at(toks, i, 'Reflect', '.', 'ownKeys', '(', '$w', ')')) && GLOBAL_OBJECTS.has((toks[i + 4] as Tok).v)) {
        add('runner-state', i, 6, `walks the symbols of \`${(toks[i + 4] as Tok).v}\` (how the runner's state is found without its name)`);
      }
      if (at(toks, i, 'Symbol', '.', 'for', '(')) {
        const s = str(i + 4);
        if (s !== null && (JS_SYMBOLS.has(s.v) || jsRunnerName(s.v) || s.v.startsWith('VITEST_'))) add('runner-state', i, s.end - i + 1, `reaches the runner's state symbol \`${s.v}\``);
      }
      // the runner's expect or jest object, lent to every module as a global: expect.extend and
      // expect.getState (the matchers, the running test's assertion counts), expect.anything()
      // (equal to anything), jest.fn …
      if ((t.v === 'expect' || t.v === 'jest') && (at(toks, i + 1, '.') || at(toks, i + 1, '?.')) && toks[i + 2]?.k === 'w' && !declared.has(t.v)) add('runner-state', i, 3, `${t.v === 'expect' && EXPECT_STATE.has((toks[i + 2] as Tok).v) ? 'calls' : 'reaches'} the runner's global \`${t.v}.${(toks[i + 2] as Tok).v}\``);
      // code handed to the evaluator as literal text: read as code
      if (EVALUATORS.has(t.v) && at(toks, i + 1, '(')) evaluated(toks, i, 'js', str, add);
      // a hook registered with the runner by a source
      if (JS_HOOKS.has(t.v) && at(toks, i + 1, '(') && !declared.has(t.v) && !at(toks, i - 1, 'function') && !at(toks, i - 1, 'async')) {
        const body = closeOf(toks, i + 1);
        if (!at(toks, body, '{') && !at(toks, body, ':')) add('runner-state', i, 2, `registers the hook \`${t.v}\` with the test runner`);
      }
    }
    if (t.k === 'w' && prevDot && t.v === 'require' && at(toks, i + 1, '(')) specifier(i, i + 2, 'requires'); // module.require, process.mainModule.require
    if (at(toks, i, 'createRequire', '(')) {
      // createRequire(import.meta.url)('vitest')
      const after = closeOf(toks, i + 1);
      if (at(toks, after, '(')) specifier(i, after + 1, 'requires');
    }
    if (t.k === 'w' && prevDot && EVALUATORS.has(t.v) && at(toks, i + 1, '(')) evaluated(toks, i, 'js', str, add); // vm.runInThisContext
    if (t.k === 'w' && jsRunnerName(t.v)) add('runner-state', i, 1, `reaches \`${t.v}\``);
    else if (t.k === 's' && !at(toks, i - 1, '+')) {
      const s = str(i);
      if (s !== null && jsRunnerName(s.v)) add('runner-state', i, s.end - i, `names \`${s.v}\``);
    }
  }
}

/** Functions that run a string as code. */
const EVALUATORS = new Set(['eval', 'Function', 'runInThisContext', 'runInNewContext', 'runInContext', 'compileFunction', 'Script']);
const PY_EVALUATORS = new Set(['eval', 'exec', 'compile']);

/**
 * A call at `i` of an evaluator: each argument that is literal text is read as code of the same
 * language, and what it does is found at the call (`eval("require('vi' + 'test')")`).
 */
function evaluated(toks: readonly Tok[], i: number, lang: 'js' | 'py', str: (j: number) => { v: string; end: number } | null, add: Add): void {
  const end = closeOf(toks, i + 1) - 1;
  let j = i + 2;
  while (j < end) {
    const s = str(j);
    if (s !== null) {
      const inner = tokenize(s.v, lang);
      let first: { c: Reach; detail: string } | null = null;
      const note: Add = (c, _k, _n, detail) => {
        first ??= { c, detail };
      };
      if (lang === 'js') jsRunnerReach(inner, note);
      else pyRunnerReach(s.v, inner, note);
      if (first !== null) {
        const { c, detail } = first as { c: Reach; detail: string };
        add(c, i, s.end - i, `runs code from a string that ${detail}`);
        return;
      }
      j = s.end;
    } else j++;
  }
}

/** `(` at `i`: the index after its `)`. */
function closeOf(toks: readonly Tok[], i: number): number {
  let depth = 0;
  for (let j = i; j < toks.length; j++) {
    if (at(toks, j, '(')) depth++;
    else if (at(toks, j, ')') && --depth === 0) return j + 1;
  }
  return toks.length;
}

// --- Python --------------------------------------------------------------------------------

/**
 * Modules whose state the verdict lives in: pytest and its internals, its plugins, unittest
 * (its TestCase and result classes; `unittest.mock.ANY` equals anything), the `mock` backport,
 * the old runners, and dirty-equals (values equal to anything by design).
 */
function pyRunnerModule(name: string): boolean {
  const top = name.split('.')[0] as string;
  return ['pytest', '_pytest', 'unittest', 'mock', 'nose', 'nose2', 'dirty_equals'].includes(top) || top.startsWith('pytest_');
}

/**
 * The lines of a top-level `if __name__ == '__main__':` block: they run only when the module is
 * run as a program, never when a test imports it (idlelib's modules run their own tests from there).
 */
function mainGuardLines(text: string, toks: readonly Tok[]): (line: number) => boolean {
  let from = -1;
  for (let i = 0; i < toks.length; i++) {
    const guard = at(toks, i, 'if', '__name__', '==', '"__main__', ':') || at(toks, i, 'if', '"__main__', '==', '__name__', ':');
    if (guard && (toks[i] as Tok).depth === 0 && (i === 0 || (toks[i - 1] as Tok).line < (toks[i] as Tok).line)) {
      from = (toks[i] as Tok).line;
      break;
    }
  }
  if (from === -1) return () => false;
  const lines = text.split('\n');
  if ((lines[from - 1] ?? '').startsWith(' ') || (lines[from - 1] ?? '').startsWith('\t')) return () => false;
  let to = lines.length;
  for (let l = from; l < lines.length; l++) {
    const line = lines[l] as string;
    if (line.trim() !== '' && !line.startsWith(' ') && !line.startsWith('\t') && !line.startsWith('#')) {
      to = l;
      break;
    }
  }
  return (line) => line > from && line <= to;
}

export function pyRunnerReach(text: string, toks: readonly Tok[], addAll: Add): void {
  const inMain = mainGuardLines(text, toks);
  const add: Add = (c, i, n, detail, key) => (c === 'runner-state' && inMain((toks[i])?.line ?? 0) ? undefined : addAll(c, i, n, detail, key));
  const held = heldStrings(toks, 'py');
  const str = (i: number) => constString(toks, i, 'py', held);
  const builtins = new Set(['builtins', '__builtin__']);
  for (let i = 0; i < toks.length; i++) if (at(toks, i, 'import', '$w', 'as', '$w') && builtins.has((toks[i + 1] as Tok).v)) builtins.add((toks[i + 3] as Tok).v);
  const dotted = (i: number): { name: string; end: number } => {
    let name = (toks[i] as Tok).v;
    let j = i + 1;
    while (at(toks, j, '.', '$w')) {
      name += `.${(toks[j + 1] as Tok).v}`;
      j += 2;
    }
    return { name, end: j };
  };
  /** A reference to the builtins module at `i` (a name, `__import__('builtins')`, `sys.modules['builtins']`): the index after it, or -1. */
  const builtinsAt = (i: number): number => {
    const t = toks[i];
    if (t === undefined || t.k !== 'w' || at(toks, i - 1, '.')) return -1;
    if (builtins.has(t.v) || t.v === '__builtins__') return i + 1;
    const arg = at(toks, i, '__import__', '(') || at(toks, i, 'import_module', '(') ? i + 2 : at(toks, i, 'importlib', '.', 'import_module', '(') ? i + 4 : at(toks, i, 'sys', '.', 'modules', '[') ? i + 4 : -1;
    const s = arg === -1 ? null : str(arg);
    return s !== null && (s.v === 'builtins' || s.v === '__builtin__') && (at(toks, s.end, ')') || at(toks, s.end, ']')) ? s.end + 1 : -1;
  };
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i] as Tok;
    // a pytest plugin's hooks written by a source: pluggy's markers for the "pytest" project
    if ((t.v === 'HookimplMarker' || t.v === 'HookspecMarker') && at(toks, i + 1, '(')) {
      const s = str(i + 2);
      if (s !== null && s.v === 'pytest') add('runner-state', i, s.end - i + 1, `marks pytest hooks (\`${t.v}("pytest")\`)`);
      continue;
    }
    if (t.k !== 'w' || at(toks, i - 1, '.')) continue;
    // import pytest / import a, unittest.mock as m / from _pytest.python import … (a relative import is the project's own)
    if (t.v === 'import' && toks[i + 1]?.k === 'w' && !at(toks, i - 2, 'from') && (i === 0 || (toks[i - 1] as Tok).line < t.line || at(toks, i - 1, ';') || at(toks, i - 1, ':'))) {
      let j = i + 1;
      while (toks[j]?.k === 'w' && (toks[j] as Tok).line === t.line) {
        const d = dotted(j);
        if (pyRunnerModule(d.name)) add('runner-state', i, d.end - i, `imports \`${d.name}\``);
        j = d.end;
        if (at(toks, j, 'as', '$w')) j += 2;
        if (!at(toks, j, ',')) break;
        j++;
      }
      continue;
    }
    if (t.v === 'from' && toks[i + 1]?.k === 'w') {
      const d = dotted(i + 1);
      if (at(toks, d.end, 'import') && pyRunnerModule(d.name)) add('runner-state', i, d.end - i, `imports from \`${d.name}\``);
      continue;
    }
    // the assertion error rebound for every module: builtins.AssertionError = …, setattr(builtins, 'AssertionError', …),
    // __builtins__['AssertionError'] = …, vars(builtins)[…] = …, with builtins reached by name too (__import__('builtins'))
    const ref = builtinsAt(i);
    if (ref !== -1) {
      if (at(toks, ref, '.', 'AssertionError', '=')) add('assert-shadow', i, ref - i + 3, 'rebinds `AssertionError` in the builtins');
      const item = at(toks, ref, '[') ? ref + 1 : at(toks, ref, '.', '__dict__', '[') ? ref + 3 : -1;
      const s = item === -1 ? null : str(item);
      if (s !== null && s.v === 'AssertionError' && at(toks, s.end, ']', '=')) add('assert-shadow', i, s.end - i + 2, 'rebinds `AssertionError` in the builtins');
    }
    if (at(toks, i, 'setattr', '(') || at(toks, i, 'vars', '(')) {
      const r = builtinsAt(i + 2);
      const name = r === -1 ? null : at(toks, r, ',') ? str(r + 1) : at(toks, r, ')', '[') ? str(r + 2) : null;
      if (name !== null && name.v === 'AssertionError') add('assert-shadow', i, name.end - i, `rebinds \`AssertionError\` in the builtins through ${t.v}`);
    }
    // a module reached by its name as text: __import__('pytest'), import_module('_py' + 'test'), sys.modules['pytest']
    const byName = at(toks, i, '__import__', '(') ? i + 2 : at(toks, i, 'import_module', '(') ? i + 2 : at(toks, i, 'importlib', '.', 'import_module', '(') ? i + 4 : at(toks, i, 'sys', '.', 'modules', '[') ? i + 4 : at(toks, i, 'sys', '.', 'modules', '.', 'get', '(') ? i + 6 : at(toks, i, 'find_spec', '(') ? i + 2 : at(toks, i, 'run_module', '(') ? i + 2 : at(toks, i, 'runpy', '.', 'run_module', '(') ? i + 4 : -1;
    if (byName !== -1) {
      const s = str(byName);
      if (s !== null && pyRunnerModule(s.v)) add('runner-state', i, s.end - i, `reaches the module \`${s.v}\` by its name`);
      continue;
    }
    if (PY_EVALUATORS.has(t.v) && at(toks, i + 1, '(')) evaluated(toks, i, 'py', str, add);
  }
}

// --- Go --------------------------------------------------------------------------------------

/** A test-helper package by its name (`httptest`, `fstest`, `testutil`): it imports `testing` to take a `testing.TB`, as the convention is. */
function goHelperPackage(name: string): boolean {
  const n = name.toLowerCase();
  return n.endsWith('test') || n.endsWith('testing') || /^test(?:util|utils|helper|helpers|env|lib|support|kit)$/.test(n) || n.endsWith('testutil') || n.endsWith('testutils');
}

export function goRunnerReach(text: string, toks: readonly Tok[], add: Add): void {
  const pkg = at(toks, 0, 'package', '$w') ? (toks[1] as Tok).v : '';
  const importsTesting = (j: number) => at(toks, j, '"testing');
  if (!goHelperPackage(pkg)) {
    for (let i = 0; i < toks.length; i++) {
      if (!at(toks, i, 'import') || (toks[i] as Tok).depth !== 0) continue;
      const one = (j: number): number => {
        // import "testing" / import t "testing" / import . "testing" / import _ "testing"
        const spec = toks[j]?.k === 's' ? j : (toks[j]?.k === 'w' || at(toks, j, '.')) && toks[j + 1]?.k === 's' ? j + 1 : -1;
        if (spec !== -1 && importsTesting(spec)) add('runner-state', i, spec - i + 1, 'imports Go’s `testing` package outside a test file or a test-helper package');
        return spec === -1 ? j + 1 : spec + 1;
      };
      if (at(toks, i + 1, '(')) {
        let j = i + 2;
        while (j < toks.length && !at(toks, j, ')')) j = one(j);
      } else one(i + 1);
    }
  }
  // //go:linkname local testing.x / runtime.x: a directive (a comment to the tokens), read from the text
  let line = 1;
  for (let k = 0; k < text.length; ) {
    const nl = text.indexOf('\n', k);
    const end = nl === -1 ? text.length : nl;
    const l = text.slice(k, end).trim();
    if (l.startsWith('//go:linkname ')) {
      const target = l.slice('//go:linkname '.length).trim().split(/\s+/)[1] ?? '';
      if (target.startsWith('testing.') || target.startsWith('testing/') || target.startsWith('runtime.') || target.startsWith('internal/testlog.')) {
        const i = toks.findIndex((t) => t.line > line);
        add('runner-state', i === -1 ? toks.length - 1 : i, 1, `binds to \`${target}\` (//go:linkname into the runtime or the testing package)`, `go:linkname ${target}`);
      }
    }
    line++;
    k = end + 1;
  }
}

// --- Rust ------------------------------------------------------------------------------------

/**
 * The standard macros a test judges with: a `macro_rules!` of the same name before the test
 * module, or an import under that name, is what the test calls instead (textual macro scoping
 * and `use super::*` carry it in). Not the ones that build values (`vec!`, `format!`, `write!`):
 * crates define their own of those (bumpalo's `vec![in &bump; …]`), and a test judges with the
 * assertion around them.
 */
const RS_ASSERT_MACROS = new Set(['assert', 'assert_eq', 'assert_ne', 'debug_assert', 'debug_assert_eq', 'debug_assert_ne', 'assert_matches', 'debug_assert_matches', 'matches', 'panic', 'unreachable', 'todo', 'unimplemented']);
/** Crates whose `#[macro_use]` brings assertion macros of the standard names. */
const RS_ASSERT_CRATES = new Set(['pretty_assertions', 'assert_matches']);
const RS_STD_ROOTS = new Set(['std', 'core', 'alloc']);

export function rsRunnerReach(toks: readonly Tok[], add: Add): void {
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i] as Tok;
    if (t.k !== 'w') continue;
    const name = at(toks, i + 2, 'r', '#', '$w') ? i + 4 : i + 2; // a raw identifier, r#assert_eq
    if (at(toks, i, 'macro_rules', '!', '$w') && RS_ASSERT_MACROS.has((toks[name] as Tok).v)) add('assert-shadow', i, name - i + 1, `defines \`macro_rules! ${(toks[name] as Tok).v}\`, the name of a standard macro the tests call`);
    else if (at(toks, i, 'extern', 'crate', 'test') && !featureGated(toks, i)) add('runner-state', i, 3, 'uses the test harness’s own crate (`extern crate test`)');
    else if (at(toks, i, 'extern', 'crate', '$w') && RS_ASSERT_CRATES.has((toks[i + 2] as Tok).v) && macroUse(toks, i)) add('assert-shadow', i, 3, `brings \`${(toks[i + 2] as Tok).v}\`'s assertion macros into every module (\`#[macro_use]\`)`);
    else if (at(toks, i, 'proc_macro', ']')) {
      // #[proc_macro] pub fn assert_eq(…)
      let j = i + 2;
      while (at(toks, j, 'pub') || at(toks, j, '(') || at(toks, j, 'crate') || at(toks, j, ')')) j++;
      if (at(toks, j, 'fn', '$w') && RS_ASSERT_MACROS.has((toks[j + 1] as Tok).v)) add('assert-shadow', j, 2, `defines the procedural macro \`${(toks[j + 1] as Tok).v}!\`, the name of a standard macro the tests call`);
    } else if (t.v === 'use' && !at(toks, i - 1, '::')) useTree(toks, i, add);
  }
}

/** Is the item at `i` compiled only with a cargo feature (`#[cfg(feature = "bench")] extern crate test;`, how benchmarks reach `test::Bencher`)? */
function featureGated(toks: readonly Tok[], i: number): boolean {
  for (let j = i - 1; j >= Math.max(0, i - 40); j--) {
    if (at(toks, j, 'cfg', '(', 'feature', '=')) return true;
    if (at(toks, j, ';') || at(toks, j, '}')) return false;
  }
  return false;
}

/** Is `#[macro_use]` among the attributes just before the item at `i`? */
function macroUse(toks: readonly Tok[], i: number): boolean {
  for (let j = i - 1; j >= Math.max(0, i - 40); j--) {
    if (at(toks, j, 'macro_use')) return true;
    if (at(toks, j, ';') || at(toks, j, '}')) return false;
  }
  return false;
}

/** A `use` declaration: a leaf imported under a standard macro's name from outside std/core/alloc, or anything renamed to one. */
function useTree(toks: readonly Tok[], i: number, add: Add): void {
  let j = i + 1;
  if (at(toks, j, '::')) j++;
  const root = toks[j]?.v ?? '';
  for (; j < toks.length && !at(toks, j, ';'); j++) {
    const t = toks[j] as Tok;
    if (t.k !== 'w') continue;
    const leaf = (at(toks, j - 1, '::') || at(toks, j - 1, '{') || at(toks, j - 1, ',')) && (at(toks, j + 1, ';') || at(toks, j + 1, ',') || at(toks, j + 1, '}') || at(toks, j + 1, 'as'));
    if (at(toks, j - 1, 'as') && RS_ASSERT_MACROS.has(t.v)) {
      const from = (toks[j - 2] as Tok).v;
      // from std itself only another of its macros is a swap (`use core::assert_ne as assert_eq`); `unreachable_unchecked as unreachable` is a function
      if (!RS_STD_ROOTS.has(root) || (from !== t.v && RS_ASSERT_MACROS.has(from))) add('assert-shadow', i, j - i + 1, `imports \`${from}\` under the name \`${t.v}\`, a standard macro the tests call`);
    } else if (leaf && !at(toks, j + 1, 'as') && RS_ASSERT_MACROS.has(t.v) && !RS_STD_ROOTS.has(root) && j > i + 1) {
      add('assert-shadow', i, j - i + 1, `imports a macro named \`${t.v}\` from \`${root}\`, over the standard one the tests call`);
    }
  }
}
