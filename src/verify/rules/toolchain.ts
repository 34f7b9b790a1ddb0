/**
 * The toolchain a test command runs with, as the person's environment resolves it: each program
 * the command starts (found on PATH, where the link leads, the file's identity, its version when
 * the path tells it), the variables that say where toolchains live, and what a virtualenv the run
 * uses executes at interpreter start-up. Recorded at `verify red` and at the freeze; when it
 * moves, the refusal names what moved. Pure: the I/O that resolves it is src/verify/oracle/toolchain.ts.
 */

export interface ToolProgram {
  /** The command word (`python`, `npx`, `node`). */
  name: string;
  /** Where PATH (or the command's own path) finds it: root-relative when inside the project; null when nothing is found. */
  found: string | null;
  /** The file it is once every link is followed (root-relative when inside the project). */
  real: string | null;
  /** The file's identity: its bytes' digest when the user can write it, else device, inode, size and time. */
  id: string;
  /** The version, when the path says it (`…/versions/3.11.7/…`, `python3.12`, `v20.11.1`). */
  version?: string;
}

export interface Toolchain {
  programs: ToolProgram[];
  /** Where toolchains live and which version a manager picks: name → value ('' when unset). */
  vars: Record<string, string>;
  /** Code a virtualenv the run uses executes at every interpreter start (`*.pth` import lines, sitecustomize): root-relative path → sha256. */
  hooks: Record<string, string>;
}

/** Variables whose value is always recorded (set or not): where a toolchain lives. */
export const TOOLCHAIN_VARS = ['GOROOT', 'GOPATH', 'GOMODCACHE', 'GOTOOLCHAIN', 'CARGO_HOME', 'RUSTUP_HOME', 'RUSTUP_TOOLCHAIN', 'PYENV_VERSION', 'VIRTUAL_ENV', 'CONDA_PREFIX', 'JAVA_HOME'];

/**
 * Variables of version managers and Python project tools: they pick the interpreter or the
 * environment, not how a runner behaves. Let through to the run (cleanEnv) and recorded when set.
 */
const MANAGER_VARS = [
  'VOLTA_HOME',
  'ASDF_DIR',
  'ASDF_DATA_DIR',
  'ASDF_CONFIG_FILE',
  'ASDF_DEFAULT_TOOL_VERSIONS_FILENAME',
  'FNM_DIR',
  'FNM_MULTISHELL_PATH',
  'NVM_BIN',
  'NVM_INC',
  'MISE_DATA_DIR',
  'MISE_CONFIG_DIR',
  'MISE_CACHE_DIR',
  'PYENV_DIR',
  'UV_PROJECT_ENVIRONMENT',
  'UV_PYTHON',
  'UV_CACHE_DIR',
  'UV_PYTHON_INSTALL_DIR',
  'POETRY_HOME',
  'POETRY_CONFIG_DIR',
  'POETRY_CACHE_DIR',
  'POETRY_VIRTUALENVS_IN_PROJECT',
  'POETRY_VIRTUALENVS_PATH',
  'PIPENV_VENV_IN_PROJECT',
  'WORKON_HOME',
  'CONDA_DEFAULT_ENV',
  'CONDA_EXE',
  'CONDA_PYTHON_EXE',
  'COREPACK_HOME',
];

/** `ASDF_NODEJS_VERSION`, `MISE_PYTHON_VERSION`: a manager's per-tool version pin. */
export function isManagerVar(name: string): boolean {
  if (MANAGER_VARS.includes(name)) return true;
  return (name.startsWith('ASDF_') || name.startsWith('MISE_') || name.startsWith('RTX_')) && name.endsWith('_VERSION') && name.length > 13;
}

const NODE_LAUNCHERS = new Set(['npm', 'npx', 'pnpm', 'pnpx', 'yarn', 'corepack']);

function isAssignment(word: string): boolean {
  const eq = word.indexOf('=');
  if (eq <= 0) return false;
  for (let i = 0; i < eq; i++) {
    const c = word.charCodeAt(i);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    if (!letter && !(i > 0 && c >= 48 && c <= 57)) return false;
  }
  return true;
}

function plainWord(word: string): boolean {
  if (word === '') return false;
  for (const ch of word) {
    const ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || '._/+-@'.includes(ch);
    if (!ok) return false;
  }
  return true;
}

/**
 * The program a command line starts: the first word after leading `NAME=value` assignments, and
 * through `env [-u NAME] [NAME=value…]`, `exec` and `command`. Null when it is not a plain word.
 */
export function commandProgram(command: string): string | null {
  const words = command.trim().split(/\s+/);
  let i = 0;
  for (;;) {
    const w = words[i];
    if (w === undefined) return null;
    if (isAssignment(w)) {
      i++;
      continue;
    }
    if (w === 'exec' || w === 'command') {
      i++;
      continue;
    }
    if (w === 'env') {
      i++;
      while (words[i] !== undefined && (isAssignment(words[i]!) || words[i]!.startsWith('-'))) {
        const opt = words[i]!;
        i += opt === '-u' || opt === '--unset' || opt === '-C' || opt === '--chdir' ? 2 : 1;
      }
      continue;
    }
    return plainWord(w) ? w : null;
  }
}

