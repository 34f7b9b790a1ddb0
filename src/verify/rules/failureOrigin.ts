/**
 * RED for the right reason (pure): where a failing test's failure came from. A failure counts
 * only when the test's own code raised it about the value under test — not an exception the stub
 * threw whose text happens to match red_confirm, not a fixture file the test could not open, not
 * a panic in the stub. Each runner's structured failure data says where: the stack of a
 * JavaScript error, pytest's crash location, the call site Go prints before a `t.Errorf` line,
 * the location of a Rust panic.
 */

/** What the rule needs to know about the project. */
export interface OriginContext {
  /** The project's root, as the runner may print it (the path itself and its real path). */
  roots: readonly string[];
  /** A root-relative path is a test file (test_file_glob). */
  isTest: (rel: string) => boolean;
  /** A root-relative file's text; null when it cannot be read. */
  read: (rel: string) => string | null;
  /** Rust: the line (1-based) of a source file lies in its inline test code (a #[cfg(test)] module). */
  inTestRegion?: (rel: string, line: number) => boolean;
}

/** One failing test as the rule sees it. */
interface FailingTest {
  /** The root-relative file that declares the test, when known. */
  file: string | null;
  /** The failure message. */
  message: string;
  /** The failure with its location data (a stack, pytest's long report); the message when none. */
  trace?: string;
}

interface Frame {
  rel: string;
  line: number;
}

