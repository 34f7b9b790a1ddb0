import path from 'node:path';

type Enable = (dir: string) => unknown;
type GetBuiltin = (id: string) => { enableCompileCache?: Enable } | undefined;

/**
 * Lets node keep the compiled bytecode of the hook's parts between calls (Node >= 22.1; older
 * versions compile every time). The cache lives in the plugin's data directory, which Claude Code
 * creates under its plugin folder: outside every project, and a control location the gate already
 * guards while a cycle is active, like the plugin's own code. Without CLAUDE_PLUGIN_DATA (the hook
 * run by hand, an old client) nothing is cached: never a shared temp dir another user could seed.
 * A stale entry is harmless: node checks each entry against the source's size and CRC-32 and V8
 * checks its version and flags, and recompiles on any mismatch (ADR 005). node:module is fetched
 * only here, through process.getBuiltinModule (Node >= 22.3): a static import would load node's
 * ES module loader on every call, quick check included.
 */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  const data = env.CLAUDE_PLUGIN_DATA;
  const getBuiltin = (process as { getBuiltinModule?: GetBuiltin }).getBuiltinModule;
  if (data === undefined || !path.isAbsolute(data) || typeof getBuiltin !== 'function') return;
  const enable = getBuiltin('node:module')?.enableCompileCache;
  if (typeof enable !== 'function') return;
  try {
    enable(path.join(data, 'compile-cache'));
  } catch {
    // Only an optimization: an unwritable directory means compiling as if there were no cache.
  }
}
