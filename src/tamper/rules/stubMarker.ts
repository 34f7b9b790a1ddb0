/**
 * The RED stub marker (DESIGN §3): a source file may change in tdd-red only as a stub, and the
 * marker `STUB:TDD` counts only as a comment at the stubbed function (or the class, type or
 * constant it stubs): on the declaration's own line,
 * within the three lines above it, or in the first lines of its body. A `STUB:TDD` in a string, in
 * a variable name, or in a comment far from any function does not count. Pure.
 */
const STUB_MARKER = 'STUB:TDD';

const COMMENT_OPENERS = ['//', '#', '/*', '--', ';', '(*', '{-', '%', "'"];

/** A line that declares a function, a method or a closure (across the languages the stacks run). */
const FUNCTION_LINE =
  /\b(?:function|def|fn|func|fun|sub|proc|lambda)\b|=>|->\s*[\w<[({]|^\s*(?:(?:export|public|private|protected|static|async|override|virtual|inline|pub(?:\([^)]*\))?|internal|final|abstract|synchronized|unsafe|const|extern)\s+)*[\w$<>[\],.*&:? ]+\s*\([^;]*\)\s*(?:[\w<>[\],.*&:? ]*\s*)?(?:\{|:|=|throws\b|where\b|$)/;

/** Where a comment starts on the line, outside a string; -1 when none does. */
function commentStart(line: string): number {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line.charAt(i);
    if (quote !== null) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
      continue;
    }
    // A leading `*` continues a block comment.
    if (ch === '*' && line.slice(0, i).trim() === '') return i;
    for (const o of COMMENT_OPENERS) {
      if (o === "'" || o === '%' || o === ';') continue; // only as whole-line comments, below
      if (line.startsWith(o, i)) return i;
    }
    if (ch === '"' || ch === '`' || ch === "'") quote = ch;
  }
  const lead = line.trimStart();
  if (lead.startsWith(';') || lead.startsWith('%') || lead.startsWith("'")) return line.length - lead.length;
  return -1;
}

/** A declaration the stub stands in for: a class, a type, a constant, a module-level assignment. */
const DECLARATION_LINE = /^\s*(?:(?:export|pub|public|private|protected|static|default|final|abstract)\s+)*(?:class|struct|enum|interface|trait|impl|type|const|let|var|val|object|module|record)\b|^\s*[A-Za-z_][\w.]*\s*(?::[^=]+)?=(?!=)/;

/** A Jupyter notebook's code, cell by cell (the marker lives in a cell's source). */
function notebookCode(text: string): string | null {
  if (!text.trimStart().startsWith('{')) return null;
  try {
    const nb = JSON.parse(text) as { cells?: { source?: unknown }[] };
    if (!Array.isArray(nb.cells)) return null;
    return nb.cells.map((c) => (Array.isArray(c.source) ? c.source.join('') : typeof c.source === 'string' ? c.source : '')).join('\n');
  } catch {
    return null;
  }
}

/** Does the text carry the marker as a comment at a function (or the declaration it stubs)? */
export function stubMarked(text: string): boolean {
  if (!text.includes(STUB_MARKER)) return false;
  const code = notebookCode(text);
  if (code !== null) return stubMarked(code);
  const lines = text.split('\n');
  // A placeholder that holds nothing but comments (the marker among them) implements nothing.
  const onlyComments = lines.every((l) => l.trim() === '' || commentStart(l) === l.length - l.trimStart().length);
  if (onlyComments && lines.some((l) => l.includes(STUB_MARKER))) return true;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const at = line.indexOf(STUB_MARKER);
    if (at < 0) continue;
    const c = commentStart(line);
    if (c < 0 || c > at) continue;
    // The function: this line (a trailing comment), up to three lines below, or up to two above (the body's first lines).
    const near = [line.slice(0, c), ...lines.slice(i + 1, i + 4), ...lines.slice(Math.max(0, i - 2), i)];
    if (near.some((l) => FUNCTION_LINE.test(l) || DECLARATION_LINE.test(l))) return true;
  }
  return false;
}
