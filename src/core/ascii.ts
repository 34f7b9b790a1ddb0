/**
 * ASCII character classes by hand, one character at a time: on the hook's hot paths a regular
 * expression costs a compilation on every call (ADR 007).
 */
export const isDigit = (ch: string): boolean => ch >= '0' && ch <= '9';

export const isAsciiAlnum = (ch: string): boolean => isDigit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');

/** `\w` of a regular expression without the `u` flag. */
export const isWordChar = (ch: string): boolean => isAsciiAlnum(ch) || ch === '_';
