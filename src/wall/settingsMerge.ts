import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { writeAtomic } from '../state/atomicWrite.js';
import type { SettingsSection as HardeningSection } from './rules/sandbox.js';
import { isObject, mergeHardening, removeHardening, type Json, type JsonObject } from './rules/sandboxMerge.js';
import { RefusalError } from '../state/rules/errors.js';

/**
 * The person's `.claude/settings.local.json` while hardened mode keeps its section there: the
 * original bytes are saved (in the git directory, out of the sandbox's and the agent's reach) the
 * first time the section goes in, and come back byte for byte when it comes out — or, when the
 * client or the person changed the file meanwhile, the file minus exactly what tdd-gate added.
 */

export const SETTINGS_REL = '.claude/settings.local.json';

/** How long the client takes to apply a changed settings file (measured ~1 s; docs/hardened.md). */
export const RELOAD_MS = 1500;

interface HardeningRecord {
  version: 1;
  /** The person required the OS wall in this worktree (`harden on`, `/tdd … --hardened`): no cycle starts without it. */
  on: boolean;
  /** The person turned the OS wall off for this worktree (`harden off`); absent: the default (on where it can run). */
  off?: boolean;
  /** Placeholder names already in the project when the wall first went up (never removed as strays). */
  presentAtStart?: string[];
  /** The settings file before tdd-gate first touched it; null while nothing is applied. */
  original: { existed: boolean; base64: string; createdDir: boolean } | null;
  /** What is in the file now: its sha256 when we wrote it, the section, when. */
  applied: { sha256: string; section: HardeningSection; at: string; phase: string } | null;
}

function recordDir(gitDir: string): string {
  return path.join(gitDir, 'tdd-gate');
}

function recordPath(gitDir: string): string {
  return path.join(recordDir(gitDir), 'hardened.json');
}

const EMPTY: HardeningRecord = { version: 1, on: false, original: null, applied: null };

export function readRecord(gitDir: string): HardeningRecord {
  let text: string;
  try {
    text = readFileSync(recordPath(gitDir), 'utf8');
  } catch {
    return { ...EMPTY };
  }
  try {
    const parsed = JSON.parse(text) as HardeningRecord;
    if (parsed?.version !== 1 || typeof parsed.on !== 'boolean') throw new Error('unknown shape');
    return parsed;
  } catch (err) {
    throw new RefusalError(`the hardened-mode record ${recordPath(gitDir)} is unreadable (${(err as Error).message}); remove it after checking ${SETTINGS_REL} by hand`, { cause: err });
  }
}

export function writeRecord(gitDir: string, record: HardeningRecord): void {
  writeAtomic(recordPath(gitDir), JSON.stringify(record, null, 2) + '\n');
  // A plain copy beside it, for a person who wants their file back by hand.
  const copy = path.join(recordDir(gitDir), 'settings.local.json.before-hardening');
  if (record.original?.existed) writeAtomic(copy, Buffer.from(record.original.base64, 'base64'));
  else if (existsSync(copy) && record.original === null) unlinkSync(copy);
}

function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

function readBytes(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** JSON with `//` and `/* … *\/` comments and trailing commas tolerated (the bytes are restored as they were). */
export function parseSettings(text: string, file = SETTINGS_REL): JsonObject {
  if (text.trim() === '') return {};
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const m = /^"(?:[^"\\]|\\.)*"/s.exec(text.slice(i));
      const s = m ? m[0] : text.slice(i);
      out += s;
      i += s.length;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  out = out.replace(/,(\s*[}\]])/g, '$1');
  let parsed: Json;
  try {
    parsed = JSON.parse(out) as Json;
  } catch (err) {
    throw new RefusalError(`${file} is not valid JSON (${(err as Error).message}); fix it before turning hardened mode on, so that your settings can be merged and restored exactly`, { cause: err });
  }
  if (!isObject(parsed)) throw new RefusalError(`${file} does not hold a JSON object; fix it before turning hardened mode on`);
  return parsed;
}

function render(obj: JsonObject): string {
  return JSON.stringify(obj, null, 2) + '\n';
}

function sameJson(a: Json, b: Json): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: Json): Json {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (isObject(v)) return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k]!)]));
  return v;
}

/** What the settings file would hold with `section` applied, and whether it differs from now. */
export function applySection(root: string, gitDir: string, section: HardeningSection, phase: string, now = new Date()): { changed: boolean } {
  const file = path.join(root, SETTINGS_REL);
  const record = readRecord(gitDir);
  const current = readBytes(file);
  let original = record.original;
  let base: JsonObject;
  if (record.applied === null || original === null) {
    base = parseSettings(current?.toString('utf8') ?? '');
    original = { existed: current !== null, base64: current?.toString('base64') ?? '', createdDir: !existsSync(path.dirname(file)) };
  } else {
    const originalObj = parseSettings(Buffer.from(original.base64, 'base64').toString('utf8'));
    const currentObj = current === null ? originalObj : parseSettings(current.toString('utf8'));
    base = removeHardening(currentObj, originalObj, record.applied.section);
  }
  const text = render(mergeHardening(base, section));
  const changed = current === null || current.toString('utf8') !== text;
  // The record first: a crash before the file write still restores (the file then equals the original).
  writeRecord(gitDir, { ...record, original, applied: { sha256: sha256(text), section, at: now.toISOString(), phase } });
  if (changed) writeAtomic(file, text);
  return { changed };
}

type RestoreOutcome = 'nothing-applied' | 'byte-exact' | 'merged';

/**
 * Take the section out. Byte for byte when the file is as we left it (or, after edits by the client
 * or the person, when what remains equals the original); otherwise the file minus our additions.
 */
export function restoreSettings(root: string, gitDir: string): RestoreOutcome {
  const file = path.join(root, SETTINGS_REL);
  const record = readRecord(gitDir);
  if (record.applied === null || record.original === null) return 'nothing-applied';
  const original = Buffer.from(record.original.base64, 'base64');
  const current = readBytes(file);
  let outcome: RestoreOutcome = 'byte-exact';
  let next: Buffer | string | null = record.original.existed ? original : null;
  if (current !== null && sha256(current) !== record.applied.sha256) {
    const originalObj = parseSettings(original.toString('utf8'));
    const remaining = removeHardening(parseSettings(current.toString('utf8')), originalObj, record.applied.section);
    if (!sameJson(remaining, originalObj) || (!record.original.existed && Object.keys(remaining).length > 0)) {
      next = render(remaining);
      outcome = 'merged';
    }
  }
  if (next === null) {
    if (current !== null) unlinkSync(file);
    if (record.original.createdDir) {
      try {
        rmdirSync(path.dirname(file));
      } catch {
        // not empty: something else lives there now
      }
    }
  } else {
    writeAtomic(file, next);
  }
  writeRecord(gitDir, { ...record, original: null, applied: null });
  return outcome;
}
