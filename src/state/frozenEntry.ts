import { copyFileSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from './hash.js';

/**
 * What a frozen file is, for every part of the gate that compares or restores one: the freeze
 * (which records it), the hook's integrity check (which puts it back), `verify` (which refuses
 * when it moved) and the status reports. A regular file is its bytes; a symbolic link is its
 * target, compared and restored as a link (a virtualenv's `bin/python -> python3`, a config
 * shared by a link). Replacing a test by a link to identical bytes is a change, and so is
 * replacing a frozen link by a copy of what it pointed at.
 */

/** A path as it is now. */
type Entry = { kind: 'file'; sha256: string } | { kind: 'link'; target: string } | { kind: 'missing' } | { kind: 'directory' } | { kind: 'other' };

/** What the freeze recorded of a path: the bytes read through it, and its target when it was a link. */
interface FrozenForm {
  sha256: string;
  link?: string | undefined;
}

export function entryAt(abs: string): Entry {
  try {
    const st = lstatSync(abs);
    if (st.isSymbolicLink()) return { kind: 'link', target: readlinkSync(abs) };
    if (st.isDirectory()) return { kind: 'directory' };
    if (!st.isFile()) return { kind: 'other' };
    return { kind: 'file', sha256: sha256Hex(readFileSync(abs)) };
  } catch {
    return { kind: 'missing' };
  }
}

/** Root-relative form of entryAt. */
export function entryOf(root: string, rel: string): Entry {
  return entryAt(path.join(root, rel));
}

/** The freeze's record of `rel`, from its hashes and its links. */
export function frozenForm(rel: string, sha256: string, links: Record<string, string> | undefined): FrozenForm {
  const link = links !== undefined && Object.hasOwn(links, rel) ? links[rel] : undefined;
  return link === undefined ? { sha256 } : { sha256, link };
}

/** Is the path what the freeze recorded? */
export function holdsFrozen(now: Entry, want: FrozenForm): boolean {
  if (want.link !== undefined) return now.kind === 'link' && now.target === want.link;
  return now.kind === 'file' && now.sha256 === want.sha256;
}

/** How the path moved from what the freeze recorded, for the model and the person. */
export function frozenChange(now: Entry, want: FrozenForm): string {
  switch (now.kind) {
    case 'missing':
      return 'was deleted';
    case 'directory':
      return 'was replaced by a directory';
    case 'other':
      return 'was replaced by something that is not a file';
    case 'link':
      return want.link === undefined ? 'was replaced by a link' : `now links to ${now.target} (was a link to ${want.link})`;
    case 'file':
      return want.link === undefined ? 'was changed' : `was replaced by a regular file (was a link to ${want.link})`;
  }
}

/**
 * Put the frozen form back at `abs`: a link as the same link, a file from `source` (a copy that
 * holds the frozen bytes). Whatever is there is removed first, never followed. True when the path
 * holds the frozen form afterwards.
 */
export function putBackFrozen(abs: string, want: FrozenForm, source: string | null): boolean {
  try {
    if (want.link === undefined && source === null) return false;
    rmSync(abs, { recursive: true, force: true });
    mkdirSync(path.dirname(abs), { recursive: true });
    if (want.link !== undefined) symlinkSync(want.link, abs);
    else if (source !== null) copyFileSync(source, abs);
    return holdsFrozen(entryAt(abs), want);
  } catch {
    return false;
  }
}
