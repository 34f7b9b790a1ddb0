import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from './hash.js';
import type { CompiledStack } from './loadStack.js';
import { TDD_DIR } from './rules/tddDir.js';
import { gitExec } from './git.js';

const SKIP_DIRS = new Set(['.git', TDD_DIR, 'node_modules']);

function skipped(rel: string): boolean {
  return rel.split('/').some((part) => SKIP_DIRS.has(part));
}

/**
 * Every file of the project, root-relative with "/": tracked plus untracked-but-not-ignored, as
 * git sees them (so build output and dependencies stay out). Falls back to a walk without git.
 */
export function listProjectFiles(root: string): string[] {
  let rels: string[];
  try {
    const out = gitExec(['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 256 * 1024 * 1024,
    });
    rels = out.split('\0').filter((r) => r.length > 0);
  } catch {
    rels = walk(root, '');
  }
  const unique = [...new Set(rels)].filter((r) => !skipped(r));
  return unique.filter((r) => isFile(path.join(root, r))).sort();
}

function isFile(abs: string): boolean {
  try {
    return statSync(abs).isFile();
  } catch {
    return false;
  }
}

function walk(root: string, rel: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
    if (SKIP_DIRS.has(entry.name)) continue;
    const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) out.push(...walk(root, child));
    else if (entry.isFile()) out.push(child);
  }
  return out;
}

interface ProjectFiles {
  /** Test files and test-config files: frozen together. */
  tests: string[];
  sources: string[];
}

/** DESIGN §2: a file matching both the test and the source globs is a test file. */
export function classifyFiles(stack: CompiledStack, rels: readonly string[]): ProjectFiles {
  const tests: string[] = [];
  const sources: string[] = [];
  for (const rel of rels) {
    if (stack.isTest(rel) || stack.isTestConfig(rel)) tests.push(rel);
    else if (stack.isSource(rel)) sources.push(rel);
  }
  return { tests, sources };
}

/** sha256 of each file's raw bytes; a file that vanished meanwhile is left out. */
export function hashFiles(root: string, rels: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of rels) {
    const h = hashFile(root, rel);
    if (h !== null) out[rel] = h;
  }
  return out;
}

export function hashFile(root: string, rel: string): string | null {
  try {
    return sha256Hex(readFileSync(path.join(root, rel)));
  } catch {
    return null;
  }
}
