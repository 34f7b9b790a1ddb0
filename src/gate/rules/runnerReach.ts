import { maskRustTestRegions } from '../../verify/rules/testRegions.js';
import { newTestAwareness } from '../../verify/rules/testAware.js';

/**
 * Source that reaches into the test runner (pure). In GREEN and REFACTOR a production source
 * must make the frozen tests pass by doing its job, not by talking to the runner: importing the
 * test framework or its runtime, rebinding the assertion library, or branching on the runner's
 * environment lets a source pass tests it does not satisfy.
 */

interface Reach {
  /** What the source does, for the reason the model sees. */
  what: string;
  /** The line it does it on (1-based). */
  line: number;
  /** The construct, as runner_reach_allow names it (`runner` for the rules below, testAware.ts's otherwise). */
  construct: string;
}

type Lang = 'js' | 'py' | 'go' | 'rs';

interface Rule {
  what: string;
  /** Which files the rule applies to, by language. */
  langs: readonly Lang[];
  /** Rust library code only: not a binary's main, a build script, an example or a benchmark. */
  libraryOnly?: true;
  /**
   * Words every match of `re` contains: content with none of them cannot match, and the regular
   * expression is never run (V8 compiles one on its first use, which costs more than the check).
   */
  needs: string[];
  re: RegExp;
  /** Content the rule does not apply to (a Go `package main` may read its own arguments). */
  unless?: RegExp;
}

const JS: readonly Lang[] = ['js'];
const PY: readonly Lang[] = ['py'];
const GO: readonly Lang[] = ['go'];
const RS: readonly Lang[] = ['rs'];

/** Extensions by language: JavaScript and TypeScript in every module flavour, and the component files that hold them. */
const LANG_OF_EXT: Readonly<Record<string, Lang>> = {
  ...Object.fromEntries(['js', 'jsx', 'ts', 'tsx'].flatMap((e) => [e, `c${e}`, `m${e}`]).map((e) => [e, 'js'])),
  vue: 'js',
  svelte: 'js',
  astro: 'js',
  py: 'py',
  pyi: 'py',
  go: 'go',
  rs: 'rs',
};

// By the file name, without a regular expression: this runs on every source write in GREEN.
function langOf(rel: string): Lang | null {
  const name = rel.slice(rel.lastIndexOf('/') + 1).toLowerCase();
  const dot = name.lastIndexOf('.');
  const ext = dot < 0 ? '' : name.slice(dot + 1);
  return Object.hasOwn(LANG_OF_EXT, ext) ? (LANG_OF_EXT[ext] as Lang) : null;
}

/** Rust library code: not a binary's main, a build script, an example or a benchmark. */
function rustLibrary(rel: string): boolean {
  const parts = rel.toLowerCase().split('/');
  const name = parts.pop() ?? '';
  return name !== 'main.rs' && name !== 'build.rs' && !parts.some((dir) => dir === 'bin' || dir === 'examples' || dir === 'benches');
}

// `expect` is jest's assertion library, published on its own.
const JS_FRAMEWORK = String.raw`(?:vitest|@vitest\/[\w./-]+|vitest\/[\w./-]+|jest|@jest\/[\w./-]+|jest-[\w-]+|expect|node:test|mocha|chai|ava|tap|uvu|@playwright\/test)`;

