import path from 'node:path';
import { deny, type Decision } from '../gate/rules/decision.js';
import { gitCommonDir } from '../state/anchorPaths.js';
import { canonicalize } from '../state/canonicalPath.js';
import type { ActiveCycle } from '../state/cycle.js';
import { storeDirs } from './paths.js';
import { globNamesHeldout, heldoutDenyReason, pathReachesHeldout, textNamesHeldout, type HeldoutFacts, type ReadVerdict } from './rules/reach.js';

/**
 * The hook's side of held-out tests (docs/heldout.md): while they are out of sight, a file tool,
 * a search or an MCP call that would read them or their store is denied, whoever makes it.
 */

/** The held-out facts of a cycle whose held-out tests are out of sight; null otherwise. */
export function heldoutFactsOf(cycle: ActiveCycle, env: NodeJS.ProcessEnv): HeldoutFacts | null {
  const phase = cycle.state.phase;
  if (phase !== 'tdd-green' && phase !== 'tdd-refactor') return null;
  const list = (cycle.state as { frozen?: { heldout?: unknown } }).frozen?.heldout;
  if (!Array.isArray(list) || list.length === 0) return null;
  const files = list.filter((r): r is string => typeof r === 'string');
  const frozen = (cycle.state as { frozen?: { files?: unknown } }).frozen?.files;
  const others = typeof frozen === 'object' && frozen !== null ? Object.keys(frozen).filter((r) => !files.includes(r)) : [];
  const dirs = storeDirs(cycle.repo, env);
  const data = env.CLAUDE_PLUGIN_DATA;
  return {
    root: cycle.repo.root,
    files,
    others,
    stores: [dirs.primary, ...(dirs.mirror !== null ? [dirs.mirror] : [])].map((d) => canonicalize(d)),
    gitCommonDir: canonicalize(gitCommonDir(cycle.repo.gitDir)),
    pluginData: typeof data === 'string' && data !== '' ? canonicalize(path.resolve(data)) : null,
  };
}

function who(agentType: string | undefined): string {
  return agentType ?? 'main thread';
}

export function heldoutDeny(cycle: ActiveCycle, tool: string, v: Extract<ReadVerdict, { hidden: true }>, agentType: string | undefined): Decision {
  return deny('heldout-hidden', heldoutDenyReason(tool, v.what, cycle.state.phase, who(agentType)));
}

/** Read, NotebookRead, Grep, Glob: the path they read or walk, and the pattern they search for. */
const READ_FIELDS: Record<string, { path: string[]; text: string[]; walks: boolean }> = {
  Read: { path: ['file_path'], text: [], walks: false },
  NotebookRead: { path: ['notebook_path'], text: [], walks: false },
  Grep: { path: ['path'], text: ['pattern', 'glob'], walks: true },
  Glob: { path: ['path'], text: ['pattern'], walks: true },
  LS: { path: ['path'], text: [], walks: true },
};

export function isReadTool(toolName: string): boolean {
  return Object.hasOwn(READ_FIELDS, toolName);
}

/** A read tool's call against the held-out facts: the verdict for its path and its pattern. */
export function readToolVerdict(f: HeldoutFacts, toolName: string, cwd: string, input: Record<string, unknown>): ReadVerdict {
  const fields = READ_FIELDS[toolName];
  if (fields === undefined) return { hidden: false };
  for (const key of fields.path) {
    const raw = input[key];
    if (typeof raw !== 'string' || raw === '') continue;
    const v = pathReachesHeldout(f, canonicalize(path.resolve(cwd, raw)), fields.walks);
    if (v.hidden) return v;
  }
  for (const key of fields.text) {
    const raw = input[key];
    if (typeof raw !== 'string') continue;
    const v = textNamesHeldout(f, raw);
    if (v.hidden) return v;
    if (key === 'glob' || toolName === 'Glob') {
      const g = globNamesHeldout(f, raw);
      if (g.hidden) return g;
    }
    // A Glob pattern is a path too (`/repo/.git/**`).
    if (toolName === 'Glob' && (raw.startsWith('/') || raw.startsWith('~'))) {
      const literal = raw.split('/').filter((seg) => !/[*?[\]{}]/.test(seg)).join('/');
      const p = pathReachesHeldout(f, canonicalize(path.resolve(cwd, literal || '/')), true);
      if (p.hidden) return p;
    }
  }
  return { hidden: false };
}

/** Every string in an MCP tool's arguments: a path that resolves to the store or a held-out file, or text naming them. */
export function mcpVerdict(f: HeldoutFacts, cwd: string, input: unknown): ReadVerdict {
  const strings: string[] = [];
  const walk = (v: unknown, depth: number) => {
    if (strings.length >= 200 || depth > 6) return;
    if (typeof v === 'string') strings.push(v);
    else if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) walk(x, depth + 1);
  };
  walk(input, 0);
  for (const s of strings) {
    const named = textNamesHeldout(f, s);
    if (named.hidden) return named;
    if (s.length < 4096 && !s.includes('\n') && (s.startsWith('/') || s.startsWith('.') || s.includes('/'))) {
      const v = pathReachesHeldout(f, canonicalize(path.resolve(cwd, s)), true);
      if (v.hidden) return v;
    }
  }
  return { hidden: false };
}
