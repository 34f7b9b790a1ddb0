import { appendFileSync, chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { writeAtomic } from './atomicWrite.js';
import { fileURLToPath } from 'node:url';
import { anchorPaths, eventsCopyPath, type AnchorPaths } from './anchorPaths.js';
import { inflight } from './anchorInflight.js';
import { sha256Hex } from './hash.js';
import { findRepo, type Repo } from './repo.js';
import { childPath } from './childPath.js';
import { readOrNull } from './readOrNull.js';
import { TDD_DIR } from './rules/tddDir.js';
import { markProject } from '../tamper/traces.js';
import { recordControlSet } from '../tamper/controlRecord.js';
import { listProjectFiles } from './projectFiles.js';

/**
 * The anchor (DESIGN §2, ADR 006): the record of a branch's cycle that the work tree does not
 * hold. Every state change the CLI makes is journaled here, with a hash chain of the state file,
 * the state itself (so `tdd-gate recover` can put it back), and the control set to watch: each
 * file with its hash and a content-addressed copy, Claude Code's settings by the keys that can
 * switch the gate off, and the directories that must stay real directories.
 */
export interface AnchorRecord {
  version: 1;
  repo: string;
  branch: string;
  state_file: string;
  active: boolean;
  phase: string;
  seq: number;
  /** sha256(previous chain + state_sha256): a rolled-back record breaks it. */
  chain: string;
  state_sha256: string | null;
  state_text: string | null;
  stack_sha256: string | null;
  frozen: Record<string, string>;
  protect: Protected[];
  /** The event log and its copy in the anchor directory (append-only, appended only by tdd-gate). */
  events: { path: string; copy: string };
  at: string;
}

/** One watched object of the control set. */
export type Protected =
  /**
   * A file with this content (a copy is in the blob store); null: must not exist. `link`: the
   * frozen file was a symbolic link to this target, and stays that link (src/state/frozenEntry.ts).
   */
  | { kind: 'file'; path: string; sha256: string | null; what: string; copy?: string; link?: string; control?: boolean; gitConfig?: boolean }
  /** A Claude Code settings file: only the keys that can switch hooks or plugins off are pinned. */
  | { kind: 'settings'; path: string; guard: string | null; sha256: string | null; what: string }
  /**
   * A `.claude` directory: it stays what it was when anchored, a real directory (`link` null) or
   * the same link (a dotfiles setup); becoming a link, or another link, is tampering.
   */
  | { kind: 'realdir'; path: string; link: string | null; repair: boolean; what: string }
  /**
   * A directory that held frozen tests: a test file added to it after the freeze is moved away.
   * `sub`: every file below it at the freeze (project-relative to `path`), so a new file in a
   * subdirectory is found too (absent in records of older versions: the top level only).
   */
  | { kind: 'nonew'; path: string; names: string[]; what: string; sub?: string[] }
  /** A directory on the way to a frozen file: the same real directory (device and inode) as at the freeze. */
  | { kind: 'dirchain'; path: string; dev: number; ino: number; what: string }
  /** A source file in tdd-red: changed only as a stub (the marker at a function), else put back from the copy taken when RED began. */
  | { kind: 'redsource'; path: string; sha256: string; what: string }
  /** A directory of files the client runs or sources: no file changes, none is added (unless `open`). */
  | { kind: 'tree'; path: string; files: Record<string, string>; open: boolean; what: string; control?: boolean };

/** Keys of a Claude Code settings file that can turn this gate off or run code of their own. */
const GUARDED_SETTINGS_KEYS = [
  'disableAllHooks',
  'hooks',
  'enabledPlugins',
  'env',
  'allowManagedHooksOnly',
  'extraKnownMarketplaces',
  'apiKeyHelper',
  'statusLine',
  'awsAuthRefresh',
  'awsCredentialExport',
  'otelHeadersHelper',
  'sandbox',
  'pluginConfigs',
  'fileSuggestion',
  'mcpServers',
  'enableAllProjectMcpServers',
  'enabledMcpjsonServers',
] as const;

const MAX_TREE_FILES = 400;
const MAX_BLOB_BYTES = 8 * 1024 * 1024;

export function fileSha(file: string): string | null {
  try {
    return sha256Hex(readFileSync(file));
  } catch {
    return null;
  }
}

/** The guarded keys of a settings file as one canonical string; null when the file is absent. */
export function settingsGuard(file: string): string | null {
  const text = readOrNull(file);
  if (text === null) return null;
  // An empty file sets nothing (Claude Code's sandbox leaves empty mount points at absent denied paths while a command runs).
  if (text.trim() === '') return '{}';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return `unparsable:${sha256Hex(text)}`;
  }
  return JSON.stringify(pickGuarded(json));
}

