import path from 'node:path';
import type { WriteTarget } from './rules/decideWrite.js';
import { ABSENT_PART, PART_FILES, frozenKeysHit, frozenPackageKeys, partChanges, partText } from '../state/rules/runnerParts.js';
import { sha256Hex } from '../state/hash.js';
import type { ActiveCycle } from '../state/cycle.js';
import { readOrNull } from '../state/readOrNull.js';

/**
 * Wall 1 for the runner settings frozen inside editable files (package.json's test script, the
 * pytest sections). Decided by path first: only a write to one of those project-root files in
 * GREEN/REFACTOR reads or parses anything.
 */

/** The part file (`package.json`, …) this canonical path is, when its settings are frozen in this phase; else null. */
export function partFileOf(cycle: ActiveCycle, real: string): string | null {
  const { phase } = cycle.state;
  if (phase !== 'tdd-green' && phase !== 'tdd-refactor') return null;
  const rel = path.relative(cycle.repo.root, real);
  if (rel === '' || rel.includes(path.sep) || rel.includes('/')) return null;
  const name = cycle.nocase ? rel.toLowerCase() : rel;
  if (!Object.hasOwn(PART_FILES, name)) return null;
  const frozen = (cycle.state as { frozen?: { parts?: Record<string, string> } }).frozen?.parts;
  return frozen?.[PART_FILES[name]!] === undefined ? null : name;
}

/**
 * What a write does to the frozen settings of a part file: undefined when it leaves them as
 * frozen (or as they are), else the keys it changes; keys null when the result is not known.
 * `after` is the file's content after the write (text null: the file is gone; null: not known); `pkgKeys` the keys a package
 * manager's own edit names.
 */
export function frozenPartChange(cycle: ActiveCycle, file: string, real: string, after: { text: string | null } | null, pkgKeys?: string[] | null): WriteTarget['frozenPart'] {
  const want = (cycle.state as { frozen?: { parts?: Record<string, string> } }).frozen?.parts?.[PART_FILES[file] ?? ''];
  if (want === undefined) return undefined;
  const command = cycle.stack.config.test_command;
  const before = readOrNull(real);
  // What the write leaves cannot be known (`jq … > tmp && mv tmp package.json`): the rest of the
  // file is the project's, so the write passes and the part is checked after the call (driftedParts).
  if (pkgKeys !== undefined) {
    if (pkgKeys === null || file !== 'package.json') return undefined;
    const hit = frozenKeysHit(pkgKeys, frozenPackageKeys(before, command));
    return hit.length > 0 ? { file, keys: hit } : undefined;
  }
  if (after === null) return undefined;
  // Leaving the settings as frozen is fine, restoring them included.
  if (sha256Hex(partText(file, after.text, command) ?? ABSENT_PART) === want) return undefined;
  const keys = partChanges(file, before, after.text, command);
  return keys.length > 0 ? { file, keys } : undefined;
}

/**
 * After a Bash call (PostToolUse): the part files whose frozen runner settings are no longer as
 * at the freeze. A command whose result the hook could not compute passed on this check.
 */
export function driftedParts(cycle: ActiveCycle): string[] {
  const { phase } = cycle.state;
  if (phase !== 'tdd-green' && phase !== 'tdd-refactor') return [];
  const frozen = (cycle.state as { frozen?: { parts?: Record<string, string> } }).frozen?.parts;
  if (frozen === undefined) return [];
  const command = cycle.stack.config.test_command;
  const out: string[] = [];
  for (const [file, part] of Object.entries(PART_FILES)) {
    const want = frozen[part];
    if (want === undefined) continue;
    const text = readOrNull(path.join(cycle.repo.root, file));
    if (sha256Hex(partText(file, text, command) ?? ABSENT_PART) !== want) out.push(file);
  }
  return out;
}
