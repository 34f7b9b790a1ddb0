/**
 * The test runner's installation, frozen with the tests (docs/evidence.md, "The runner's
 * installation"): what the test command loads to run and judge the tests — the runner and
 * assertion packages with their resolved dependencies in node_modules, the interpreter's pytest,
 * pluggy and every plugin its site-packages register, Go's `testing` package and toolchain, the
 * Rust toolchain with its test harness — each as a package: where it is, and a digest of its files.
 * Pure: the I/O that finds and hashes them is src/verify/installation.ts.
 */
import { sha256Hex } from '../../state/sha256.js';

/** One package of the runner's installation as recorded: its name and the digest of its files. */
interface PackageRecord {
  /** What the person knows it by: `vitest`, `expect`, `pytest`, `go testing`, `rust sysroot lib`. */
  name: string;
  /** sha256 over its files (packageDigest). */
  digest: string;
  /** How many files it holds. */
  files: number;
}

/** The state's `runner_installation`: package root (absolute path) → its record. */
export interface RunnerInstallation {
  packages: Record<string, PackageRecord>;
  /** Paths that were not there at the freeze and must not appear (a runner put into `.bin`, a module that would shadow pytest, a conftest.py above the project). */
  absent: string[];
  /** sha256 of the per-file manifest kept with the frozen snapshot copies (FileManifest). */
  manifest_sha256: string;
  /** The folders and files it covers (a Python distribution's packages as well as its metadata), for the OS wall. */
  covers?: string[];
}

/** Per package root: each file (relative to the root, or absolute when outside it) → its digest, or `link:<target>`. */
export type FileManifest = Record<string, Record<string, string>>;

/** The digest of one package: its files' names and digests, in order. */
function packageDigest(files: Record<string, string>): string {
  return sha256Hex(
    Object.keys(files)
      .sort()
      .map((rel) => `${rel}\0${files[rel] ?? ''}`)
      .join('\n'),
  );
}

/** The canonical text of a manifest: what manifest_sha256 is taken of. */
export function manifestText(m: FileManifest): string {
  const sorted: FileManifest = {};
  for (const root of Object.keys(m).sort()) {
    const files = m[root] ?? {};
    sorted[root] = Object.fromEntries(Object.keys(files).sort().map((k) => [k, files[k] ?? '']));
  }
  return JSON.stringify(sorted);
}

/** A record from a manifest and the names of its packages. */
export function installationRecord(manifest: FileManifest, names: Record<string, string>, absent: readonly string[], covers: readonly string[] = [], withManifestDigest = true): RunnerInstallation {
  const packages: Record<string, PackageRecord> = {};
  for (const root of Object.keys(manifest).sort()) {
    const files = manifest[root] ?? {};
    packages[root] = { name: names[root] ?? root, digest: packageDigest(files), files: Object.keys(files).length };
  }
  return { packages, absent: [...new Set(absent)].sort(), manifest_sha256: withManifestDigest ? sha256Hex(manifestText(manifest)) : '', covers: [...new Set(covers)].sort() };
}

const list = (xs: readonly string[], n = 3) => `${xs.slice(0, n).join(', ')}${xs.length > n ? ` and ${xs.length - n} more` : ''}`;

/** `expect (node_modules/expect)`: a package as a refusal names it, its root shown by `show`. */
function named(p: PackageRecord, root: string, show: (abs: string) => string): string {
  return `${p.name} (${show(root)})`;
}

/**
 * What changed in the runner's installation since the freeze, one sentence per package: the
 * files changed, added or removed (named when the frozen manifest is at hand), a package that
 * now resolves elsewhere, one that joined or left, a path that appeared. Empty when nothing moved.
 */
