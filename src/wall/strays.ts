import { lstatSync, readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { readRecord, writeRecord } from './settingsMerge.js';
import { CLIENT_PLACEHOLDER_NAMES, strayPlaceholders, type FileFact } from './rules/controlPaths.js';
import { gitTracked } from '../state/git.js';

/** The placeholder names present in the project now (root-relative). */
function factsOf(root: string): FileFact[] {
  const out: FileFact[] = [];
  const present = CLIENT_PLACEHOLDER_NAMES.filter((rel) => {
    try {
      lstatSync(path.join(root, rel));
      return true;
    } catch {
      return false;
    }
  });
  const tracked = gitTracked(root, present);
  for (const rel of present) {
    let st;
    try {
      st = lstatSync(path.join(root, rel));
    } catch {
      continue;
    }
    const kind = st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other';
    let size = st.size;
    if (kind === 'dir') {
      try {
        size = readdirSync(path.join(root, rel)).length;
      } catch {
        size = 1;
      }
    }
    out.push({ rel, size, kind, tracked: tracked.has(rel) || [...tracked].some((t) => t.startsWith(`${rel}/`)) });
  }
  return out;
}

/** Before the wall first goes up: which of the names were already there (those are never strays). */
export function notePresentAtStart(root: string, gitDir: string): void {
  const record = readRecord(gitDir);
  writeRecord(gitDir, { ...record, presentAtStart: factsOf(root).map((f) => f.rel) });
}

/**
 * Remove the sandbox's leftover placeholders (empty, untracked, not there before the wall went
 * up). Called when the section has just come out, so no sandboxed command can still be using them.
 * Deepest first, so that an emptied `.claude/` goes too. Returns what was removed.
 */
export function removeStrays(root: string, gitDir: string): string[] {
  const present = new Set(readRecord(gitDir).presentAtStart ?? []);
  const removed: string[] = [];
  for (let pass = 0; pass < 2; pass++) {
    for (const rel of strayPlaceholders(factsOf(root), present).sort((a, b) => b.length - a.length)) {
      try {
        const p = path.join(root, rel);
        if (lstatSync(p).isDirectory()) rmdirSync(p);
        else unlinkSync(p);
        if (!removed.includes(rel)) removed.push(rel);
      } catch {
        // in use or changed meanwhile: leave it
      }
    }
  }
  return removed;
}
