import path from 'node:path';
import { cargoPackageName, goWorkUses } from '../stackDetectLayout.js';
import type { TestCase, TestStatus } from './report.js';

/** A test with a stable identity: the same test has the same id in every run of the same command. */
export interface IdentifiedTest {
  /** `<root-relative file or runner scope>::<full name>`. */
  id: string;
  /** Root-relative file the test is declared in, when known. */
  file: string | null;
  /** The last part of the name: what its declaration spells (a test title, a function name). */
  leaf: string;
  status: TestStatus;
  message: string;
}

export interface IdentityContext {
  root: string;
  /** Root-relative test and source files (for pytest candidates, Go packages, Rust inline tests). */
  files: readonly string[];
  /** Reads a root-relative file; null when it cannot be read. */
  read: (rel: string) => string | null;
}

/** A runner-reported path as a root-relative one; null when it is outside the project. */
export function toRel(reported: string, root: string): string | null {
  let norm = reported.replace(/\\/g, '/').replace(/^file:\/\//, '');
  if (path.isAbsolute(norm)) {
    const rel = path.relative(root, norm).split(path.sep).join('/');
    if (rel.startsWith('..')) return null;
    norm = rel;
  }
  return norm.replace(/^\.\//, '');
}

/** The Go modules of the project: [folder, module path], the root's and those its go.work uses. */
function goModules(ctx: IdentityContext): [string, string][] {
  const dirs = ['', ...goWorkUses(ctx.read('go.work') ?? '')];
  const out: [string, string][] = [];
  for (const dir of new Set(dirs)) {
    const mod = ctx.read(dir === '' ? 'go.mod' : `${dir}/go.mod`);
    const name = mod ? (/^module\s+(\S+)/m.exec(mod)?.[1] ?? null) : null;
    if (name !== null) out.push([dir, name]);
  }
  return out;
}

/** The Go test file declaring `func Top(` in the package's directory. */
function goFile(pkg: string, test: string, ctx: IdentityContext, mods: readonly [string, string][]): string | null {
  // the module whose path is the longest prefix of the package's
  const owner = mods.filter(([, m]) => pkg === m || pkg.startsWith(m + '/')).sort((a, b) => b[1].length - a[1].length)[0];
  if (owner === undefined) return null;
  const rest = pkg.slice(owner[1].length + 1);
  const dir = owner[0] === '' ? rest : rest === '' ? owner[0] : `${owner[0]}/${rest}`;
  const top = test.split('/')[0] ?? test;
  const decl = new RegExp(`^func\\s+${top.replace(/[^\w]/g, '')}\\s*\\(`, 'm');
  for (const f of ctx.files) {
    if (!f.endsWith('_test.go') || path.posix.dirname(f) !== (dir === '' ? '.' : dir)) continue;
    if (decl.test(ctx.read(f) ?? '')) return f;
  }
  return null;
}

/**
 * A workspace member's file as cargo names it (from the crate's folder: `tests/a.rs`), from the
 * repository's root: the one project file that ends so, or, when several crates have one, the
 * one in the crate whose test binaries ran it.
 */
function crateFile(file: string, crate: string, ctx: IdentityContext): string | null {
  const hits = ctx.files.filter((f) => f.endsWith(`/${file}`));
  if (hits.length <= 1) return hits[0] ?? null;
  return hits.find((f) => (cargoPackageName(ctx.read(`${f.slice(0, -file.length)}Cargo.toml`) ?? '') ?? '').replace(/-/g, '_') === crate) ?? null;
}

function rootCrate(ctx: IdentityContext): string | null {
  return cargoPackageName(ctx.read('Cargo.toml') ?? '')?.replace(/-/g, '_') ?? null;
}

/** Give each reported test its id and root-relative file. */
export function identify(tests: readonly TestCase[], ctx: IdentityContext): IdentifiedTest[] {
  const known = new Set(ctx.files);
  const mods = tests.some((t) => t.file === null && t.scope !== undefined && !t.candidates) ? goModules(ctx) : [];
  return tests.map((t) => {
    let file: string | null = t.file !== null ? toRel(t.file, ctx.root) : null;
    let scope = '';
    if (t.candidates && t.file === null) {
      // pytest: the classname names the module; what remains of it is the class path.
      const hit = t.candidates.find((c) => known.has(c)) ?? t.candidates.find((c) => ctx.read(c) !== null) ?? null;
      file = hit;
      const dotted = hit ? hit.replace(/\.py$/, '').split('/').join('.') : '';
      const rest = t.scope && dotted && t.scope.startsWith(dotted) ? t.scope.slice(dotted.length).replace(/^\./, '') : hit ? '' : (t.scope ?? '');
      scope = rest.split('.').filter(Boolean).join('::');
      const name = [scope, t.name].filter(Boolean).join('::');
      return { id: `${file ?? t.scope ?? '?'}::${name}`, file, leaf: t.name.replace(/\[.*$/, ''), status: t.status, message: t.message };
    }
    if (t.file === null && t.scope !== undefined) {
      // go test: package import path + test name; the file from the declaration.
      file = goFile(t.scope, t.name, ctx, mods);
      const leaf = t.name.split('/')[0] ?? t.name;
      return { id: `${t.scope}::${t.name}`, file, leaf, status: t.status, message: t.message };
    }
    if (t.crate !== undefined && file !== null && !(known.has(file) && rootCrate(ctx) === t.crate)) file = crateFile(file, t.crate, ctx) ?? file;
    const parts = t.name.split(/ > |::/);
    const leaf = parts[parts.length - 1] ?? t.name;
    if (t.idByName) return { id: t.name, file, leaf, status: t.status, message: t.message };
    return { id: `${file ?? t.file ?? '?'}::${t.name}`, file, leaf, status: t.status, message: t.message };
  });
}

/** Lines that start a test (or the next one) in each language, for a test's block. */
const DECL = /^\s*(?:(?:it|test|describe|suite|specify|context|bench)(?:\.\w+)*\s*\(|(?:async\s+)?def\s+\w|class\s+\w|func\s+\w|#\[(?:test|tokio::test)|(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?fn\s+\w)/;

/** The block of lines declaring `leaf`: from its declaration to the next declaration. */
export function testBlock(text: string, leaf: string): string | null {
  const lines = text.split('\n');
  const esc = leaf.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const decl = new RegExp(`(['"\`])${esc}\\1|\\bdef\\s+${esc}\\b|\\bfunc\\s+${esc}\\s*\\(|\\bfn\\s+${esc}\\s*[(<]`);
  const at = lines.findIndex((l) => decl.test(l));
  if (at === -1) return null;
  // Python: a test's decorators are part of it (`@pytest.mark.parametrize` holds its cases), and
  // end the block before them.
  const py = /^\s*(?:async\s+)?def\s/.test(lines[at] ?? '');
  const start = py ? decoratorsStart(lines, at) : at;
  let end = at + 1;
  while (end < lines.length && !DECL.test(lines[end] ?? '') && !(py && /^\s*@/.test(lines[end] ?? '') && indent(lines[end] ?? '') <= indent(lines[at] ?? ''))) end++;
  return lines.slice(start, end).map((l) => l.trimEnd()).join('\n').trimEnd();
}

function indent(line: string): number {
  return /^\s*/.exec(line)?.[0].length ?? 0;
}

/** The first line of the decorators stacked on the `def` at `at` (their arguments may span lines). */
function decoratorsStart(lines: readonly string[], at: number): number {
  const level = indent(lines[at] ?? '');
  let start = at;
  for (let k = at - 1; k >= 0; k--) {
    const line = lines[k] ?? '';
    if (line.trim() === '') continue;
    const n = indent(line);
    if (n === level && /^\s*@/.test(line)) start = k;
    else if (n > level || (n === level && /^\s*[)\]}]/.test(line))) continue; // a decorator's arguments
    else break;
  }
  return start;
}

/**
 * Was this test written or changed in this cycle? A test in an unchanged file is not; a test in a
 * new file is; in a changed file, a test whose declaration block differs from the baseline's (or
 * that the baseline does not declare) is. A test whose declaration cannot be found in a changed
 * file counts as changed: the file changed, and its name is built at run time.
 */
export function isNewOrChanged(
  t: IdentifiedTest,
  changed: ReadonlySet<string>,
  baseline: (rel: string) => string | null | undefined,
  current: (rel: string) => string | null,
): boolean {
  if (t.file === null || !changed.has(t.file)) return false;
  const before = baseline(t.file);
  if (before === null) return true; // a new file
  const now = current(t.file);
  const blockNow = now === null ? null : testBlock(now, t.leaf);
  if (blockNow === null) return true;
  if (before === undefined) return true; // changed, but the old text is not known
  if (testBlock(before, t.leaf) !== blockNow) return true;
  return t.file.endsWith('_test.go') && goTableGrew(before, now ?? '', blockNow);
}

/**
 * Go's table-driven tests often keep their table outside the test: a package-level `var tests =`
 * or a helper that builds it (`func initSpewTests()`), the test only looping over it. A row added
 * there is a new test for the test that uses it. Only insertions count (every line the declaration
 * had is still there, in order), so an old test broken by an edited fixture is still no RED.
 */
function goTableGrew(before: string, now: string, block: string): boolean {
  const was = goDecls(before);
  for (const [names, text] of goDecls(now)) {
    const old = was.get(names);
    if (old === undefined || old === text || !insertedOnly(old, text)) continue;
    if (names.split(',').some((n) => !/^(?:Test|Benchmark|Example|Fuzz)/.test(n) && new RegExp(`\\b${n}\\b`).test(block))) return true;
  }
  return false;
}

/** A Go file's top-level declarations (they start at column 0): the names each declares → its text. */
function goDecls(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.split('\n');
  const starts = lines.flatMap((l, k) => (/^(?:func|var|const|type)\b/.test(l) ? [k] : []));
  starts.forEach((at, j) => {
    const body = lines.slice(at, starts[j + 1] ?? lines.length);
    const head = body[0] ?? '';
    const single = /^(?:func\s+(?:\([^)]*\)\s*)?|var\s+|const\s+|type\s+)(\w+)/.exec(head);
    const names = single?.[1] ? [single[1]] : body.slice(1).flatMap((l) => /^\s+(\w+)\b/.exec(l)?.[1] ?? []);
    if (names.length > 0) out.set(names.join(','), body.map((l) => l.trimEnd()).join('\n').trimEnd());
  });
  return out;
}

/** Every line of `old` is in `now`, in order, and `now` has more. */
function insertedOnly(old: string, now: string): boolean {
  const a = old.split('\n');
  const b = now.split('\n');
  if (b.length <= a.length) return false;
  let k = 0;
  for (const line of b) if (k < a.length && line === a[k]) k++;
  return k === a.length;
}