function pickGuarded(json: unknown): unknown {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const obj = json as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of GUARDED_SETTINGS_KEYS) if (k in obj) out[k] = obj[k];
  // ~/.claude.json keeps per-project settings under `projects`.
  if (typeof obj.projects === 'object' && obj.projects !== null) {
    const projects: Record<string, unknown> = {};
    for (const [p, v] of Object.entries(obj.projects as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b))) {
      const picked = pickGuarded(v);
      if (picked !== null && typeof picked === 'object' && Object.keys(picked).length > 0) projects[p] = picked;
    }
    if (Object.keys(projects).length > 0) out.projects = projects;
  }
  return out;
}

/** Put the guarded keys of `guard` back into the settings file, leaving every other key as it is. */
export function restoreSettings(file: string, guard: string, blob: string | null): boolean {
  const text = readOrNull(file);
  if (text === null) {
    if (blob === null) return false;
    mkdirSync(path.dirname(file), { recursive: true });
    copyFileSync(blob, file);
    return settingsGuard(file) === guard;
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return false;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return false;
  const want = JSON.parse(guard) as Record<string, unknown>;
  const patch = (target: Record<string, unknown>, source: Record<string, unknown>) => {
    for (const k of GUARDED_SETTINGS_KEYS) {
      if (k in source) target[k] = source[k];
      else delete target[k];
    }
  };
  patch(json, want);
  if (typeof json.projects === 'object' && json.projects !== null) {
    const wantProjects = (want.projects ?? {}) as Record<string, Record<string, unknown>>;
    for (const [p, v] of Object.entries(json.projects as Record<string, unknown>)) {
      if (typeof v === 'object' && v !== null) patch(v as Record<string, unknown>, wantProjects[p] ?? {});
    }
  }
  writeAtomic(file, JSON.stringify(json, null, 2) + '\n');
  return settingsGuard(file) === guard;
}

/** Content-addressed copies: restoring needs only the hash. */
function blobPath(home: string, sha: string): string {
  return path.join(home, 'blobs', sha);
}

export function storeBlob(home: string, file: string, sha: string): void {
  const dest = blobPath(home, sha);
  if (existsSync(dest)) return;
  try {
    if (statSync(file).size > MAX_BLOB_BYTES) return;
    mkdirSync(path.dirname(dest), { recursive: true });
    const tmp = `${dest}.${process.pid}.tmp`;
    copyFileSync(file, tmp);
    if (fileSha(tmp) === sha) renameSync(tmp, dest);
    else rmSync(tmp, { force: true });
  } catch {
    // a missing copy makes the file unrestorable, not the anchor invalid
  }
}

/** The blob for `sha`, only when its content still has that hash. */
export function verifiedBlob(home: string, sha: string): string | null {
  const p = blobPath(home, sha);
  return fileSha(p) === sha ? p : null;
}

function readRecord(file: string): AnchorRecord | null {
  const text = readOrNull(file);
  if (text === null) return null;
  try {
    const r = JSON.parse(text) as AnchorRecord;
    const valid = r.version === 1 && typeof r.seq === 'number' && typeof r.active === 'boolean' && Array.isArray(r.protect) && typeof r.events === 'object' && r.events !== null;
    return valid ? r : null;
  } catch {
    return null;
  }
}

/**
 * The anchor of the branch: the git-dir record or its mirror, whichever is further along. A record
 * that is missing or behind its mirror was deleted or rolled back; it is put back from the other.
 */
/** The record in the git directory and its mirror, as read (null: absent or unreadable), and the one further on. */
interface AnchorCopies {
  own: AnchorRecord | null;
  mirrored: AnchorRecord | null;
  best: AnchorRecord | null;
}

/** Both copies of the branch's anchor record, read only. */
export function readAnchorCopies(paths: AnchorPaths): AnchorCopies {
  const own = readRecord(paths.record);
  const mirrored = paths.mirror === null ? null : readRecord(paths.mirror.record);
  const best = mirrored !== null && (own === null || mirrored.seq > own.seq) ? mirrored : own;
  return { own, mirrored, best };
}

/**
 * The branch's anchor record: of the record in the git directory and its mirror, the one further
 * on (the higher `seq`). Read only; a copy that lags decides nothing (the other holds the record,
 * and the quick check asks both markers). `repairAnchor` is the write that puts it back.
 */
export function readAnchor(paths: AnchorPaths): AnchorRecord | null {
  return readAnchorCopies(paths).best;
}

/**
 * The copy that lags (a lost record, an older one, an active marker that disagrees) rewritten from
 * the one further on, in the git directory and in the mirror alike; writes nothing when both agree
 * (a stat of each marker). Two callers: the CLI's recover and abort, and the hook's cycle loading,
 * where it is the one write and a rare one: two copies disagree only after tampering or a crash
 * between the CLI's two writes, and putting the lagging one back at once means a later call that
 * takes the other copy away finds this one restored. Returns the record further on.
 */
export function repairAnchor(paths: AnchorPaths, copies: AnchorCopies = readAnchorCopies(paths)): AnchorRecord | null {
  const { own, mirrored, best } = copies;
  if (best === null) return null;
  try {
    if (own === null || own.seq < best.seq || !existsSync(paths.active) !== !best.active) publish(paths.record, paths.active, best);
    if (paths.mirror !== null && (mirrored === null || mirrored.seq < best.seq || !existsSync(paths.mirror.active) !== !best.active)) {
      publish(paths.mirror.record, paths.mirror.active, best);
    }
  } catch {
    // best effort: the record in hand still decides
  }
  return best;
}

function publish(recordFile: string, activeFile: string, record: AnchorRecord): void {
  writeAtomic(recordFile, JSON.stringify(record) + '\n');
  if (record.active) {
    mkdirSync(path.dirname(activeFile), { recursive: true });
    writeFileSync(activeFile, `${record.seq}\n`);
  } else {
    rmSync(activeFile, { force: true });
  }
}

interface StateLike {
  phase?: unknown;
  plan_artifact?: unknown;
  frozen?: { files?: unknown; links?: unknown; heldout?: unknown };
  green_entry?: { files?: unknown };
  refactor_base?: { files?: unknown };
}

function hashes(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof value !== 'object' || value === null) return out;
  for (const [rel, h] of Object.entries(value)) if (typeof h === 'string' && safeRel(rel)) out[rel] = h;
  return out;
}

