import { readFileSync } from 'node:fs';
import path from 'node:path';
import { specHash } from '../../state/hash.js';
import type { CliState } from '../../state/schema/cliState.js';
import { toolchainAdvice, toolchainMoves, type Toolchain } from '../rules/toolchain.js';
import { TOOLCHAIN_PART } from './outsideConfig.js';
import { toolchainFrom } from './toolchain.js';
import { outOfSight } from '../../heldout/cycle.js';
import { entryOf, frozenForm, holdsFrozen } from '../../state/frozenEntry.js';

interface Drift {
  /** Frozen files whose bytes differ from the freeze, that are gone, or that became (or stopped being) a link. */
  files: string[];
  /** Test files that were not there at the freeze (an unfrozen test is an unreviewed oracle). */
  added: string[];
  /** Runner settings inside editable files (package.json scripts, pytest sections) that changed. */
  parts: string[];
  specMoved: boolean;
  /** What moved in the test command's toolchain since the freeze, one sentence each (src/verify/rules/toolchain.ts). */
  toolchain: string[];
}

/** Frozen files as they are now, compared as what they are: a regular file by content, a link by its target. */
function driftedEntries(root: string, frozen: Record<string, string>, links: Record<string, string> = {}): string[] {
  const out: string[] = [];
  for (const [rel, hash] of Object.entries(frozen)) if (!holdsFrozen(entryOf(root, rel), frozenForm(rel, hash, links))) out.push(rel);
  return out.sort();
}

/** How far the oracle (tests, test configs, runner settings, the SPEC) moved since the freeze. */
export function driftOf(root: string, state: CliState, currentTests: readonly string[] = [], currentParts?: Record<string, string>, currentToolchain?: Toolchain): Drift {
  const frozen = state.frozen?.files ?? {};
  // Held-out files are in the held-out store while out of sight (checked there: src/cli/oracle/run.ts).
  const inStore = outOfSight(state) ? new Set(state.frozen?.heldout ?? []) : new Set<string>();
  const inTree = Object.fromEntries(Object.entries(frozen).filter(([rel]) => !inStore.has(rel)));
  const files = state.frozen ? driftedEntries(root, inTree, state.frozen.links ?? {}) : [];
  const added = state.frozen ? currentTests.filter((rel) => !(rel in frozen)) : [];
  const parts: string[] = [];
  const frozenParts = state.frozen?.parts;
  if (frozenParts && currentParts) {
    for (const [k, h] of Object.entries(frozenParts)) if (currentParts[k] !== h) parts.push(k);
    // A test region that appeared after the freeze is an unreviewed test, like an added file.
    for (const k of Object.keys(currentParts)) if (!(k in frozenParts) && k.endsWith('#cfg(test)')) parts.push(k);
  }
  // The toolchain part is told by what moved in it, when the freeze recorded what it was.
  const frozenToolchain = toolchainFrom(state.frozen?.toolchain);
  let toolchain: string[] = [];
  if (parts.includes(TOOLCHAIN_PART) && frozenToolchain !== null && currentToolchain !== undefined) {
    // What moved decides: a change it forgives (a start-up hook gone) is no drift.
    toolchain = toolchainMoves(frozenToolchain, currentToolchain);
    parts.splice(parts.indexOf(TOOLCHAIN_PART), 1);
  }
  let live: string | null;
  try {
    live = specHash(readFileSync(path.join(root, state.spec_path), 'utf8'));
  } catch {
    live = null;
  }
  return { files, added, parts, specMoved: state.spec_hash !== '' && live !== state.spec_hash, toolchain };
}

const list = (xs: string[]) => `${xs.slice(0, 5).join(', ')}${xs.length > 5 ? ` and ${xs.length - 5} more` : ''}`;

export function driftMessage(d: Drift): string | null {
  const parts: string[] = [];
  if (d.specMoved) parts.push('the SPEC changed since the freeze');
  if (d.files.length > 0) parts.push(`frozen files changed: ${list(d.files)}`);
  if (d.added.length > 0) parts.push(`test files added after the freeze: ${list(d.added)}`);
  if (d.parts.length > 0) parts.push(`the test runner's settings changed: ${list(d.parts)}`);
  const toolchain = d.toolchain.length > 0 ? toolchainAdvice(d.toolchain, 'the freeze') : null;
  if (parts.length === 0) return toolchain;
  const files = `${parts.join('; ')}; restore them (\`git checkout -- <file>\`, or the copies in .tdd/snapshots/frozen/), remove added tests, or re-certify in a new cycle`;
  return toolchain === null ? files : `${files}. And ${toolchain}`;
}
