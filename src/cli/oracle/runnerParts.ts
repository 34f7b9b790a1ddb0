import { docExamplePart, rustDocExamples, rustTestRegions, testRegionPart } from '../../core/testRegions.js';
import { sha256Hex } from '../../io/hash.js';

export { rustTestRegions };

/**
 * The runner's settings inside files that otherwise stay editable in GREEN: the package.json
 * scripts the test command runs (with their pre/post scripts and the scripts they call), the
 * module type and the runners' own keys; pyproject.toml's and setup.cfg's pytest sections.
 * Each part is frozen by digest; a part that is absent is frozen as absent.
 */
const STACK_KEYS = ['test_command', 'test_file_glob', 'test_config_glob', 'test_env_allow', 'oracle_isolation', 'oracle_ignore_processes', 'runner_reach_allow', 'unparsable'];
const PKG_KEYS = ['type', 'jest', 'vitest', 'mocha', 'ava', 'c8', 'nyc', 'tap', 'imports', 'workspaces', 'packageManager'];

/** Script names a command line runs through a package manager (`npm test`, `npm run x`, `yarn x`, `pnpm x`, `bun run x`). */
export function scriptsRun(command: string): string[] {
  const out: string[] = [];
  const re = /\b(npm|pnpm|yarn|bun)(?:\s+--?[\w-]+(?:=\S+)?)*\s+(?:(run|run-script|rum|urn)\s+)?([\w:.@/-]+)/g;
  for (const m of command.matchAll(re)) {
    const [, pm, run, name] = m;
    if (!name) continue;
    if (run) out.push(name);
    else if (name === 'test' || name === 't' || name === 'tst') out.push('test');
    else if ((pm === 'yarn' || pm === 'pnpm' || pm === 'bun') && !/^(add|install|i|remove|exec|dlx|x|why|list|ls|info|create|init|link|unlink|publish|pack|config|set|up|upgrade|outdated)$/.test(name)) out.push(name);
  }
  return out;
}

interface Pkg {
  scripts?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The scripts `command` reaches, transitively, with their lifecycle scripts. */
export function reachedScripts(pkg: Pkg, command: string): Record<string, unknown> {
  const scripts = pkg.scripts && typeof pkg.scripts === 'object' ? pkg.scripts : {};
  const reached: Record<string, unknown> = {};
  const queue = scriptsRun(command);
  while (queue.length > 0) {
    const name = queue.shift()!;
    for (const n of [`pre${name}`, name, `post${name}`]) {
      if (n in reached) continue;
      reached[n] = scripts[n] ?? null;
      if (typeof scripts[n] === 'string') queue.push(...scriptsRun(scripts[n]));
    }
  }
  return reached;
}

/** Lines of INI/TOML sections whose header matches, plus any other line naming pytest. */
function sections(text: string, header: RegExp): string {
  const out: string[] = [];
  let inside = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd();
    const h = /^\s*\[\[?([^\]]+)\]\]?\s*(#.*)?$/.exec(line);
    if (h) inside = header.test((h[1] ?? '').trim());
    if (inside || /pytest/i.test(line)) out.push(line);
  }
  return out.join('\n');
}

/** Part name → the text that is frozen (null: the file is absent). */
export function runnerPartTexts(read: (rel: string) => string | null, testCommand: string): Record<string, string | null> {
  const parts: Record<string, string | null> = {};
  const pkgText = read('package.json');
  if (pkgText === null) parts['package.json#runner'] = null;
  else {
    let pkg: Pkg;
    try {
      pkg = JSON.parse(pkgText) as Pkg;
    } catch {
      pkg = { unparsable: pkgText };
    }
    const kept: Record<string, unknown> = { scripts: reachedScripts(pkg, testCommand) };
    for (const k of PKG_KEYS) if (k in pkg) kept[k] = pkg[k];
    if ('unparsable' in pkg) kept.unparsable = pkg.unparsable;
    parts['package.json#runner'] = JSON.stringify(kept);
  }
  // The stack's own runner keys: which command runs, what counts as a test, what the run may inherit.
  const stackText = read('.tdd/stack.json');
  let stack: Record<string, unknown> = {};
  try {
    stack = stackText === null ? {} : (JSON.parse(stackText) as Record<string, unknown>);
  } catch {
    stack = { unparsable: stackText };
  }
  parts['.tdd/stack.json#oracle'] = JSON.stringify(STACK_KEYS.map((k) => [k, stack[k] ?? null]));
  const py = read('pyproject.toml');
  parts['pyproject.toml#pytest'] = py === null ? null : sections(py, /^tool\.pytest/);
  const cfg = read('setup.cfg');
  parts['setup.cfg#pytest'] = cfg === null ? null : sections(cfg, /^(tool:pytest|pytest)$/);
  return parts;
}

export function runnerParts(read: (rel: string) => string | null, testCommand: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(runnerPartTexts(read, testCommand))) out[k] = sha256Hex(v === null ? '\0absent' : v);
  return out;
}

/** Every frozen part of a project: the runner settings, and the test regions of its Rust sources. */
export function oracleParts(read: (rel: string) => string | null, testCommand: string, sources: readonly string[]): Record<string, string> {
  const out = runnerParts(read, testCommand);
  for (const rel of sources) {
    if (!rel.endsWith('.rs')) continue;
    const text = read(rel) ?? '';
    const regions = rustTestRegions(text);
    if (regions !== null) out[testRegionPart(rel)] = sha256Hex(regions);
    // doc examples are doc tests: the ones there at the freeze stay as they were
    for (const [item, code] of Object.entries(rustDocExamples(text))) out[docExamplePart(rel, item)] = sha256Hex(code);
  }
  return out;
}
