/**
 * Finds and hashes the test runner's installation (src/verify/rules/installation.ts says what it
 * is). Hashing is lazy: a file whose inode, size, modification and change times are those of the
 * last hash keeps its digest (a cache in the git directory's tdd-gate store, written by the CLI
 * only); any write moves the change time, so a changed file is always hashed again. Files larger
 * than IDENTITY_BYTES (toolchain binaries) are known by that identity; their bytes are hashed when
 * it is taken, so that a move of the change time alone (a hard link made or removed elsewhere)
 * keeps the identity when the bytes are still those.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { lstatSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, closeSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { writeAtomic } from '../state/atomicWrite.js';
import { sha256Hex } from '../state/sha256.js';
import type { Toolchain } from './rules/toolchain.js';
import {
  distOfInfoDir,
  installationRecord,
  manifestText,
  NODE_RUNNER_BINS,
  nodeCandidates,
  nodeDependencies,
  nodePackageRoot,
  nodeStarts,
  normalizeDist,
  pytestPlugins,
  recordFiles,
  requiresDist,
  runnerKinds,
  topLevelNames,
  type FileManifest,
  type RunnerInstallation,
} from './rules/installation.js';

/** Files above this size are known by identity (device, inode, size, times), not by their bytes. */
const IDENTITY_BYTES = 8 * 1024 * 1024;
/** A package folder holding more files than this is not walked further (a broken layout, not a package). */
const MAX_FILES = 60_000;

export interface InstallationScan {
  record: RunnerInstallation;
  manifest: FileManifest;
  /** Every single file looked at → its stat key: what a run may not move. */
  stats: Map<string, string>;
  /** The folders walked, and every entry in them: what a run may not move either. */
  groups: TreeGroup[];
  /** Each file's digest as this scan found it (absolute path). */
  digests: Map<string, string>;
  /** A large file's (known by identity) sha256 of its bytes, when the identity was taken. */
  largeBytes?: Map<string, string>;
  /** The paths the installation covers (package folders and files), for the OS wall. */
  covers: string[];
}

interface HashCache {
  /** absolute path → [stat key, digest, and for a large file the sha256 of its bytes when its identity was taken] */
  files: Record<string, [string, string] | [string, string, string]>;
  /** probe key → JSON of what an interpreter or rustc said */
  probes: Record<string, string>;
}

