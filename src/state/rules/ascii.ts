/**
 * ASCII character classes by hand, one character at a time: on the hook's hot paths a regular
 * expression costs a compilation on every call (ADR 007).
 */
export const isDigit = (ch: string): boolean => ch >= '0' && ch <= '9';

export const isAsciiAlnum = (ch: string): boolean => isDigit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');

/** `\w` of a regular expression without the `u` flag. */
export const isWordChar = (ch: string): boolean => isAsciiAlnum(ch) || ch === '_';

/** `\s` of a regular expression (and what `trim()` removes): white space and line terminators. */
export const isSpace = (ch: string): boolean => {
  const c = ch.charCodeAt(0);
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
};

/** A line terminator: where `.` stops and `^`/`$` of a multiline regular expression match. */
export const isLineTerminator = (ch: string): boolean => ch === '\n' || ch === '\r' || ch === '\u2028' || ch === '\u2029';
