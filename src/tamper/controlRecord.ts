import { existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import type { Protected } from '../state/anchor.js';
import { gitCommonDir } from '../state/anchorPaths.js';
import { canonicalize } from '../state/canonicalPath.js';
import type { Repo } from '../state/repo.js';
import { controlSet, type ControlFacts } from './rules/controlSet.js';

/** The facts the control set is defined from (src/tamper/rules/controlSet.ts), canonical like every write target. */
export function controlFacts(repo: Repo, home: string, env: NodeJS.ProcessEnv): ControlFacts {
  const xdg = env.XDG_CONFIG_HOME;
  return {
    root: repo.root,
    gitDir: canonicalize(repo.gitDir),
    commonDir: canonicalize(gitCommonDir(repo.gitDir)),
    home: canonicalize(home),
    xdgConfigHome: typeof xdg === 'string' && xdg.startsWith('/') ? canonicalize(xdg) : null,
    userSites: userSites(canonicalize(home)),
  };
}

/** ~/.local/lib/python3.X/site-packages that exist. */
function userSites(home: string): string[] {
  try {
    return readdirSync(path.join(home, '.local', 'lib'))
      .filter((n) => n.startsWith('python'))
      .map((n) => path.join(home, '.local', 'lib', n, 'site-packages'))
      .filter((d) => existsSync(d));
  } catch {
    return [];
  }
}

/**
 * The control set as the anchor records it when the cycle begins (`init`): each file by its hash
 * (null: absent, so creating it is a change too), each tree file by file. Kept with the anchor
 * for the whole cycle (never re-taken at a later state change, so a change made mid-cycle is not
 * accepted by the next CLI verb), and checked at every gated call (src/io/integrity.ts).
 */
export function recordControlSet(repo: Repo, home: string, env: NodeJS.ProcessEnv, projectFiles: readonly string[], hashFile: (abs: string) => string | null, listTree: (dir: string) => Record<string, string>, store: (abs: string, sha: string) => void): Protected[] {
  const nested = projectFiles.filter((rel) => rel.includes('/') && isNestedControl(rel));
  const set = controlSet({ ...controlFacts(repo, home, env), nested });
  const out: Protected[] = [];
  for (const e of set.files) {
    const sha = hashFile(e.path);
    if (sha !== null) store(e.path, sha);
    // A control file that is a link (a shared .npmrc) is watched as the link it is, like a frozen one.
    const link = linkAt(e.path);
    out.push({ kind: 'file', path: e.path, sha256: sha, what: e.what, control: true, ...(link !== null && sha !== null ? { link } : {}), ...(e.gitConfig ? { gitConfig: true } : {}) });
  }
  for (const e of set.trees) {
    const files = listTree(e.path);
    for (const [rel, sha] of Object.entries(files)) store(path.join(e.path, rel), sha);
    out.push({ kind: 'tree', path: e.path, files, open: false, what: e.what, control: true });
  }
  return out;
}

function isNestedControl(rel: string): boolean {
  const name = rel.slice(rel.lastIndexOf('/') + 1);
  return (name.startsWith('CLAUDE') && name.endsWith('.md')) || name === '.gitattributes';
}

function linkAt(abs: string): string | null {
  try {
    return lstatSync(abs).isSymbolicLink() ? readlinkSync(abs) : null;
  } catch {
    return null;
  }
}