export function installationMoves(
  frozen: RunnerInstallation,
  now: RunnerInstallation,
  frozenFiles: FileManifest | null,
  nowFiles: FileManifest,
  show: (abs: string) => string = (a) => a,
  present: (abs: string) => boolean = () => false,
): string[] {
  const out: string[] = [];
  const byName = (r: RunnerInstallation) => {
    const m = new Map<string, string[]>();
    for (const [root, p] of Object.entries(r.packages)) m.set(p.name, [...(m.get(p.name) ?? []), root]);
    return m;
  };
  const frozenNames = byName(frozen);
  const nowNames = byName(now);
  const told = new Set<string>();
  for (const [root, p] of Object.entries(frozen.packages)) {
    const q = now.packages[root];
    if (q !== undefined) {
      if (q.digest === p.digest) continue;
      const before = frozenFiles?.[root];
      const after = nowFiles[root] ?? {};
      if (before === undefined) {
        out.push(`${named(p, root, show)}: its files changed`);
        continue;
      }
      if ('' in before && '' in after) {
        out.push(`${named(p, root, show)}: changed`);
        continue;
      }
      const changed = Object.keys(after).filter((f) => f in before && before[f] !== after[f]).sort();
      const added = Object.keys(after).filter((f) => !(f in before)).sort();
      const removed = Object.keys(before).filter((f) => !(f in after)).sort();
      const what = [
        changed.length > 0 ? `${list(changed)} changed` : '',
        added.length > 0 ? `${list(added)} added` : '',
        removed.length > 0 ? `${list(removed)} removed` : '',
      ].filter(Boolean);
      out.push(`${named(p, root, show)}: ${what.join('; ') || 'its files changed'}`);
      continue;
    }
    // Gone from here: resolved elsewhere now, or no longer there at all.
    const elsewhere = (nowNames.get(p.name) ?? []).filter((r) => !(r in frozen.packages));
    if (elsewhere.length > 0) {
      for (const r of elsewhere) told.add(r);
      out.push(`${p.name} now resolves to ${list(elsewhere.map(show))}, was ${show(root)}`);
    } else {
      out.push(`${named(p, root, show)} is gone or no longer reached`);
    }
  }
  for (const [root, p] of Object.entries(now.packages)) {
    if (root in frozen.packages || told.has(root)) continue;
    const was = frozenNames.get(p.name);
    out.push(was ? `${p.name} now also resolves to ${show(root)}` : `${named(p, root, show)} joined it (not there at the freeze)`);
  }
  for (const a of frozen.absent) if (present(a)) out.push(`${show(a)} appeared (it was not there at the freeze)`);
  return out;
}

/** The refusal for a moved installation (docs/evidence.md). */
export function installationRefusal(moves: readonly string[]): string {
  return `the test runner's installation changed since the freeze: ${list(moves, 4)}. The runner and the packages it judges with stay as they were at the freeze while the tests are frozen: put them back (reinstall the frozen versions with the package manager's lockfile install, e.g. \`npm ci\` or \`pip install -r …\`, and remove what was added), or re-certify in a new cycle`;
}

export { runnerInstallationRoots } from './installationRoots.js';

/** A record read back from the state, or null when absent or not one. */
export function installationFrom(value: unknown): RunnerInstallation | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as { packages?: unknown; absent?: unknown; manifest_sha256?: unknown; covers?: unknown };
  if (typeof v.packages !== 'object' || v.packages === null || typeof v.manifest_sha256 !== 'string') return null;
  const packages: Record<string, PackageRecord> = {};
  for (const [root, p] of Object.entries(v.packages as Record<string, unknown>)) {
    const q = p as Partial<PackageRecord> | null;
    if (q && typeof q.name === 'string' && typeof q.digest === 'string') packages[root] = { name: q.name, digest: q.digest, files: typeof q.files === 'number' ? q.files : 0 };
  }
  const absent = Array.isArray(v.absent) ? v.absent.filter((a): a is string => typeof a === 'string') : [];
  const covers = Array.isArray(v.covers) ? v.covers.filter((a): a is string => typeof a === 'string') : [];
  return { packages, absent, manifest_sha256: v.manifest_sha256, covers };
}

