import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeAtomic } from '../../state/atomicWrite.js';
import { ANCHOR_DIR, gitCommonDir, shortName } from '../../state/anchorPaths.js';
import { simpleCommands } from '../runnerInstalled.js';

/**
 * Python's bytecode, kept between runs out of the agent's reach (docs/evidence.md, "Caches").
 *
 * The run gets the store's folder as PYTHONPYCACHEPREFIX, after every file in it was checked
 * against the digest the CLI recorded when it wrote it (anything else is removed first). What the
 * run writes there itself is never kept: after the run, the sources it had to compile are compiled
 * again by the CLI, with the interpreter the test command runs, isolated (`-I -S`: no site, no
 * `.pth`, no environment, no project code), as checked-hash .pyc files recorded by digest. Python
 * checks a checked-hash file against its source's hash at every import, so a source put back
 * with the size and time of another never runs that other's bytecode, and nothing the tests write
 * is ever read by a later run.
 */

/** Files the store keeps at most; past this it starts over. */
const MAX_FILES = 20_000;
/**
 * `mod.cpython-312.pyc`, `mod.cpython-312.opt-1.pyc` → the module name and the cache tag; pytest
 * keeps the modules it rewrites (plugins) as `mod.cpython-312-pytest-9.0.3.pyc`.
 */
const PYC = /^(.+)\.([a-z]+-\d+(?:-pytest-[\w.]+)?)(\.opt-\d+)?\.pyc$/;

const COMPILE = `
import json, sys
req = json.load(sys.stdin)
tag = req["tag"]
if "-pytest-" in tag:
    import os
    from pathlib import Path
    from _pytest.assertion import rewrite
    if rewrite.PYTEST_TAG != tag:
        sys.exit(3)
    for src, cfile in req["items"]:
        try:
            st, co = rewrite._rewrite_test(Path(src), None)
            os.makedirs(os.path.dirname(cfile), exist_ok=True)
            with open(cfile, "wb") as fp:
                rewrite._write_pyc_fp(fp, st, co)
        except Exception:
            pass
    sys.exit(0)
import py_compile
if sys.implementation.cache_tag != tag:
    sys.exit(3)
for src, cfile in req["items"]:
    try:
        py_compile.compile(src, cfile=cfile, doraise=True, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
    except Exception:
        pass
`;

type Manifest = Record<string, string>;

function readManifest(file: string): Manifest {
  try {
    const m = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return m !== null && typeof m === 'object' && !Array.isArray(m) ? (m as Manifest) : {};
  } catch {
    return {};
  }
}

function walk(dir: string, rel = '', out: string[] = []): string[] {
  let list;
  try {
    list = readdirSync(path.join(dir, rel), { withFileTypes: true });
  } catch {
    return out;
  }
  for (const d of list) {
    const child = rel === '' ? d.name : `${rel}/${d.name}`;
    if (d.isDirectory()) walk(dir, child, out);
    else if (d.isFile() && d.name.endsWith('.pyc')) out.push(child);
  }
  return out;
}

/** The source a prefix-cache file stands for: the prefix mirrors the source's absolute folder. */
function sourceOf(rel: string): { source: string; tag: string; pytest: boolean } | null {
  const m = PYC.exec(path.posix.basename(rel));
  if (!m) return null;
  const dir = path.posix.dirname(rel);
  return { source: `/${dir === '.' ? '' : `${dir}/`}${m[1]!}.py`, tag: m[2]!, pytest: m[2]!.includes('-pytest-') };
}

function safeDigest(abs: string, src: { source: string; pytest: boolean }): string | null {
  try {
    return entryDigest(abs, src);
  } catch {
    return null;
  }
}

/**
 * What the manifest records of a cached file: its digest, and for pytest's rewritten modules,
 * which pytest checks by the source's size and time only, the digest of the source it was
 * compiled from too (a source changed since, whatever its time, drops it). Throws when a file is gone.
 */
function entryDigest(abs: string, src: { source: string; pytest: boolean }): string {
  const own = digest(readFileSync(abs));
  return src.pytest ? `${own}:${digest(readFileSync(src.source))}` : own;
}

/** node's own SHA-256 (the CLI has it loaded already): the store holds thousands of small files, each hashed at every run. */
function digest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function onPath(name: string, pathEnv: string | undefined): string | null {
  if (name.includes('/')) return name;
  for (const d of (pathEnv ?? '').split(path.delimiter)) {
    if (d !== '' && isFile(path.join(d, name))) return path.join(d, name);
  }
  return null;
}

