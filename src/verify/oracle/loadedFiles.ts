import path from 'node:path';
import { reachedScripts } from './runnerParts.js';

/**
 * Project files the test run loads by name from outside the test globs, found in what is already
 * frozen: the test command and the package.json scripts it runs (`node scripts/test.js`,
 * `jest --config ci.jest.js`, the Makefile of `make test`), a preload in `.npmrc` `node-options` (`--require`, `--import`,
 * `--env-file`), and files the runner configuration names (jest `setupFiles`, `reporters`,
 * `globalSetup`, `transform`; vitest `setupFiles`; a mocha `require`; …). Each is frozen with the
 * tests: a preload or a setup file edited in GREEN changes what the runner reports as surely as an
 * edited test does. Pure: reads through `read`, asks `isFile` whether a path names a project file.
 */

/**
 * Configuration keys whose values name code the runner loads: setup and teardown files,
 * environments, reporters, result processors, runners, sequencers, resolvers, transforms, presets
 * and plugins, mocha's `require`/`file`, bun's `preload`. Other keys (coverage lists, ignore
 * patterns, aliases, a bundler's entry) name the sources under test or patterns, not loaders.
 */
const LOAD_KEY = /^(?:setupFiles|setupFilesAfterEnv|globalSetup|globalTeardown|testEnvironment|environment|reporters?|testResultsProcessor|testRunner|runner|testSequencer|sequencer|resolver|snapshotResolver|snapshotSerializers|dependencyExtractor|transform|preset|presets|plugins|require|file|preload|loader|import|setup)$/;
const LOAD_KEY_IN_TEXT = new RegExp(`(?:^|[\\s{,(])['"]?(${LOAD_KEY.source.slice(1, -1)})['"]?\\s*[:=]\\s*`, 'gm');
/** Directories whose files are never project code to freeze (dependencies, build output). */
const NOT_PROJECT = /^(?:node_modules|\.git|\.tdd|target|dist|build|coverage)\//;
const CONFIG_TEXT = /\.(?:[cm]?[jt]s|json5?|ya?ml|toml)$|^\.mocharc[^/]*$|(^|\/)\.(?:babelrc|mocharc)$/;

/** A project-relative file a configuration value names, or null. */
function fileNamed(value: string, isFile: (rel: string) => boolean): string | null {
  let v = value.trim().replace(/^['"`]|['"`]$/g, '');
  if (v === '' || v.length > 300 || v.startsWith('!') || /[*?{}$\s]/.test(v) || /^[a-z][\w+.-]*:/i.test(v)) return null;
  v = v.replace(/^<rootDir>\//, '').replace(/\\/g, '/');
  if (path.posix.isAbsolute(v)) return null;
  const rel = path.posix.normalize(v);
  if (rel.startsWith('..') || rel === '.' || NOT_PROJECT.test(rel)) return null;
  return isFile(rel) ? rel : null;
}

/** Every string of a JSON value. */
function allStrings(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) allStrings(v, out);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) allStrings(v, out);
}

/** The strings under the loading keys of a JSON value, at any depth. */
function jsonStrings(value: unknown, out: string[]): void {
  if (Array.isArray(value)) for (const v of value) jsonStrings(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (LOAD_KEY.test(k)) allStrings(v, out);
      else jsonStrings(v, out);
    }
  }
}

/** The text of a value in source text from `at`: a quoted string, or a bracketed list/object, or the rest of the line. */
function valueText(text: string, at: number): string {
  const open = text[at];
  if (open === '[' || open === '{' || open === '(') {
    let depth = 0;
    for (let k = at; k < text.length && k < at + 4000; k++) {
      const c = text[k];
      if (c === '[' || c === '{' || c === '(') depth++;
      else if (c === ']' || c === '}' || c === ')') depth--;
      if (depth === 0) return text.slice(at, k + 1);
    }
    return text.slice(at, at + 4000);
  }
  const end = text.indexOf('\n', at);
  return text.slice(at, end === -1 ? undefined : end);
}