/** The freeze's links (path → target), for safe paths only. */
function linkTargets(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof value !== 'object' || value === null) return out;
  for (const [rel, t] of Object.entries(value)) if (typeof t === 'string' && t !== '' && safeRel(rel)) out[rel] = t;
  return out;
}

function safeRel(rel: string): boolean {
  return rel !== '' && !path.isAbsolute(rel) && !rel.split(/[\\/]/).includes('..');
}

/** The plugin's own installed files (this bundle's directory and its hooks.json), when run from dist/. */
function pluginFiles(): string[] {
  try {
    const here = path.dirname(fileURLToPath(import.meta.url));
    if (path.basename(here) !== 'dist') return [];
    return [path.join(here, 'hook.mjs'), path.join(here, 'cli.mjs'), path.join(here, '..', 'hooks', 'hooks.json')].filter((f) => existsSync(f));
  } catch {
    return [];
  }
}

/** The runner a test command starts, as installed under node_modules/.bin (its real file). */
function runnerFiles(root: string): string[] {
  const stack = readOrNull(path.join(root, TDD_DIR, 'stack.json'));
  if (stack === null) return [];
  let command = '';
  try {
    const value = (JSON.parse(stack) as { test_command?: unknown }).test_command;
    command = typeof value === 'string' ? value : '';
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const word of command.split(/\s+/).slice(0, 6)) {
    if (!/^[A-Za-z0-9@._-]+$/.test(word)) continue;
    const bin = path.join(root, 'node_modules', '.bin', word);
    try {
      out.push(realpathSync(bin));
    } catch {
      // not an installed binary
    }
  }
  return out;
}

function linkOf(p: string): string | null {
  try {
    return readlinkSync(p);
  } catch {
    return null;
  }
}

