import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { programPolicy, type ProgramReference, type ProgramRole } from '../gate/rules/bash/cliCalls.js';
import { deny, PASS, type Decision } from '../gate/rules/decision.js';
import { sha256Hex } from '../state/hash.js';

interface Program {
  role: ProgramRole;
  canonical: string;
  size: number;
  sha?: string;
}

/**
 * The plugin's programs on disk: the bundles beside the running hook (`node …/dist/hook.cjs`) and
 * under CLAUDE_PLUGIN_ROOT. Recognised by canonical path, and by content for copies.
 */
function programs(env: NodeJS.ProcessEnv): Program[] {
  const dirs = new Set<string>();
  const self = process.argv[1];
  if (typeof self === 'string' && self !== '') dirs.add(path.dirname(self));
  if (env.CLAUDE_PLUGIN_ROOT) dirs.add(path.join(env.CLAUDE_PLUGIN_ROOT, 'dist'));
  const out: Program[] = [];
  for (const dir of dirs) {
    for (const [file, role] of programFiles(dir)) {
      try {
        const canonical = realpathSync.native(path.join(dir, file));
        if (out.some((p) => p.canonical === canonical)) continue;
        out.push({ role, canonical, size: statSync(canonical).size });
      } catch {
        // not there
      }
    }
  }
  return out;
}

/**
 * The files that make up the programs in one dist/ folder: the hook's entry and its shim, the parts
 * it loads from dist/hook/ (any of them, run or imported, can be fed an event), and the CLI.
 */
function programFiles(dir: string): [string, ProgramRole][] {
  const files: [string, ProgramRole][] = [['hook.cjs', 'hook'], ['hook.mjs', 'hook'], ['cli.mjs', 'cli']];
  try {
    for (const part of readdirSync(path.join(dir, 'hook'))) files.push([path.join('hook', part), 'hook']);
  } catch {
    // no parts folder
  }
  return files;
}

const MAX_WORDS = 64;
// Words anywhere in the command, quoted or not, also inside `import('…')` or `-e` code. Each
// character is consumed once: commands can be megabytes long.
const WORD = /[^\s'"`;&|()<>{}[\],=]+/g;

function expand(word: string, env: NodeJS.ProcessEnv, home: string): string {
  if (!word.includes('~') && !word.includes('$')) return word;
  return word
    .replace(/^~(?=\/|$)/, home)
    .replace(/\$\{?(CLAUDE_PLUGIN_ROOT|CLAUDE_PROJECT_DIR|HOME|PWD)\}?/g, (_m, name: string) => env[name] ?? '');
}

function roleOf(file: string, programList: () => Program[]): ProgramRole | null {
  let canonical: string;
  let size: number;
  try {
    canonical = realpathSync.native(file);
    const st = statSync(canonical);
    if (!st.isFile()) return null;
    size = st.size;
  } catch {
    return null;
  }
  // Only now the plugin's own files: most words of a command name no file at all.
  const list = programList();
  const same = list.find((p) => p.canonical === canonical);
  if (same !== undefined) return same.role;
  // A copy: the same bytes under another name. Hashed only when the size already matches.
  for (const p of list) {
    if (p.size !== size) continue;
    try {
      p.sha ??= sha256Hex(readFileSync(p.canonical));
      if (sha256Hex(readFileSync(canonical)) === p.sha) return p.role;
    } catch {
      // unreadable: not a match
    }
  }
  return null;
}

/** Every reference in `command` to a plugin program, found on disk. */
function programReferences(command: string, cwd: string, env: NodeJS.ProcessEnv, home: string): ProgramReference[] {
  let list: Program[] | undefined;
  const programList = () => (list ??= programs(env));
  const refs: ProgramReference[] = [];
  let count = 0;
  for (const m of command.matchAll(WORD)) {
    const word = m[0];
    if (!['.js', '.ts', '.mjs', '.mts', '.cjs'].some((ext) => word.endsWith(ext)) && !word.includes('/')) continue;
    if (++count > MAX_WORDS) break;
    const role = roleOf(path.resolve(cwd, expand(word, env, home)), programList);
    if (role === null) continue;
    const before = command.slice(0, m.index).replace(/["']$/, '');
    const normalized = path.posix.normalize(word) === word;
    const documented =
      role === 'cli' && normalized && ((/(^|[\s;&|(])node\s+$/.test(before) && /(^|\/)dist\/cli\.mjs$/.test(word)) || /(^|\/)node_modules\/\.bin\/tdd-gate$/.test(word));
    refs.push({ role, word, documented });
  }
  return refs;
}

/** The Bash gate's part for the plugin's programs: a deny, or PASS for the verb-level rules to judge. */
export function gatePluginPrograms(command: string, cwd: string, env: NodeJS.ProcessEnv, home: string, where: string): Decision {
  const found = programPolicy(programReferences(command, cwd, env, home));
  if (found === null) return PASS;
  if (found.ruleId === 'hook-feed') {
    return deny(
      'hook-feed',
      `Blocked a command that runs tdd-gate's hook program (${found.ref.word}) ${where}: hook events come only from Claude Code, so no command runs the hook program, by any name or copy. If you need the result of a subagent recorded, dispatch that subagent; stop and tell the user if something seems wrong with the gate.`,
    );
  }
  return deny(
    'cli-spelling',
    `Blocked a command that runs the tdd-gate CLI as ${found.ref.word} ${where}: the CLI is run only as \`tdd-gate <verb>\` or \`node "<plugin root>/dist/cli.mjs" <verb>\`, so the gate can see which verb runs (subagents never run its state-changing verbs). Use that form.`,
  );
}
