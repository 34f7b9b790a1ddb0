/** What a file-writing tool call leaves on disk, so RED can judge the STUB:TDD marker after the write. */

export const STUB_MARKER = 'STUB:TDD';

interface EditOp {
  old_string: string;
  new_string: string;
  replace_all?: boolean | undefined;
}

function applyEdit(content: string, op: EditOp): string {
  if (op.old_string === '') return op.new_string + content;
  if (op.replace_all) return content.split(op.old_string).join(op.new_string);
  const at = content.indexOf(op.old_string);
  if (at < 0) return content; // Claude Code rejects the edit; the file stays as it is
  return content.slice(0, at) + op.new_string + content.slice(at + op.old_string.length);
}

export type WriteInput =
  | { tool: 'Write'; content: string }
  | { tool: 'Edit'; edits: EditOp[] }
  | { tool: 'NotebookEdit'; new_source?: string | undefined; cell_id?: string | undefined; edit_mode?: string | undefined };

/** Text of the file after the call; `current` is null when the file does not exist yet. */
export function contentAfter(input: WriteInput, current: string | null): string {
  switch (input.tool) {
    case 'Write':
      return input.content;
    case 'Edit':
      return input.edits.reduce(applyEdit, current ?? '');
    case 'NotebookEdit':
      return notebookAfter(input, current);
  }
}

interface Cell {
  id?: unknown;
  source?: unknown;
}

function notebookAfter(
  input: { new_source?: string | undefined; cell_id?: string | undefined; edit_mode?: string | undefined },
  current: string | null,
): string {
  const added = input.new_source ?? '';
  if (current === null) return added;
  let cells: Cell[];
  try {
    const nb = JSON.parse(current) as { cells?: unknown };
    cells = Array.isArray(nb.cells) ? (nb.cells as Cell[]) : [];
  } catch {
    // Not JSON: judge conservatively on the new cell text alone.
    return added;
  }
  const text = (c: Cell) => (Array.isArray(c.source) ? c.source.join('') : typeof c.source === 'string' ? c.source : '');
  const mode = input.edit_mode ?? 'replace';
  const kept = cells.filter((c) => mode === 'insert' || c.id !== input.cell_id).map(text);
  if (mode !== 'delete') kept.push(added);
  return kept.join('\n');
}