/** Every file below `dir` (relative, posix), bounded; run leftovers' folders skipped. */
/** Every file below `dir` (to tell a new one), or undefined when there are too many to list: then nothing below is judged new. */
function filesBelow(dir: string): string[] | undefined {
  const out: string[] = [];
  const walk = (sub: string, depth: number) => {
    if (depth > 6 || out.length >= 4000) return;
    let names: string[];
    try {
      names = readdirSync(sub === '' ? dir : path.join(dir, sub));
    } catch {
      return;
    }
    for (const name of names) {
      const rel = sub === '' ? name : `${sub}/${name}`;
      let st;
      try {
        st = lstatSync(path.join(dir, rel));
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (!SKIPPED_DIRS.has(name)) walk(rel, depth + 1);
      } else out.push(rel);
    }
  };
  walk('', 0);
  return out.length >= 4000 ? undefined : out;
}

/** Folders a run or a tool leaves beside tests: never searched for new tests. */
export const SKIPPED_DIRS = new Set(['node_modules', '__pycache__', '.pytest_cache', '__snapshots__', '.git', 'target', 'coverage', '.venv', 'venv']);

/** The source files of the cycle when RED begins, each with a copy in the blob store. */
function redSources(root: string, anchorHome: string, state: StateLike & { baseline?: { sources?: unknown } }): Protected[] {
  const out: Protected[] = [];
  const sources = hashes(state.baseline?.sources);
  for (const rel of Object.keys(sources).slice(0, 2000)) {
    const abs = path.join(root, rel);
    const sha = fileSha(abs);
    if (sha === null) continue;
    storeBlob(anchorHome, abs, sha);
    out.push({ kind: 'redsource', path: abs, sha256: sha, what: `the source file ${rel}` });
  }
  return out;
}

function listTree(dir: string, recentOnly = false): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (sub: string) => {
    let names: string[];
    try {
      names = readdirSync(path.join(dir, sub));
    } catch {
      return;
    }
    for (const name of names) {
      if (Object.keys(out).length >= MAX_TREE_FILES) return;
      const rel = sub === '' ? name : `${sub}/${name}`;
      const abs = path.join(dir, rel);
      let st;
      try {
        st = statSync(abs);
      } catch {
        continue;
      }
      if (st.isDirectory()) walk(rel);
      else if (st.isFile() && (!recentOnly || Date.now() - st.mtimeMs <= 48 * 3600_000)) {
        const h = fileSha(abs);
        if (h !== null) out[rel] = h;
      }
    }
  };
  walk('');
  return out;
}

