// How often the token reading of runner reach (src/verify/rules/testAware.ts) finds something in
// real code read as project sources: each package's own tests, examples, fixtures and benchmarks
// left out (by folder and file name), Rust test modules masked as the gate masks them. The rates in
// docs/evidence.md come from it.
//
//   node scripts/measure-reach.mjs js node_modules                 every construct
//   node scripts/measure-reach.mjs py <site-packages> runner-state,assert-shadow
//   node scripts/measure-reach.mjs go "$(go env GOROOT)/src" runner-state,assert-shadow
//
// Prints the count and rate, then one line per file with a finding (its first). Each top-level
// entry of the root is a package (a scope's entries for `@scope/`).
// A measurement, not a test.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
const [lang, root, only] = process.argv.slice(2);
const EXT = { js: /\.(c|m)?[jt]sx?$/, py: /\.py$/, go: /\.go$/, rs: /\.rs$/ }[lang ?? ''];
if (EXT === undefined || root === undefined) {
  console.error('usage: node scripts/measure-reach.mjs <js|py|go|rs> <root> [construct,…]');
  process.exit(2);
}
const want = only ? new Set(only.split(',')) : null;

const tmp = mkdtempSync(path.join(tmpdir(), 'measure-reach-'));
const entry = path.join(tmp, 'entry.mjs');
await build({
  stdin: { contents: `export { testAwareness } from './src/verify/rules/testAware.ts';\nexport { maskRustTestRegions } from './src/verify/rules/testRegions.ts';\n`, resolveDir: ROOT, loader: 'ts' },
  bundle: true,
  format: 'esm',
  platform: 'node',
  outfile: entry,
  logLevel: 'warning',
});
const { testAwareness, maskRustTestRegions } = await import(pathToFileURL(entry).href);
rmSync(tmp, { recursive: true, force: true });

const SKIP_DIRS = new Set(['test', 'tests', '__tests__', 'idle_test', 'example', 'examples', 'spec', 'fixtures', '__fixtures__', 'testdata', 'benches', '__mocks__', 'e2e', '.git', 'node_modules', 'site-packages']);
const testFile = (f) => /\.(test|spec)\.[cm]?[jt]sx?$/.test(f) || /\.d\.[cm]?ts$/.test(f) || /^test_.*\.py$|_test\.py$|^conftest\.py$/.test(f) || f.endsWith('_test.go') || f === 'tests.rs';

function walk(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) walk(p, out);
    } else if (e.isFile() && EXT.test(e.name) && !testFile(e.name)) out.push(p);
  }
}

const packages = [];
for (const e of readdirSync(root, { withFileTypes: true })) {
  if (e.name.startsWith('.') || SKIP_DIRS.has(e.name)) continue;
  const p = path.join(root, e.name);
  if (lang === 'js' && e.name.startsWith('@') && e.isDirectory()) for (const s of readdirSync(p)) packages.push(path.join(p, s));
  else packages.push(p);
}

let files = 0;
const hits = [];
for (const pkg of packages) {
  const list = [];
  if (statSync(pkg).isDirectory()) walk(pkg, list);
  else if (EXT.test(pkg) && !testFile(path.basename(pkg))) list.push(pkg);
  for (const f of list) {
    let text;
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    files++;
    const found = testAwareness(lang === 'rs' ? maskRustTestRegions(text) : text, lang, { library: true }).filter((x) => want === null || want.has(x.construct));
    if (found.length > 0) hits.push(`${path.relative(root, f)}:${found[0].line} [${found[0].construct}] ${found[0].what.split(': ')[0]}`);
  }
}
console.log(`${lang}: ${hits.length} of ${files} files (${((100 * hits.length) / Math.max(1, files)).toFixed(2)} %) in ${packages.length} packages`);
for (const h of hits) console.log(`  ${h}`);
