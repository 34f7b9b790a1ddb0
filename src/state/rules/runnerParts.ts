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
  'Cargo.toml': 'Cargo.toml#runner',
  'go.mod': 'go.mod#runner',
};

/**
 * Module manifests. At the root, only their runner part is frozen (PART_FILES): a dependency
 * added by `cargo add` or `go get` is the project's business, a `replace`, a dev-dependency or a
 * test target is the oracle's. Below the root a manifest heads a module or crate of its own: it
 * is runner configuration, frozen whole, where its folder holds tests (a nested go.mod hides its
 * packages from `./...`); a new module in a folder of sources is neither a test nor a config.
 */
const MODULE_MANIFESTS: ReadonlySet<string> = new Set(['go.mod', 'Cargo.toml']);

/**
 * For a module manifest (root-relative, `/`-separated): whether it is runner configuration frozen
 * whole, given whether its folder holds tests; null for any other file.
 */
export function manifestIsConfig(rel: string, folderHoldsTests: (dir: string) => boolean): boolean | null {
  const slash = rel.lastIndexOf('/');
  if (!MODULE_MANIFESTS.has(rel.slice(slash + 1))) return null;
  return slash < 0 ? false : folderHoldsTests(rel.slice(0, slash));
}

/** go.mod directives that decide what a test compiles against and which packages `./...` holds. */
const GO_KEEP = new Set(['module', 'go', 'toolchain', 'godebug', 'replace', 'ignore']);

/** The kept directives of a go.mod, one `directive value` line each (blocks flattened). */
function goGroups(text: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  let block: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (line === '') continue;
    if (block !== null) {
      if (line === ')') block = null;
      else if (GO_KEEP.has(block)) (out[block] ??= []).push(line);
      continue;
    }
    const m = /^([a-z]+)\s*(\()?\s*(.*)$/.exec(line);
    if (m === null) continue;
    const [, dir = '', open, rest = ''] = m;
    if (open !== undefined) {
      block = dir;
      if (rest !== '' && rest !== ')' && GO_KEEP.has(dir)) (out[dir] ??= []).push(rest.replace(/\)$/, '').trim());
      if (rest.endsWith(')')) block = null;
    } else if (GO_KEEP.has(dir)) (out[dir] ??= []).push(rest);
  }
  return out;
}

/** Cargo.toml tables that decide how tests build and run; `[package]` keys likewise. */
const CARGO_TABLES = /^(?:dev-dependencies|dev_dependencies|target\..+\.(?:dev-dependencies|dev_dependencies)|test|lib|bin|bench|example|patch\..+|replace|profile\..+|workspace)$/;
const CARGO_PACKAGE_KEYS = /^(?:build|autotests|autobins|autoexamples|autobenches|autolib|links|edition|workspace)\s*=/;

/** The kept tables of a Cargo.toml (`[dev-dependencies]`, `[[test]]`, …) and `[package]` keys, by name. */
function cargoGroups(text: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  let table = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s+#.*$/, '').trimEnd();
    const h = /^\s*\[(\[?)\s*([^\]]+?)\s*\]\]?\s*$/.exec(line);
    if (h) {
      table = (h[2] ?? '').replace(/\s+/g, '');
      if (CARGO_TABLES.test(table)) (out[`[${table}]`] ??= []).push(h[1] === '[' ? '[[]]' : '[]');
      continue;
    }
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    if (CARGO_TABLES.test(table)) (out[`[${table}]`] ??= []).push(line.trim());
    else if (table === 'package' && CARGO_PACKAGE_KEYS.test(line.trim())) (out[`[package] ${line.trim().split(/\s*=/)[0] ?? ''}`] ??= []).push(line.trim());
  }
  return out;
}

function groupsText(groups: Record<string, string[]>): string {
  return Object.keys(groups)
    .sort()
    .map((k) => `${k}\n${(groups[k] ?? []).join('\n')}`)
    .join('\n');
}

/** What a part that does not exist (its file absent) is frozen as. */
export const ABSENT_PART = '\0absent';

const STACK_KEYS = ['test_command', 'test_file_glob', 'test_config_glob', 'test_env_allow', 'oracle_isolation', 'oracle_ignore_processes', 'runner_reach_allow', 'unparsable'];
/** package.json keys that change what a runner collects or how it loads: frozen whole. */
const PKG_KEYS = ['type', 'jest', 'vitest', 'mocha', 'ava', 'c8', 'nyc', 'tap', 'babel', 'imports', 'workspaces', 'packageManager'];

/** Script names a command line runs through a package manager (`npm test`, `npm run x`, `yarn x`, `pnpm x`, `bun run x`). */
function scriptsRun(command: string): string[] {
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
    case 'go.mod':
      return groupsText(goGroups(text));
    case 'Cargo.toml':
      return groupsText(cargoGroups(text));
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
  if ((file === 'go.mod' || file === 'Cargo.toml') && before !== null && after !== null) {
    // The directives or tables that changed: `replace`, `[dev-dependencies]`, `[package] autotests`.
    const groups = file === 'go.mod' ? goGroups : cargoGroups;
    const a = groups(before);
    const b = groups(after);
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => JSON.stringify(a[k] ?? null) !== JSON.stringify(b[k] ?? null)).sort();
  }
  if (file !== 'package.json' || before === null || after === null) {
    const whole: Record<string, string> = { 'package.json': 'the runner settings', 'pyproject.toml': '[tool.pytest…]', 'setup.cfg': '[tool:pytest]', 'go.mod': 'the module, go, toolchain, godebug, ignore and replace directives', 'Cargo.toml': 'the test targets, [dev-dependencies], [patch], [profile], [workspace] and the build settings' };
    return [whole[file] ?? 'the runner settings'];
  }
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
