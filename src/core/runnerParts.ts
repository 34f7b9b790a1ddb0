/**
 * The runner's settings inside files that otherwise stay editable in GREEN (DESIGN §5, wall 1 and
 * wall 3): the package.json scripts the test command runs (with their pre/post scripts and the
 * scripts they call), the module type and the runners' own keys; pyproject.toml's and setup.cfg's
 * pytest sections; the stack's oracle keys. One extraction, pure: the freeze digests what it
 * returns, the hook compares a write's result with it.
 */

/** The project-root files that hold frozen parts the hook can judge, and the part each holds. */
export const PART_FILES: Readonly<Record<string, string>> = {
  'package.json': 'package.json#runner',
  'pyproject.toml': 'pyproject.toml#pytest',
  'setup.cfg': 'setup.cfg#pytest',
};

/** What a part that does not exist (its file absent) is frozen as. */
export const ABSENT_PART = '\0absent';

const STACK_KEYS = ['test_command', 'test_file_glob', 'test_config_glob', 'test_env_allow', 'oracle_isolation', 'oracle_ignore_processes', 'runner_reach_allow', 'unparsable'];
/** package.json keys that change what a runner collects or how it loads: frozen whole. */
export const PKG_KEYS = ['type', 'jest', 'vitest', 'mocha', 'ava', 'c8', 'nyc', 'tap', 'babel', 'imports', 'workspaces', 'packageManager'];

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

/** The scripts `command` reaches, transitively, with their lifecycle scripts (null: not defined). */
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

/** The frozen keys of a package.json and their values: `scripts.<name>` for each reached script, then PKG_KEYS. */
function packageRunner(text: string, testCommand: string): Record<string, unknown> {
  let pkg: Pkg;
  try {
    const parsed = JSON.parse(text) as unknown;
    pkg = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Pkg) : { unparsable: text };
  } catch {
    pkg = { unparsable: text };
  }
  const kept: Record<string, unknown> = { scripts: reachedScripts(pkg, testCommand) };
  for (const k of PKG_KEYS) if (k in pkg) kept[k] = pkg[k];
  if ('unparsable' in pkg) kept.unparsable = pkg.unparsable;
  return kept;
}

/** The frozen part a project-root file holds, as text (null: the file is absent); null for other files. */
export function partText(file: string, text: string | null, testCommand: string): string | null {
  if (text === null) return null;
  switch (file) {
    case 'package.json':
      return JSON.stringify(packageRunner(text, testCommand));
    case 'pyproject.toml':
      return sections(text, /^tool\.pytest/);
    case 'setup.cfg':
      return sections(text, /^(tool:pytest|pytest)$/);
    default:
      return null;
  }
}

/** Part name → the text that is frozen (null: the file is absent). */
export function runnerPartTexts(read: (rel: string) => string | null, testCommand: string): Record<string, string | null> {
  const parts: Record<string, string | null> = {};
  for (const [file, part] of Object.entries(PART_FILES)) parts[part] = partText(file, read(file), testCommand);
  // The stack's own runner keys: which command runs, what counts as a test, what the run may inherit.
  const stackText = read('.tdd/stack.json');
  let stack: Record<string, unknown> = {};
  try {
    stack = stackText === null ? {} : (JSON.parse(stackText) as Record<string, unknown>);
  } catch {
    stack = { unparsable: stackText };
  }
  parts['.tdd/stack.json#oracle'] = JSON.stringify(STACK_KEYS.map((k) => [k, stack[k] ?? null]));
  return parts;
}

/** The frozen keys of a package.json (`scripts.test`, `scripts.pretest`, `type`, …), whether set or not. */
export function frozenPackageKeys(text: string | null, testCommand: string): string[] {
  const kept = packageRunner(text ?? '{}', testCommand);
  return [...Object.keys(kept.scripts as Record<string, unknown>).map((n) => `scripts.${n}`), ...PKG_KEYS];
}

/**
 * Which frozen settings a change of `file` from `before` to `after` touches, in words a reader
 * knows (`scripts.test`, `type`, `[tool.pytest.ini_options]`); empty when the part is unchanged.
 */
export function partChanges(file: string, before: string | null, after: string | null, testCommand: string): string[] {
  if (partText(file, before, testCommand) === partText(file, after, testCommand)) return [];
  if (file !== 'package.json' || before === null || after === null) return [file === 'package.json' ? 'the runner settings' : file === 'pyproject.toml' ? '[tool.pytest…]' : '[tool:pytest]'];
  const a = packageRunner(before, testCommand);
  const b = packageRunner(after, testCommand);
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  const out: string[] = [];
  // A script counts when its own text changed (not when it merely stopped being reached).
  const script = (text: string, n: string): unknown => {
    try {
      return ((JSON.parse(text) as Pkg).scripts ?? {})[n] ?? null;
    } catch {
      return null;
    }
  };
  const reached = new Set([...Object.keys(a.scripts as object), ...Object.keys(b.scripts as object)]);
  for (const n of reached) if (!same(script(before, n), script(after, n))) out.push(`scripts.${n}`);
  for (const k of [...PKG_KEYS, 'unparsable']) if (!same(a[k], b[k])) out.push(k);
  return out.length > 0 ? out : ['the runner settings'];
}

/** Do any of these package.json keys (`npm pkg set scripts.test=…`) fall on a frozen one? */
export function frozenKeysHit(keys: readonly string[], frozen: readonly string[]): string[] {
  const norm = (k: string) => k.replace(/\[(\w+)\]/g, '.$1').replace(/^\./, '');
  return frozen.filter((f) => keys.some((raw) => {
    const k = norm(raw);
    return k === f || k.startsWith(f + '.') || f.startsWith(k + '.');
  }));
}