/** The programs whose resolution is recorded: the command's, and node behind a node launcher or a node_modules binary. */
export function commandPrograms(command: string): string[] {
  const program = commandProgram(command);
  if (program === null) return [];
  const base = program.slice(program.lastIndexOf('/') + 1);
  const out = [program];
  if (NODE_LAUNCHERS.has(base) || program.includes('node_modules/.bin/')) out.push('node');
  return out;
}

/** A version the path spells: the last `1.2(.3)` folder (`v20.11.1`, `3.11.7`), else the file name's (`python3.12`). */
export function versionFromPath(p: string): string | undefined {
  const parts = p.split(/[\\/]/);
  const isVersion = (s: string) => /^v?\d+(\.\d+)+$/.test(s);
  for (let i = parts.length - 2; i >= 0; i--) if (isVersion(parts[i]!)) return parts[i];
  const m = /^[A-Za-z]+-?(\d+(?:\.\d+)+)(?:\.exe)?$/.exec(parts[parts.length - 1] ?? '');
  return m?.[1];
}

/** The canonical text of a toolchain: what its digest is taken of. */
export function toolchainText(t: Toolchain): string {
  const lines: string[] = [];
  for (const p of t.programs) lines.push(`program ${p.name}=${p.found ?? 'not found'}\0${p.real ?? ''}\0${p.id}`);
  for (const k of Object.keys(t.vars).sort()) lines.push(`var ${k}=${t.vars[k] ?? ''}`);
  for (const k of Object.keys(t.hooks).sort()) lines.push(`hook ${k}=${t.hooks[k] ?? ''}`);
  return lines.join('\n');
}

function withVersion(p: string | null, v: string | undefined): string {
  if (p === null) return 'nothing on PATH';
  return v !== undefined && !p.includes(v) ? `${p} (${v})` : p;
}

/**
 * What moved between two records of the toolchain, one sentence each, for a refusal:
 * `python now resolves to /usr/bin/python3, was .venv/bin/python`.
 */
export function toolchainMoves(before: Toolchain, now: Toolchain): string[] {
  const out: string[] = [];
  for (const b of before.programs) {
    const n = now.programs.find((p) => p.name === b.name);
    if (n === undefined) continue;
    if (n.found !== b.found) {
      out.push(`${b.name} now resolves to ${withVersion(n.found, n.version)}, was ${withVersion(b.found, b.version)}`);
    } else if (n.real !== b.real) {
      out.push(`${b.name} (${b.found ?? ''}) now leads to ${withVersion(n.real, n.version)}, was ${withVersion(b.real, b.version)}`);
    } else if (n.id !== b.id) {
      out.push(`${b.name} (${b.found ?? ''}${n.real !== null && n.real !== n.found ? ` → ${n.real}` : ''}) is another file than it was (its bytes or its identity changed)`);
    }
  }
  const programsMoved = out.length > 0;
  const names = [...new Set([...Object.keys(before.vars), ...Object.keys(now.vars)])].sort();
  for (const k of names) {
    const b = before.vars[k] ?? '';
    const n = now.vars[k] ?? '';
    if (b !== n) out.push(`${k} is now ${n === '' ? 'unset' : n}, was ${b === '' ? 'unset' : b}`);
  }
  // Start-up hooks belong to the virtualenv a program resolves into: when the programs moved,
  // theirs moved with them and are not told one by one.
  if (programsMoved) return out;
  const hooks = [...new Set([...Object.keys(before.hooks), ...Object.keys(now.hooks)])].sort();
  for (const k of hooks) {
    const b = before.hooks[k];
    const n = now.hooks[k];
    // One gone (removed, or now owned by an installed package) runs nothing new.
    if (b === n || n === undefined) continue;
    out.push(b === undefined ? `the interpreter start-up hook ${k} was added` : `the interpreter start-up hook ${k} changed`);
  }
  return out;
}

/**
 * The refusal for a toolchain that moved: what moved, and what to do. `against` is what it is
 * compared with (`the last valid RED`, `the freeze`).
 */
export function toolchainAdvice(moves: readonly string[], against: string): string {
  const hookMoved = moves.some((m) => m.startsWith('the interpreter start-up hook'));
  const shown = moves.slice(0, 4).join('; ') + (moves.length > 4 ? `; and ${moves.length - 4} more` : '');
  const hooks = hookMoved
    ? ' A start-up hook runs in every test run\'s interpreter, so it is part of the oracle: no installed package lists it as its own (a package installed with pip is a dependency like any other), so remove it, or start a new cycle if it is meant to stay.'
    : '';
  return `the test command's toolchain moved since ${against}: ${shown}. Run the CLI in the environment of ${against} (the same PATH, the same virtualenv or node version activated); a toolchain changed on purpose is a new cycle.${hooks}`;
}