function statKey(st: Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

function sha256File(abs: string): string {
  const h = createHash('sha256');
  const fd = openSync(abs, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      h.update(buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return h.digest('hex');
}

/** One entry of a folder tree: its type (`f` file, `d` folder, `l` link, other), stat key, and a link's target. */
interface TreeEntry {
  type: string;
  key: string;
  size: number;
  target: string;
  /** The record as find printed it (none from node's own walk): what the oracle's namespace lists again. */
  raw?: string;
}

/** What find prints per entry: type, stat key, size, a link's target, the path. */
const FIND_FORMAT = '%y\\001%D:%i:%s:%T@:%C@\\001%s\\001%l\\001%p\\000';

/** find's arguments after the start points: the folders named `prune` (below a start point) are not entered. */
function findExpression(prune: string, format = FIND_FORMAT): string[] {
  return [...(prune === '' ? [] : ['-name', prune, '-prune', '-o']), '-printf', format];
}

/**
 * What the oracle's namespace lists through its mounts: FIND_FORMAT without the change time. A
 * hard link made elsewhere (pnpm's store, `cp -al` of the folder) moves a file's change time and
 * nothing else; the check after the run holds the change time (statMoves).
 */
const LIST_FORMAT = '%y\\001%D:%i:%s:%T@\\001%s\\001%l\\001%p\\000';

/** A FIND_FORMAT record as LIST_FORMAT prints it. */
function listRecord(raw: string): string {
  const at = raw.indexOf('\x01');
  const end = raw.indexOf('\x01', at + 1);
  const key = raw.slice(at + 1, end);
  return `${raw.slice(0, at + 1)}${key.slice(0, key.lastIndexOf(':'))}${raw.slice(end)}`;
}

/**
 * Every entry under `roots` (the roots included), not descending into folders named `prune`:
 * one `find` for them all where GNU find is there (a stat per file in C, several times faster
 * than node's), else node's own walk. The keys of one mechanism are compared only with its own.
 */
function treeStats(roots: readonly string[], prune: string): Map<string, TreeEntry> {
  const out = new Map<string, TreeEntry>();
  if (roots.length === 0) return out;
  const r = spawnSync('find', [...roots, ...findExpression(prune)], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status === 0 && typeof r.stdout === 'string') {
    for (const rec of r.stdout.split('\0')) {
      if (rec === '') continue;
      const [type = '', key = '', size = '0', target = '', abs = ''] = rec.split('\x01');
      out.set(abs, { type, key: `find:${key}`, size: Number(size), target, raw: rec });
    }
    // find does not print a root named like the pruned folders: its own stat.
    for (const root of roots) {
      if (out.has(root)) continue;
      try {
        const st = lstatSync(root);
        out.set(root, { type: st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : 'f', key: `node:${statKey(st)}`, size: st.size, target: '' });
      } catch {
        // gone
      }
    }
    return out;
  }
  for (const root of roots) {
    const visit = (abs: string) => {
      let st: Stats;
      try {
        st = lstatSync(abs);
      } catch {
        return;
      }
      const type = st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : st.isFile() ? 'f' : 'o';
      let target = '';
      if (type === 'l') {
        try {
          target = readlinkSync(abs);
        } catch {
          // unreadable
        }
      }
      out.set(abs, { type, key: `node:${statKey(st)}`, size: st.size, target });
      if (type !== 'd' || out.size > MAX_FILES) return;
      let names: string[] = [];
      try {
        names = readdirSync(abs);
      } catch {
        return;
      }
      for (const n of names) if (n !== prune) visit(path.join(abs, n));
    };
    visit(root);
  }
  return out;
}

/** A group of folders walked together (or single files listed together), and what each entry was. */
interface TreeGroup {
  roots: string[];
  prune: string;
  entries: Map<string, TreeEntry>;
  /** The roots are single files (programs, start-up hooks, a Python distribution's files), not folders. */
  singles?: boolean;
}

class Hasher {
  private changed = false;
  readonly stats = new Map<string, string>();
  constructor(
    private readonly file: string | null,
    private readonly cache: HashCache,
  ) {}

  static open(file: string | null): Hasher {
    let cache: HashCache = { files: {}, probes: {} };
    if (file !== null) {
      try {
        const j = JSON.parse(readFileSync(file, 'utf8')) as Partial<HashCache>;
        cache = { files: typeof j.files === 'object' && j.files !== null ? j.files : {}, probes: typeof j.probes === 'object' && j.probes !== null ? j.probes : {} };
      } catch {
        // no cache yet
      }
    }
    return new Hasher(file, cache);
  }

  /** The digest of a file a tree walk found, by its key (hashed only when the key is new). */
  entryDigest(abs: string, e: TreeEntry): string | null {
    if (e.type === 'l') return `link:${e.target}`;
    if (e.type !== 'f') return null;
    if (e.size > IDENTITY_BYTES) return this.identity(abs, e.key);
    const hit = this.cache.files[abs];
    if (hit && hit[0] === e.key) return hit[1];
    try {
      const d = sha256File(abs);
      this.cache.files[abs] = [e.key, d];
      this.changed = true;
      return d;
    } catch {
      return null;
    }
  }

  /**
   * A large file's identity, `id:<stat key>`. When only its change time moved since the identity
   * was taken (a hard link made or removed elsewhere: pnpm's store, \`cp -al\`) and its bytes are
   * the ones hashed then, the identity stands; any other move, or other bytes, is a new identity.
   */
  private identity(abs: string, key: string): string {
    const hit = this.cache.files[abs];
    if (hit && hit[0] === key) return hit[1];
    let bytes: string | null;
    try {
      bytes = sha256File(abs);
    } catch {
      bytes = null;
    }
    const same = hit !== undefined && hit[2] !== undefined && bytes === hit[2] && withoutCtime(hit[0]) === withoutCtime(key);
    const entry: [string, string] | [string, string, string] = same ? [key, hit[1], hit[2]!] : bytes === null ? [key, `id:${key}`] : [key, `id:${key}`, bytes];
    this.cache.files[abs] = entry;
    this.changed = true;
    return entry[1];
  }

  /** The bytes' sha256 kept with a large file's identity, if any. */
  identityBytes(abs: string): string | undefined {
    const hit = this.cache.files[abs];
    return hit?.[2];
  }

  probe(key: string, run: () => string | null): string | null {
    const hit = this.cache.probes[key];
    if (hit !== undefined) return hit;
    const got = run();
    if (got !== null) {
      this.cache.probes[key] = got;
      this.changed = true;
    }
    return got;
  }

  save(): void {
    if (this.file === null || !this.changed) return;
    try {
      writeAtomic(this.file, JSON.stringify(this.cache));
    } catch {
      // a cache that cannot be written costs only speed
    }
  }
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
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

/** There, and not a folder: a file, a link, a device. */
function isEntry(p: string): boolean {
  try {
    return !lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

function readText(p: string): string | null {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}

/** Every file under `dir` (relative, posix), not descending into the folders `skip` names; each folder's stat into `dirs`. */
function walk(dir: string, skip: (name: string) => boolean, dirs?: Map<string, string>): string[] {
  const out: string[] = [];
  const stack = [''];
  while (stack.length > 0 && out.length < MAX_FILES) {
    const rel = stack.pop()!;
    const abs = rel === '' ? dir : path.join(dir, rel);
    let entries;
    try {
      if (dirs) dirs.set(abs, statKey(lstatSync(abs)));
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!skip(e.name)) stack.push(r);
      } else out.push(r);
    }
  }
  return out.sort();
}

class Collector {
  readonly manifest: FileManifest = {};
  readonly names: Record<string, string> = {};
  readonly absent: string[] = [];
  readonly covers = new Set<string>();
  constructor(readonly h: Hasher) {}

  private readonly queued = new Map<string, { root: string; name: string }[]>();
  readonly digests = new Map<string, string>();
  readonly largeBytes = new Map<string, string>();

  private keep(abs: string, d: string): void {
    this.digests.set(abs, d);
    if (d.startsWith('id:')) {
      const b = this.h.identityBytes(abs);
      if (b !== undefined) this.largeBytes.set(abs, b);
    }
  }
  readonly groups: TreeGroup[] = [];

  /** A folder, walked when the scan ends (with every other folder of the same prune): every file's digest. */
  folder(root: string, name: string, prune = ''): void {
    if (root in this.manifest) return;
    this.manifest[root] = {};
    this.names[root] = name;
    this.covers.add(root);
    this.queued.set(prune, [...(this.queued.get(prune) ?? []), { root, name }]);
  }

  /** Single files queued for the one listing of them all: absolute path → where its digest goes. */
  private readonly singles = new Map<string, { root: string; rel: string }[]>();

  /** Walk the queued folders, one walk per prune name, list the queued files, and take each file's digest. */
  flush(): void {
    for (const [prune, list] of this.queued) {
      const roots = list.map((l) => l.root);
      const entries = treeStats(roots, prune);
      this.groups.push({ roots, prune, entries });
      const rootSet = new Set(roots);
      for (const [abs, e] of entries) {
        if (e.type === 'd') continue;
        // the nearest enclosing root: one folder up at a time
        let root: string | undefined;
        for (let at = abs.lastIndexOf('/'); at > 0; at = abs.lastIndexOf('/', at - 1)) {
          const up = abs.slice(0, at);
          if (rootSet.has(up)) {
            root = up;
            break;
          }
        }
        if (root === undefined) continue;
        const d = this.h.entryDigest(abs, e);
        if (d !== null) {
          (this.manifest[root] ??= {})[abs.slice(root.length + 1)] = d;
          this.keep(abs, d);
        }
      }
    }
    this.queued.clear();
    if (this.singles.size > 0) {
      // One listing of every single file (the files themselves, not what a folder among them holds).
      const roots = [...this.singles.keys()].sort();
      const entries = treeStats(roots, '');
      this.groups.push({ roots, prune: '', entries, singles: true });
      for (const [abs, targets] of this.singles) {
        const e = entries.get(abs);
        const d = e === undefined ? null : this.h.entryDigest(abs, e);
        if (d !== null) this.keep(abs, d);
        for (const t of targets) {
          const files = (this.manifest[t.root] ??= {});
          if (t.rel === '') {
            if (d !== null) files[''] = d;
          } else files[t.rel] = d ?? 'missing';
        }
      }
      this.singles.clear();
    }
  }

  private single(abs: string, root: string, rel: string): void {
    this.singles.set(abs, [...(this.singles.get(abs) ?? []), { root, rel }]);
  }

  /** One file as a package of its own (a binary, a start-up hook). */
  file(abs: string, name: string): void {
    if (abs in this.manifest) return;
    this.manifest[abs] = {};
    this.names[abs] = name;
    this.covers.add(abs);
    if (isEntry(abs)) this.single(abs, abs, '');
  }

  /** Named files (absolute) as one package keyed by `root`, relative names where they lie under `base`. */
  files(root: string, name: string, base: string, abs: readonly string[]): void {
    const files: Record<string, string> = this.manifest[root] ?? {};
    for (const a of abs) {
      const rel = path.relative(base, a).split(path.sep).join('/');
      if (isEntry(a)) this.single(a, root, rel);
      else files[rel] = 'missing';
    }
    this.manifest[root] = files;
    this.names[root] = name;
    this.covers.add(root);
  }
}

// ---- node ----

function devDependencies(pkgJson: string): string[] {
  try {
    const d = (JSON.parse(pkgJson) as { devDependencies?: unknown }).devDependencies;
    return typeof d === 'object' && d !== null ? Object.keys(d) : [];
  } catch {
    return [];
  }
}

function nodePackageAt(candidates: readonly string[]): string | null {
  for (const c of candidates) if (exists(path.join(c, 'package.json'))) return c;
  return null;
}

function scanNode(c: Collector, root: string, text: string, nodeTest: boolean, toolchain: Toolchain | null): void {
  const starts: string[] = [];
  const realRoot = real(root);
  const own = readText(path.join(root, 'package.json'));
  const projectDeps = own === null ? [] : [...nodeDependencies(own), ...devDependencies(own)];
  const wanted = nodeStarts(text, projectDeps);
  for (const name of wanted) {
    const at = nodePackageAt(nodeCandidates(realRoot, name));
    if (at !== null) starts.push(at);
  }
  // A runner the command names by a path into node_modules, wherever that folder is.
  for (const word of text.split(/[\s;&|()"'`=]+/)) {
    if (!word.includes('node_modules/')) continue;
    const abs = path.resolve(root, word);
    const pkg = nodePackageRoot(real(abs)) ?? nodePackageRoot(abs);
    if (pkg !== null) starts.push(pkg);
  }
  // Runner programs in the project's .bin: each recorded, or recorded as absent.
  for (let dir = realRoot, i = 0; i < 12; i++) {
    for (const bin of NODE_RUNNER_BINS) {
      const p = path.join(dir, 'node_modules', '.bin', bin);
      if (exists(p)) {
        c.file(p, `node_modules/.bin/${bin}`);
        const pkg = nodePackageRoot(real(p));
        if (pkg !== null && wanted.some((w) => pkg.endsWith(`/node_modules/${w}`))) starts.push(pkg);
      } else if (dir === realRoot) c.absent.push(p);
    }
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  const seen = new Set<string>();
  const queue = [...starts];
  while (queue.length > 0) {
    const pkg = real(queue.shift()!);
    if (seen.has(pkg)) continue;
    seen.add(pkg);
    const json = readText(path.join(pkg, 'package.json'));
    if (json === null) continue;
    let name = path.basename(pkg);
    try {
      const n = (JSON.parse(json) as { name?: unknown }).name;
      if (typeof n === 'string' && n !== '') name = n;
    } catch {
      // the folder's name then
    }
    c.folder(pkg, name, 'node_modules');
    for (const dep of nodeDependencies(json)) {
      const at = nodePackageAt(nodeCandidates(pkg, dep));
      if (at !== null) queue.push(at);
    }
  }
  if (nodeTest) {
    const node = toolchain?.programs.find((p) => p.name === 'node' && p.real !== null);
    const abs = node?.real ? path.resolve(root, node.real) : process.execPath;
    c.file(real(abs), 'node (its own node:test and node:assert)');
  }
}

// ---- python ----

interface PyProbe {
  sysPath: string[];
  site: string[];
  userSite: string;
}

function interpreterOf(root: string, toolchain: Toolchain | null): string | null {
  for (const p of toolchain?.programs ?? []) {
    if (p.real === null || p.found === null) continue;
    const base = path.basename(p.real);
    if (/^python[0-9.]*$/.test(base) || /^python[0-9.]*$/.test(path.basename(p.found))) return path.resolve(root, p.found);
    if (base === 'pytest' || base === 'py.test') {
      const head = (readText(path.resolve(root, p.real)) ?? '').split('\n')[0] ?? '';
      if (head.startsWith('#!')) {
        const words = head.slice(2).trim().split(/\s+/);
        const prog = words[0] === '/usr/bin/env' ? words[1] : words[0];
        if (prog) return prog.startsWith('/') ? prog : null;
      }
    }
  }
  return null;
}

// Without site (-S), Python before 3.12 leaves sys.prefix at the base interpreter's even in a
// virtualenv (site sets it): the virtualenv is found by its pyvenv.cfg beside the program, and one
// made with --system-site-packages also reads its base interpreter's site folders.
const PROBE = [
  'import json,os,site,sys',
  'v=os.path.dirname(os.path.dirname(os.path.abspath(sys.executable)))',
  'p=[sys.prefix]',
  'try:',
  ' c=open(os.path.join(v,"pyvenv.cfg")).read().splitlines()',
  ' p=[v]',
  ' if any(l.split("=",1)[0].strip().lower()=="include-system-site-packages" and l.split("=",1)[1].strip().lower()=="true" for l in c if "=" in l): p.append(sys.base_prefix)',
  'except OSError: pass',
  'print(json.dumps({"sysPath":sys.path,"site":site.getsitepackages(p),"userSite":site.getusersitepackages()}))',
].join('\n');

function probePython(h: Hasher, interp: string, env: NodeJS.ProcessEnv): PyProbe | null {
  let st: Stats;
  try {
    st = statSync(interp);
  } catch {
    return null;
  }
  const key = `python\0${interp}\0${real(interp)}\0${statKey(st)}\0${env.HOME ?? ''}`;
  // -I -S: no site, no .pth, no project code: what the interpreter is, not what it runs.
  const text = h.probe(key, () => {
    const r = spawnSync(interp, ['-I', '-S', '-c', PROBE], { encoding: 'utf8', env: { PATH: env.PATH ?? '', HOME: env.HOME ?? '' }, timeout: 20_000 });
    return r.status === 0 ? r.stdout.trim() : null;
  });
  if (text === null) return null;
  try {
    return JSON.parse(text) as PyProbe;
  } catch {
    return null;
  }
}

function scanPython(c: Collector, root: string, env: NodeJS.ProcessEnv, toolchain: Toolchain | null): void {
  const interp = interpreterOf(root, toolchain);
  if (interp === null) return;
  c.file(real(interp), 'the Python interpreter');
  const probe = probePython(c.h, interp, env);
  if (probe === null) return;
  // The order site gives: the interpreter's own folders, the user's site, the site folders, each
  // followed by the folders its path-only .pth files add.
  const base = probe.sysPath.filter((d) => d !== '' && !d.endsWith('.zip'));
  const siteDirs = [probe.userSite, ...probe.site.filter((d) => d !== probe.userSite)];
  const order: string[] = [];
  for (const d of base) order.push(d);
  for (const d of siteDirs) {
    order.push(d);
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      continue;
    }
    for (const n of names) {
      if (!n.endsWith('.pth')) continue;
      const text = readText(path.join(d, n)) ?? '';
      for (const line of text.split(/\r?\n/)) {
        if (line.trim() !== '' && !line.startsWith('#') && !line.startsWith('import ') && !line.startsWith('import\t')) order.push(path.resolve(d, line.trim()));
      }
    }
  }
  const uniq = [...new Set(order)];
  // A .pth that runs code at start-up and that no distribution owns is the toolchain's record
  // (src/verify/oracle/toolchain.ts): refused there when added. One an installed package owns is that
  // package's (setuptools' distutils-precedence.pth), as for any dependency.
  // The distributions in each folder, first one wins.
  const dists = new Map<string, { dir: string; info: string }>();
  const plugins: string[] = [];
  for (const d of uniq) {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const n of names) {
      if (!n.endsWith('.dist-info') && !n.endsWith('.egg-info')) continue;
      const dist = distOfInfoDir(n);
      if (dists.has(dist)) continue;
      dists.set(dist, { dir: d, info: path.join(d, n) });
      const ep = readText(path.join(d, n, 'entry_points.txt'));
      if (ep !== null && pytestPlugins(ep).length > 0) plugins.push(dist);
    }
  }
  const queue = ['pytest', ...plugins];
  const seen = new Set<string>();
  const tops = new Map<string, number>();
  while (queue.length > 0) {
    const dist = normalizeDist(queue.shift()!);
    if (seen.has(dist)) continue;
    seen.add(dist);
    const at = dists.get(dist);
    if (at === undefined) continue;
    const record = readText(path.join(at.info, 'RECORD'));
    const listed = record === null ? walk(at.info, () => false).map((f) => `${path.basename(at.info)}/${f}`) : recordFiles(record);
    const top = topLevelNames(listed);
    const files = new Set(listed.map((f) => path.resolve(at.dir, f)));
    // Files put into the distribution's packages that its RECORD does not list are loaded just the same.
    for (const t of top) {
      const dir = path.join(at.dir, t);
      if (isDir(dir)) for (const rel of walk(dir, (n) => n === '__pycache__')) if (!rel.endsWith('.pyc')) files.add(path.join(dir, rel));
      tops.set(t, uniq.indexOf(at.dir));
      c.covers.add(dir);
    }
    c.files(at.info, dist, at.dir, [...files].sort());
    const meta = readText(path.join(at.info, 'METADATA')) ?? readText(path.join(at.info, 'PKG-INFO')) ?? '';
    queue.push(...requiresDist(meta));
  }
  // A module of the same name earlier on the path (the project's folder for `python -m`, the
  // user's site) would be imported instead.
  for (const [t, i] of tops) {
    for (const d of [real(root), ...uniq.slice(0, Math.max(0, i))]) {
      c.absent.push(path.join(d, t), path.join(d, `${t}.py`));
    }
  }
  // conftest.py files above the project are loaded by pytest too.
  for (let d = path.dirname(real(root)); ; d = path.dirname(d)) {
    const f = path.join(d, 'conftest.py');
    if (exists(f)) c.file(f, `conftest.py above the project (${d})`);
    else c.absent.push(f);
    if (path.dirname(d) === d) break;
  }
}

// ---- go ----

function scanGo(c: Collector, root: string, env: NodeJS.ProcessEnv, toolchain: Toolchain | null): void {
  const go = toolchain?.programs.find((p) => (p.name === 'go' || p.name.endsWith('/go')) && p.real !== null);
  if (!go?.real) return;
  const bin = real(path.resolve(root, go.real));
  c.file(bin, 'the go command');
  const goroot = env.GOROOT || path.dirname(path.dirname(bin));
  for (const pkg of ['testing', 'internal/testlog', 'internal/fuzz', 'internal/sysinfo']) {
    const dir = path.join(goroot, 'src', pkg);
    if (isDir(dir)) c.folder(dir, `go ${pkg}`, 'testdata');
  }
  const tools = path.join(goroot, 'pkg', 'tool');
  if (isDir(tools)) c.folder(tools, 'go build tools (compile, link, vet, test2json)');
}

// ---- cargo ----

function scanCargo(c: Collector, root: string, env: NodeJS.ProcessEnv, toolchain: Toolchain | null): void {
  const cargo = toolchain?.programs.find((p) => p.name === 'cargo' && p.real !== null);
  if (!cargo?.real) return;
  const pins = ['rust-toolchain', 'rust-toolchain.toml'].map((f) => readText(path.join(root, f)) ?? '').join('\0');
  const key = `rustc\0${root}\0${cargo.id}\0${env.RUSTUP_TOOLCHAIN ?? ''}\0${env.RUSTUP_HOME ?? ''}\0${sha256Hex(pins)}`;
  const sysroot = c.h.probe(key, () => {
    const r = spawnSync('rustc', ['--print', 'sysroot'], { cwd: root, encoding: 'utf8', env, timeout: 60_000 });
    return r.status === 0 ? r.stdout.trim() : null;
  });
  if (sysroot === null || !isDir(sysroot)) return;
  const binDir = path.join(sysroot, 'bin');
  for (const b of ['cargo', 'rustc']) if (exists(path.join(binDir, b))) c.file(path.join(binDir, b), `${b} (${path.basename(sysroot)})`);
  const rustlib = path.join(sysroot, 'lib', 'rustlib');
  let targets: string[] = [];
  try {
    targets = readdirSync(rustlib).filter((t) => isDir(path.join(rustlib, t, 'lib')));
  } catch {
    // none
  }
  for (const t of targets.sort()) c.folder(path.join(rustlib, t, 'lib'), `rust standard library and test harness (${t})`);
  try {
    for (const n of readdirSync(path.join(sysroot, 'lib'))) if (n.startsWith('librustc_driver') || n.startsWith('libstd-')) c.file(path.join(sysroot, 'lib', n), `${n} (${path.basename(sysroot)})`);
  } catch {
    // none
  }
}

interface ScanInput {
  root: string;
  /** The test command and the package scripts it runs: what decides which runners are looked at. */
  commandText: string;
  env: NodeJS.ProcessEnv;
  toolchain: Toolchain | null;
  /** The digest cache file, or null for none. */
  cacheFile: string | null;
  /** The freeze: the manifest's own digest is recorded (a verify compares package digests only). */
  forFreeze?: boolean;
}

/** The runner's installation as it is now. */
export function scanInstallation(input: ScanInput): InstallationScan {
  const h = Hasher.open(input.cacheFile);
  const c = new Collector(h);
  const kinds = runnerKinds(input.commandText);
  if (kinds.node) scanNode(c, input.root, input.commandText, kinds.nodeTest, input.toolchain);
  if (kinds.python) scanPython(c, input.root, input.env, input.toolchain);
  if (kinds.go) scanGo(c, input.root, input.env, input.toolchain);
  if (kinds.cargo) scanCargo(c, input.root, input.env, input.toolchain);
  c.flush();
  h.save();
  const covers = [...c.covers].sort();
  return { record: installationRecord(c.manifest, c.names, c.absent.filter((a) => !exists(a)), covers, input.forFreeze === true), manifest: c.manifest, stats: h.stats, groups: c.groups, digests: c.digests, largeBytes: c.largeBytes, covers };
}

/** `…:dev:ino:size:mtime:ctime` without its change time. */
function withoutCtime(key: string): string {
  return key.slice(0, key.lastIndexOf(':'));
}

/**
 * Files and folders whose stat moved since a scan: written, replaced, added or removed. Any
 * write moves the change time, which no program sets back; a change time that moved alone (a
 * hard link made or removed elsewhere: pnpm's store, `cp -al`) counts when the file's bytes are
 * not the ones the scan hashed.
 */
export function statMoves(scan: Pick<InstallationScan, 'stats' | 'groups' | 'digests' | 'largeBytes'>): string[] {
  const out: string[] = [];
  const sameBytes = (abs: string) => {
    const was = scan.digests.get(abs);
    if (was === undefined) return false;
    try {
      if (was.startsWith('id:')) {
        const b = scan.largeBytes?.get(abs);
        return b !== undefined && sha256File(abs) === b;
      }
      return was.startsWith('link:') ? `link:${readlinkSync(abs)}` === was : sha256File(abs) === was;
    } catch {
      return false;
    }
  };
  for (const [abs, key] of scan.stats) {
    let now: string | null;
    try {
      now = statKey(lstatSync(abs));
    } catch {
      now = null;
    }
    if (now !== key && !(now !== null && withoutCtime(now) === withoutCtime(key) && sameBytes(abs))) out.push(abs);
  }
  for (const g of scan.groups) {
    const now = treeStats(g.roots, g.prune);
    for (const [abs, e] of g.entries) {
      const n = now.get(abs);
      if (n?.key === e.key) continue;
      if (n !== undefined && (e.type === 'f' || e.type === 'l') && withoutCtime(n.key) === withoutCtime(e.key) && sameBytes(abs)) continue;
      out.push(abs);
    }
    for (const abs of now.keys()) if (!g.entries.has(abs)) out.push(abs);
  }
  return [...new Set(out)].sort();
}

/**
 * How the oracle's private mount namespace holds the installation still for a run
 * (src/verify/oracle/isolate.ts; docs/evidence.md, "What the oracle mounts"):
 * - every recorded package folder, Python package folder, single file (a program, a start-up
 *   hook, a distribution's module) and the `.bin` folders holding recorded or absent runner
 *   programs is bind-mounted read-only onto itself: one mount per root, not per file;
 * - every folder above one of them (up to, not including, `/`) is bind-mounted onto itself as it
 *   is (writable): a mount point cannot be renamed or removed from inside the namespace, so no
 *   code the run starts can move a mounted package aside and put another one at its path;
 * - after the mounts, the namespace lists the installation again through them with the very
 *   `find` commands of the scan, and the run starts only when that listing is byte for byte the
 *   one the scan hashed (every file's device, inode, size and modification time; the change time
 *   is the check after the run's): what the run sees is what was checked against the freeze.
 */
export interface NamespacePlan {
  /** fstab lines for one `mount -a -T`: the folders pinned (rbind, outermost first), then the read-only binds. */
  fstab: string;
  /** The folders bind-mounted onto themselves, outermost first (what the fstab's rbind lines name). */
  pins: string[];
  /** The paths bind-mounted read-only (each must refuse writes once mounted). */
  readOnly: string[];
  /** A shell script that prints the installation's listing through the mounts (NUL-separated records). */
  listScript: string;
  /** sha256 of the records the scan saw, each followed by NUL, in byte order: what listScript must print, sorted. */
  listSha256: string;
}

/** A path as an fstab field: space, tab, newline and backslash in octal. */
function fstabField(p: string): string {
  return p.replace(/[\\ \t\n]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/** The mounts and the listing check for a run of the oracle in its namespace; a string says why it cannot be made. */
export function namespacePlan(scan: Pick<InstallationScan, 'groups' | 'covers' | 'record'>): NamespacePlan | string {
  const dirs = new Set<string>();
  const files = new Set<string>();
  const addDir = (p: string) => {
    const st = lstatOrNull(p);
    if (st?.isDirectory()) dirs.add(real(p));
  };
  const binDir = (p: string) => {
    const up = path.dirname(p);
    if (path.basename(up) === '.bin') addDir(up);
  };
  for (const g of scan.groups) {
    if (!g.singles) {
      for (const r of g.roots) addDir(r);
      continue;
    }
    for (const r of g.roots) {
      const st = lstatOrNull(r);
      if (st === null) continue;
      // A link is held by its folder: a runner program in `.bin`; elsewhere it is stat'ed after the run.
      if (st.isSymbolicLink()) binDir(r);
      else if (st.isDirectory()) addDir(r);
      else {
        files.add(real(r));
        binDir(r);
      }
    }
  }
  for (const a of scan.record.absent) binDir(a);
  for (const c of scan.covers) addDir(c);
  const under = (p: string, set: ReadonlySet<string>) => {
    for (let at = p.lastIndexOf('/'); at > 0; at = p.lastIndexOf('/', at - 1)) if (set.has(p.slice(0, at))) return true;
    return false;
  };
  const keptDirs = new Set([...dirs].filter((d) => !under(d, dirs)));
  const keptFiles = [...files].filter((f) => !under(f, keptDirs) && !keptDirs.has(f));
  const readOnly = [...keptDirs, ...keptFiles].sort();
  const pins = new Set<string>();
  for (const t of readOnly) {
    for (let up = path.dirname(t); up !== '/' && up !== '.' && up !== ''; up = path.dirname(up)) {
      if (keptDirs.has(up) || pins.has(up)) break;
      pins.add(up);
    }
  }
  const depth = (p: string) => p.split('/').length;
  const pinned = [...pins].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
  const listed = scan.groups.filter((g) => [...g.entries.values()].some((e) => e.raw !== undefined));
  const every = [...readOnly, ...pinned, ...listed.flatMap((g) => g.roots)];
  if (every.some((p) => p.includes('\n'))) return 'a path of the runner\'s installation contains a line break';
  const fstab = [...pinned.map((p) => `${fstabField(p)} ${fstabField(p)} none rbind 0 0`), ...readOnly.map((p) => `${fstabField(p)} ${fstabField(p)} none bind,ro 0 0`)].join('\n');
  const listScript = listed.map((g) => ['find', ...g.roots.map(shellQuote), ...findExpression(g.prune, LIST_FORMAT).map(shellQuote), '2>/dev/null'].join(' ')).join('\n');
  const records = listed
    .flatMap((g) => [...g.entries.values()].map((e) => e.raw).filter((r): r is string => r !== undefined))
    .map((r) => Buffer.from(`${listRecord(r)}\0`))
    .sort((x, y) => Buffer.compare(x, y));
  const h = createHash('sha256');
  for (const r of records) h.update(r);
  return { fstab: fstab === '' ? '' : `${fstab}\n`, pins: pinned, readOnly, listScript: listScript === '' ? '' : `${listScript}\n`, listSha256: h.digest('hex') };
}

export { manifestText, exists as pathExists };
