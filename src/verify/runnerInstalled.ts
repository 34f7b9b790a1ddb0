import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Before a run: is the program the test command hands to `npx` (or `npm exec`, or names bare in an
 * npm script) installed? `npx vitest` in a project without vitest would download it (a verify
 * must never fetch code) or wait for a prompt nobody sees; a bare runner missing fails with
 * "not found". Either way the person gets one line: what is missing and the command that installs
 * it. Pure reading of the disk; null when everything resolves or the layout is one this cannot
 * judge (Yarn Plug'n'Play).
 */

/** Runners that are npm packages of the same name as their program. */
const JS_RUNNERS = new Set(['vitest', 'jest', 'mocha', 'ava', 'jasmine', 'tap', 'uvu', 'c8', 'nyc', 'playwright', 'cypress']);
/** Words that run the next word as the program. */
const PASS_THROUGH = new Set(['env', 'cross-env', 'time', 'exec', 'nice', 'nohup', 'dotenv']);

interface RunnerCheck {
  /** The test command as configured. */
  command: string;
  root: string;
  /** PATH of the run's environment. */
  pathEnv: string | undefined;
}

interface Pkg {
  scripts?: Record<string, unknown>;
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
}

function readPkg(root: string): Pkg | null {
  try {
    return JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Pkg;
  } catch {
    return null;
  }
}

/** Split a command line into simple commands (quote-aware), each a list of words. */
export function simpleCommands(command: string): string[][] {
  const out: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: string | null = null;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) out.push(words);
    words = [];
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote !== null) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < command.length) word += command[++i];
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < command.length) {
      word += command[++i];
      inWord = true;
    } else if (c === ' ' || c === '\t') endWord();
    else if (c === '\n' || c === ';' || c === '|' || c === '&' || c === '(' || c === ')') endCommand();
    else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return out;
}

/** The program a simple command runs and how: `npx x` / `npm exec x` (may download) or bare. */
function programOf(words: readonly string[]): { name: string; via: 'npx' | 'bare' } | null {
  let i = 0;
  while (i < words.length) {
    const w = words[i]!;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) i++;
    else if (PASS_THROUGH.has(w)) {
      i++;
      while (i < words.length && (words[i]!.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!))) i++;
    } else break;
  }
  const first = words[i];
  if (first === undefined) return null;
  const rest = words.slice(i + 1);
  const execOf = (args: readonly string[]): { name: string; via: 'npx' } | null => {
    for (let k = 0; k < args.length; k++) {
      const a = args[k]!;
      if (a === '--') continue;
      // `-p pkg` / `--package pkg` / `-c cmd`: another package or a shell; not judged here.
      if (a === '-p' || a === '--package' || a.startsWith('--package=') || a === '-c' || a === '--call' || a.startsWith('--call=')) return null;
      if (a.startsWith('-')) continue;
      return { name: a, via: 'npx' };
    }
    return null;
  };
  if (first === 'npx' || first === 'bunx' || first === 'pnpx') return execOf(rest);
  if ((first === 'npm' || first === 'pnpm') && rest[0] === 'exec') return execOf(rest.slice(1));
  const base = first.slice(first.lastIndexOf('/') + 1);
  if (first === base && JS_RUNNERS.has(base)) return { name: base, via: 'bare' };
  return null;
}

