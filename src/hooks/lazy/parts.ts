import { readFileSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- the code cache itself: compiling the entry afresh cost ≈ 3 M instructions a call, reading its cache ≈ 0.5 M (docs/performance.md)
import { Script } from 'node:vm';
import { writeAtomic } from '../../state/atomicWrite.js';
import { childPath, isNormalizedAbsolute } from '../../state/childPath.js';

/**
 * Loads one of the hook's parts (dist/hook/<part>-<hash>.cjs, each a self-contained CommonJS
 * bundle written by scripts/build.mjs) the way node's require() would, but keeps V8's bytecode
 * for it between calls (ADR 007). The build bundles this module into the entry, initialised only
 * past the quick check, so the quick check never loads node:vm.
 *
 * Why not node's own compile cache: it stores a file's bytecode right after compiling it, before
 * any function has run, and V8 compiles functions on their first call; so every call paid again
 * for compiling the functions the gate runs (most of the hook's work on Node 22). Here the cache
 * is written after the call, when it holds every function the call needed, and it works on every
 * supported node (module.enableCompileCache() needs 22.1).
 *
 * Where: ${CLAUDE_PLUGIN_DATA}/code-cache, which Claude Code creates under its plugin folder,
 * outside every project, a control location the gate guards while a cycle is active like the
 * plugin's own code. Without CLAUDE_PLUGIN_DATA nothing is cached (never a shared temp dir
 * another account could seed). An entry is trusted as much as the code next to it, not more.
 *
 * Stale entries: the part files are named by a hash of their content (the build sees to it), the
 * cache directory by node version and architecture, and V8 refuses bytecode made by another
 * version, other flags or for a source of another length, and an empty, cut or zeroed file; a
 * refused entry is compiled afresh and rewritten. Entries are written whole (temp file, fsync,
 * rename). V8 does not checksum the bytecode itself (that flag costs 15 M instructions at every
 * start): flipped bits crash node, and a crash blocks the call; deleting the directory heals it.
 * A cache that cannot be read or written only means compiling as without one.
 */

type Require = (id: string) => unknown;
type Wrapper = (exports: unknown, require: Require, module: { exports: unknown }, filename: string, dirname: string) => void;

const loaded = new Map<string, unknown>(); // part file → its exports
const unsaved: { script: Script; file: string }[] = [];
let cacheDir: string | null | undefined;

function codeCacheDir(env: NodeJS.ProcessEnv): string | null {
  const data = env.CLAUDE_PLUGIN_DATA;
  if (data === undefined || !isAbsolute(data)) return null;
  const name = `${process.version}-${process.arch}`;
  if (isNormalizedAbsolute(data)) return childPath(data, 'code-cache', name);
  // eslint-disable-next-line no-restricted-syntax -- CLAUDE_PLUGIN_DATA as the environment wrote it (`..`, a trailing `/`): normalized
  return join(data, 'code-cache', name);
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * `require()` of the part `name` in `dir`. A part is one bundle with everything it needs but node's
 * builtins, which go to `nodeRequire`: one file to read and one script to compile per call.
 */
export function loadPart(dir: string, name: string, nodeRequire: Require, env: NodeJS.ProcessEnv = process.env): unknown {
  if (loaded.has(name)) return loaded.get(name);
  if (cacheDir === undefined) {
    cacheDir = codeCacheDir(env);
    if (cacheDir !== null) process.once('exit', saveCodeCache);
  }
  const file = dir + sep + name; // dir is absolute and normalized: join() would only cost
  const cacheFile = cacheDir === null ? null : childPath(cacheDir, `${name}.cache`);
  const cachedData = cacheFile === null ? undefined : readCache(cacheFile);
  const source = readFileSync(file, 'utf8');
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData });
  if (cacheFile !== null && (cachedData === undefined || script.cachedDataRejected === true)) unsaved.push({ script, file: cacheFile });
  const module = { exports: {} as unknown };
  (script.runInThisContext() as Wrapper)(module.exports, nodeRequire, module, file, dir);
  loaded.set(name, module.exports);
  return module.exports;
}

/** At exit, after the call's work: the bytecode then includes every function the call ran. */
function saveCodeCache(): void {
  if (cacheDir === null || cacheDir === undefined || unsaved.length === 0) return;
  try {
    // atomic: a parallel call reads the old entry or the new one, never half
    for (const { script, file } of unsaved) writeAtomic(file, script.createCachedData(), { mode: 0o600, dirMode: 0o700, fsync: true });
  } catch {
    // Only an optimization: the next call compiles again.
  }
}
