/**
 * DESIGN §2 normalization, before hashing: CRLF → LF, trailing spaces and tabs stripped from
 * every line, trailing blank lines dropped, joined with "\n" and no final newline. Whole-text
 * regexes rather than a split into lines: the hook hashes the SPEC on GREEN writes, and a
 * 1 MB SPEC costs a few milliseconds this way instead of tens.
 */
export function normalizeSpec(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(/[ \t]+$/gm, '').replace(/\n+$/, '');
}
