/**
 * Finds the fenced `tdd-result` blocks in a message. Pure.
 *
 * Fences follow CommonMark closely enough for reports: ``` or ~~~ (3 or more), info string after
 * the opening fence, closed by the same character at least as long. A closing fence must not be
 * indented deeper than its opening one: inside the block, YAML block-scalar content (a pasted
 * `output_excerpt` with its own ``` lines) is always indented, so it never closes the block.
 * Blocks inside another fence (an example quoted in ```markdown) do not count.
 */
interface FencedBlock {
  body: string;
  /** The block as written, fences included (for the halt report). */
  raw: string;
  startLine: number;
}

type FenceScan = { blocks: FencedBlock[]; unclosed: number | null };

const OPEN = /^([ \t]*)(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/;

function indentWidth(s: string): number {
  return s.replace(/\t/g, '    ').length;
}

export function findResultBlocks(text: string, info = 'tdd-result'): FenceScan {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: FencedBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    const m = OPEN.exec(lines[i] ?? '');
    if (!m) {
      i++;
      continue;
    }
    const indent = indentWidth(m[1] ?? '');
    const fence = m[2] ?? '```';
    const isResult = (m[3] ?? '').toLowerCase() === info;
    const start = i;
    let end = -1;
    for (let j = i + 1; j < lines.length; j++) {
      const close = /^([ \t]*)(`{3,}|~{3,})[ \t]*$/.exec(lines[j] ?? '');
      if (close && close[2]?.[0] === fence[0] && (close[2]?.length ?? 0) >= fence.length && indentWidth(close[1] ?? '') <= indent) {
        end = j;
        break;
      }
    }
    if (end === -1) {
      if (isResult) return { blocks, unclosed: start + 1 };
      i++;
      continue;
    }
    if (isResult) {
      blocks.push({ body: lines.slice(start + 1, end).join('\n'), raw: lines.slice(start, end + 1).join('\n'), startLine: start + 1 });
    }
    i = end + 1;
  }
  return { blocks, unclosed: null };
}