/** The control set of an active cycle, hashed now (each file's copy goes to the blob store). */
function collectProtected(root: string, home: string, anchorHome: string, state: StateLike): Protected[] {
  const out: Protected[] = [];
  const file = (abs: string, what: string, expect?: string, copy?: string) => {
    const sha = fileSha(abs);
    if (sha === null && expect === undefined) return;
    if (expect !== undefined && sha !== expect) {
      // The CLI recorded `expect` (frozen files): pin that; the snapshot copy restores it.
      out.push({ kind: 'file', path: abs, sha256: expect, what, ...(copy ? { copy } : {}) });
      return;
    }
    if (sha !== null) storeBlob(anchorHome, abs, sha);
    out.push({ kind: 'file', path: abs, sha256: sha, what });
  };
  file(path.join(root, TDD_DIR, 'stack.json'), 'the stack binding .tdd/stack.json');
  if (state.phase !== 'tdd-plan') {
    const plans = listTree(path.join(root, TDD_DIR, 'plans'));
    for (const rel of Object.keys(plans)) file(path.join(root, TDD_DIR, 'plans', rel), `the plan .tdd/plans/${rel}`);
  }
  const frozen = hashes(state.frozen?.files);
  // Held-out files are in the held-out store, not in the work tree, until `done` (docs/heldout.md).
  const heldout = Array.isArray(state.frozen?.heldout) ? (state.frozen.heldout as unknown[]) : [];
  for (const rel of heldout) if (typeof rel === 'string') delete frozen[rel];
  const links = linkTargets(state.frozen?.links);
  for (const [rel, h] of Object.entries(frozen)) {
    const copy = path.join(root, TDD_DIR, 'snapshots', 'frozen', `${rel}.copy`);
    if (fileSha(copy) === h) storeBlob(anchorHome, copy, h);
    const link = links[rel];
    // A frozen link is watched as the link it was (what it points at is not the project's to pin).
    if (link !== undefined) out.push({ kind: 'file', path: path.join(root, rel), sha256: h, what: `the frozen file ${rel}`, copy, link });
    else file(path.join(root, rel), `the frozen file ${rel}`, h, copy);
    file(copy, `the freeze snapshot of ${rel}`, h);
  }
  const frozenDirs = new Set(Object.keys(frozen).map((rel) => path.dirname(path.join(root, rel))));
  for (const dir of frozenDirs) {
    try {
      out.push({ kind: 'nonew', path: dir, names: readdirSync(dir), what: `the frozen test directory ${path.relative(root, dir) || '.'}`, ...optional('sub', filesBelow(dir)) });
    } catch {
      // gone: the frozen files in it are reported on their own
    }
  }
  // Each directory on the way to a frozen file is part of its identity: checked first (integrity.ts).
  const chain = new Set<string>();
  for (const rel of Object.keys(frozen)) {
    const parts = rel.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) chain.add(parts.slice(0, i).join('/'));
  }
  const chainEntries: Protected[] = [];
  for (const rel of [...chain].sort()) {
    try {
      const st = lstatSync(path.join(root, rel));
      if (st.isDirectory()) chainEntries.push({ kind: 'dirchain', path: path.join(root, rel), dev: st.dev, ino: st.ino, what: `the frozen test directory ${rel}` });
    } catch {
      // gone: the frozen files in it are reported on their own
    }
  }
  out.unshift(...chainEntries);
  const snapshots: [string, Record<string, string>][] = [
    ['green-entry', hashes(state.green_entry?.files)],
    ['refactor', hashes(state.refactor_base?.files)],
  ];
  for (const [kind, files] of snapshots) {
    for (const [rel, h] of Object.entries(files)) {
      const copy = path.join(root, TDD_DIR, 'snapshots', kind, `${rel}.copy`);
      if (fileSha(copy) === h) file(copy, `the ${kind} snapshot of ${rel}`);
    }
  }
  for (const dir of [path.join(root, '.claude'), path.join(home, '.claude')]) {
    const own = dir === path.join(root, '.claude');
    out.push({ kind: 'realdir', path: dir, link: linkOf(dir), repair: own, what: own ? 'the project directory .claude' : 'the directory ~/.claude' });
  }
  const settings: [string, string][] = [
    [path.join(root, '.claude', 'settings.json'), 'the project settings .claude/settings.json'],
    [path.join(root, '.claude', 'settings.local.json'), 'the project settings .claude/settings.local.json'],
    [path.join(root, '.mcp.json'), 'the project MCP servers .mcp.json'],
    [path.join(home, '.claude', 'settings.json'), 'the user settings ~/.claude/settings.json'],
    [path.join(home, '.claude', 'settings.local.json'), 'the user settings ~/.claude/settings.local.json'],
    [path.join(home, '.claude.json'), 'the user settings ~/.claude.json'],
  ];
  for (const [abs, what] of settings) {
    const sha = fileSha(abs);
    if (sha !== null) storeBlob(anchorHome, abs, sha);
    out.push({ kind: 'settings', path: abs, guard: settingsGuard(abs), sha256: sha, what });
  }
  const trees: [string, boolean, string][] = [
    [path.join(home, '.claude', 'shell-snapshots'), true, 'the shell snapshots in ~/.claude/shell-snapshots'],
  ];
  for (const base of [path.join(root, '.claude'), path.join(home, '.claude')]) {
    for (const sub of ['agents', 'commands', 'skills', 'hooks', 'workflows']) {
      trees.push([path.join(base, sub), false, `${base === root + '/.claude' ? '.claude' : '~/.claude'}/${sub}`]);
    }
  }
  for (const [dir, open, what] of trees) {
    const files = listTree(dir, open);
    for (const [rel, h] of Object.entries(files)) storeBlob(anchorHome, path.join(dir, rel), h);
    out.push({ kind: 'tree', path: dir, files, open, what });
  }
  for (const abs of runnerFiles(root)) file(abs, `the test runner ${path.relative(root, abs)}`);
  for (const abs of pluginFiles()) file(abs, `the tdd-gate program ${path.basename(abs)}`);
  return out;
}

/** RED's sources: snapshotted when RED begins (advance red), carried while it lasts. */
function redEntries(root: string, paths: AnchorPaths, state: StateLike, prev: AnchorRecord | null): Protected[] {
  if (state.phase !== 'tdd-red') return [];
  if (prev !== null && prev.active && prev.phase === 'tdd-red') return prev.protect.filter((p) => p.kind === 'redsource');
  return redSources(root, paths.home, state);
}

