import { statSync } from 'node:fs';
import { CACHE_TAG, ENV_MARKERS, type EnvProbe } from './rules/envDirs.js';

function exists(p: string): boolean {
  try {
    return statSync(p, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/**
 * The project's environment folders as the disk shows them (src/state/rules/envDirs.ts says what they
 * are): a folder holding `pyvenv.cfg` or `conda-meta/`, or cargo's `target/` with its
 * `CACHEDIR.TAG`. One answer per folder for the life of the probe.
 */
export function envProbe(root: string): EnvProbe {
  const known = new Map<string, boolean>();
  const base = root.endsWith('/') || root.endsWith('\\') ? root : `${root}/`;
  return (dirRel) => {
    const hit = known.get(dirRel);
    if (hit !== undefined) return hit;
    const dir = `${base}${dirRel}/`;
    const name = dirRel.slice(dirRel.lastIndexOf('/') + 1);
    const is = ENV_MARKERS.some((m) => exists(dir + m)) || (name === 'target' && exists(dir + CACHE_TAG));
    known.set(dirRel, is);
    return is;
  };
}
