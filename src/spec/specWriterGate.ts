import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { PASS, type Decision } from '../gate/rules/decision.js';
import { decideSpecWriterTool, decideSpecWriterWrite } from '../gate/rules/roles.js';
import { checkPreToolUse } from '../state/schema/handChecks.js';
import { canonicalize, isCaseInsensitive, resolveTarget } from '../state/canonicalPath.js';
import { findRepo } from '../state/repo.js';

const FILE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

/**
 * The spec-writer's confinement to specs/ (docs/spec-formats.md). It drafts before any cycle
 * exists, so this holds with or without a state file: a spec-writer that wrote code before the
 * tests would defeat the cycle it prepares. Outside a repository its cwd stands in for the root.
 * Returns PASS for input it cannot read; the full path then denies it as bad input.
 */
export function gateSpecWriter(input: unknown, env: NodeJS.ProcessEnv): Decision {
  const toolName = (input as { tool_name?: unknown }).tool_name;
  if (typeof toolName !== 'string') return PASS;
  if (!FILE_TOOLS.has(toolName)) return decideSpecWriterTool(toolName);
  // By hand, not by preToolUseSchema: zod stays out of the hook's start-up (ADR 007).
  const parsed = checkPreToolUse(input);
  if (!parsed.ok || parsed.value.tool_name === 'Bash') return PASS;
  const event = parsed.value;
  const raw = event.tool_name === 'NotebookEdit' ? event.tool_input.notebook_path : event.tool_input.file_path;
  const root = findRepo(event.cwd)?.root ?? canonicalize(event.cwd);
  const nocase = isCaseInsensitive(root);
  for (const loc of resolveTarget(root, event.cwd, raw, nocase, env.HOME ?? homedir())) {
    const d = decideSpecWriterWrite(raw, loc.rel, nocase, hardLinked(loc.abs));
    if (d.kind !== 'pass') return d;
  }
  return PASS;
}

function hardLinked(abs: string): boolean {
  try {
    const st = statSync(abs);
    return st.isFile() && st.nlink > 1;
  } catch {
    return false;
  }
}
