import { lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, realpathSync, renameSync, symlinkSync, type Stats } from 'node:fs';
import { sha256Hex } from '../state/hash.js';
import { stubMarked } from '../tamper/rules/stubMarker.js';
import path from 'node:path';
import { writeAtomic } from '../state/atomicWrite.js';
import { fileSha, restoreSettings, settingsGuard, SKIPPED_DIRS, statCachePath, storeBlob, verifiedBlob, type AnchorRecord, type Protected } from '../state/anchor.js';
import type { AnchorPaths } from '../state/anchorPaths.js';
import { entryAt, frozenChange, holdsFrozen, putBackFrozen } from '../state/frozenEntry.js';
import { diffGitConfig } from './rules/gitConfigDiff.js';

/** One object of the control set that moved: put back, or still broken (with how to repair it). */
export interface Finding {
  what: string;
  path: string;
  /** What happened, for the model and the person ("was deleted", "became a link"). */
  change: string;
  /** For what could not be restored: how the person repairs it. */
  fix?: string;
}

export interface IntegrityReport {
  restored: Finding[];
  broken: Finding[];
}

type Cache = Record<string, string>;

function sig(st: Stats | null): string {
  return st === null ? 'absent' : `${st.dev}:${st.ino}:${st.mode}:${st.nlink}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

function readCache(file: string): Cache {
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof c === 'object' && c !== null ? (c as Cache) : {};
  } catch {
    return {};
  }
}

/**
 * One integrity check of the whole control set an anchor watches (ADR 006). Stat first: an object
 * whose stat matches the cache is not read. What moved is hashed; what differs is restored from
 * its copy when one is intact, and reported either way. Cheap when nothing moved.
 */
interface IntegrityOptions {
  /** Is this absolute path a test file or test config of the cycle (for files added after the freeze)? */
  isTest?: (abs: string) => boolean;
  /** Is it a source file (the implementer's to create, wherever the tests live beside it)? */
  isSource?: (abs: string) => boolean;
}

export function checkIntegrity(paths: AnchorPaths, anchor: AnchorRecord | null, extra: readonly Protected[] = [], opts: IntegrityOptions = {}): IntegrityReport {
  const report: IntegrityReport = { restored: [], broken: [] };
  const cacheFile = statCachePath(paths);
  const cache = anchor === null ? {} : readCache(cacheFile);
  let dirty = false;
  const seen = (key: string, st: Stats | null): boolean => cache[key] === sig(st);
  const remember = (key: string, st: Stats | null) => {
    cache[key] = sig(st);
    dirty = true;
  };
  // The last accepted text of a git configuration changed by ordinary git work (by its hash; the text is in the blob store).
  const accepted: Accepted = {
    get: (p) => cache[`accepted:${p}`] ?? null,
    set: (p, sha) => {
      cache[`accepted:${p}`] = sha;
      dirty = true;
    },
  };
  const entries = [...(anchor?.protect ?? []), ...extra];
  for (const entry of entries) {
    switch (entry.kind) {
      case 'file':
        if (entry.gitConfig === true) checkGitConfig(paths, entry, seen, remember, accepted, report);
        else checkFile(paths, entry, seen, remember, report);
        break;
      case 'settings':
        checkSettings(paths, entry, seen, remember, report);
        break;
      case 'realdir':
        checkRealDir(entry, report);
        break;
      case 'tree':
        checkTree(paths, entry, cache, seen, remember, report);
        break;
      case 'nonew':
        if (opts.isTest !== undefined) checkNoNewTests(paths, entry, opts.isTest, opts.isSource ?? (() => false), seen, remember, report);
        break;
      case 'dirchain':
        if (checkDirChain(entry, report, cache)) dirty = true;
        break;
      case 'redsource':
        checkRedSource(paths, entry, seen, remember, report);
        break;
    }
  }
  if (anchor !== null) checkEvents(anchor, seen, remember, report);
  if (anchor !== null && dirty) {
    try {
      writeAtomic(cacheFile, JSON.stringify(cache));
    } catch {
      // the cache only saves work
    }
  }
  return report;
}

type Seen = (key: string, st: Stats | null) => boolean;

/**
 * A placeholder: a plain file with nothing in it, or a device node (the client's sandbox mounts the
 * null device over a denied path that does not exist). No configuration does anything from either.
 */
function isEmptyFile(st: Stats): boolean {
  return (st.isFile() && st.size === 0) || st.isCharacterDevice();
}
type Remember = (key: string, st: Stats | null) => void;

/** Replace whatever is at `dest` (a file, a link, a directory) with a copy of `source`. */
function putBack(source: string, dest: string, sha: string): boolean {
  return putBackFrozen(dest, { sha256: sha }, source);
}

function checkFile(paths: AnchorPaths, entry: Extract<Protected, { kind: 'file' }>, seen: Seen, remember: Remember, report: IntegrityReport): void {
  const st = lstatOrNull(entry.path);
  if (seen(entry.path, st)) return;
  if (entry.sha256 === null) {
    // An empty file configures nothing: the client's sandbox leaves empty placeholders where it
    // denies a missing path. Filled later, its stat moves and it is judged again.
    if (st === null || isEmptyFile(st)) return remember(entry.path, st);
    report.broken.push({ what: entry.what, path: entry.path, change: 'was created', fix: `remove ${entry.path}` });
    return;
  }
  // One meaning of a frozen file for the hook and the CLI (src/state/frozenEntry.ts): a link is a link.
  const want = { sha256: entry.sha256, link: entry.link };
  const now = entryAt(entry.path);
  if (holdsFrozen(now, want)) return remember(entry.path, st);
  const change = frozenChange(now, want);
  const source = want.link !== undefined ? null : [verifiedBlob(paths.home, entry.sha256), entry.copy !== undefined && fileSha(entry.copy) === entry.sha256 ? entry.copy : null].find((s): s is string => s !== null) ?? null;
  if ((want.link !== undefined || source !== null) && putBackFrozen(entry.path, want, source)) {
    remember(entry.path, lstatOrNull(entry.path));
    report.restored.push({ what: entry.what, path: entry.path, change });
    return;
  }
  const as = want.link !== undefined ? ` as a link to ${want.link}` : '';
  report.broken.push({ what: entry.what, path: entry.path, change, fix: `restore ${entry.path}${as} (for a tracked file: \`git checkout -- <file>\`), then retry` });
}