// Built on first use: some thirty regular expressions a Bash call that writes no source never needs.
let rules: readonly Rule[] | undefined;
const RULES = (): readonly Rule[] =>
  (rules ??= [
  { what: 'imports the test framework', langs: JS, needs: ['vitest', 'jest', 'expect', 'node:test', 'mocha', 'chai', 'ava', 'tap', 'uvu', '@playwright/test'], re: new RegExp(String.raw`\b(?:from|import|require|import\s*\()\s*\(?\s*['"\`]${JS_FRAMEWORK}['"\`]`) },
  { what: 'extends the test framework (expect.extend)', langs: JS, needs: ['extend'], re: /\bexpect\s*\.\s*extend\s*\(/ },
  { what: 'rebinds the assertion library', langs: JS, needs: ['assert', 'expect', 'chai'], re: /(?<![.\w$])(?:assert|expect|chai)(?:\s*\.\s*\w+)+\s*=(?!=)|(?:defineProperty|assign|setPrototypeOf)\s*\(\s*(?:assert|expect|chai)\b|require\s*\(\s*['"](?:node:)?assert(?:\/strict)?['"]\s*\)\s*\.\s*\w+\s*=(?!=)/ },
  { what: 'reads the test runner’s environment', langs: JS, needs: ['VITEST', 'JEST_WORKER_ID', 'NODE_TEST_CONTEXT', 'TEST_WORKER_INDEX', 'MOCHA_', 'vitest', 'globalThis'], re: /\b(?:VITEST(?:_\w+)?|JEST_WORKER_ID|NODE_TEST_CONTEXT|TEST_WORKER_INDEX|MOCHA_\w+)\b|import\.meta\.vitest|\b__vitest\w*|globalThis\s*\.\s*(?:expect|jest|vi|__vitest\w*)\b/ },
  { what: 'names the test runner to detect it', langs: JS, needs: ['vitest', 'jest', 'mocha', 'node:test', '--test'], re: /['"`](?:vitest|jest|jest-worker|mocha|node:test)['"`]|process\s*\.\s*(?:argv|execArgv)\b[\s\S]{0,120}(?:--test\b|vitest|jest)/ },
  { what: 'reaches for the test framework’s globals', langs: JS, needs: ['global', 'window', 'self'], re: /(?<![\w$.])(?:globalThis|global|window|self)\s*(?:\.\s*(?:test|it|describe|suite|xit|xtest|fit|fdescribe|xdescribe)\b|\[\s*['"`](?:test|it|describe|suite)['"`]\s*\])/ },
  // jest hands every module it loads, sources included, its `jest` object, and `expect` is global:
  // `typeof jest !== 'undefined' ? 3 : 0` passes a test the code does not satisfy.
  { what: 'detects the test framework’s runtime (jest, expect.getState)', langs: JS, needs: ['typeof', 'jest', 'expect'], re: /\btypeof\s+(?:jest|expect|test|it|describe|beforeAll|beforeEach)\b|(?<![\w$./-])jest\s*(?:\?\.|\.)\s*[a-zA-Z]\w*\s*\(|(?<![\w$.])expect\s*\.\s*(?:getState|setState)\b|\$\$jest-matchers-object/ },
  // A production source has no business with where the runner writes its report (jest/vitest
  // --outputFile, pytest --junitxml, node --test-reporter-destination): finding it is how a report is rewritten.
  { what: 'reads the test runner’s report options', langs: ['js', 'py'], needs: ['--outputFile', '--junit', '--test-reporter-destination'], re: /--outputFile\b|--junit-?xml\b|--test-reporter-destination\b/ },
  { what: 'rebinds what assertions compare with (Object.is)', langs: JS, needs: ['Object'], re: /\bObject\s*\.\s*is\s*=(?!=)|defineProperty\s*\(\s*Object\s*,\s*['"]is['"]/ },
  { what: 'rewrites the process’s output or exit (what the runner reports through)', langs: JS, needs: ['process', 'fs'], re: /\bprocess\s*\.\s*(?:stdout|stderr)\s*\.\s*write\s*=(?!=)|\bprocess\s*\.\s*(?:exit|reallyExit|_exiting)\s*=(?!=)|\bfs\s*\.\s*(?:writeFileSync|writeFile|createWriteStream|renameSync)\s*=(?!=)|defineProperty\s*\(\s*process\s*,\s*['"](?:exitCode|exit)['"]/ },
  { what: 'reaches into the module loader that runs the tests', langs: JS, needs: ['Module', 'require'], re: /\bModule\s*\.\s*_(?:load|resolveFilename|compile)\b|require\s*\.\s*cache\s*\[/ },
  { what: 'imports pytest', langs: PY, needs: ['pytest'], re: /^\s*(?:import|from)\s+_?pytest\b|__import__\s*\(\s*['"]_?pytest|import_module\s*\(\s*['"]_?pytest/m },
  { what: 'reads the test runner’s environment', langs: PY, needs: ['PYTEST_', 'pytest'], re: /\bPYTEST_(?:CURRENT_TEST|XDIST_WORKER|VERSION)\b|['"]_?pytest['"]\s+in\s+sys\.modules|sys\.modules\s*\[\s*['"]_?pytest['"]\s*\]/ },
  { what: 'names pytest to detect it', langs: PY, needs: ['pytest'], re: /['"]_?pytest(?:[./][\w.]*)?['"]\s*(?:in\b|\))|\bin\s+['"][^'"\n]*pytest|sys\s*\.\s*modules\s*\.\s*get\s*\(\s*['"]_?pytest/ },
  // pytest reached without its name: a module name put together from pieces of literal text (a
  // name built from a variable, `'app.backends.' + name`, is how plugins load and stays allowed),
  // every module or object in the interpreter walked, or pytest's report internals named.
  { what: 'imports a module by a name built from pieces (how a source reaches the test runner without naming it)', langs: PY, needs: ['import_module', '__import__'], re: /\b(?:import_module|__import__)\s*\(\s*(?:[rbu]?['"][^'"\n]*['"]\s*\+\s*[rbu]?['"]|['"]{2}\s*\.\s*join\s*\(|[rbu]?['"][^'"\n]*['"]\s*\[\s*:\s*:\s*-1\s*\]|(?:bytes|bytearray)\s*\.\s*fromhex\b|chr\s*\(|(?:base64|codecs|binascii)\s*\.)/ },
  { what: 'walks every module or object in the interpreter (how a source finds the test runner without naming it)', langs: PY, needs: ['gc', 'sys'], re: /\bgc\s*\.\s*get_(?:objects|referrers|referents)\s*\(|\bsys\s*\.\s*modules\s*\.\s*(?:values|items|copy)\s*\(|\bfor\s+[\w\s,()]+?\s+in\s+(?:(?:list|dict|tuple|sorted|set)\s*\(\s*)?sys\s*\.\s*modules\b/ },
  { what: 'names pytest’s report internals', langs: PY, needs: ['from_item_and_call', 'CallInfo', 'LogXML', 'TerminalReporter', 'pytest_', 'Report'], re: /\b(?:from_item_and_call|CallInfo|LogXML|TerminalReporter|pytest_runtest_\w+|pytest_report_\w+|pytest_terminal_summary|pytest_collection_modifyitems|pytest_sessionfinish)\b|['"](?:TestReport|CollectReport)['"]/ },
  { what: 'rebinds the assertion machinery', langs: PY, needs: ['AssertionError'], re: /^\s*(?:builtins\s*\.\s*)?AssertionError\s*=(?!=)|setattr\s*\(\s*builtins\s*,\s*['"]AssertionError/m },
  { what: 'imports Go’s testing package', langs: GO, needs: ['"testing'], re: /^\s*(?:import\s+)?(?:\w+\s+)?"testing(?:\/[\w/]+)?"/m },
  { what: 'checks whether it runs under go test', langs: GO, needs: ['Testing', '.test', 'test.'], re: /\btesting\s*\.\s*Testing\s*\(|(?:os\s*\.\s*Args\s*\[\s*0\s*\]|os\s*\.\s*Executable\s*\(\s*\))[\s\S]{0,160}\.test(?:\.exe)?["`]|\.test(?:\.exe)?["`][\s\S]{0,160}(?:os\s*\.\s*Args\s*\[\s*0\s*\]|os\s*\.\s*Executable\s*\(\s*\))|flag\s*\.\s*(?:Lookup|Set)\s*\(\s*"test\.|os\s*\.\s*Args\b[\s\S]{0,80}"-test\./ },
  // A library has no use for the program's name or command line, and the name is how it tells
  // `calc.test` from a program however the comparison is spelled; a main package may read them.
  { what: 'reads the program’s name or command line (how a library tells the test binary apart)', langs: GO, needs: ['Args', 'Executable', '/proc/self/'], re: /\bos\s*\.\s*(?:Args\b|Executable\s*\()|["`]\/proc\/self\/(?:exe|cmdline)\b/, unless: /^\s*package\s+main\b/m },
  { what: 'prints the test runner’s own result lines', langs: GO, needs: ['---', '==='], re: /["`][^"`\n]*(?:---\s*(?:PASS|FAIL|SKIP):|===\s*(?:RUN|PAUSE|CONT)\b)/ },
  // Ending the process from a library ends the test binary: nothing after it is reported, and
  // result lines printed before it would stand as the run's. A main package may exit.
  { what: 'ends the process from library code (the runner reports nothing after it)', langs: GO, needs: ['Exit', 'EXIT'], re: /\b\w+\s*\.\s*Exit\b(?!\s*[=:])|\bSYS_EXIT(?:_GROUP)?\b/, unless: /^\s*package\s+main\b/m },
  // cgo compiles the C files beside the package into the test binary, and a C constructor there
  // runs before Go's main: it can print the runner's result lines and exit.
  { what: 'brings in C code through cgo (a C constructor runs before the test binary’s main)', langs: GO, needs: ['"C"'], re: /^[ \t]*(?:import[ \t]+)?"C"[ \t]*(?:\/\/.*)?$/m },
  // go:linkname binds a name to another package's unexported symbol: the testing package's too.
  { what: 'binds to another package’s internals (//go:linkname)', langs: GO, needs: ['go:linkname'], re: /^[ \t]*\/\/go:linkname\b/m },
  { what: 'rebinds the process’s output (what the runner reports through)', langs: GO, needs: ['Stdout', 'Stderr'], re: /\bos\s*\.\s*(?:Stdout|Stderr)\s*=(?!=)/ },
  { what: 'prints the test runner’s own result lines', langs: RS, needs: ['test result:', '... '], re: /"[^"\n]*(?:test result:|\.\.\. (?:ok|FAILED|ignored)\b)/ },
  { what: 'ends the process from library code (the runner reports nothing after it)', langs: RS, libraryOnly: true, needs: ['exit'], re: /\bprocess\s*::\s*exit\b|\bfn\s+_?exit\s*\(|link_name\s*=\s*"_?exit(?:_group)?"|\bSYS_exit(?:_group)?\b/ },
  // Code placed in .init_array runs before the test harness's main: it can exit or print
  // results before any test runs.
  { what: 'runs code before main (a static initializer)', langs: RS, needs: ['init_array', 'ctors', 'ctor'], re: /link_section\s*=\s*"[^"]*(?:init_array|ctors)|#\[\s*(?:\w+\s*::\s*)?ctor\b/ },
  { what: 'compiles differently under test (cfg(test) outside a test module)', langs: RS, needs: ['cfg'], re: /\bcfg!\s*\(\s*(?:not\s*\(\s*)?test\b|#\[cfg\(\s*not\s*\(\s*test\s*\)|#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?![\s#])(?!(?:pub(?:\([^)]*\))?\s+)?mod\s)\S/ },
]);

/**
 * Why this source file reaches into the runner, or null. Test files are not judged here, nor a
 * Rust file's test regions (they are tests). With `before` (the file as it was), only what is new
 * counts: a source that already imported `testing` or named pytest may still be edited.
 */
export function runnerReach(rel: string, content: string, before: string | null = null, allowed: readonly string[] = []): Reach | null {
  const lang = langOf(rel);
  if (lang === null || (lang === 'go' && rel.toLowerCase().endsWith('_test.go'))) return null;
  const rs = lang === 'rs';
  const text = rs ? maskRustTestRegions(content) : content;
  const prior = before === null ? null : rs ? maskRustTestRegions(before) : before;
  const library = rs && rustLibrary(rel);
  // Runtime special cases, read from tokens (testAware.ts).
  const aware = (): Reach | null => {
    const program = lang === 'js' ? content.startsWith('#!') || `/${rel}`.includes('/bin/') : lang === 'py' ? content.startsWith('#!') || rel.endsWith('__main__.py') : lang === 'rs' ? !library : false;
    const f = newTestAwareness(text, prior, lang, { library: !program, program, allowed });
    return f === null || allowed.includes(f.construct) ? null : { what: f.what, line: f.line, construct: f.construct };
  };
  if (allowed.includes('runner')) return aware();
  for (const rule of RULES()) {
    if (!rule.langs.includes(lang) || (rule.libraryOnly && !library) || !rule.needs.some((word) => text.includes(word))) continue;
    if (rule.unless?.test(text)) continue;
    const all = new RegExp(rule.re.source, rule.re.flags.includes('g') ? rule.re.flags : `${rule.re.flags}g`);
    const had = new Map<string, number>();
    if (prior !== null) for (const m of prior.matchAll(all)) had.set(sameText(m[0]), (had.get(sameText(m[0])) ?? 0) + 1);
    for (const m of text.matchAll(all)) {
      const left = had.get(sameText(m[0])) ?? 0;
      if (left > 0) {
        had.set(sameText(m[0]), left - 1);
        continue;
      }
      return { what: rule.what, line: text.slice(0, m.index).split('\n').length, construct: 'runner' };
    }
  }
  return aware();
}

function sameText(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** The reason the model sees when a source write or a GREEN run is refused for it. */
export function runnerReachReason(display: string, r: Reach, rel: string = display): string {
  const allow = r.construct === 'runner' ? 'If the project really ships test helpers as source, the user lists them in runner_reach_allow in .tdd/stack.json.' : `If the project really needs this outside the tests, the user lists \`${rel}#${r.construct}\` in runner_reach_allow in .tdd/stack.json.`;
  return `${display}:${r.line} ${r.what} [${r.construct}]. In GREEN and REFACTOR a source file must pass the frozen tests by doing its job, not by talking to the test runner (importing the test framework, rebinding assertions, checking whether tests are running, or handing the tests a value that compares equal to anything). Write the production behaviour the tests describe instead. ${allow}`;
}