/** The interpreters the test command may run, most likely first: its own word, a script's shebang, the project's virtualenv, python3. */
function interpreterCandidates(command: string, root: string, pathEnv: string | undefined): string[] {
  const out: string[] = [];
  for (const words of simpleCommands(command)) {
    for (const w of words) {
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) continue;
      const base = w.slice(w.lastIndexOf('/') + 1);
      if (/^python[\d.]*$/.test(base)) {
        const p = onPath(w, pathEnv);
        if (p !== null) out.push(path.resolve(root, p));
      } else if (/^(pytest|py\.test)$/.test(base)) {
        const p = onPath(w, pathEnv);
        const shebang = p === null ? null : /^#!\s*(\S+)/.exec(readHead(path.resolve(root, p)))?.[1];
        if (shebang && /python/.test(shebang)) out.push(shebang);
      }
      break;
    }
  }
  for (const venv of ['.venv', 'venv']) out.push(path.join(root, venv, 'bin', 'python'));
  const py3 = onPath('python3', pathEnv);
  if (py3 !== null) out.push(py3);
  return [...new Set(out)].filter((p) => isFile(p));
}

function readHead(file: string): string {
  try {
    return readFileSync(file, 'utf8').slice(0, 256);
  } catch {
    return '';
  }
}

export interface PyCacheRun {
  /** For the run's environment. */
  env: Record<string, string>;
  /** The folder the run writes to (the oracle's namespace keeps it writable). */
  dir: string;
  /** After the run: compile what it had to compile into the store; drop what the run wrote. */
  finish(): void;
  /** The run was stopped: nothing to keep (what it wrote is dropped at the next run). */
  discard(): void;
  /** Keep nothing of sources under this folder (a private copy made afresh for each run). */
  skip(dir: string): void;
}

interface PyCacheOptions {
  /** The folder the run reads and writes (cacheDirs().pyc). */
  dir: string;
  /** The digests of what the CLI compiled into it, where the run cannot write (cacheDirs().pycManifest). */
  manifest: string;
  command: string;
  root: string;
  pathEnv: string | undefined;
  /** The run's environment: the interpreter is found as the run finds it (pyenv's shims read HOME and PYENV_*). */
  env?: NodeJS.ProcessEnv;
  /** Sources under these folders are not kept (a private copy made afresh for each run). */
  skipUnder?: readonly string[];
  /** …except under these (the project's own virtualenvs). */
  keepUnder?: readonly string[];
}

/** Sets up one run's bytecode cache; see the module comment. */
export function openPyCache(opts: PyCacheOptions): PyCacheRun {
  const { dir } = opts;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const manifest = readManifest(opts.manifest);
  // Only what the CLI compiled and recorded stays; anything else (a run's own writes, a file
  // changed since) is removed before the run can read it.
  const kept: Manifest = {};
  const seen = new Map<string, string>();
  for (const rel of walk(dir)) {
    const abs = path.join(dir, rel);
    const src = sourceOf(rel);
    let ok = false;
    try {
      ok = src !== null && manifest[rel] !== undefined && manifest[rel] === entryDigest(abs, src);
    } catch {
      ok = false;
    }
    if (ok) {
      kept[rel] = manifest[rel]!;
      const sig = signature(abs);
      if (sig !== null) seen.set(rel, sig);
    } else rmSync(abs, { force: true });
  }
  const skipped: string[] = [];
  return {
    env: { PYTHONPYCACHEPREFIX: dir },
    dir,
    discard: () => undefined,
    skip: (d) => {
      skipped.push(d);
    },
    finish: () => compileNew({ ...opts, skipUnder: [...(opts.skipUnder ?? []), ...skipped] }, dir, kept, seen),
  };
}

/**
 * Which file a path is and when it last changed: a write, a rename over it or a time set back
 * all move the change time, which no process can set. Only a shortcut after the run: the next run
 * checks every file by digest again before it starts.
 */
function signature(abs: string): string | null {
  try {
    const st = statSync(abs, { bigint: true });
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return null;
  }
}

/**
 * What the CLI could not compile (pytest missing for the isolated interpreter: installed in the
 * user's site, say), by the source's digest and the interpreters tried: not tried again at every
 * run, each try an interpreter start; the run compiles such a module itself, as it would without the store.
 */
function missesFile(manifest: string): string {
  return path.join(path.dirname(manifest), `${path.basename(manifest, '.json')}-misses.json`);
}

