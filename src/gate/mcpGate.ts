import path from 'node:path';
import type { WriteTarget } from './rules/facts.js';
import type { OtherToolEvent } from '../state/schema/event.js';
import type { ActiveCycle } from '../state/cycle.js';
import { classesOf } from './targetClasses.js';
import { diskOf } from './fileGate.js';
import { isInstalledDependency } from '../state/rules/envDirs.js';
import { envProbe } from '../state/envProbe.js';

export function isMcpTool(toolName: string): boolean {
  return toolName.startsWith('mcp__');
}

/** The last part of `mcp__<server>__<tool>`. */
function toolPart(toolName: string): string {
  const parts = toolName.split('__');
  return parts[parts.length - 1] ?? toolName;
}

/** Tools named for reading (read_file, list_directory, search_files, get_file_info): nothing to write. */
const READS = /^(read|get|list|search|find|view|show|describe|stat|query|fetch|head|tail|glob|grep|directory_tree|tree|count|lookup|browse|inspect)(_|-|$|[A-Z])/i;

const MAX_STRINGS = 200;

/** Every string in an MCP tool's arguments that could name a file (one line, not too long). */
function pathLike(value: unknown, out: string[], depth = 0): void {
  if (out.length >= MAX_STRINGS || depth > 6) return;
  if (typeof value === 'string') {
    if (value !== '' && value.length < 4096 && !value.includes('\n') && !/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) out.push(value);
    return;
  }
  if (Array.isArray(value)) for (const v of value) pathLike(v, out, depth + 1);
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) pathLike(v, out, depth + 1);
}

/**
 * An MCP tool (a filesystem server the person installed, say) writes wherever its arguments say:
 * each string argument that resolves to a path the phase protects is judged like a Write to it,
 * by the same phase table and role rules (DESIGN §4): these are its targets. Tools named for
 * reading write nothing.
 */
export function mcpTargets(cycle: ActiveCycle, event: OtherToolEvent): WriteTarget[] {
  if (READS.test(toolPart(event.tool_name))) return [];
  const strings: string[] = [];
  pathLike(event.tool_input, strings);
  const targets: WriteTarget[] = [];
  for (const raw of strings) {
    const { classes, real } = classesOf(diskOf(cycle), event.cwd, raw);
    if (classes.every((c) => c === 'other')) continue;
    const inProject = path.relative(cycle.repo.root, real);
    targets.push({ display: `${raw} (argument of ${event.tool_name})`, classes, dependency: !inProject.startsWith('..') && !path.isAbsolute(inProject) && isInstalledDependency(inProject.split(path.sep).join('/'), envProbe(cycle.repo.root)) });
  }
  return targets;
}