/** A root-relative path for a path the runner printed, or null when it lies outside the project (or in its dependencies). */
export function projectPath(printed: string, roots: readonly string[]): string | null {
  let p = printed.replace(/\\/g, '/');
  if (p.startsWith('file://')) p = decodeURI(p.slice(7));
  if (p.startsWith('node:') || p.includes('/node_modules/') || p.startsWith('node_modules/')) return null;
  if (p.startsWith('/') || /^[A-Za-z]:\//.test(p)) {
    const root = roots.find((r) => p.startsWith(r.endsWith('/') ? r : `${r}/`));
    if (root === undefined) return null;
    p = p.slice(root.length).replace(/^\/+/, '');
  }
  p = p.replace(/^\.\//, '');
  if (p === '' || p.startsWith('../')) return null;
  return p;
}

const JS_FRAME = /^\s*at (?:.*?\()?((?:file:\/\/)?[^\s()]+?):(\d+):(\d+)\)?\s*$/;

/** The first frame of a JavaScript stack that lies in the project, not in its dependencies or in node. */
export function firstProjectFrame(stack: string, roots: readonly string[]): Frame | null {
  for (const line of stack.split('\n')) {
    const m = JS_FRAME.exec(line);
    if (!m) continue;
    const rel = projectPath(m[1] ?? '', roots);
    if (rel !== null) return { rel, line: Number(m[2]) };
  }
  return null;
}

const firstLine = (text: string) => (text.split('\n').find((l) => l.trim() !== '') ?? '').trim().slice(0, 120);

const STUB_ADVICE = 'not on an assertion of the test about the value under test: let the STUB:TDD stub return a value (a wrong one) so the test’s own assertion fails';

/** The Python exceptions that say a file could not be opened: a fixture missing, not a value wrong. */
const PY_IO = /^(?:FileNotFoundError|IsADirectoryError|NotADirectoryError|PermissionError|IOError|OSError)$/;
/** An operating system's words for a file that is not there (Go's `open x: no such file or directory`). */
const OS_NO_FILE = /no such file or directory|cannot find the (?:file|path) specified/i;
const MISSING_FIXTURE = 'a file the test reads is missing (a fixture), so the test fails before it asserts anything about the value under test: add the fixture file (or fix its name) with the test';

/** JavaScript (vitest, jest, node:test, mocha): the error's first frame in the project must be in a test file. */
function jsOrigin(t: FailingTest, ctx: OriginContext): string | null {
  const frame = firstProjectFrame(t.trace ?? '', ctx.roots);
  if (frame === null || ctx.isTest(frame.rel)) return null;
  return `it fails on an error raised in ${frame.rel}:${frame.line} (${firstLine(t.message)}), ${STUB_ADVICE}`;
}

/** pytest: the last location of the long report inside the project (where it raised), and the exception's type. */
function pyOrigin(t: FailingTest, ctx: OriginContext): string | null {
  const text = t.trace ?? '';
  const frames = [...text.matchAll(/^([^\s:][^:\n]*\.py):(\d+): ?([A-Za-z_][\w.]*)?/gm)];
  // pytest prints relative paths from its rootdir; below the project's root (`cd backend &&
  // pytest`) they lack the folder the test's own file shows.
  const file = t.file;
  const own = file === null ? undefined : frames.find((m) => !(m[1] ?? '').startsWith('/') && file.endsWith(`/${m[1] ?? ''}`))?.[1];
  const under = file !== null && own !== undefined ? file.slice(0, file.length - own.length) : '';
  let last: { rel: string; line: number; exc: string } | null = null;
  for (const m of frames) {
    const printed = m[1] ?? '';
    const rel = projectPath(printed.startsWith('/') ? printed : under + printed, ctx.roots);
    if (rel !== null) last = { rel, line: Number(m[2]), exc: m[3] ?? '' };
  }
  const exc = last?.exc || (/^([A-Za-z_][\w.]*(?:Error|Exception))\b/.exec(t.message)?.[1] ?? '');
  if (PY_IO.test(exc.split('.').pop() ?? '')) return `it fails on ${exc} (${firstLine(t.message)}): ${MISSING_FIXTURE}`;
  if (last === null || ctx.isTest(last.rel)) return null;
  return `it fails on ${last.exc || 'an exception'} raised in ${last.rel}:${last.line} (${firstLine(t.message)}), ${STUB_ADVICE}`;
}

/** The folder of a root-relative file, with its slash ('' at the root). */
const dirOf = (rel: string) => (rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/') + 1) : '');

/** A call of the file system whose error the test checks (`data, err := os.ReadFile(…)`). */
const GO_READ = /\b(?:os|ioutil|fs|filepath)\s*\.\s*(?:ReadFile|Open|OpenFile|ReadDir|Stat|Lstat|Glob|WalkDir|Walk)\s*\(/;

/** go test: the call site Go prints (`calc_test.go:12: …`) must be a test file, and not the check of an I/O error. */
function goOrigin(t: FailingTest, ctx: OriginContext): string | null {
  const site = /^\s+([\w.-]+\.go):(\d+): /m.exec(t.message);
  if (OS_NO_FILE.test(t.message)) return `it fails on a file that could not be opened (${firstLine(site ? t.message.slice(site.index + site[0].length) : t.message)}): ${MISSING_FIXTURE}`;
  if (site === null) return null;
  const name = site[1] ?? '';
  const line = Number(site[2]);
  const rel = t.file !== null ? dirOf(t.file) + name : name;
  if (!name.endsWith('_test.go')) {
    // A test helper kept in a non-test file imports "testing" (it was handed the *testing.T); a
    // source that does not only printed a line that looks like Go's.
    const helper = ctx.read(rel);
    if (helper !== null && !/"testing"/.test(helper)) return `it fails from ${rel}:${line}, which is not a test file, ${STUB_ADVICE}`;
    return null;
  }
  const text = t.file !== null ? ctx.read(rel) : null;
  if (text === null) return null;
  // The failing call sits in `if err != nil { … }` right after a read of the file system.
  const lines = text.split('\n');
  for (let k = line - 1; k >= Math.max(0, line - 4); k--) {
    if (!/\bif\s+(?:\w+\s*:?=[^;]*;\s*)?err\s*!=\s*nil\b/.test(lines[k] ?? '')) continue;
    const head = lines.slice(Math.max(0, k - 4), k + 1).join('\n');
    if (GO_READ.test(head)) return `it fails at ${rel}:${line} on the error of a file-system call (${firstLine(t.message.slice(site.index + site[0].length))}): ${MISSING_FIXTURE}`;
    break;
  }
  return null;
}

const RUST_PANIC = /panicked at (?:'[^\n]*?', )?([^\s:'][^:\n]*\.rs):(\d+):\d+/;
const RUST_UNWRAP = /called `(?:Option|Result)::(?:unwrap|expect)(?:_err)?\(\)` on an? `(?:None|Err|Ok)`(?: value)?|`Option::unwrap\(\)` on a `None`/;

/** cargo test: the panic must be located in test code (a tests/ file or a source's inline tests), and not an unwrap of the stub's None or Err. */
function rustOrigin(t: FailingTest, ctx: OriginContext): string | null {
  const text = t.trace ?? t.message;
  const unwrap = RUST_UNWRAP.exec(text);
  if (unwrap) return `it panics on ${unwrap[0]} (the stub returned nothing to unwrap), ${STUB_ADVICE}`;
  const m = RUST_PANIC.exec(text);
  if (!m) return null;
  const rel = projectPath(m[1] ?? '', ctx.roots);
  if (rel === null) return null;
  const line = Number(m[2]);
  if (ctx.isTest(rel) || ctx.inTestRegion?.(rel, line)) return null;
  return `it panics in ${rel}:${line} (${firstLine(text.slice(m.index + m[0].length).replace(/^:\s*/, ''))}), which is not test code, ${STUB_ADVICE}`;
}

/**
 * Why a failing test's failure did not come from the test's own assertion (null when it did, or
 * when the runner gave nothing to tell by). `runner` is the report's source.
 */
export function wrongOrigin(runner: string, t: FailingTest, ctx: OriginContext): string | null {
  switch (runner) {
    case 'vitest-json':
    case 'jest-json':
    case 'node-test-report':
    case 'mocha-report':
      return jsOrigin(t, ctx);
    case 'junit-xml':
    case 'pytest':
      return pyOrigin(t, ctx);
    case 'go-json':
      return goOrigin(t, ctx);
    case 'cargo':
      return rustOrigin(t, ctx);
    default:
      return null;
  }
}
