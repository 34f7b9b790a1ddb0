/**
 * Test regions inside source files (pure): Rust's inline `#[cfg(test)] mod … { … }` modules.
 * They are tests — frozen in GREEN and REFACTOR — while the rest of the file stays editable.
 */
export function rustTestRegions(text: string): string | null {
  const out: string[] = [];
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
    out.push(text.slice(m.index, k));
    re.lastIndex = k;
  }
  return out.length > 0 ? out.join('\n') : null;
}

/** The frozen part name of a source file's test regions (state `frozen.parts`). */
export function testRegionPart(rel: string): string {
  return `${rel}#cfg(test)`;
}
