import { readFileSync, rmSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { writeAtomic } from '../../state/atomicWrite.js';

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

/**
 * The oracle's own cargo target folder (cacheDirs().cargoTarget) is built only by the oracle's
 * runs, so a crate need not be rebuilt when nothing changed: only the Rust sources whose bytes
 * differ from the ones the last oracle run built from (recorded in `record`, out of the run's
 * reach) get the present time. A source put back with an old time after a build from other bytes
 * is one of them, since its bytes differ from the last run's; a build of other bytes by anyone
 * else went to another folder.
 */
export function freshenChangedRustSources(root: string, sources: Readonly<Record<string, string>>, record: string, now: Date = new Date()): void {
  let last: Record<string, string> = {};
  try {
    last = JSON.parse(readFileSync(record, 'utf8')) as Record<string, string>;
  } catch {
    last = {};
  }
  freshenRustSources(
    root,
    Object.keys(sources).filter((rel) => last[rel] !== sources[rel]),
    now,
  );
}

/** After an oracle run: the bytes it built from. Written before the run's result is read; a run that ends badly leaves no record (everything is freshened next time). */
export function recordRustSources(sources: Readonly<Record<string, string>>, record: string): void {
  const rs = Object.fromEntries(Object.entries(sources).filter(([rel]) => rel.endsWith('.rs')));
  writeAtomic(record, JSON.stringify(rs));
}

export function forgetRustSources(record: string): void {
  rmSync(record, { force: true });
}
