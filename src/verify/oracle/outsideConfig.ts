import { readFileSync } from 'node:fs';
import { toolchainText, type Toolchain } from '../rules/toolchain.js';
import os from 'node:os';
import path from 'node:path';
import { sha256Hex } from '../../state/hash.js';

/** The part that holds the program the test command starts and where its toolchain lives. */
export const TOOLCHAIN_PART = 'the test command’s program and toolchain';

/**
 * The part of the toolchain record (src/verify/oracle/toolchain.ts): what the test command starts,
 * found as the run finds it (`PATH=<dir>:$PATH tdd-gate verify` puts a look-alike `go` first), the
 * toolchain locations the run inherits (a GOROOT copy with its testing package edited), and what
 * a virtualenv the run uses executes at start-up.
 */
export function toolchainPart(toolchain: Toolchain): Record<string, string> {
  return { [TOOLCHAIN_PART]: sha256Hex(toolchainText(toolchain)) };
}

/** The part that holds cargo's configuration from outside the project. */
const CARGO_OUTSIDE_PART = '.cargo/config.toml outside the project';

/**
 * Cargo reads `.cargo/config.toml` (or `config`) from every directory above the one it runs in
 * and from its home, and a `runner` or `rustflags` there changes what `cargo test` runs and
 * reports. Those files lie outside the project, where a script can write them and a caller can
 * point CARGO_HOME or HOME: what they hold at the freeze is part of the oracle. The private
 * copy runs below the temporary directory, so its ancestors count too.
 */
function cargoConfigsOutside(root: string, env: NodeJS.ProcessEnv): string[] {
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
