import { existsSync } from 'node:fs';
import path from 'node:path';
import { literalWord as literal, parseShell, type Command } from '../gate/rules/bash/parser.js';
import type { Decision } from '../gate/rules/decision.js';
import { canonicalize } from '../state/canonicalPath.js';
import { readOrNull } from '../state/readOrNull.js';
import type { ActiveCycle } from '../state/cycle.js';
import { heldoutDeny, heldoutFactsOf } from './gate.js';
import { callReaches, shellTextReaches, type HeldoutFacts, type ShellCall } from './rules/reach.js';

/** Interpreters whose script argument (or inline code) is read for what it reaches. */
const INTERPRETERS = new Set(['python', 'python3', 'python2', 'node', 'nodejs', 'deno', 'bun', 'perl', 'ruby', 'php', 'sh', 'bash', 'zsh', 'dash', 'ksh', 'lua', 'Rscript', 'tsx', 'ts-node']);
const MAX_SCRIPT = 256 * 1024;

/** Every simple command in the parsed script, nested ones (substitutions, subshells, loops, functions) included. */
function commandsIn(node: unknown, out: Command[], depth = 0): void {
  if (depth > 200 || typeof node !== 'object' || node === null) return;
  if (Array.isArray(node)) {
    for (const n of node) commandsIn(n, out, depth + 1);
    return;
  }
  if ((node as { type?: unknown }).type === 'Command') out.push(node as Command);
  for (const v of Object.values(node)) commandsIn(v, out, depth + 1);
}

function base(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/** A program installed by a package manager, or the plugin's own: not the agent's to have written. */
function installed(abs: string): boolean {
  let real: string;
  try {
    real = canonicalize(abs);
  } catch {
    return false;
  }
  if (real.includes('/node_modules/') || real.includes('/site-packages/') || real.includes('/dist-packages/')) return true;
  const self = process.argv[1];
  const homes = [typeof self === 'string' && self !== '' ? path.dirname(path.dirname(self)) : null, process.env.CLAUDE_PLUGIN_ROOT ?? null].filter((d): d is string => d !== null && d !== '');
  return homes.some((h) => {
    const c = canonicalize(path.resolve(h));
    return real === c || real.startsWith(`${c}/`);
  });
}

/**
 * A Bash (or Monitor, or skill shell) command while held-out tests are out of sight: denied when
 * its text names them, their store or the way into the git directory; when a script or inline
 * program it runs does, or decompresses; when a decompressor or a folder copier runs over a
 * folder that holds the store, or on a path computed at run time; or when it cannot be parsed.
 */
function heldoutBashVerdict(f: HeldoutFacts, command: string, cwd: string): { hidden: false } | { hidden: true; what: string } {
  const text = shellTextReaches(f, command, false);
  if (text.hidden) return text;
  let script;
  try {
    script = parseShell(command);
  } catch {
    return { hidden: true, what: 'a command the gate cannot parse' };
  }
  if ((script.errors?.length ?? 0) > 0) return { hidden: true, what: 'a command the gate cannot parse' };
  const commands: Command[] = [];
  commandsIn(script.commands, commands);
  const movesDir = commands.some((c) => ['cd', 'pushd', 'popd'].includes(literal(c.name) ?? ''));
  for (const c of commands) {
    const name = literal(c.name);
    if (c.name === undefined) continue; // assignments and redirections only
    const args: (string | null)[] = [];
    for (const a of c.suffix) if (a.type === 'Word') args.push(literal(a));
    const program = name === null ? null : base(name);
    const here = movesDir ? null : cwd;
    const paths: string[] = [];
    for (const a of args) {
      if (a === null || a.startsWith('-') || a === '') continue;
      const abs = path.resolve(here ?? cwd, a.startsWith('~/') ? path.join(process.env.HOME ?? '~', a.slice(2)) : a);
      if (existsSync(abs)) paths.push(canonicalize(abs));
    }
    const call: ShellCall = { program, args, paths, cwd: here === null ? null : canonicalize(here) };
    const v = callReaches(f, call);
    if (v.hidden) return v;
    if (program !== null && (INTERPRETERS.has(program) || /^python3\.\d+$/.test(program))) {
      // inline code: its text; a script: what the file says
      for (const a of args) {
        if (a === null) continue;
        const code = shellTextReaches(f, a, true);
        if (code.hidden) return code;
      }
      const file = args.find((a) => a !== null && !a.startsWith('-'));
      if (file !== undefined && file !== null && !installed(path.resolve(cwd, file))) {
        const body = readOrNull(path.resolve(cwd, file), MAX_SCRIPT);
        if (body !== null) {
          const v2 = shellTextReaches(f, body, true);
          if (v2.hidden) return { hidden: true, what: `${v2.what} in the script ${file}` };
        }
      }
    }
  }
  return { hidden: false };
}

/** The Bash gate's held-out check for one cycle: null when the command may run as far as held-out tests go. */
export function heldoutBashCheck(cycle: ActiveCycle, command: string, cwd: string, agentType: string | undefined, tool = 'Bash'): Decision | null {
  const f = heldoutFactsOf(cycle, process.env);
  if (f === null) return null;
  const v = heldoutBashVerdict(f, command, cwd);
  return v.hidden ? heldoutDeny(cycle, tool, v, agentType) : null;
}
