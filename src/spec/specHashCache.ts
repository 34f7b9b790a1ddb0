import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeAtomic } from '../state/atomicWrite.js';
import { specHash } from '../state/hash.js';
import { sha256Hex } from '../state/sha256.js';
import { isSha256Hex } from '../state/schema/handChecks.js';

/** A change this recent may share its timestamps with the next one: not remembered yet. */
const SETTLED_NS = 2_000_000_000n;

interface Entry {
  file: string;
  identity: string;
  hash: string;
}

/**
 * The SPEC's live normalized hash (DESIGN §2), or null when it cannot be read. In GREEN and
 * REFACTOR the gate checks it on every test or source write, and hashing a large SPEC each time
 * cost more than node's start-up (a 1 MB SPEC: about 70 M instructions on Node 22). So the hash is
 * remembered with the file's identity — device, inode, size, and the modification and
 * status-change times in nanoseconds — and reused while the identity holds: any write or
 * rename changes the status-change time, which no unprivileged process can set back. As git
 * does for racily clean files, a file changed within the last two seconds is not remembered,
 * so a second change inside the same timestamp tick cannot hide behind the first.
 *
 * The entries live in ${CLAUDE_PLUGIN_DATA}/spec-hash, a control location the gate guards like the
 * plugin's own code (see src/hooks/lazy/parts.ts); without it, the SPEC is hashed every time.
 */
export function liveSpecHash(file: string, env: NodeJS.ProcessEnv = process.env): string | null {
  let identity: string;
  let changedNs: bigint;
  try {
    const st = statSync(file, { bigint: true });
    identity = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
    changedNs = st.ctimeNs > st.mtimeNs ? st.ctimeNs : st.mtimeNs;
  } catch {
    return null;
  }
  const data = env.CLAUDE_PLUGIN_DATA;
  const entryFile = data !== undefined && path.isAbsolute(data) ? path.join(data, 'spec-hash', `${sha256Hex(file).slice(0, 32)}.json`) : null;
  const known = entryFile === null ? null : readEntry(entryFile);
  if (known !== null && known.file === file && known.identity === identity) return known.hash;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const hash = specHash(text);
  if (entryFile !== null && BigInt(Date.now()) * 1_000_000n - changedNs > SETTLED_NS) {
    writeEntry(entryFile, { file, identity, hash });
  }
  return hash;
}

function readEntry(entryFile: string): Entry | null {
  try {
    const e = JSON.parse(readFileSync(entryFile, 'utf8')) as Partial<Entry> | null;
    return typeof e?.file === 'string' && typeof e.identity === 'string' && typeof e.hash === 'string' && isSha256Hex(e.hash) ? (e as Entry) : null;
  } catch {
    return null;
  }
}

function writeEntry(entryFile: string, entry: Entry): void {
  try {
    writeAtomic(entryFile, JSON.stringify(entry), { mode: 0o600, dirMode: 0o700, fsync: true });
  } catch {
    // Only an optimization: the next call hashes again.
  }
}
