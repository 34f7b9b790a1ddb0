/**
 * The disk side of the Bash policy: glob and directory expansion, classification of each target,
 * the content a write leaves, patch headers. src/gate/rules/decideBash.ts asks; this module answers.
 */
import { lstatSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { minimatch } from 'minimatch';
import type { BashWrite } from './rules/bash/types.js';
import { applyInPlace } from './rules/bash/inPlace.js';
import { patchTargets } from './rules/bash/patchFile.js';
import { MAX_FILES, TooManyFiles, type TargetFact } from './rules/decideBash.js';
import { canonicalize } from '../state/canonicalPath.js';
import { classesOf, runnerConfig, type DiskContext } from './targetClasses.js';
import { readOrNull } from '../state/readOrNull.js';
import { envProbe } from '../state/envProbe.js';
import { isInstalledDependency } from '../state/rules/envDirs.js';
import { underRunnerRoot } from '../verify/rules/installationRoots.js';
import { gitExec } from '../state/git.js';

/** Never descended into by tree walks: tools that rewrite a tree leave these alone. */
const SKIP_DIRS = new Set(['node_modules', '.git']);
/** Patch files and scripts larger than this are not read. */
const MAX_READ = 1024 * 1024;


function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

export function insideRoot(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** A tool's cache inside node_modules (`.cache`, `.vite`): a dot folder other than `.bin`, which holds no package. */
function toolCache(rel: string): boolean {
  const at = rel.lastIndexOf('node_modules/');
  if (at < 0) return false;
  const next = rel.slice(at + 'node_modules/'.length);
  return next.startsWith('.') && !next.startsWith('.bin/') && next !== '.bin' && next !== '.package-lock.json';
}

/** Every class a raw path falls in, resolved from `cwd`. */
function fact(d: DiskContext, cwd: string, abs: string, removes = false): TargetFact {
  const { classes, real } = classesOf(d, cwd, abs);
  const out: TargetFact = { abs, real, classes, inProject: insideRoot(d.root, real), exists: exists(abs) };
  if (classes.includes('test') && runnerConfig(d, real)) out.config = true;
  // Installed dependencies (the runner and its assertions live there) and the runner's installation frozen with the tests.
  const rel = out.inProject ? path.relative(d.root, real).split(path.sep).join('/') : null;
  // (Removing installed packages is ordinary: a reinstall follows, and verify checks what it brings.)
  if (removes) return out;
  if ((rel !== null && rel !== '' && !toolCache(rel) && isInstalledDependency(rel, envProbe(d.root))) || underRunnerRoot(real, d.runnerRoots ?? []) || underRunnerRoot(abs, d.runnerRoots ?? [])) out.dependency = true;
  return out;
}


/** The concrete files a write may touch: glob matches (and the literal, for a glob with no match), tree contents. */
export function* writeTargets(d: DiskContext, w: BashWrite, cwd: string): Generator<TargetFact> {
  const counter = { n: 0 };
  if (w.patch) {
    yield* patchFacts(d, w, cwd);
    return;
  }
  if (w.stash) {
    yield* stashFacts(d, w.stash, path.resolve(cwd, w.path));
    return;
  }
  if (w.dynamicTail) {
    yield* dynamicFacts(d, w, cwd, counter);
    return;
  }
  if (w.glob) {
    const pattern = path.isAbsolute(w.path) ? w.path : `${escapeForGlob(cwd)}/${w.path}`;
    const literal = pattern.replace(/\\(.)/gs, '$1');
    yield fact(d, cwd, literal, w.removes === true);
    for (const match of globMatches(pattern, d.nocase || w.nocase === true, counter)) {
      yield fact(d, cwd, match, w.removes === true);
      if (w.tree) for (const p of walkTree(match, counter)) yield fact(d, cwd, p, w.removes === true);
    }
    return;
  }
  const abs = path.resolve(cwd, w.path);
  yield fact(d, cwd, abs, w.removes === true);
  if (w.tree) for (const p of walkTree(abs, counter)) yield fact(d, cwd, p, w.removes === true);
}

/**
 * `echo log > "/tmp/build-$(date +%s).log"`: the static beginning decides. It could reach a
 * protected file only if the project lies under it, or an entry it could name is a directory,
 * a link or a second name for a file; then the target is unresolved.
 */
function* dynamicFacts(d: DiskContext, w: BashWrite, cwd: string, counter: { n: number }): Generator<TargetFact> {
  const joined = path.isAbsolute(w.path) ? w.path : path.join(cwd, w.path);
  const prefix = !joined.endsWith('/') && (w.path.endsWith('/') || w.path === '') ? joined + '/' : joined;
  const slash = prefix.lastIndexOf('/');
  const dir = prefix.slice(0, slash) || '/';
  const start = prefix.slice(slash + 1);
  const unknown: TargetFact = { abs: prefix, real: prefix, classes: [], inProject: true, exists: false, unresolved: `to a path that starts with ${prefix} and is computed at run time, which may reach into the project` };
  const realDir = canonicalize(dir);
  const rootLexical = d.root + '/';
  const rootReal = canonicalize(d.root) + '/';
  const under = (base: string, root: string) => root.startsWith(base.endsWith('/') ? base + start : `${base}/${start}`);
  // Without a `/` in the computed rest, it names one entry of the directory: the project only if it is inside it.
  const reaches = w.slashFree === true ? false : under(dir, rootLexical) || under(realDir, rootReal) || under(dir, rootReal);
  if (insideRoot(d.root, realDir) || reaches) {
    yield unknown;
    return;
  }
  for (const name of listDir(realDir)) {
    if (!name.startsWith(start) || (w.slashFree === true && !name.endsWith(w.tailSuffix ?? ''))) continue;
    if (++counter.n > MAX_FILES) throw new TooManyFiles();
    const p = path.join(realDir, name);
    try {
      const st = lstatSync(p);
      if ((st.isDirectory() && w.slashFree !== true) || st.isSymbolicLink() || (st.isFile() && st.nlink > 1)) {
        yield unknown;
        return;
      }
    } catch {
      // vanished: nothing to reach
    }
  }
}

/** The files a patch changes, from its headers; an unreadable patch is unknown. */
function* patchFacts(d: DiskContext, w: BashWrite, cwd: string): Generator<TargetFact> {
  const how = w.patch as NonNullable<BashWrite['patch']>;
  const file = path.resolve(cwd, w.path);
  const text = how.text ?? readOrNull(file, MAX_READ);
  const what = how.text !== undefined ? 'the patch it is given' : w.path;
  const unknown = (why: string): TargetFact => ({ abs: file, real: file, classes: [], inProject: true, exists: false, unresolved: `the files named inside ${what}, which ${why}` });
  if (text === null) {
    yield unknown('cannot be read');
    return;
  }
  const targets = patchTargets(text, how.strip);
  if (targets === null) {
    yield unknown('names no file the gate can recognise');
    return;
  }
  const bases = new Set<string>();
  for (const b of how.root !== undefined ? [cwd, how.root] : [cwd]) bases.add(how.directory != null ? path.resolve(b, how.directory) : b);
  for (const base of bases) for (const t of targets) yield fact(d, base, path.resolve(base, t));
}

/**
 * `git stash pop|apply`: the files the stash entries change (tracked and untracked), asked of git
 * when the hook runs. An entry that does not exist changes nothing; one git cannot show is unknown.
 */
function* stashFacts(d: DiskContext, range: { from: number; to: number }, cwd: string): Generator<TargetFact> {
  const git = (...args: string[]): string | null => {
    try {
      return gitExec(['-C', cwd, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 16 * 1024 * 1024, timeout: 10_000 });
    } catch {
      return null;
    }
  };
  const top = git('rev-parse', '--show-toplevel')?.trim();
  for (let i = range.from; i <= range.to; i++) {
    const ref = `stash@{${i}}`;
    if (top === undefined || top === '') {
      yield { abs: cwd, real: cwd, classes: [], inProject: true, exists: false, unresolved: `the files of ${ref}, which git cannot show here` };
      return;
    }
    if (git('rev-parse', '-q', '--verify', `refs/${ref}`) === null) continue; // no such entry: nothing to apply
    const names = git('stash', 'show', '-z', '--name-only', '--include-untracked', ref) ?? git('stash', 'show', '-z', '--name-only', ref);
    if (names === null) {
      yield { abs: cwd, real: cwd, classes: [], inProject: true, exists: false, unresolved: `the files of ${ref}, which git cannot show` };
      return;
    }
    // Paths are relative to the top of the work tree, wherever git runs.
    for (const rel of names.split('\0')) if (rel !== '') yield fact(d, top, path.resolve(top, rel));
  }
}

/** The file's content after a Bash write, when it can be known (RED: does the stub keep its marker?). */
export function contentAfterWrite(w: BashWrite, cwd: string, real: string): string | null {
  if (w.metadataOnly) return readOrNull(real, MAX_READ) ?? '';
  if (w.tree || w.glob || w.dynamicTail || w.patch || w.stash) return null;
  if (w.inPlace) {
    const before = readOrNull(real, MAX_READ);
    return before === null ? null : applyInPlace(w.inPlace, before);
  }
  if (w.copyOf !== undefined) {
    const from = path.resolve(cwd, w.copyOf);
    return from === '/dev/null' ? '' : readOrNull(from, MAX_READ);
  }
  if (w.content === undefined) return null;
  return w.append ? readOrEmpty(real) + w.content : w.content;
}

function escapeForGlob(s: string): string {
  return s.replace(/[\\*?[\](){}|!+@]/g, (c) => '\\' + c);
}

function count(counter: { n: number }): void {
  if (++counter.n > MAX_FILES) throw new TooManyFiles();
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function linkedDir(p: string): string | null {
  try {
    return lstatSync(p).isSymbolicLink() && statSync(p).isDirectory() ? realpathSync(p) : null;
  } catch {
    return null;
  }
}

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Everything under a directory. A target that is a link to a directory is walked at the link's
 * target (`prettier --write src/linked-tests`); links further down are targets themselves, not followed.
 */
function* walkTree(target: string, counter: { n: number }): Generator<string> {
  const root = isDir(target) ? target : linkedDir(target);
  if (root === null) return;
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    for (const name of listDir(dir)) {
      if (SKIP_DIRS.has(name)) continue;
      const p = path.join(dir, name);
      count(counter);
      yield p;
      if (isDir(p)) stack.push(p);
    }
  }
}

/** Expand a glob segment by segment against the file system; `**` descends (as with globstar). */
function* globMatches(pattern: string, nocase: boolean, counter: { n: number }): Generator<string> {
  const segments = pattern.split('/').filter((s) => s !== '');
  const opts = { dot: true, nocase, nobrace: true } as const;
  // Past a wildcard, a literal segment names an entry only where one exists (`find . -name
  // __pycache__` finds no `.tdd/__pycache__`); a pattern that matches nothing is judged by its
  // literal text (writeTargets), so a write to a path that does not exist yet is still seen.
  function* step(base: string, i: number, wild = false): Generator<string> {
    if (i === segments.length) {
      if (!wild || exists(base)) yield base;
      return;
    }
    const seg = segments[i] as string;
    if (seg === '**') {
      yield* step(base, i + 1, true);
      for (const name of listDir(base)) {
        if (SKIP_DIRS.has(name)) continue;
        const p = path.join(base, name);
        count(counter);
        if (isDir(p)) yield* step(p, i, true);
        else if (i + 1 === segments.length) yield p;
      }
      return;
    }
    if (!/(^|[^\\])[*?[]/.test(seg) && !/[@!+*?]\(/.test(seg)) {
      if (nocase && /[A-Za-z]/.test(seg)) {
        const literal = seg.replace(/\\(.)/g, '$1').toLowerCase();
        const hits = listDir(base).filter((n) => n.toLowerCase() === literal);
        for (const n of hits.length > 0 ? hits : [seg.replace(/\\(.)/g, '$1')]) yield* step(path.join(base, n), i + 1, wild);
        return;
      }
      yield* step(path.join(base, seg.replace(/\\(.)/g, '$1')), i + 1, wild);
      return;
    }
    const mm = new minimatch.Minimatch(seg, opts);
    for (const name of listDir(base)) {
      count(counter);
      if (mm.match(name)) yield* step(path.join(base, name), i + 1, true);
    }
  }
  yield* step('/', 0);
}
