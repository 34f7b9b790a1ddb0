/**
 * DESIGN §2 normalization, before hashing: CRLF → LF, trailing spaces and tabs stripped from
 * every line, trailing blank lines dropped, joined with "\n" and no final newline.
 */
export function normalizeSpec(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const stripped = lines.map((line) => line.replace(/[ \t]+$/, ''));
  let end = stripped.length;
  while (end > 0 && stripped[end - 1] === '') end--;
  return stripped.slice(0, end).join('\n');
}