interface Accepted {
  get(path: string): string | null;
  set(path: string, sha: string): void;
}

function readText(file: string | null): string | null {
  if (file === null) return null;
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * A repository's git configuration (src/tamper/rules/gitConfigDiff.ts): ordinary git work writes
 * it (`git push -u`, `git remote add`, `git config user.email`). A change of ordinary keys only is
 * accepted silently and its text kept as the last accepted one; a change of a key that changes
 * what git runs is put back to the last accepted text, naming the key. Always judged against the
 * text recorded when the cycle began, so a lost or altered record of what was accepted never
 * lets a dangerous key through.
 */
function checkGitConfig(paths: AnchorPaths, entry: Extract<Protected, { kind: 'file' }>, seen: Seen, remember: Remember, accepted: Accepted, report: IntegrityReport): void {
  const st = lstatOrNull(entry.path);
  if (seen(entry.path, st)) return;
  const recorded = entry.sha256 === null ? '' : readText(verifiedBlob(paths.home, entry.sha256));
  // A link, a missing file or a lost copy of the recorded text: judged by identity as every control file.
  if (recorded === null || st === null || !st.isFile() || entry.link !== undefined) return checkFile(paths, entry, seen, remember, report);
  let bytes: Buffer;
  try {
    bytes = readFileSync(entry.path);
  } catch {
    return checkFile(paths, entry, seen, remember, report);
  }
  const now = bytes.toString('utf8');
  const sha = sha256Hex(bytes);
  if (sha === entry.sha256 || (entry.sha256 === null && now === '')) return remember(entry.path, st);
  const verdict = diffGitConfig(recorded, now);
  if (verdict.safe) {
    storeBlob(paths.home, entry.path, sha);
    if (verifiedBlob(paths.home, sha) !== null) accepted.set(entry.path, sha);
    return remember(entry.path, st);
  }
  // Put back to the last accepted text when it is itself an ordinary change of the recorded one.
  const last = accepted.get(entry.path);
  const lastBlob = last === null ? null : verifiedBlob(paths.home, last);
  const lastText = readText(lastBlob);
  const back = last !== null && lastBlob !== null && lastText !== null && diffGitConfig(recorded, lastText).safe ? { sha: last, blob: lastBlob } : null;
  const change = `changed what git runs: ${verdict.reason}`;
  if (back !== null && putBack(back.blob, entry.path, back.sha)) {
    remember(entry.path, lstatOrNull(entry.path));
    report.restored.push({ what: entry.what, path: entry.path, change: `${change} (put back as last accepted; remote, branch and user settings stay writable)` });
    return;
  }
  if (entry.sha256 === null) {
    report.broken.push({ what: entry.what, path: entry.path, change, fix: `remove ${entry.path}` });
    return;
  }
  const before = report.restored.length;
  checkFile(paths, entry, seen, remember, report);
  const found = report.restored[before] ?? report.broken[report.broken.length - 1];
  if (found !== undefined && found.path === entry.path) found.change = change;
}

function checkSettings(paths: AnchorPaths, entry: Extract<Protected, { kind: 'settings' }>, seen: Seen, remember: Remember, report: IntegrityReport): void {
  const st = lstatOrNull(entry.path);
  if (seen(entry.path, st)) return;
  if (st !== null && st.isFile() && st.nlink > 1) {
    report.broken.push({
      what: entry.what,
      path: entry.path,
      change: 'has a second name (a hard link elsewhere can rewrite it)',
      fix: `remove the other name of ${entry.path} (find it with \`find / -samefile ${entry.path}\`)`,
    });
    return;
  }
  const want = entry.guard ?? '{}';
  const now = settingsGuard(entry.path) ?? '{}';
  if (st === null && entry.sha256 !== null) {
    const blob = verifiedBlob(paths.home, entry.sha256);
    if (blob !== null && putBack(blob, entry.path, entry.sha256)) {
      remember(entry.path, lstatOrNull(entry.path));
      report.restored.push({ what: entry.what, path: entry.path, change: 'was deleted' });
      return;
    }
  }
  if (now === want && (st === null || !st.isSymbolicLink())) return remember(entry.path, st);
  const change = st !== null && st.isSymbolicLink() ? 'was replaced by a link' : 'had its hook or plugin settings changed';
  if (!now.startsWith('unparsable:') && !want.startsWith('unparsable:') && tryRestoreSettings(entry.path, want, entry.sha256 === null ? null : verifiedBlob(paths.home, entry.sha256))) {
    remember(entry.path, lstatOrNull(entry.path));
    report.restored.push({ what: entry.what, path: entry.path, change });
    return;
  }
  report.broken.push({ what: entry.what, path: entry.path, change, fix: `restore the hook and plugin settings in ${entry.path} (remove \`disableAllHooks\` and any change to \`hooks\`, \`enabledPlugins\` or \`env\`)` });
}

function tryRestoreSettings(file: string, guard: string, blob: string | null): boolean {
  try {
    return restoreSettings(file, guard, blob);
  } catch {
    return false;
  }
}

function checkRealDir(entry: Extract<Protected, { kind: 'realdir' }>, report: IntegrityReport): void {
  const st = lstatOrNull(entry.path);
  if (st === null) return;
  let link: string | null = null;
  if (st.isSymbolicLink()) {
    try {
      link = readlinkSync(entry.path);
    } catch {
      link = null;
    }
  }
  if (entry.link === null ? st.isDirectory() : link === entry.link) return;
  const change = st.isSymbolicLink() ? (entry.link === null ? 'was replaced by a link' : 'now links somewhere else') : entry.link !== null ? 'is no longer the link it was' : 'was replaced by a file';
  if (!entry.repair) {
    report.broken.push({ what: entry.what, path: entry.path, change, fix: `put ${entry.path} back as it was (${entry.link === null ? 'a real directory' : `a link to ${entry.link}`})` });
    return;
  }
  try {
    // The link is moved aside, never followed: what it points at stays as it is.
    renameSync(entry.path, `${entry.path}.tdd-gate-moved-${Date.now()}`);
    if (entry.link === null) mkdirSync(entry.path);
    else symlinkSync(entry.link, entry.path);
    report.restored.push({ what: entry.what, path: entry.path, change: `${change} (moved aside as ${path.basename(entry.path)}.tdd-gate-moved-*)` });
  } catch {
    report.broken.push({ what: entry.what, path: entry.path, change, fix: `put ${entry.path} back as it was` });
  }
}

/** Files a test run leaves beside the tests: never test files. */
const RUN_LEFTOVERS = /^\.|\.(pyc|log|snap|tmp|lock)$/;

function checkNoNewTests(paths: AnchorPaths, entry: Extract<Protected, { kind: 'nonew' }>, isTest: (abs: string) => boolean, isSource: (abs: string) => boolean, seen: Seen, remember: Remember, report: IntegrityReport): void {
  const dirStat = lstatOrNull(entry.path);
  if (seen(`dir:${entry.path}`, dirStat)) return;
  let names: string[] = [];
  try {
    names = readdirSync(entry.path);
  } catch {
    names = [];
  }
  const known = new Set(entry.names);
  let moved = false;
  for (const name of names) {
    if (known.has(name) || RUN_LEFTOVERS.test(name)) continue;
    const abs = path.join(entry.path, name);
    const st = lstatOrNull(abs);
    if (st === null || st.isDirectory() || !isTest(abs)) continue;
    try {
      const aside = path.join(paths.home, 'quarantine', `${Date.now()}-${name}`);
      mkdirSync(path.dirname(aside), { recursive: true });
      renameSync(abs, aside);
      moved = true;
      report.restored.push({ what: `a test file created after the freeze`, path: abs, change: `was added to ${entry.what} (moved out of the way)` });
    } catch {
      report.broken.push({ what: `a test file created after the freeze`, path: abs, change: `was added to ${entry.what}`, fix: `remove ${abs}` });
    }
  }
  remember(`dir:${entry.path}`, moved ? lstatOrNull(entry.path) : dirStat);
  if (entry.sub !== undefined) checkNewBelow(paths, entry as Extract<Protected, { kind: 'nonew' }> & { sub: string[] }, isTest, isSource, seen, remember, report);
}

/**
 * New files in the subdirectories of a frozen test directory: a test file, a test configuration or
 * code a run could load is moved to the anchor's quarantine (with an event, and the model told).
 * Each subdirectory is read only when its stat moved.
 */
function checkNewBelow(paths: AnchorPaths, entry: Extract<Protected, { kind: 'nonew' }> & { sub: string[] }, isTest: (abs: string) => boolean, isSource: (abs: string) => boolean, seen: Seen, remember: Remember, report: IntegrityReport): void {
  const known = new Set(entry.sub);
  const walk = (rel: string, depth: number) => {
    if (depth > 6) return;
    const dir = path.join(entry.path, rel);
    const st = lstatOrNull(dir);
    if (st === null || !st.isDirectory()) return;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    const fresh = !seen(`sub:${dir}`, st);
    for (const name of names) {
      const childRel = `${rel}/${name}`;
      const abs = path.join(entry.path, childRel);
      const cst = lstatOrNull(abs);
      if (cst === null) continue;
      if (cst.isDirectory()) {
        if (!SKIPPED_DIRS.has(name)) walk(childRel, depth + 1);
        continue;
      }
      if (!fresh || known.has(childRel) || RUN_LEFTOVERS.test(name)) continue;
      // Only a new test or test configuration: a run collects those by name. Other code (a build's
      // output, a new source file beside Go's or Rust's tests, a generated module) is ordinary work,
      // and a frozen test cannot load a file that did not exist when it was frozen.
      if (!isTest(abs) || isSource(abs)) continue;
      try {
        const aside = path.join(paths.home, 'quarantine', `${Date.now()}-${childRel.replace(/\//g, '_')}`);
        mkdirSync(path.dirname(aside), { recursive: true });
        renameSync(abs, aside);
        report.restored.push({ what: `the file ${childRel} in ${entry.what}`, path: abs, change: 'was created after the freeze (moved to the quarantine)' });
      } catch {
        report.broken.push({ what: `the file ${childRel} in ${entry.what}`, path: abs, change: 'was created after the freeze', fix: `remove ${abs}` });
      }
    }
    remember(`sub:${dir}`, lstatOrNull(dir));
  };
  let top: string[];
  try {
    top = readdirSync(entry.path);
  } catch {
    return;
  }
  for (const name of top) {
    if (SKIPPED_DIRS.has(name)) continue;
    const st = lstatOrNull(path.join(entry.path, name));
    if (st !== null && st.isDirectory()) walk(name, 1);
  }
}

/**
 * A directory on the way to a frozen file is the one the freeze saw: the same device and inode, a
 * real directory. A link put in its place that points at the original (moved aside) is undone: the
 * original goes back. Anything else fails closed, naming the directory.
 */
function checkDirChain(entry: Extract<Protected, { kind: 'dirchain' }>, report: IntegrityReport, cache: Cache): boolean {
  const fix = `put the original directory back at ${entry.path} (or the user runs \`tdd-gate recover\`, which accepts the directory as it is now once the frozen files in it match)`;
  // Once the directory was found replaced, it stays refused until the person accepts it: the new
  // one the gate puts in its place may be given the original's inode number by the file system.
  const replaced = `dirchain-replaced:${entry.path}:${entry.dev}:${entry.ino}`;
  const st = lstatOrNull(entry.path);
  if (st !== null && st.isDirectory() && st.dev === entry.dev && st.ino === entry.ino) {
    if (cache[replaced] === undefined) return false;
    report.broken.push({ what: entry.what, path: entry.path, change: 'was replaced earlier, and the directory in its place is not accepted yet', fix });
    return false;
  }
  if (st !== null && st.isSymbolicLink()) {
    try {
      const target = realpathSync(entry.path);
      const tst = lstatSync(target);
      if (tst.isDirectory() && tst.dev === entry.dev && tst.ino === entry.ino) {
        renameSync(entry.path, `${entry.path}.tdd-gate-moved-${Date.now()}`);
        renameSync(target, entry.path);
        report.restored.push({ what: entry.what, path: entry.path, change: 'was moved aside and replaced by a link to it (the directory was moved back)' });
        return false;
      }
    } catch {
      // not the original behind the link: reported below
    }
  }
  let change = st === null ? 'was moved or deleted' : st.isSymbolicLink() ? 'was replaced by a link' : st.isDirectory() ? 'was replaced by another directory (moved aside and copied?)' : 'was replaced by a file';
  if (st !== null && !st.isDirectory()) {
    // The link (or file) is moved aside, never followed; the frozen files are put back into a real directory.
    try {
      renameSync(entry.path, `${entry.path}.tdd-gate-moved-${Date.now()}`);
      mkdirSync(entry.path);
      change += ` (moved aside as ${path.basename(entry.path)}.tdd-gate-moved-*; the frozen files are put back into a new directory)`;
    } catch {
      // reported as it is
    }
  }
  report.broken.push({ what: entry.what, path: entry.path, change, fix });
  cache[replaced] = '1';
  return true;
}

/**
 * A source in tdd-red: a change is allowed only as a stub (the marker as a comment at a function,
 * src/tamper/rules/stubMarker.ts); anything else is put back from the copy taken when RED began.
 */
function checkRedSource(paths: AnchorPaths, entry: Extract<Protected, { kind: 'redsource' }>, seen: Seen, remember: Remember, report: IntegrityReport): void {
  const st = lstatOrNull(entry.path);
  if (seen(entry.path, st)) return;
  let text: string | null = null;
  try {
    text = st !== null && st.isFile() ? readFileSync(entry.path, 'utf8') : null;
  } catch {
    text = null;
  }
  if (text !== null && (sha256Hex(text) === entry.sha256 || stubMarked(text))) return remember(entry.path, st);
  const blob = verifiedBlob(paths.home, entry.sha256);
  const change = text === null ? 'was deleted or replaced' : 'was changed in tdd-red without the STUB:TDD marker at a function';
  if (blob !== null && putBack(blob, entry.path, entry.sha256)) {
    remember(entry.path, lstatOrNull(entry.path));
    report.restored.push({ what: entry.what, path: entry.path, change: `${change} (put back as it was when RED began)` });
    return;
  }
  report.broken.push({ what: entry.what, path: entry.path, change, fix: `restore ${entry.path} as it was when RED began (\`git checkout -- <file>\` for a committed file)` });
}

/** Files of an open tree (the shell snapshots) older than this are never sourced again: ignored. */
const OPEN_TREE_RECENT_MS = 48 * 3600_000;

function checkTree(paths: AnchorPaths, entry: Extract<Protected, { kind: 'tree' }>, cache: Cache, seen: Seen, remember: Remember, report: IntegrityReport): void {
  for (const [rel, sha] of Object.entries(entry.files)) {
    const abs = path.join(entry.path, rel);
    checkFile(paths, { kind: 'file', path: abs, sha256: sha, what: `${entry.what}/${rel}` }, seen, remember, report);
  }
  // Files first seen after the anchor (a new session's snapshot): pinned by the hash they had then.
  const tofuPrefix = `tofu:${entry.path}/`;
  for (const [key, sha] of Object.entries(cache)) {
    if (!key.startsWith(tofuPrefix)) continue;
    const abs = key.slice('tofu:'.length);
    checkFile(paths, { kind: 'file', path: abs, sha256: sha, what: `${entry.what}/${path.relative(entry.path, abs)}` }, seen, remember, report);
  }
  // Nothing was added or removed in a flat open tree whose directory stat has not moved.
  const dirStat = lstatOrNull(entry.path);
  if (entry.open && seen(`dir:${entry.path}`, dirStat)) return;
  const present = new Map<string, Stats>();
  const walk = (sub: string) => {
    let names: string[];
    try {
      names = readdirSync(path.join(entry.path, sub));
    } catch {
      return;
    }
    for (const name of names) {
      const rel = sub === '' ? name : `${sub}/${name}`;
      if (rel in entry.files || `tofu:${path.join(entry.path, rel)}` in cache) continue;
      const st = lstatOrNull(path.join(entry.path, rel));
      if (st === null) continue;
      if (st.isDirectory()) walk(rel);
      else if (!isEmptyFile(st)) present.set(rel, st);
    }
  };
  walk('');
  for (const [rel, st] of present) {
    const abs = path.join(entry.path, rel);
    if (entry.open) {
      if (!st.isFile() || Date.now() - st.mtimeMs > OPEN_TREE_RECENT_MS) continue;
      const sha = fileSha(abs);
      if (sha === null) continue;
      storeBlob(paths.home, abs, sha);
      cache[`tofu:${abs}`] = sha;
      remember(abs, st);
      continue;
    }
    try {
      const aside = path.join(paths.home, 'quarantine', `${Date.now()}-${rel.replace(/\//g, '_')}`);
      mkdirSync(path.dirname(aside), { recursive: true });
      renameSync(abs, aside);
      report.restored.push({ what: `${entry.what}/${rel}`, path: abs, change: 'was added (moved out of the way)' });
    } catch {
      report.broken.push({ what: `${entry.what}/${rel}`, path: abs, change: 'was added', fix: `remove ${abs}` });
    }
  }
  if (entry.open) remember(`dir:${entry.path}`, dirStat);
}

/** The event log is append-only and appended only by tdd-gate: it must equal its copy. */
function checkEvents(anchor: AnchorRecord, seen: Seen, remember: Remember, report: IntegrityReport): void {
  const { path: file, copy } = anchor.events;
  const st = lstatOrNull(file);
  if (seen(file, st)) return;
  let want: string;
  try {
    want = readFileSync(copy, 'utf8');
  } catch {
    return; // no copy (a cycle anchored before the log was copied): nothing to compare with
  }
  let now: string | null = null;
  try {
    now = st !== null && st.isFile() ? readFileSync(file, 'utf8') : null;
  } catch {
    now = null;
  }
  // Two hooks appending at once may order their lines differently in the two files.
  if (now !== null && (now === want || (now.length === want.length && sortedLines(now) === sortedLines(want)))) return remember(file, st);
  const change = now === null ? 'was deleted' : now.startsWith(want) ? 'had lines appended by something other than tdd-gate' : 'was rewritten';
  try {
    writeAtomic(file, want);
    remember(file, lstatOrNull(file));
    report.restored.push({ what: 'the event log .tdd/events.jsonl', path: file, change });
  } catch {
    report.broken.push({ what: 'the event log .tdd/events.jsonl', path: file, change, fix: 'restore .tdd/events.jsonl with `tdd-gate recover`' });
  }
}

function sortedLines(text: string): string {
  return text.split('\n').sort().join('\n');
}