/** `vitest@1.2` → vitest; `@scope/pkg@2` → @scope/pkg. */
function packageName(spec: string): string {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  return at > 0 ? spec.slice(0, at) : spec;
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Installed where npm looks: node_modules of the project and its parents, or a program on PATH. */
function resolvable(root: string, name: string, pathEnv: string | undefined): boolean {
  const pkg = packageName(name);
  const bin = pkg.slice(pkg.lastIndexOf('/') + 1);
  for (let dir = root; ; dir = path.dirname(dir)) {
    if (isFile(path.join(dir, 'node_modules', '.bin', bin)) || existsSync(path.join(dir, 'node_modules', pkg, 'package.json'))) return true;
    if (path.dirname(dir) === dir) break;
  }
  for (const d of (pathEnv ?? '').split(path.delimiter)) {
    if (d !== '' && isFile(path.join(d, bin))) return true;
  }
  return false;
}

/** The package manager the project uses, from its lock file. */
function manager(root: string): { add: string; install: string } {
  if (existsSync(path.join(root, 'pnpm-lock.yaml'))) return { add: 'pnpm add -D', install: 'pnpm install' };
  if (existsSync(path.join(root, 'yarn.lock'))) return { add: 'yarn add -D', install: 'yarn install' };
  if (existsSync(path.join(root, 'bun.lockb')) || existsSync(path.join(root, 'bun.lock'))) return { add: 'bun add -d', install: 'bun install' };
  return { add: 'npm install -D', install: 'npm install' };
}

/** The script an `npm test` / `npm run x` / `yarn x` / `pnpm x` command runs, when it is one. */
function scriptOf(words: readonly string[], pkg: Pkg | null): string | null {
  const [pm, ...rest] = words;
  if (pm !== 'npm' && pm !== 'pnpm' && pm !== 'yarn' && pm !== 'bun') return null;
  const args = rest.filter((a) => !a.startsWith('-'));
  let name = args[0];
  if (name === 'run' || name === 'run-script') name = args[1];
  if (pm === 'npm' && (name === 't' || name === 'tst')) name = 'test';
  if (name === undefined) return null;
  const body = pkg?.scripts?.[name];
  return typeof body === 'string' ? body : null;
}

/** One line naming what is missing and how to install it; null when the runner resolves. */
export function missingRunner(check: RunnerCheck): string | null {
  const { root } = check;
  if (existsSync(path.join(root, '.pnp.cjs')) || existsSync(path.join(root, '.pnp.js'))) return null;
  const pkg = readPkg(root);
  const seen = new Set<string>();
  const visit = (command: string, depth: number): string | null => {
    for (const words of simpleCommands(command)) {
      const script = depth < 3 ? scriptOf(words, pkg) : null;
      if (script !== null) {
        if (seen.has(script)) continue;
        seen.add(script);
        const found = visit(script, depth + 1);
        if (found) return found;
        continue;
      }
      const prog = programOf(words);
      if (prog === null) continue;
      if (resolvable(root, prog.name, check.pathEnv)) continue;
      const name = packageName(prog.name);
      const pm = manager(root);
      const listed = pkg !== null && (name in (pkg.devDependencies ?? {}) || name in (pkg.dependencies ?? {}));
      const how = listed ? `it is listed in package.json but not installed: run \`${pm.install}\`` : `run \`${pm.add} ${name}\``;
      const why = prog.via === 'npx' ? ' (a verify never lets npx download a runner)' : '';
      return `${name} is not installed in this project: ${how}, then run the command again${why}`;
    }
    return null;
  };
  return visit(check.command, 0);
}

/**
 * After a run: the runner could not start at all, said in one line with the cause and the fix,
 * instead of "could not tell how many tests ran" with the cause left in the log.
 */
export function setupProblem(output: string, exitCode: number | null, command: string): string | null {
  // `python -m pytest` for an interpreter without pytest: "<interpreter>: No module named pytest".
  const mod = /^(\S*python[\w.-]*): No module named ([\w.]+)\s*$/m.exec(output);
  if (mod) {
    const [, interpreter, name] = mod;
    return `${name!} is not installed for ${interpreter!}, the interpreter \`${command}\` runs: install it there (\`${interpreter!} -m pip install ${name!}\`, or add it to the project's virtualenv and run the tests through that interpreter), then run the command again`;
  }
  if (/npx canceled due to missing packages|npm (?:ERR!|error) could not determine executable to run/.test(output)) {
    const pkg = /missing packages[^[]*\[\s*"?([^"\]@\s]+(?:@[^"\]\s]*)?)/.exec(output)?.[1];
    return `${pkg ? packageName(pkg) : 'the test runner'} is not installed in this project and a verify never lets npx download it: install it as a dev dependency (\`npm install -D ${pkg ? packageName(pkg) : '<runner>'}\`), then run the command again`;
  }
  if (exitCode === 127) {
    const nf = /^(?:sh|bash|zsh|dash)?(?::\s*\d+)?:?\s*([^\s:]+): (?:command )?not found\s*$/m.exec(output) ?? /^([^\s:]+): (?:command )?not found\s*$/m.exec(output);
    if (nf) return `\`${nf[1]!}\` was not found on the PATH the tests run with: install it (or fix test_command in .tdd/stack.json), then run the command again`;
  }
  return null;
}
