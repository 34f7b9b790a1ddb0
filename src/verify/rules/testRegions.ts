/**
 * Test regions inside source files (pure): Rust's inline `#[cfg(test)] mod … { … }` modules, and
 * any other item that exists only under test — `#[cfg(test)]` helpers, imports and test data, and
 * `#[test]` functions written at the top of a file (as small crates do). They are tests — frozen
 * in GREEN and REFACTOR — while the rest of the file stays editable.
 */
export function rustTestRegions(text: string): string | null {
  const out = regionSpans(text).map(([a, b]) => text.slice(a, b));
  return out.length > 0 ? out.join('\n') : null;
}

/** The file without its test regions: what is left is production code. */
function withoutRustTestRegions(text: string): string {
  let out = '';
  let at = 0;
  for (const [a, b] of regionSpans(text)) {
    out += text.slice(at, a);
    at = b;
  }
  return out + text.slice(at);
}

/** A write that changes only the test regions of a Rust source is a test write. */
export function onlyRustTestRegionsChange(before: string, after: string): boolean {
  // The blank lines that set a new test function apart belong to no item.
  const rest = (text: string) => withoutRustTestRegions(text).replace(/[ \t]*\n\s*/g, '\n');
  return rest(before) === rest(after) && rustTestRegions(before) !== rustTestRegions(after);
}

/** The file with its test regions blanked out (newlines kept, so line numbers stay). */
export function maskRustTestRegions(text: string): string {
  let out = '';
  let at = 0;
  for (const [a, b] of regionSpans(text)) {
    out += text.slice(at, a) + text.slice(a, b).replace(/[^\n]/g, ' ');
    at = b;
  }
  return out + text.slice(at);
}

// An item only tests compile or run: `#[cfg(test)]` on anything (a module, a helper, a `use`, test
// data) and a test function (`#[test]`, `#[tokio::test]`, …) outside such a module.
const TEST_ATTR = /#\[\s*(?:cfg\s*\(\s*(?:test|all\s*\([^\]]*\btest\b[^\]]*\))\s*\)|(?:[A-Za-z_][\w]*::)*test)\s*\]/g;

function regionSpans(text: string): [number, number][] {
  const out: [number, number][] = [];
  const re = new RegExp(TEST_ATTR.source, 'g');
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const lineStart = text.lastIndexOf('\n', m.index - 1) + 1;
    if (/\/\/|\/\*/.test(text.slice(lineStart, m.index))) continue; // in a comment
    const end = itemEnd(text, m.index + m[0].length);
    out.push([attributesStart(text, lineStart, m.index), end]);
    re.lastIndex = end;
  }
  return out;
}

/** The region starts with the attributes and doc comments stacked on the item (`#[should_panic]` too). */
export function attributesStart(text: string, lineStart: number, at: number): number {
  if (text.slice(lineStart, at).trim() !== '') return at;
  let start = lineStart;
  while (start > 0) {
    const prev = text.lastIndexOf('\n', start - 2) + 1;
    const line = text.slice(prev, start - 1).trim();
    if (!(line.startsWith('#[') && line.endsWith(']')) && !line.startsWith('///')) break;
    start = prev;
  }
  return start;
}

/** Where the item that starts at `k` ends: its `;` or the `}` that closes its body, outside strings and comments. */
export function itemEnd(text: string, k: number): number {
  let depth = 0;
  let braces = false;
  while (k < text.length) {
    const c = text[k] as string;
    if (c === '/' && text[k + 1] === '/') {
      const nl = text.indexOf('\n', k);
      k = nl < 0 ? text.length : nl;
      continue;
    }
    if (c === '/' && text[k + 1] === '*') {
      const close = text.indexOf('*/', k + 2);
      k = close < 0 ? text.length : close + 2;
      continue;
    }
    const raw = /^r(#*)"/.exec(text.slice(k, k + 40));
    if (raw && !/\w/.test(text[k - 1] ?? '')) {
      const close = text.indexOf(`"${raw[1] ?? ''}`, k + raw[0].length);
      k = close < 0 ? text.length : close + 1 + (raw[1]?.length ?? 0);
      continue;
    }
    if (c === '"') {
      k++;
      while (k < text.length && text[k] !== '"') k += text[k] === '\\' ? 2 : 1;
      k++;
      continue;
    }
    if (c === "'") {
      const ch = /^'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'/.exec(text.slice(k, k + 16));
      k += ch ? ch[0].length : 1; // a char literal, or a lifetime's quote
      continue;
    }
    if (c === '(' || c === '[' || c === '{') {
      depth++;
      if (c === '{') braces = true;
    } else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth <= 0 && c === '}' && braces) return k + 1;
    } else if (c === ';' && depth <= 0) return k + 1;
    k++;
  }
  return text.length;
}

/** The frozen part name of a source file's test regions (state `frozen.parts`). */
export function testRegionPart(rel: string): string {
  return `${rel}#cfg(test)`;
}

/**
 * Rust's doc examples: the fenced code blocks in an item's doc comment, which `cargo test` runs
 * as doc tests (named by their item). Item name → its blocks; `//!` docs are the file's own
 * (`crate`); a name used twice (`new` in two impls) is numbered in file order.
 */
export function rustDocExamples(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  const seen = new Map<string, number>();
  let k = 0;
  while (k < lines.length) {
    const doc = /^\s*\/\/([/!])(?!\/)/.exec(lines[k] ?? '');
    if (!doc) {
      k++;
      continue;
    }
    const inner = doc[1] === '!';
    const body: string[] = [];
    while (k < lines.length && new RegExp(`^\\s*//${inner ? '!' : '/(?!/)'}`).test(lines[k] ?? '')) {
      body.push((lines[k] ?? '').replace(/^\s*\/\/[/!] ?/, ''));
      k++;
    }
    const code = fencedBlocks(body);
    if (code === '') continue;
    let name = 'crate';
    if (!inner) {
      // past attributes, blank lines and plain comments (`// STUB:TDD`) to the item itself
      let j = k;
      while (j < lines.length && /^\s*(?:#\[|\/\/|$)/.test(lines[j] ?? '')) j++;
      name = ITEM.exec(lines[j] ?? '')?.[1] ?? 'item';
    }
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    const key = n === 1 ? name : `${name}#${n}`;
    out[key] = out[key] === undefined ? code : `${out[key]}\n${code}`;
  }
  return out;
}

const ITEM = /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|const|unsafe|default|extern(?:\s+"[^"]*")?)\s+)*(?:fn|struct|enum|trait|mod|type|const|static|union|macro_rules!)\s*(\w+)/;

function fencedBlocks(body: readonly string[]): string {
  const out: string[] = [];
  let open = false;
  for (const line of body) {
    if (/^\s*(```|~~~)/.test(line)) {
      open = !open;
      out.push(line.trim());
      continue;
    }
    if (open) out.push(line.trimEnd());
  }
  return out.join('\n');
}

/** The frozen part name of one item's doc examples (state `frozen.parts`). */
export function docExamplePart(rel: string, item: string): string {
  return `${rel}#doc(${item})`;
}