function compileNew(opts: PyCacheOptions, dir: string, kept: Manifest, seen: ReadonlyMap<string, string>): void {
  const byTag = new Map<string, [string, string][]>();
  const misses = readManifest(missesFile(opts.manifest));
  const candidates = interpreterCandidates(opts.command, opts.root, opts.pathEnv);
  const tried = (source: string): string | null => {
    try {
      return `${digest(readFileSync(source))}:${digest(Buffer.from(candidates.join('\n')))}`;
    } catch {
      return null;
    }
  };
  const wanted = new Map<string, string | null>();
  for (const rel of walk(dir)) {
    const abs = path.join(dir, rel);
    // kept and untouched: Python found it valid; anything else the run wrote is dropped, and
    // compiled by the CLI when it is worth keeping. Untouched: the same file, unchanged since it
    // was checked before the run (else its digest decides)
    const known = sourceOf(rel);
    if (rel in kept && known !== null && (seen.get(rel) === signature(abs) || safeDigest(abs, known) === kept[rel])) continue;
    rmSync(abs, { force: true });
    delete kept[rel];
    const src = sourceOf(rel);
    if (src === null || !isFile(src.source)) continue;
    const under = (d: string) => src.source.startsWith(d.endsWith('/') ? d : `${d}/`);
    if ((opts.skipUnder ?? []).some(under) && !(opts.keepUnder ?? []).some(under)) continue;
    const key = tried(src.source);
    if (key !== null && misses[rel] === key) continue;
    wanted.set(rel, key);
    byTag.set(src.tag, [...(byTag.get(src.tag) ?? []), [src.source, rel]]);
  }
  if (byTag.size === 0) return;
  if (Object.keys(kept).length > MAX_FILES) {
    for (const rel of Object.keys(kept)) {
      rmSync(path.join(dir, rel), { force: true });
      delete kept[rel];
    }
  }
  const out = mkdtempSync(path.join(tmpdir(), 'tdd-gate-pyc-'));
  try {
    for (const [tag, items] of byTag) {
      const input = JSON.stringify({ tag, items: items.map(([source, rel]) => [source, path.join(out, rel)]) });
      for (const python of candidates) {
        // -I: no PYTHON* variable, no user site, not the current folder; -S: no site (no .pth runs)
        // pytest's rewriter lives in site-packages: only its items are compiled with site
        const r = spawnSync(python, tag.includes('-pytest-') ? ['-I', '-c', COMPILE] : ['-I', '-S', '-c', COMPILE], { input, cwd: out, stdio: ['pipe', 'ignore', 'ignore'], timeout: 120_000, env: { ...(opts.env ?? {}), PATH: opts.pathEnv ?? '' } });
        if (r.status === 0) break;
      }
    }
    for (const rel of walk(out)) {
      const bytes = readFileSync(path.join(out, rel));
      // checked-hash pycs only (flags 0b11 after the magic): Python checks them against the source
      const src = sourceOf(rel);
      if (src === null || bytes.length < 16 || bytes.readUInt32LE(4) !== (src.pytest ? 0 : 3)) continue;
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), bytes);
      kept[rel] = entryDigest(path.join(dir, rel), src);
    }
    for (const [rel, key] of wanted) {
      if (rel in kept || key === null) delete misses[rel];
      else misses[rel] = key;
    }
    writeAtomic(missesFile(opts.manifest), JSON.stringify(Object.keys(misses).length > MAX_FILES ? {} : misses));
  } finally {
    rmSync(out, { recursive: true, force: true });
    // rename: a reader sees the old manifest or the new one
    writeAtomic(opts.manifest, JSON.stringify(kept));
  }
}

/** Is there anything to do for this command (a Python one)? */
export function usesPython(command: string, root: string): boolean {
  return /python|pytest|py\.test|\btox\b|\bnox\b|\buv\b|\bpoetry\b|\bhatch\b|\bpdm\b/.test(command) || existsSync(path.join(root, 'conftest.py'));
}

/**
 * Where one work tree's caches live: the git common directory's tdd-gate store (ADR 006), which
 * the hook guards. `rw` is the one folder the oracle's run may write (its namespace keeps it
 * writable); the records of what the CLI itself put there lie beside it, out of the run's reach.
 */
export function cacheDirs(gitDir: string, root: string): { base: string; rw: string; pyc: string; pycManifest: string; cargoTarget: string; cargoSources: string } {
  const base = path.join(gitCommonDir(gitDir), ANCHOR_DIR, 'cache', shortName(root));
  const rw = path.join(base, 'rw');
  return { base, rw, pyc: path.join(rw, 'pyc'), pycManifest: path.join(base, 'pyc-manifest.json'), cargoTarget: path.join(rw, 'cargo-target'), cargoSources: path.join(base, 'cargo-sources.json') };
}

/**
 * The project's own sources change from run to run and compile in a moment: only the bytecode of
 * what lies outside the project (the interpreter's library, installed packages) and of the
 * project's virtualenvs is kept, so a run after the first has nothing new to compile.
 */
export function projectScope(root: string): { skipUnder: string[]; keepUnder: string[] } {
  let venvs: string[] = [];
  try {
    venvs = readdirSync(root, { withFileTypes: true })
      .filter((d) => d.isDirectory() && isFile(path.join(root, d.name, 'pyvenv.cfg')))
      .map((d) => path.join(root, d.name));
  } catch {
    venvs = [];
  }
  return { skipUnder: [root], keepUnder: venvs };
}
