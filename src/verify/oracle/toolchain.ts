import { createHash } from 'node:crypto';
import { accessSync, constants, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { environmentOf, type EnvProbe } from '../../state/rules/envDirs.js';
import { commandPrograms, isManagerVar, TOOLCHAIN_VARS, versionFromPath, type ToolProgram, type Toolchain } from '../rules/toolchain.js';
import { sha256Hex } from '../../state/hash.js';

/** Root-relative (posix) when inside the project, else as it is. */
function shown(root: string, abs: string): string {
  const rel = path.relative(root, abs);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel.split(path.sep).join('/');
}

/** The first executable file a program word names: its own path, or the first PATH folder holding it. */
function find(program: string, root: string, pathVar: string | undefined): string | null {
  const candidates = program.includes('/') ? [path.resolve(root, program)] : (pathVar ?? '').split(path.delimiter).filter(Boolean).map((d) => path.resolve(root, d, program));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      if (statSync(c).isFile()) return c;
    } catch {
      // not here
    }
  }
  return null;
}

/** A program only root can change is known by its identity; one the user can write, by its bytes. */
function identity(real: string): string {
  try {
    const st = statSync(real);
    const ours = st.uid !== 0 || (st.mode & 0o022) !== 0;
    return ours ? createHash('sha256').update(readFileSync(real)).digest('hex') : `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return 'unreadable';
  }
}

function resolveProgram(name: string, root: string, env: NodeJS.ProcessEnv): ToolProgram {
  const at = find(name, root, env.PATH);
  if (at === null) return { name, found: null, real: null, id: 'not found' };
  let real: string;
  try {
    real = realpathSync(at);
  } catch {
    real = at;
  }
  let version = versionFromPath(real) ?? versionFromPath(at);
  if (version === undefined && path.basename(real).startsWith('node')) {
    try {
      if (real === realpathSync(process.execPath)) version = process.version;
    } catch {
      // no version then
    }
  }
  return { name, found: shown(root, at), real: shown(root, real), id: identity(real), ...(version !== undefined ? { version } : {}) };
}

/** Lines of a `.pth` file that Python executes at start-up (site.py runs those beginning with `import`). */
function executes(text: string): boolean {
  return text.split(/\r?\n/).some((l) => l.startsWith('import ') || l.startsWith('import\t'));
}

/** site-packages folders of a virtualenv (`lib/python3.x/site-packages`, Windows' `Lib/site-packages`). */
function sitePackages(venv: string): string[] {
  const out: string[] = [];
  for (const lib of ['lib', 'lib64', 'Lib']) {
    let names: string[];
    try {
      names = readdirSync(path.join(venv, lib));
    } catch {
      continue;
    }
    if (names.includes('site-packages')) out.push(path.join(venv, lib, 'site-packages'));
    for (const n of names) if (n.startsWith('python')) out.push(path.join(venv, lib, n, 'site-packages'));
  }
  return [...new Set(out.map((d) => { try { return realpathSync(d); } catch { return d; } }))];
}

/**
 * The files of a site-packages folder that an installed distribution lists in its
 * `*.dist-info/RECORD` (the first field of each line), among `wanted`.
 */
function installedByPackage(dir: string, names: readonly string[], wanted: ReadonlySet<string>): Set<string> {
  const found = new Set<string>();
  for (const n of names) {
    if (!n.endsWith('.dist-info')) continue;
    let record: string;
    try {
      record = readFileSync(path.join(dir, n, 'RECORD'), 'utf8');
    } catch {
      continue;
    }
    for (const line of record.split('\n')) {
      const file = line.split(',')[0] ?? '';
      if (wanted.has(file)) found.add(file);
    }
  }
  return found;
}

/**
 * What the virtualenvs the run uses execute at every interpreter start: `*.pth` with import lines,
 * sitecustomize, usercustomize — those no installed distribution lists as its own. A package
 * installed the ordinary way (setuptools' `distutils-precedence.pth`, an editable install's
 * finder) is a dependency like any other; a start-up hook no package owns was put there by hand.
 */
function startupHooks(root: string, venvs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const venv of venvs) {
    for (const dir of sitePackages(venv)) {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      const candidates = new Set(names.filter((n) => n.endsWith('.pth') || n === 'sitecustomize.py' || n === 'usercustomize.py'));
      const owned = candidates.size > 0 ? installedByPackage(dir, names, candidates) : new Set<string>();
      for (const n of names.sort()) {
        if (owned.has(n)) continue;
        if (!n.endsWith('.pth') && n !== 'sitecustomize.py' && n !== 'usercustomize.py') continue;
        let text: string;
        try {
          text = readFileSync(path.join(dir, n), 'utf8');
        } catch {
          continue;
        }
        if (n.endsWith('.pth') && !executes(text)) continue;
        out[shown(root, path.join(dir, n))] = sha256Hex(text);
      }
    }
  }
  return out;
}

/**
 * The toolchain of `command` as `env` resolves it from the project at `root` (src/verify/rules/toolchain.ts
 * says what is in it). The virtualenvs are the project's that a program resolves into, and the
 * one VIRTUAL_ENV names.
 */
export function toolchainOf(root: string, command: string, env: NodeJS.ProcessEnv, probe: EnvProbe): Toolchain {
  const programs = commandPrograms(command).map((name) => resolveProgram(name, root, env));
  const vars: Record<string, string> = {};
  for (const k of TOOLCHAIN_VARS) vars[k] = env[k] ?? '';
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '' && isManagerVar(k)) vars[k] = v;
  const venvs = new Set<string>();
  const consider = (abs: string) => {
    const rel = shown(root, abs);
    if (path.isAbsolute(rel)) {
      // outside the project: a virtualenv elsewhere, known by its marker next to bin/
      const dir = path.dirname(path.dirname(abs));
      try {
        if (statSync(path.join(dir, 'pyvenv.cfg')).isFile()) venvs.add(dir);
      } catch {
        // not a virtualenv
      }
      return;
    }
    const envDir = environmentOf(rel, probe);
    if (envDir !== null && probe(envDir)) venvs.add(path.join(root, envDir));
  };
  for (const p of programs) if (p.found !== null) consider(path.resolve(root, p.found));
  if (env.VIRTUAL_ENV) consider(path.join(env.VIRTUAL_ENV, 'bin', 'python'));
  return { programs, vars, hooks: startupHooks(root, [...venvs]) };
}

/** A toolchain record read back from the state (a receipt, the freeze), or null when absent or not one. */
export function toolchainFrom(value: unknown): Toolchain | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as { programs?: unknown; vars?: unknown; hooks?: unknown };
  if (!Array.isArray(v.programs) || typeof v.vars !== 'object' || v.vars === null || typeof v.hooks !== 'object' || v.hooks === null) return null;
  const programs = v.programs.filter((p): p is ToolProgram => typeof p === 'object' && p !== null && typeof (p as ToolProgram).name === 'string' && typeof (p as ToolProgram).id === 'string');
  const strings = (o: object) => Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => typeof e[1] === 'string'));
  return { programs: programs.map((p) => ({ name: p.name, found: typeof p.found === 'string' ? p.found : null, real: typeof p.real === 'string' ? p.real : null, id: p.id, ...(typeof p.version === 'string' ? { version: p.version } : {}) })), vars: strings(v.vars), hooks: strings(v.hooks) };
}
