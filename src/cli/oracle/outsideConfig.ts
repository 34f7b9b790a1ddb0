import { createHash } from 'node:crypto';
import { accessSync, constants, readFileSync, realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sha256Hex } from '../../io/hash.js';

/** The part that holds the program the test command starts and where its toolchain lives. */
export const TOOLCHAIN_PART = 'the test command’s program and toolchain';

/** Where toolchains live: allowed through to the run (cleanEnv), so they are part of the oracle. */
const TOOLCHAIN_VARS = ['GOROOT', 'GOPATH', 'GOMODCACHE', 'GOTOOLCHAIN', 'CARGO_HOME', 'RUSTUP_HOME', 'RUSTUP_TOOLCHAIN', 'PYENV_VERSION', 'VIRTUAL_ENV', 'CONDA_PREFIX', 'JAVA_HOME'];

/** The first word of a command line that is not a variable assignment: the program it starts. */
export function commandProgram(command: string): string | null {
  for (const word of command.trim().split(/\s+/)) {
    if (/^[A-Za-z_]\w*=/.test(word)) continue;
    return /^[\w./+-]+$/.test(word) ? word : null;
  }
  return null;
}

function resolveProgram(program: string, root: string, pathVar: string | undefined): string | null {
  const candidates = program.includes('/') ? [path.resolve(root, program)] : (pathVar ?? '').split(path.delimiter).filter(Boolean).map((d) => path.join(d, program));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      if (statSync(c).isFile()) return realpathSync(c);
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * What the test command starts, found as the run finds it (`PATH=<dir>:$PATH tdd-gate verify`
 * puts a look-alike `go` first), and the toolchain locations the run inherits (a GOROOT copy with
 * its testing package edited). A program only root can change is known by its identity; one the
 * user can write is known by its bytes.
 */
export function toolchainPart(root: string, command: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const program = commandProgram(command);
  const lines = TOOLCHAIN_VARS.map((k) => `${k}=${env[k] ?? ''}`);
  const at = program === null ? null : resolveProgram(program, root, env.PATH);
  if (at !== null) {
    let id: string;
    try {
      const st = statSync(at);
      const ours = st.uid !== 0 || (st.mode & 0o022) !== 0;
      id = ours ? createHash('sha256').update(readFileSync(at)).digest('hex') : `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      id = 'unreadable';
    }
    lines.push(`${program}=${at}\0${id}`);
  } else lines.push(`${program ?? ''}=not found`);
  return { [TOOLCHAIN_PART]: sha256Hex(lines.join('\n')) };
}

/** The part that holds cargo's configuration from outside the project. */
export const CARGO_OUTSIDE_PART = '.cargo/config.toml outside the project';

/**
 * Cargo reads `.cargo/config.toml` (or `config`) from every directory above the one it runs in
 * and from its home, and a `runner` or `rustflags` there changes what `cargo test` runs and
 * reports. Those files lie outside the project, where a script can write them and a caller can
 * point CARGO_HOME or HOME: what they hold at the freeze is part of the oracle. The private
 * copy runs below the temporary directory, so its ancestors count too.
 */
export function cargoConfigsOutside(root: string, env: NodeJS.ProcessEnv): string[] {
  const dirs = new Set<string>();
  const ancestors = (from: string, self: boolean) => {
    let d = path.resolve(from);
    if (!self) d = path.dirname(d);
    for (;;) {
      dirs.add(path.join(d, '.cargo'));
      const up = path.dirname(d);
      if (up === d) break;
      d = up;
    }
  };
  ancestors(root, false);
  ancestors(os.tmpdir(), true);
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : os.homedir();
  dirs.add(env.CARGO_HOME !== undefined && env.CARGO_HOME !== '' ? path.resolve(env.CARGO_HOME) : path.join(home, '.cargo'));
  return [...dirs].flatMap((d) => [path.join(d, 'config.toml'), path.join(d, 'config')]);
}

/** The digest part for a cargo project (one with a root Cargo.toml), or none. */
export function outsideParts(root: string, env: NodeJS.ProcessEnv, read: (rel: string) => string | null): Record<string, string> {
  if (read('Cargo.toml') === null) return {};
  const lines: string[] = [];
  for (const file of cargoConfigsOutside(root, env)) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    lines.push(`${file}\0${sha256Hex(text)}`);
  }
  return { [CARGO_OUTSIDE_PART]: sha256Hex(lines.sort().join('\n')) };
}
