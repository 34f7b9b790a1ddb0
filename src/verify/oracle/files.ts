import { readdirSync } from 'node:fs';
import path from 'node:path';
import { isEnvironmentPath, type EnvProbe } from '../../state/rules/envDirs.js';
import { compileGlobs } from '../../state/rules/globs.js';
import { envProbe } from '../../state/envProbe.js';
import { TDD_DIR } from '../../state/rules/tddDir.js';
import { gitExec } from '../../state/git.js';

/**
 * Runner configuration frozen with the tests whatever `test_config_glob` says: files that change
 * what a runner collects or how it reports, from outside the test globs. Babel's configs are among
 * them: jest transforms every test through babel unless told otherwise, and a plugin can drop
 * the assertions from the test code it is handed. Go's go.mod (a `replace` swaps the code a test
 * compares through: the root one's runner part is frozen; a nested one hides a package from
 * `./...`: frozen whole where its folder holds tests) and vendor/modules.txt (a vendor
 * tree added after the freeze replaces every dependency) are the same for go test, and a
 * rust-toolchain file can name any directory as the toolchain.
 */
const ALWAYS_FROZEN = ['.npmrc', '.yarnrc', '.yarnrc.yml', 'bunfig.toml', '*/**/Cargo.toml', '.cargo/config.toml', '.cargo/config', 'sitecustomize.py', 'usercustomize.py', '*.pth', 'go.work', '*/**/go.mod', 'vendor/modules.txt', 'rust-toolchain', 'rust-toolchain.toml', 'pytest.ini', '.pytest.ini', 'pytest.toml', '.pytest.toml', 'conftest.py', 'tox.ini', 'build.rs', 'node.config.json', '.babelrc', '.babelrc.*', 'babel.config.*'];

export const isAlwaysFrozen = compileGlobs(ALWAYS_FROZEN, false);

/** Ignored directories never searched for tests: build output and caches, rebuilt by every run. */
const HEAVY = new Set(['node_modules', '.git', TDD_DIR, 'target', '__pycache__', '.pytest_cache', '.mypy_cache', '.ruff_cache', '.tox', '.nox', 'dist', 'build', 'coverage', '.next', '.nuxt', '.cache', '.gradle', '.turbo', '.parcel-cache', '.vite', 'out', '.output', 'tmp', '.svelte-kit', '.angular', 'storybook-static', '.terraform', '.idea', '.vscode']);
const MAX_WALK = 50_000;

/**
 * Git-ignored files that could be tests or runner configuration: a config written by a script
 * and ignored is still read by the runner. Build output, dependency trees and environment
 * folders (a virtualenv: src/state/rules/envDirs.ts) are left out; what a virtualenv runs at start-up is
 * in the toolchain record (src/verify/oracle/toolchain.ts).
 */
export function ignoredCandidates(root: string, probe: EnvProbe = envProbe(root)): string[] {
  let entries: string[];
  try {
    entries = gitExec(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 256 * 1024 * 1024,
    })
      .split('\0')
      .filter((e) => e.length > 0);
  } catch {
    return [];
  }
  const out: string[] = [];
  let budget = MAX_WALK;
  const walk = (rel: string) => {
    let list;
    try {
      list = readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of list) {
      if (--budget < 0) return;
      const child = `${rel}/${d.name}`;
      if (d.isDirectory()) {
        if (HEAVY.has(d.name) || probe(child)) continue;
        walk(child);
      } else if (d.isFile() || d.isSymbolicLink()) {
        if (!isEnvironmentPath(child, probe)) out.push(child);
      }
    }
  };
  for (const e of entries) {
    if (e.endsWith('/')) {
      const rel = e.slice(0, -1);
      if (rel.split('/').some((p) => HEAVY.has(p)) || isEnvironmentPath(`${rel}/x`, probe)) continue;
      walk(rel);
    } else if (!e.split('/').some((p) => HEAVY.has(p)) && !isEnvironmentPath(e, probe)) out.push(e);
  }
  return out;
}