/** The words of a command line, quotes removed, `--flag=value` split. */
function commandWords(command: string): string[] {
  return command
    .split(/[\s;&|()<>]+/)
    .flatMap((w) => w.replace(/^['"]|['"]$/g, '').split('='))
    .filter(Boolean);
}

/** Strings a configuration names under its loading keys: JSON walked by key, other formats read as text. */
function configStrings(rel: string, text: string): string[] {
  const out: string[] = [];
  if (/\.json5?$/.test(rel) || /^\s*[[{]/.test(text)) {
    try {
      jsonStrings(JSON.parse(text), out);
      return out;
    } catch {
      // not plain JSON: read it as text
    }
  }
  for (const m of text.matchAll(LOAD_KEY_IN_TEXT)) {
    const value = valueText(text, (m.index ?? 0) + m[0].length);
    for (const q of value.matchAll(/(['"`])([^'"`\n]{1,300})\1/g)) out.push(q[2] ?? '');
    // YAML and TOML lists without quotes (`require: test/setup.js`, `- test/setup.js`)
    for (const w of value.matchAll(/(?:^|[\s[,-])([\w.@<>/-]+\.[cm]?[jt]sx?)(?=$|[\s\],])/gm)) out.push(w[1] ?? '');
  }
  // YAML block lists under a loading key: `require:` then `  - test/setup.js` lines
  for (const m of text.matchAll(/^(\w+):\s*\n((?:[ \t]+-[^\n]*\n?)+)/gm)) if (LOAD_KEY.test(m[1] ?? '')) out.push(...(m[2] ?? '').split('\n').map((l) => l.replace(/^\s*-\s*/, '')));
  return out;
}

/** A task runner named in a command reads its task file: `make test` runs what the Makefile says. */
const TASK_FILES: Record<string, string[]> = {
  make: ['GNUmakefile', 'makefile', 'Makefile'],
  just: ['justfile', 'Justfile', '.justfile'],
  task: ['Taskfile.yml', 'Taskfile.yaml', 'taskfile.yml', 'taskfile.yaml'],
  nox: ['noxfile.py'],
};

export function loadedFiles(read: (rel: string) => string | null, isFile: (rel: string) => boolean, testCommand: string, configs: readonly string[]): string[] {
  const found = new Set<string>();
  const add = (values: readonly string[]) => {
    for (const v of values) {
      const rel = fileNamed(v, isFile);
      if (rel !== null) found.add(rel);
    }
  };
  const addCommand = (command: string) => {
    const words = commandWords(command);
    add(words);
    for (const w of words) add(TASK_FILES[path.posix.basename(w)] ?? []);
  };
  addCommand(testCommand);
  const pkgText = read('package.json');
  if (pkgText !== null) {
    try {
      const pkg = JSON.parse(pkgText) as Record<string, unknown>;
      for (const body of Object.values(reachedScripts(pkg, testCommand))) if (typeof body === 'string') addCommand(body);
      const runnerKeys: string[] = [];
      for (const k of ['jest', 'vitest', 'mocha', 'ava', 'c8', 'nyc', 'tap']) jsonStrings(pkg[k], runnerKeys);
      // babel's key, when a frozen runner transforms through babel
      jsonStrings(pkg.babel, runnerKeys);
      add(runnerKeys);
    } catch {
      // an unparsable package.json is frozen as a runner part already
    }
  }
  for (const rel of configs) {
    const text = read(rel);
    if (text === null) continue;
    if (path.posix.basename(rel) === '.npmrc') {
      for (const line of text.split(/\r?\n/)) {
        const m = /^\s*node[-_]options\s*=\s*(.*)$/i.exec(line);
        if (m) add(commandWords(m[1] ?? ''));
      }
    } else if (CONFIG_TEXT.test(path.posix.basename(rel)) && path.posix.basename(rel) !== 'Cargo.toml') {
      // (Cargo.toml names the crate's own sources: the crate, not a preload.)
      add(configStrings(rel, text));
    }
  }
  for (const rel of configs) found.delete(rel);
  return [...found].sort();
}
