import path from 'node:path';
import { cargoPackageName, goWorkUses } from '../../stack/rules/layout.js';
import { blockText, declLang, declPath, goLiteralNames, goRewrite, offsetOf, parseDecls, type Decl, type DeclLang, type ParsedFile } from './declarations.js';
import type { TestCase, TestStatus } from './report.js';

/**
 * A test with a stable identity: the same test has the same id in every run of the same frozen
 * files. The id rests on the test's declaration, found by parsing its file (declarations.ts): the
 * titles its source spells, with ` [#k]` (JS, Go) or `[#k]` (pytest) when one declaration (an
 * each table, a loop, a title written twice) reports several tests. A name the runner builds at
 * run time (`test.each([[new Date()]])('%s')`, `` it(`at ${Date.now()}`) ``, a Go subtest named by
 * `time.Now()`) never reaches the id; it stays the test's label.
 */
export interface IdentifiedTest {
  /** `<root-relative file or runner scope>::<declaration>`. */
  id: string;
  /** What the runner called it in this run, `<file or scope>::<full name>` (the id of older state files). */
  label?: string;
  /** Root-relative file the test is declared in, when known. */
  file: string | null;
  /** The last part of the name: what its declaration spells (a test title, a function name). */
  leaf: string;
  status: TestStatus;
  message: string;
  /** The failure with where it was raised, when the runner reported it (report.ts). */
  trace?: string;
  /** Its declaration, when the file could be parsed and the test mapped to one. */
  decl?: DeclRef;
  /** go test: a test whose subtests were reported too; they, not it, say what failed. */
  parent?: boolean;
}

/** A reported test's declaration, as much of it as judging needs. */
interface DeclRef {
  lang: DeclLang;
  /** The titles of the declarations it sits in, outermost first, and its own. */
  path: string[];
  /** Its own block: the whole call or item (decorators and attributes included). */
  block: string;
  /** One row of an each table written as an array literal: the row, and the block without its table. */
  row?: { text: string; shell: string };
}

interface IdentityContext {
  root: string;
  /** Root-relative test and source files (for pytest candidates, Go packages, Rust inline tests). */
  files: readonly string[];
  /** Reads a root-relative file; null when it cannot be read. */
  read: (rel: string) => string | null;
}

