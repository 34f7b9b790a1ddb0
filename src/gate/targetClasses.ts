import { statSync } from 'node:fs';
import path from 'node:path';
import { classify, type ClassifyContext, type PathClass } from '../state/rules/classify.js';
import { resolveTarget } from '../state/canonicalPath.js';
import { TDD_DIR } from '../state/rules/tddDir.js';

/** What classifying a target needs to know of its project (the file tools and Bash share it). */
export interface DiskContext {
  root: string;
  home: string;
  nocase: boolean;
  classify: ClassifyContext;
  statePath: string;
  /** The runner's installation frozen with the tests (src/verify/rules/installationRoots.ts): absolute paths. */
  runnerRoots?: readonly string[];
}

/**
 * Every class a raw path falls in, resolved from `cwd`. A file with several names is judged by
 * identity too: a second name for a control file is a control file, and a second name inside
 * the project may be a test (writing it would change the test).
 */
export function classesOf(d: DiskContext, cwd: string, raw: string): { classes: PathClass[]; real: string } {
  const locations = resolveTarget(d.root, cwd, raw, d.nocase, d.home);
  const classes = new Set(locations.map((loc) => classify(loc, d.classify)));
  const real = locations[0];
  const linked = real === undefined ? null : hardLinked(real.abs);
  if (linked !== null && real !== undefined) {
    if (controlIdentities(d).has(linked)) classes.add('control');
    if (real.rel !== null && !real.rel.split('/').includes('node_modules')) classes.add('test');
  }
  return { classes: [...classes], real: real?.abs ?? raw };
}

/** `dev:ino` of a file with more than one name; null otherwise. */
function hardLinked(abs: string): string | null {
  try {
    const st = statSync(abs);
    return st.isFile() && st.nlink > 1 ? `${st.dev}:${st.ino}` : null;
  } catch {
    return null;
  }
}

const identities = new WeakMap<ClassifyContext, Set<string>>();

/** The device and inode of every control file that exists, computed once per call and only when a target has several names. */
function controlIdentities(d: DiskContext): Set<string> {
  const known = identities.get(d.classify);
  if (known !== undefined) return known;
  const files = [
    d.statePath,
    path.join(d.root, TDD_DIR, 'stack.json'),
    path.join(d.root, TDD_DIR, 'events.jsonl'),
    path.join(d.root, '.claude', 'settings.json'),
    path.join(d.root, '.claude', 'settings.local.json'),
    path.join(d.root, '.mcp.json'),
    path.join(d.home, '.claude', 'settings.json'),
    path.join(d.home, '.claude', 'settings.local.json'),
    path.join(d.home, '.claude.json'),
    ...d.classify.controlAbs,
  ];
  const ids = new Set<string>();
  for (const f of files) {
    try {
      const st = statSync(f);
      ids.add(`${st.dev}:${st.ino}`);
    } catch {
      // absent
    }
  }
  identities.set(d.classify, ids);
  return ids;
}

/** A file of class test that no test glob names (a runner config, a file the run loads): not a test itself. */
export function runnerConfig(d: DiskContext, real: string): boolean {
  const rel = path.relative(d.root, real).split(path.sep).join('/');
  return !rel.startsWith('..') && !path.isAbsolute(rel) && !d.classify.isTest(rel);
}
