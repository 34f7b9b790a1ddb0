/** Runner output as the next child sees it, and the failure signature. Pure. */

// eslint-disable-next-line no-control-regex -- ANSI escape sequences are control characters
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]|\u001b\][^\u0007]*\u0007/g;

function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

/** Keep at most `max` characters: the tail, where runners print their failure summaries. */
export function truncateTail(s: string, max: number): string {
  if (s.length <= max) return s;
  const marker = `[… ${s.length - max} earlier characters omitted …]\n`;
  return marker + s.slice(s.length - (max - marker.length));
}

/** Keep head and tail (a retry prompt needs the first failure and the summary). */
function truncateMiddle(s: string, max: number): string {
  if (s.length <= max) return s;
  const half = Math.floor((max - 60) / 2);
  return `${s.slice(0, half)}\n[… ${s.length - 2 * half} characters omitted …]\n${s.slice(s.length - half)}`;
}

const RETRY_TEXT_MAX = 6000;

/**
 * The retry prompt of a semantic failure: the raw runner output and nothing else. No analysis, no
 * guess at the cause: the isolation rule keeps one child's reasoning out of the next one's context.
 */
export function retryText(rawOutput: string): string {
  const text = stripAnsi(rawOutput).replace(/\s+$/, '');
  return text === '' ? '(the command printed nothing)' : truncateMiddle(text, RETRY_TEXT_MAX);
}

const FAILURE_LINE = /(✗|✖|×|\bFAIL\b|\bnot ok\b|Error\b|\bexpected\b|\bassert)/i;

/**
 * What "the same test failing with the same error" means across runs: the failure lines of the
 * output with durations, positions and addresses taken out (they change from run to run).
 */
export function failureSignature(rawOutput: string): string {
  const lines = stripAnsi(rawOutput)
    .split('\n')
    .map((l) =>
      l
        .replace(/\(?\d+(\.\d+)?\s?m?s\)?/g, '')
        .replace(/:\d+:\d+/g, '')
        .replace(/0x[0-9a-f]+/gi, '')
        .replace(/(?:file:\/\/)?(?:\/[^\s/:'"()]+)+\/([^\s/:'"()]+)/g, '$1')
        .trim(),
    )
    .filter((l) => l !== '');
  const picked = lines.filter((l) => FAILURE_LINE.test(l)).slice(0, 30);
  return hash32((picked.length > 0 ? picked : lines.slice(-30)).join('\n'));
}

/** FNV-1a, enough to compare two runs (src/handoff stays free of node:crypto). */
function hash32(s: string): string {
  let h = 0x811c9dc5;
  for (let k = 0; k < s.length; k++) {
    h ^= s.charCodeAt(k);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}