// ---- node: what the runner is, and how node resolves a package ----

/** Packages that run or judge JavaScript tests: the runners, their assertion libraries, and the transformers that load test files. */
const NODE_RUNNER_PACKAGES = [
  'vitest',
  'jest',
  'mocha',
  'chai',
  'expect',
  '@jest/globals',
  '@jest/expect',
  'should',
  'power-assert',
  'jest-extended',
  'ts-jest',
  'babel-jest',
  '@swc/jest',
  'ts-node',
  'tsx',
  '@babel/register',
  '@swc/register',
  'esbuild-register',
  'c8',
  'nyc',
  'uvu',
  'ava',
  'tap',
];

const NODE_RUNNERS: Record<string, string[]> = { vitest: ['vitest', 'vitest.mjs'], jest: ['jest', 'jest.js'], mocha: ['mocha', '_mocha', 'mocha.js'], ava: ['ava'], tap: ['tap'], uvu: ['uvu'] };

/**
 * The packages the closure starts from: the runners the command (and the scripts it runs) calls
 * by name — every runner found when it names none (a script this cannot read) — and the
 * assertion libraries and test-file loaders the project depends on or the command names.
 */
export function nodeStarts(text: string, projectDeps: readonly string[]): string[] {
  const words = new Set(text.split(/[\s;&|()"'`=]+/).flatMap((w) => [w, w.slice(w.lastIndexOf('/') + 1)]));
  const runners = Object.entries(NODE_RUNNERS)
    .filter(([, bins]) => bins.some((b) => words.has(b)))
    .map(([name]) => name);
  const others = NODE_RUNNER_PACKAGES.filter((n) => !(n in NODE_RUNNERS) && (projectDeps.includes(n) || words.has(n) || [...words].some((w) => w.startsWith(`${n}/`))));
  // node --test is a runner of node's own; a command naming no runner runs one a script hides.
  const all = runners.length > 0 || /\s--test\b/.test(text) ? runners : Object.keys(NODE_RUNNERS);
  return [...new Set([...all, ...others])];
}

/** Program names of runners a test command may call through `node_modules/.bin`. */
export const NODE_RUNNER_BINS = ['vitest', 'jest', 'mocha', '_mocha', 'ts-node', 'tsx', 'c8', 'nyc', 'ava', 'tap', 'uvu'];

/** The folders node looks in for `name` from a module in `dir` (absolute, posix), nearest first. */
export function nodeCandidates(dir: string, name: string): string[] {
  const out: string[] = [];
  let d = dir;
  for (;;) {
    const base = d.slice(d.lastIndexOf('/') + 1);
    if (base !== 'node_modules') out.push(`${d === '/' ? '' : d}/node_modules/${name}`);
    if (d === '/' || d === '') break;
    d = d.slice(0, d.lastIndexOf('/')) || '/';
  }
  return out;
}

/** The package root a path inside node_modules belongs to (`…/node_modules/@scope/name`), or null. */
export function nodePackageRoot(p: string): string | null {
  const at = p.lastIndexOf('/node_modules/');
  if (at < 0) return null;
  const rest = p.slice(at + '/node_modules/'.length).split('/');
  const first = rest[0] ?? '';
  if (first === '' || first === '.bin') return null;
  const n = first.startsWith('@') ? 2 : 1;
  if (rest.length < n) return null;
  return `${p.slice(0, at)}/node_modules/${rest.slice(0, n).join('/')}`;
}

/** The names a package.json says the package needs: dependencies, optional and peer ones. */
export function nodeDependencies(pkgJson: string): string[] {
  try {
    const j = JSON.parse(pkgJson) as Record<string, unknown>;
    const names = new Set<string>();
    for (const k of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
      const deps = j[k];
      if (typeof deps === 'object' && deps !== null) for (const n of Object.keys(deps)) names.add(n);
    }
    return [...names].sort();
  } catch {
    return [];
  }
}

/** The runners a test command (with the package scripts it reaches) runs, by ecosystem. */
export function runnerKinds(text: string): { node: boolean; nodeTest: boolean; python: boolean; go: boolean; cargo: boolean } {
  const words = text.split(/[\s;&|()"'`=]+/).map((w) => w.slice(w.lastIndexOf('/') + 1));
  const has = (...names: string[]) => words.some((w) => names.includes(w));
  const python = has('pytest', 'py.test') || /\bpython[0-9.]*\s.*-m\s+pytest\b/.test(text);
  const go = has('go') && /\bgo\s+test\b/.test(text);
  const cargo = has('cargo', 'cargo-nextest') && /\b(test|nextest)\b/.test(text);
  const nodeTest = /\bnode\b[^;&|]*\s--test\b/.test(text);
  const node = nodeTest || words.some((w) => NODE_RUNNER_BINS.includes(w) || w === 'vitest.mjs' || w === 'jest.js' || w === 'npm' || w === 'npx' || w === 'yarn' || w === 'pnpm');
  return { node, nodeTest, python, go, cargo };
}

// ---- python: plugins and distributions ----

/** The modules a distribution's entry_points.txt registers as pytest plugins (`[pytest11]`). */
export function pytestPlugins(entryPoints: string): string[] {
  const out: string[] = [];
  let inSection = false;
  for (const raw of entryPoints.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('[')) {
      inSection = line === '[pytest11]';
      continue;
    }
    if (!inSection || line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const mod = line.slice(eq + 1).trim().split(':')[0]?.trim() ?? '';
    if (mod !== '') out.push(mod);
  }
  return out;
}

/** Distribution names a METADATA file requires unconditionally or for this interpreter (extras left out), normalized. */
export function requiresDist(metadata: string): string[] {
  const out = new Set<string>();
  for (const line of metadata.split(/\r?\n/)) {
    if (line === '') break; // headers end at the first blank line
    if (!line.startsWith('Requires-Dist:')) continue;
    const spec = line.slice('Requires-Dist:'.length).trim();
    if (/\bextra\s*==/.test(spec)) continue;
    const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(spec);
    if (m?.[1]) out.add(normalizeDist(m[1]));
  }
  return [...out].sort();
}

/** PEP 503 name normalization. */
export function normalizeDist(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/** The distribution name of a `*.dist-info` folder (`pytest_asyncio-0.23.1.dist-info` → `pytest-asyncio`). */
export function distOfInfoDir(dirName: string): string {
  const base = dirName.replace(/\.(dist|egg)-info$/, '');
  const dash = base.indexOf('-');
  return normalizeDist(dash < 0 ? base : base.slice(0, dash));
}

/** The files a RECORD lists (first field of each line), without bytecode. */
export function recordFiles(record: string): string[] {
  const out: string[] = [];
  for (const line of record.split(/\r?\n/)) {
    let file = line;
    if (file.startsWith('"')) {
      const end = file.indexOf('"', 1);
      file = end > 0 ? file.slice(1, end) : file;
    } else file = file.split(',')[0] ?? '';
    if (file === '' || file.endsWith('.pyc') || file.includes('__pycache__/')) continue;
    out.push(file);
  }
  return out;
}

/** Top-level import names a RECORD's files provide (`_pytest/x.py` → `_pytest`, `py.py` → `py`). */
export function topLevelNames(files: readonly string[]): string[] {
  const out = new Set<string>();
  for (const f of files) {
    if (f.startsWith('../') || f.startsWith('/')) continue;
    const first = f.split('/')[0] ?? '';
    if (first.endsWith('.dist-info') || first.endsWith('.egg-info') || first.endsWith('.data')) continue;
    if (f.includes('/')) out.add(first);
    else if (f.endsWith('.py')) out.add(f.slice(0, -3));
    else if (f.endsWith('.so') || f.endsWith('.pyd')) out.add(f.split('.')[0] ?? f);
  }
  return [...out].sort();
}
