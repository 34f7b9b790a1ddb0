/** PreToolUse inputs shaped like the ones Claude Code sends (captured fields, overridable). */
export interface EventOverrides {
  cwd: string;
  agent_type?: string;
  agent_id?: string;
  [key: string]: unknown;
}

function base(o: EventOverrides, tool_name: string, tool_input: Record<string, unknown>): Record<string, unknown> {
  const { agent_type, agent_id, ...rest } = o;
  return {
    session_id: 'b3b4c6e2-5a41-4c1e-9a0f-2f8c1d0e7a11',
    transcript_path: '/tmp/transcript.jsonl',
    hook_event_name: 'PreToolUse',
    permission_mode: 'default',
    tool_name,
    tool_input,
    tool_use_id: 'toolu_01ABCDEF',
    ...(agent_type !== undefined ? { agent_type, agent_id: agent_id ?? 'a1b2c3d4' } : {}),
    ...rest,
  };
}

export const ev = {
  write: (o: EventOverrides, file_path: string, content = 'x\n') => base(o, 'Write', { file_path, content }),
  edit: (o: EventOverrides, file_path: string, old_string: string, new_string: string, replace_all = false) =>
    base(o, 'Edit', { file_path, old_string, new_string, replace_all }),
  multiEdit: (o: EventOverrides, file_path: string, edits: { old_string: string; new_string: string }[]) => base(o, 'MultiEdit', { file_path, edits }),
  notebook: (o: EventOverrides, notebook_path: string, new_source: string, extra: Record<string, unknown> = {}) =>
    base(o, 'NotebookEdit', { notebook_path, new_source, ...extra }),
  bash: (o: EventOverrides, command: string) => base(o, 'Bash', { command, description: 'run a command' }),
};
