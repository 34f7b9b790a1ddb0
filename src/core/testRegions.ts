/**
 * Test regions inside source files (pure): Rust's inline `#[cfg(test)] mod … { … }` modules.
 * They are tests — frozen in GREEN and REFACTOR — while the rest of the file stays editable.
 */
export function rustTestRegions(text: string): string | null {
  const out = regionSpans(text).map(([a, b]) => text.slice(a, b));
  return out.length > 0 ? out.join('\n') : null;
}

/** The file without its test regions: what is left is production code. */
export function withoutRustTestRegions(text: string): string {
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
  return withoutRustTestRegions(before) === withoutRustTestRegions(after) && rustTestRegions(before) !== rustTestRegions(after);
}

function regionSpans(text: string): [number, number][] {
  const out: [number, number][] = [];
  const re = /#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    let depth = 1;
    let k = m.index + m[0].length;
    while (k < text.length && depth > 0) {
      const c = text[k];
      if (c === '{') depth++;
      else if (c === '}') depth--;
      k++;
    }
    out.push([m.index, k]);
    re.lastIndex = k;
  }
  return out;
}

/** The frozen part name of a source file's test regions (state `frozen.parts`). */
export function testRegionPart(rel: string): string {
  return `${rel}#cfg(test)`;
}