/** The control set: recorded when the cycle begins, then carried from record to record (src/tamper/controlRecord.ts). */
function controlEntries(repo: Repo, home: string, env: NodeJS.ProcessEnv, paths: AnchorPaths, prev: AnchorRecord | null): Protected[] {
  if (prev !== null && prev.active) return prev.protect.filter((p) => (p.kind === 'file' || p.kind === 'tree') && p.control === true);
  return recordControlSet(repo, home, env, safeProjectFiles(repo.root), fileSha, (dir) => listTree(dir), (abs, sha) => storeBlob(paths.home, abs, sha));
}

function safeProjectFiles(root: string): string[] {
  try {
    return listProjectFiles(root);
  } catch {
    return [];
  }
}

/**
 * Journal one state change (called by the state store after every write or removal, under its
 * lock). `text` is the state file as written; null when the CLI removed it.
 */
export function journalStateChange(statePath: string, text: string | null, env: NodeJS.ProcessEnv = process.env, note?: string): void {
  const root = path.dirname(path.dirname(statePath));
  const repo = findRepo(root);
  if (repo === null) return;
  anchorState(repo, statePath, text, env, note);
}

function anchorState(repo: Repo, statePath: string, text: string | null, env: NodeJS.ProcessEnv, note?: string): AnchorRecord {
  const paths = anchorPaths(repo, env);
  const prev = readAnchor(paths);
  let state: StateLike = {};
  try {
    state = text === null ? {} : (JSON.parse(text) as StateLike);
  } catch {
    state = {};
  }
  const phase = typeof state.phase === 'string' ? state.phase : 'none';
  const active = text !== null && phase !== 'done';
  const stateSha = text === null ? null : sha256Hex(text);
  const seq = (prev?.seq ?? 0) + 1;
  const home = env.HOME ?? homedir();
  mkdirSync(paths.home, { recursive: true });
  const eventsPath = path.join(repo.root, TDD_DIR, 'events.jsonl');
  const eventsCopy = eventsCopyPath(paths.home, repo.root);
  // The copy starts as the log is now; from here on tdd-gate appends to both (eventLog.ts).
  if (active && !((prev?.active ?? false) && existsSync(eventsCopy))) {
    const now = readOrNull(eventsPath);
    writeAtomic(eventsCopy, now ?? '');
  }
  if (!active) rmSync(eventsCopy, { force: true });
  const record: AnchorRecord = {
    version: 1,
    repo: repo.root,
    branch: repo.branch,
    state_file: path.basename(statePath),
    active,
    phase,
    seq,
    chain: sha256Hex(`${prev?.chain ?? ''}:${stateSha ?? 'none'}`),
    state_sha256: stateSha,
    state_text: text,
    stack_sha256: fileSha(path.join(repo.root, TDD_DIR, 'stack.json')),
    frozen: hashes(state.frozen?.files),
    protect: active ? [...collectProtected(repo.root, home, paths.home, state), ...controlEntries(repo, home, env, paths, prev), ...redEntries(repo.root, paths, state, prev)] : [],
    events: { path: eventsPath, copy: eventsCopy },
    at: new Date().toISOString(),
  };
  appendFileSync(
    path.join(paths.home, 'journal.jsonl'),
    JSON.stringify({ seq, at: record.at, branch: repo.branch, phase, chain: record.chain, state_sha256: stateSha, stack_sha256: record.stack_sha256, ...(note ? { note } : {}) }) + '\n',
  );
  publish(paths.record, paths.active, record);
  if (paths.mirror !== null) publish(paths.mirror.record, paths.mirror.active, record);
  // The watched set was re-hashed: the hook's stat cache starts over.
  rmSync(statCachePath(paths), { force: true });
  // The project's trace of the open cycle (src/tamper/openMarkers.ts), and the state's copy by
  // its hash, from which `recover` rebuilds the state when only the journal is left.
  markProject(statePath, active);
  markJournal(paths);
  if (text !== null && stateSha !== null) storeBlob(paths.home, statePath, stateSha);
  return record;
}

/**
 * The journal's mode is a stat-only trace for the quick check (src/tamper/openMarkers.ts): 0600
 * while a cycle of any branch of the repository is open, 0644 when none is.
 */
function markJournal(paths: AnchorPaths): void {
  let open = false;
  try {
    open = readdirSync(path.dirname(paths.active)).length > 0;
  } catch {
    open = false;
  }
  try {
    chmodSync(path.join(paths.home, 'journal.jsonl'), open ? 0o600 : 0o644);
  } catch {
    // best effort: one trace among several
  }
}