/** A runner-reported path as a root-relative one; null when it is outside the project. */
function toRel(reported: string, root: string): string | null {
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

/** One reported test on its way to an id. */
interface Pending {
  t: TestCase;
  file: string | null;
  leaf: string;
  /** The id before any `[#k]`: what the declaration spells. */
  base: string;
  /** The label: the id as older versions made it. */
  label: string;
  decl: Decl | null;
  /** The declaration whose block judges it (a Go table test: its function). */
  blockDecl: Decl | null;
  parsed: ParsedFile | null;
  /** How the row suffix is written: ` [#k]` after the name, or pytest's `[#k]` in place of unstable parameters. */
  suffix: 'space' | 'pytest';
  /** pytest: the parameters as reported, when they are spelled by the source (kept in the id). */
  params?: string;
  /** The id must carry the row (a pytest id whose parameters were computed at run time). */
  needsRow: boolean;
}

/** Give each reported test its id, its root-relative file and its declaration. */
export function identify(tests: readonly TestCase[], ctx: IdentityContext): IdentifiedTest[] {
  const known = new Set(ctx.files);
  const mods = tests.some((t) => t.file === null && t.scope !== undefined && !t.candidates) ? goModules(ctx) : [];
  const parsedFiles = new Map<string, ParsedFile | null>();
  const parsed = (rel: string | null): ParsedFile | null => {
    if (rel === null) return null;
    if (!parsedFiles.has(rel)) {
      const lang = declLang(rel);
      const text = lang === null ? null : ctx.read(rel);
      parsedFiles.set(rel, lang === null || text === null ? null : parseDecls(text, lang));
    }
    return parsedFiles.get(rel) ?? null;
  };
  const jsUses = new Map<Decl, number>();
  const pending: Pending[] = tests.map((t) => {
    if (t.candidates && t.file === null) {
      // pytest: the classname names the module; what remains of it is the class path.
      const hit = t.candidates.find((c) => known.has(c)) ?? t.candidates.find((c) => ctx.read(c) !== null) ?? null;
      const dotted = hit ? hit.replace(/\.py$/, '').split('/').join('.') : '';
      const rest = t.scope && dotted && t.scope.startsWith(dotted) ? t.scope.slice(dotted.length).replace(/^\./, '') : hit ? '' : (t.scope ?? '');
      const classes = rest.split('.').filter(Boolean);
      const label = `${hit ?? t.scope ?? '?'}::${[...classes, t.name].join('::')}`;
      const bracket = t.name.indexOf('[');
      const fn = bracket === -1 ? t.name : t.name.slice(0, bracket);
      const params = bracket === -1 ? undefined : t.name.slice(bracket + 1, t.name.endsWith(']') ? -1 : undefined);
      const p = parsed(hit);
      const decl = p ? pyDecl(p, [...classes, fn]) : null;
      const base = `${hit ?? t.scope ?? '?'}::${[...classes, fn].join('::')}`;
      const stable = params === undefined || decl === null || (p !== null && stableParams(params, p.text));
      return { t, file: hit, leaf: fn, base, label, decl, blockDecl: decl, parsed: p, suffix: 'pytest', ...(params !== undefined && stable ? { params } : {}), needsRow: !stable } satisfies Pending;
    }
    if (t.file === null && t.scope !== undefined) {
      // go test: package import path + test name; the file from the declaration.
      const file = goFile(t.scope, t.name, ctx, mods);
      const leaf = t.name.split('/')[0] ?? t.name;
      const label = `${t.scope}::${t.name}`;
      const p = parsed(file);
      const g = p ? goMap(p, t.name) : null;
      return { t, file, leaf, base: g ? `${t.scope}::${g.name}` : label, label, decl: g?.decl ?? null, blockDecl: g?.block ?? null, parsed: p, suffix: 'space', needsRow: false } satisfies Pending;
    }
    let file: string | null = t.file !== null ? toRel(t.file, ctx.root) : null;
    if (t.crate !== undefined && file !== null && !(known.has(file) && rootCrate(ctx) === t.crate)) file = crateFile(file, t.crate, ctx) ?? file;
    const parts = t.path ?? t.name.split(/ > |::/);
    const leaf = parts[parts.length - 1] ?? t.name;
    if (t.idByName) return { t, file, leaf, base: t.name, label: t.name, decl: null, blockDecl: null, parsed: null, suffix: 'space', needsRow: false } satisfies Pending;
    const label = `${file ?? t.file ?? '?'}::${t.name}`;
    const p = parsed(file);
    if (p?.lang === 'rs') {
      // cargo: module paths are what the source spells; the declaring file may be a module's own.
      const r = rustMap(file as string, t.name, ctx, parsed);
      return { t, file: r?.file ?? file, leaf, base: label, label, decl: r?.decl ?? null, blockDecl: r?.decl ?? null, parsed: r?.parsed ?? p, suffix: 'space', needsRow: false } satisfies Pending;
    }
    if (p?.lang === 'js') {
      const m = jsMap(p, parts, t.line, t.column, jsUses);
      if (m) return { t, file, leaf, base: `${file}::${m.segments.join(' > ')}`, label, decl: m.decl, blockDecl: m.decl, parsed: p, suffix: 'space', needsRow: false } satisfies Pending;
    }
    return { t, file, leaf, base: label, label, decl: null, blockDecl: null, parsed: p, suffix: 'space', needsRow: false } satisfies Pending;
  });
  // Several tests from one base (rows of a table, a loop, a title written twice): numbered in the report's order.
  const total = new Map<string, number>();
  for (const p of pending) total.set(p.base + (p.params ?? ''), (total.get(p.base + (p.params ?? '')) ?? 0) + 1);
  const seen = new Map<string, number>();
  const perDecl = new Map<Decl, number>();
  const mapped = new Map<Decl, number>();
  for (const p of pending) if (p.decl) mapped.set(p.decl, (mapped.get(p.decl) ?? 0) + 1);
  // go test: every test that has a subtest in this run (`TestX` and `TestX/a` for `TestX/a/b`).
  const parents = new Set<string>();
  for (const t of tests) {
    if (t.scope === undefined || t.file !== null || t.candidates) continue;
    for (let at = t.name.indexOf('/'); at !== -1; at = t.name.indexOf('/', at + 1)) parents.add(`${t.scope}\0${t.name.slice(0, at)}`);
  }
  return pending.map((p) => {
    const key = p.base + (p.params ?? '');
    const k = (seen.get(key) ?? 0) + 1;
    seen.set(key, k);
    const many = (total.get(key) ?? 1) > 1;
    let id: string;
    if (p.suffix === 'pytest') id = p.needsRow || (many && p.params === undefined) ? `${p.base}[#${k}]` : p.params !== undefined ? `${p.base}[${p.params}]` : p.base;
    else id = many ? `${p.base} [#${k}]` : p.base;
    const out: IdentifiedTest = { id, label: p.label, file: p.file, leaf: p.leaf, status: p.t.status, message: p.t.message, ...(p.t.trace !== undefined ? { trace: p.t.trace } : {}) };
    if (p.blockDecl && p.parsed) {
      const ref: DeclRef = { lang: p.parsed.lang, path: declPath(p.blockDecl), block: blockText(p.parsed.text, p.blockDecl) };
      if (p.decl === p.blockDecl && p.decl.rows && p.decl.shell !== undefined) {
        const r = (perDecl.get(p.decl) ?? 0) + 1;
        perDecl.set(p.decl, r);
        const row = p.decl.rows[r - 1];
        if (row !== undefined && mapped.get(p.decl) === p.decl.rows.length) ref.row = { text: row, shell: p.decl.shell };
      }
      out.decl = ref;
    }
    if (p.t.scope !== undefined && p.t.file === null && !p.t.candidates && parents.has(`${p.t.scope}\0${p.t.name}`)) out.parent = true;
    return out;
  });
}

/**
 * A reported JS test (its describe titles and its own) to its declaration: at the location the
 * runner reported when it did and the titles agree, else by titles — the declaration whose own
 * title and enclosing titles match, a literal before a pattern, then the one used least so far
 * (a title written twice), then source order. The id's segments: the spelled titles of the
 * declarations matched, the reported ones for enclosing blocks the file does not nest it in
 * (a test declared in a helper).
 */
const cursors = new WeakMap<ParsedFile, number>();

/** A file's test declarations that could carry this title: those titled so, and every one whose title is not a plain literal (in source order). */
const byTitle = new WeakMap<ParsedFile, { literal: Map<string, Decl[]>; other: Decl[] }>();
function candidates(p: ParsedFile, title: string): Decl[] {
  let index = byTitle.get(p);
  if (!index) {
    index = { literal: new Map(), other: [] };
    for (const d of p.all) {
      if (d.kind !== 'test') continue;
      if (d.literal) index.literal.set(d.title, [...(index.literal.get(d.title) ?? []), d]);
      else index.other.push(d);
    }
    byTitle.set(p, index);
  }
  const lit = index.literal.get(title) ?? [];
  return index.other.length === 0 ? lit : [...lit, ...index.other].sort((a, b) => a.start - b.start);
}

function jsMap(p: ParsedFile, reported: readonly string[], line: number | undefined, column: number | undefined, uses: Map<Decl, number>): { decl: Decl; segments: string[] } | null {
  const leafSeg = reported[reported.length - 1] ?? '';
  const anc = reported.slice(0, -1);
  const chainOf = (d: Decl): Decl[] => {
    const out: Decl[] = [];
    for (let x = d.parent; x !== null; x = x.parent) out.unshift(x);
    return out;
  };
  const fit = (d: Decl): number | null => {
    if (!d.pattern.test(leafSeg)) return null;
    const chain = chainOf(d);
    if (chain.length > anc.length) return null;
    let score = d.literal ? 2 : 1;
    for (let j = 0; j < chain.length; j++) {
      const L = chain[chain.length - 1 - j] as Decl;
      if (!L.pattern.test(anc[anc.length - 1 - j] ?? '')) return null;
      score += L.literal ? 2 : 1;
    }
    return score;
  };
  let best: Decl | null = null;
  if (line !== undefined && column !== undefined) {
    const at = offsetOf(p.text, line, column);
    for (const d of p.all) if (d.kind === 'test' && d.start <= at && at < d.end && (best === null || d.start >= best.start)) best = d;
    if (best !== null && fit(best) === null) best = null;
  }
  if (best === null) {
    // The best fit; among equals, one with room left (a literal title is one test, an each table
    // written as an array as many as its rows), then the first at or after the last one used
    // (runners report in source order), then the first.
    let bestScore = -1;
    let tied: Decl[] = [];
    for (const d of candidates(p, leafSeg)) {
      const s = fit(d);
      if (s === null || s < bestScore) continue;
      if (s > bestScore) tied = [];
      bestScore = s;
      tied.push(d);
    }
    const room = (d: Decl) => (uses.get(d) ?? 0) < (d.rows ? d.rows.length : d.literal && !d.each ? 1 : Infinity);
    const cursor = cursors.get(p) ?? 0;
    best = tied.find((d) => room(d) && d.start >= cursor) ?? tied.find(room) ?? tied[0] ?? null;
  }
  if (best === null) return null;
  uses.set(best, (uses.get(best) ?? 0) + 1);
  cursors.set(p, best.start);
  const chain = chainOf(best);
  const segments = [...anc.slice(0, anc.length - chain.length), ...chain.map((d) => d.title), best.title];
  return { decl: best, segments };
}

/** pytest: the function at this class path, else the only function of that name in the file. */
function pyDecl(p: ParsedFile, names: readonly string[]): Decl | null {
  const want = names.join('::');
  const exactHit = p.all.find((d) => d.kind === 'test' && declPath(d).join('::') === want);
  if (exactHit) return exactHit;
  const leaf = names[names.length - 1];
  const same = p.all.filter((d) => d.kind === 'test' && d.title === leaf);
  return same.length === 1 ? (same[0] as Decl) : null;
}

/**
 * pytest's parameter id is spelled by the source when every `-`-separated part of it is written
 * in the test's file (its decorators, or a list of cases they name) or is pytest's own
 * `<argname><index>` for a value it cannot print; anything else was computed at run time (a date,
 * `ids=str`), and the id takes the case's position instead.
 */
function stableParams(params: string, text: string): boolean {
  return params.split('-').every((part) => {
    if (part === '' || text.includes(part)) return true;
    const auto = /^([A-Za-z_]\w*?)\d+$/.exec(part);
    return auto !== null && text.includes(auto[1] as string);
  });
}

/**
 * go test: `TestX/sub/…` down the `t.Run` calls of `func TestX`. A literal title matches what Go
 * reports for it (spaces as `_`, `#01` for a repeat); a computed one matches one level. A computed
 * name that a string literal of the file spells (a table's `name: "adds"`) stays as reported;
 * any other is replaced by the expression that computes it.
 */
function goMap(p: ParsedFile, name: string): { name: string; decl: Decl; block: Decl } | null {
  const slash = name.indexOf('/');
  const topName = slash === -1 ? name : name.slice(0, slash);
  const top = p.all.find((d) => d.parent === null && d.title === topName);
  if (!top) return null;
  let rest = slash === -1 ? '' : name.slice(slash + 1);
  let at: Decl = top;
  const segs = [topName];
  let literals: Set<string> | null = null;
  while (rest !== '') {
    let next: Decl | null = null;
    let used = '';
    for (const c of at.children) {
      if (!c.literal) continue;
      const r = goRewrite(c.title);
      const m = new RegExp(`^${r.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:#\\d+)?(?=/|$)`).exec(rest);
      if (m && m[0].length > used.length) {
        next = c;
        used = m[0];
      }
    }
    if (next) segs.push(used);
    else {
      const dyns = at.children.filter((c) => !c.literal);
      const [firstDyn] = dyns;
      if (firstDyn === undefined) break;
      // Several computed names: one a file's literal spells (a table's row) comes from a field or a
      // variable, any other from a call (`fmt.Sprintf`, `time.Now().String()`).
      literals ??= goLiteralNames(p.text);
      const seg = (d: Decl) => (rest.includes('/') && d.children.length > 0 ? rest.slice(0, rest.indexOf('/')) : rest);
      const spelled = (d: Decl) => literals!.has(seg(d).replace(/#\d+$/, ''));
      const dyn = dyns.find((d) => spelled(d) === !d.title.includes('(')) ?? firstDyn;
      next = dyn;
      used = seg(dyn);
      segs.push(spelled(dyn) ? used : dyn.title);
    }
    at = next;
    rest = rest.slice(used.length).replace(/^\//, '');
  }
  if (rest !== '') segs.push(rest);
  let block: Decl = at;
  while (!block.literal && block.parent !== null) block = block.parent;
  return { name: segs.join('/'), decl: at, block };
}

/**
 * cargo: `a::tests::adds` under a target's root file to the file that declares it (`src/a.rs` or
 * `src/a/mod.rs`, an inline `mod tests`) and its `fn`.
 */
function rustMap(target: string, name: string, ctx: IdentityContext, parsed: (rel: string | null) => ParsedFile | null): { file: string; decl: Decl; parsed: ParsedFile } | null {
  const segs = name.split('::');
  const base = path.posix.basename(target);
  const dir = ['lib.rs', 'main.rs', 'mod.rs'].includes(base) ? path.posix.dirname(target) : target.replace(/\.rs$/, '');
  const known = new Set(ctx.files);
  for (let i = segs.length - 1; i >= 0; i--) {
    let file: string | null = target;
    if (i > 0) {
      const sub = path.posix.join(dir, ...segs.slice(0, i));
      file = known.has(`${sub}.rs`) ? `${sub}.rs` : known.has(`${sub}/mod.rs`) ? `${sub}/mod.rs` : null;
    }
    const p = parsed(file);
    if (file === null || p === null) continue;
    const inner = segs.slice(i);
    // The longest run of the path the file declares (rstest's `adds::case_1` is `fn adds`).
    for (let n = inner.length; n > 0; n--) {
      const want = inner.slice(0, n).join('::');
      const d = p.all.find((x) => x.kind === 'test' && declPath(x).join('::') === want);
      if (d) return { file, decl: d, parsed: p };
    }
  }
  return null;
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
 * new file is; in a changed file, a test whose own declaration block (parsed: the whole call or
 * item, nothing around it) is not in the baseline at the same place — under the same enclosing
 * titles — is. So a neighbour appended in the same `describe` changes nothing for an old test;
 * a row appended to an each table written as an array is new, the old rows are not. A go test
 * whose subtests were reported is judged by them. A test whose declaration cannot be found in a
 * changed file counts as changed: the file changed, and its name is built at run time.
 */
export function isNewOrChanged(
  t: IdentifiedTest,
  changed: ReadonlySet<string>,
  baseline: (rel: string) => string | null | undefined,
  current: (rel: string) => string | null,
): boolean {
  if (t.file === null || !changed.has(t.file)) return false;
  if (t.parent) return false;
  const before = baseline(t.file);
  if (before === null) return true; // a new file
  if (t.decl) {
    if (before === undefined) return true; // changed, but the old text is not known
    const want = t.decl.path.join('\0');
    const old = parseCached(before, t.decl.lang).all.filter((d) => declPath(d).join('\0') === want);
    const row = t.decl.row;
    if (row) return !old.some((d) => d.shell === row.shell && d.rows?.includes(row.text));
    if (!old.some((d) => blockText(before, d) === t.decl!.block)) return true;
    return t.decl.lang === 'go' && goTableGrew(before, current(t.file) ?? '', t.decl.block);
  }
  const now = current(t.file);
  const blockNow = now === null ? null : testBlock(now, t.leaf);
  if (blockNow === null) return true;
  if (before === undefined) return true; // changed, but the old text is not known
  if (testBlock(before, t.leaf) !== blockNow) return true;
  return t.file.endsWith('_test.go') && goTableGrew(before, now ?? '', blockNow);
}

/** The baseline's declarations, parsed once per text (RED asks for each failing test). */
const parses = new Map<string, ParsedFile>();
function parseCached(text: string, lang: DeclLang): ParsedFile {
  const key = `${lang}\0${text}`;
  let hit = parses.get(key);
  if (!hit) {
    if (parses.size >= 16) parses.delete(parses.keys().next().value as string);
    hit = parseDecls(text, lang);
    parses.set(key, hit);
  }
  return hit;
}

/**
 * Go's table-driven tests often keep their table outside the test: a package-level `var tests =`
 * or a helper that builds it (`func initSpewTests()`), the test only looping over it. A row added
 * there is a new test for the test that uses it. Only insertions count (every line the declaration
 * had is still there, in order), so an old test broken by an edited fixture is still no RED.
 */
function goTableGrew(before: string, now: string, block: string): boolean {
  const was = goTopLevel(before);
  for (const [names, text] of goTopLevel(now)) {
    const old = was.get(names);
    if (old === undefined || old === text || !insertedOnly(old, text)) continue;
    if (names.split(',').some((n) => !/^(?:Test|Benchmark|Example|Fuzz)/.test(n) && new RegExp(`\\b${n}\\b`).test(block))) return true;
  }
  return false;
}

/** A Go file's top-level declarations (they start at column 0): the names each declares → its text. */
function goTopLevel(text: string): Map<string, string> {
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
