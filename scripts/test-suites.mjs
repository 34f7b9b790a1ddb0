// Which test files make the inner loop (`npm run test:unit`) and which need the build.
//
// A test file belongs to the built suite when it, or a test helper it imports, runs the built
// bundles (dist/) or reads what the build assembles (plugin/), starts a program other than git (node, a test runner, a shell, the real
// client), or lives in test/e2e/: those pay a process start per case, and most need
// `npm run build` first. Everything else runs in process, against the sources: the pure tables,
// and the hook's whole decision through its injected store and clock, over temporary git
// repositories (git is the one program the in-process suite may start: the repositories are the
// live facts). The split is read from the files themselves, so a new test lands on the right side
// without a list to keep.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** What marks a file (or a helper it imports) as needing the build or a child process. */
const BUILT = [
  /\.\.\/dist\//u,
  /['"]dist['"]/u,
  /['"]execa['"]/u,
  /helpers\/hook\.js['"]/u,
  // what `npm run build` assembles: plugin/ (and dist/ in it) must be fresh
  /scripts\/plugin-folder\.mjs['"]/u,
];
const CHILD_PROCESS = /['"]node:child_process['"]/u;
/** A call that starts a program, and the program it names: only `'git'` stays in process. */
const START = /\b(?:spawn|spawnSync|exec|execSync|execFile|execFileSync|fork)\(\s*([^,)]*)/gu;
const TYPE_IMPORT = /^import type [^;]*;$/gmu;
/** Imports of other test files, followed so a helper's child processes count for its users. */
const LOCAL_IMPORT = /from\s+['"](\.{1,2}\/[^'"]+)['"]/gu;

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** True when `file` or a test file it imports runs the build or spawns a process. */
function needsBuild(file, testDir, seen = new Map()) {
  if (seen.has(file)) return seen.get(file);
  seen.set(file, false);
  let text;
  try {
    // A type import runs nothing.
    text = readFileSync(file, 'utf8').replace(TYPE_IMPORT, '');
  } catch {
    return false;
  }
  const starts = CHILD_PROCESS.test(text) && [...text.matchAll(START)].some((m) => m[1].trim() !== "'git'");
  let built = starts || BUILT.some((re) => re.test(text));
  for (const m of text.matchAll(LOCAL_IMPORT)) {
    if (built) break;
    const target = path.resolve(path.dirname(file), m[1]).replace(/\.js$/u, '.ts');
    if (target.startsWith(testDir + path.sep)) built = needsBuild(target, testDir, seen);
  }
  seen.set(file, built);
  return built;
}

/** The test files (relative to `root`, `/`-separated) split into the in-process and the built suite. */
export function testSuites(root) {
  const testDir = path.join(root, 'test');
  const seen = new Map();
  const unit = [];
  const built = [];
  for (const file of walk(testDir).filter((f) => f.endsWith('.test.ts')).sort()) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    (rel.startsWith('test/e2e/') || needsBuild(file, testDir, seen) ? built : unit).push(rel);
  }
  return { unit, built };
}