/**
 * Record the new content of watched files tdd-gate itself just changed, outside a state change
 * (hardened mode's section in `.claude/settings.local.json`): the next integrity check must take
 * them for tdd-gate's own write, not restore what the anchor held before. Only files the active
 * anchor already watches are re-pinned; the state, its chain and `seq` stay as they are. Returns
 * the paths re-pinned.
 */
export function repinWatched(repo: Repo, files: readonly string[], env: NodeJS.ProcessEnv = process.env, note = 'repin'): string[] {
  const paths = anchorPaths(repo, env);
  const prev = readAnchor(paths);
  if (prev === null || !prev.active) return [];
  const wanted = new Set(files.map((f) => path.resolve(f)));
  const done: string[] = [];
  const protect = prev.protect.map((entry): Protected => {
    if (!wanted.has(entry.path)) return entry;
    const sha = fileSha(entry.path);
    if (sha !== null) storeBlob(paths.home, entry.path, sha);
    if (entry.kind === 'settings') {
      done.push(entry.path);
      return { ...entry, guard: settingsGuard(entry.path), sha256: sha };
    }
    if (entry.kind === 'dirchain') {
      try {
        const st = lstatSync(entry.path);
        if (st.isDirectory()) {
          done.push(entry.path);
          return { ...entry, dev: st.dev, ino: st.ino };
        }
      } catch {
        // still gone: stays as recorded
      }
      return entry;
    }
    if (entry.kind === 'file' && entry.copy === undefined) {
      done.push(entry.path);
      return { ...entry, sha256: sha };
    }
    return entry;
  });
  if (done.length === 0) return [];
  const record: AnchorRecord = { ...prev, protect, at: new Date().toISOString() };
  journalNote(paths, { seq: prev.seq, branch: repo.branch, note, files: done });
  publish(paths.record, paths.active, record);
  if (paths.mirror !== null) publish(paths.mirror.record, paths.mirror.active, record);
  // What those files looked like in the hook's stat cache is stale now.
  rmSync(statCachePath(paths), { force: true });
  return done;
}

/** The hook's stat cache: what each watched object looked like when it last matched. */
export function statCachePath(paths: AnchorPaths): string {
  return childPath(paths.home, `stat-${path.basename(paths.record).slice('anchor-'.length)}`);
}

/** A line in the journal that changes no record (a recovery, say). */
export function journalNote(paths: AnchorPaths, entry: Record<string, unknown>): void {
  mkdirSync(paths.home, { recursive: true });
  appendFileSync(path.join(paths.home, 'journal.jsonl'), JSON.stringify({ at: new Date().toISOString(), ...entry }) + '\n');
}

/**
 * When an anchored cycle is active and the state file is not the one the CLI last wrote, the
 * reason to refuse; null when the state may be used (no anchor, an ended one, or a match).
 */
export function anchorMismatch(statePath: string, text: string | null, env: NodeJS.ProcessEnv = process.env): string | null {
  const repo = findRepo(path.dirname(path.dirname(statePath)));
  if (repo === null) return null;
  const anchor = readAnchor(anchorPaths(repo, env));
  if (anchor === null || !anchor.active) return null;
  if (text !== null && sha256Hex(text) === anchor.state_sha256) return null;
  return `the state file ${path.basename(statePath)} ${text === null ? 'is missing' : 'differs from the one the tdd-gate CLI last wrote'}, but the anchor outside the work tree says a cycle is active (phase ${anchor.phase}); something else deleted or rewrote it. Nothing was changed. Run \`tdd-gate recover\` to restore it (the user confirms), or end the cycle with \`tdd-gate abort --reason "<why>"\`.`;
}

/**
 * A subagent's command that is still running, when there is one: a state change now may be that
 * command running the CLI (subagents never change the cycle, DESIGN §3). Null when none is.
 */
export function subagentCommandRunning(statePath: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const repo = findRepo(path.dirname(path.dirname(statePath)));
  if (repo === null) return null;
  const mark = inflight(anchorPaths(repo, env)).find((m) => m.agent_type !== null);
  if (mark === undefined) return null;
  return `a command of the subagent ${mark.agent_type} is still running (${mark.tool}, started ${new Date(mark.at).toISOString()}), and subagents never run the CLI's state-changing verbs; nothing was changed. Wait until the subagent has finished, then run this again from the orchestrator.`;
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
