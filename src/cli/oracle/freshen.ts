import { utimesSync } from 'node:fs';
import path from 'node:path';

/**
 * Cargo decides what to rebuild by modification times. A source put back with an old time after a
 * build from other bytes (build the real code, restore the stub, `touch -d 2000-01-01`) would let
 * the run use the stale test binary, while the receipt records the stub. Every Rust source of a
 * cargo project gets the present time before a run that uses the project's own files, so cargo
 * builds from the bytes the receipt records. (The private copy is written fresh, and Go's and
 * node's caches are keyed by content.)
 */
export function freshenRustSources(root: string, sources: readonly string[], now: Date = new Date()): void {
  for (const rel of sources) {
    if (!rel.endsWith('.rs')) continue;
    try {
      utimesSync(path.join(root, rel), now, now);
    } catch {
      // gone meanwhile: the run reports what it finds
    }
  }
}
