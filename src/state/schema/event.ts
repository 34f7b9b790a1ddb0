import * as z from 'zod/mini';
import './zod.js';

const nonEmpty = () => z.string().check(z.minLength(1));

// Claude Code adds fields over time: tolerate unknown keys, validate only what we use.
const common = {
  session_id: z.optional(z.string()),
  transcript_path: z.optional(z.string()),
  cwd: nonEmpty(),
  hook_event_name: z.optional(z.string()),
  tool_use_id: z.optional(z.string()),
  agent_id: z.optional(z.string()),
  agent_type: z.optional(z.string()),
  permission_mode: z.optional(z.string()),
};

const editOp = {
  old_string: z.string(),
  new_string: z.string(),
  replace_all: z.optional(z.boolean()),
};

const writeInput = z.looseObject({ file_path: nonEmpty(), content: z.string() });
const editInput = z.looseObject({ file_path: nonEmpty(), ...editOp });
const multiEditInput = z.looseObject({ file_path: nonEmpty(), edits: z.array(z.looseObject(editOp)) });
const notebookEditInput = z.looseObject({
  notebook_path: nonEmpty(),
  new_source: z.optional(z.string()),
  cell_id: z.optional(z.string()),
  cell_type: z.optional(z.string()),
  edit_mode: z.optional(z.enum(['replace', 'insert', 'delete'])),
});
const bashInput = z.looseObject({ command: z.string() });

export const preToolUseSchema = z.discriminatedUnion('tool_name', [
  z.looseObject({ ...common, tool_name: z.literal('Write'), tool_input: writeInput }),
  z.looseObject({ ...common, tool_name: z.literal('Edit'), tool_input: editInput }),
  z.looseObject({ ...common, tool_name: z.literal('MultiEdit'), tool_input: multiEditInput }),
  z.looseObject({ ...common, tool_name: z.literal('NotebookEdit'), tool_input: notebookEditInput }),
  z.looseObject({ ...common, tool_name: z.literal('Bash'), tool_input: bashInput }),
]);

export type PreToolUseEvent = z.infer<typeof preToolUseSchema>;
export type FileToolEvent = Exclude<PreToolUseEvent, { tool_name: 'Bash' }>;
export type BashEvent = Extract<PreToolUseEvent, { tool_name: 'Bash' }>;


/**
 * Tools judged by what their arguments name rather than by a fixed shape: MCP tools (`mcp__*`),
 * Monitor (a background command), EnterWorktree (moves the session to another branch).
 */
export const otherToolSchema = z.looseObject({ ...common, tool_name: nonEmpty(), tool_input: z.looseObject({}) });
export type OtherToolEvent = z.infer<typeof otherToolSchema>;
