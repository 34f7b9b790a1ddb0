import { readFileSync } from 'node:fs';
import path from 'node:path';

export const STUB_MARKER = 'STUB:TDD';

/** Source files still carrying the RED-phase stub marker. */
export function filesWithStubs(root: string, sources: readonly string[]): string[] {
  return sources.filter((rel) => {
    try {
      return readFileSync(path.join(root, rel), 'utf8').includes(STUB_MARKER);
    } catch {
      return false;
    }
  });
}
