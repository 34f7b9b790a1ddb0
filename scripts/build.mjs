// Builds dist/: what a marketplace install runs with plain node, nothing installed (ADR 007).
//
//   dist/hook.cjs     what hooks.json runs: loads the entry with V8's code cache, CommonJS (node
//                     starts a .mjs file with its ES module loader, which costs more than a quick check)
//   dist/hook/hook-*.cjs  the entry: the quick check, then the part for the event
//   dist/hook/*.cjs   the rest of the hook, one self-contained bundle per path (the PreToolUse gate,
//                     the same with the Bash gate, each other event), loaded past the quick check
//   dist/hook.mjs     the old entry, kept so existing hook commands and scripts still work
//   dist/cli.mjs      the CLI, one ES module bundle
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BOOT_FILES, ENTRY_FILES, HOT_PATH_BUILTINS, MAX_BYTES, PART_FORBIDDEN } from './hot-path.mjs';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node18',
  minify: process.env.BUILD_DEBUG !== '1',
  legalComments: 'none',
  charset: 'utf8',
  logLevel: 'warning',
  // The same bytes whether node_modules is a folder or a link to one (a worktree, a CI cache):
  // resolving through the link would change module paths, and with them the chunk hashes.
  preserveSymlinks: true,
};

// CommonJS output keeps `import()` as a real dynamic import, which would start node's ES module
// loader; marked unsupported, esbuild turns it into require() behind a promise.
const noDynamicImport = { 'dynamic-import': false };

/** The lazily loaded parts: the src/hooks/<name>.ts that src/hooks/lazy/loaders.ts imports with import('../<name>.js'). */
const LOADERS = 'src/hooks/lazy/loaders.ts';
const LAZY = [...readFileSync(LOADERS, 'utf8').matchAll(/import\('\.\.\/(\w+)\.js'\)/g)].map((m) => m[1]);
if (LAZY.length === 0) throw new Error(`${LOADERS}: no part found (each part is one import('../<part>.js'))`);
// node's builtins as one ES module per bundle: `import path from 'node:path'` would otherwise make
// every importing module copy the builtin's exports onto an object of its own (esbuild's CommonJS
// interop) each time the hook starts, 20 and more copies of node:path and node:fs in a part.
/** The names each builtin is imported by (`import { a, b } from 'node:x'` anywhere in src/). */
function importedNames() {
  const names = new Map();
  const files = readdirSync('src', { recursive: true }).filter((f) => f.endsWith('.ts'));
  for (const f of files) {
    const text = readFileSync(path.join('src', f), 'utf8');
    // The bundles bind only the names imported somewhere: a namespace would miss the others.
    if (/import\s+\*\s+as\s+[\w$]+\s+from\s+'node:/.test(text)) throw new Error(`src/${f}: import node's builtins by name (import { x } from 'node:…'), not as a namespace`);
    for (const m of text.matchAll(/import\s+(?:[\w$]+\s*,\s*)?\{([^}]*)\}\s*from\s*'(node:[a-z_]+)'/g)) {
      const set = names.get(m[2]) ?? new Set();
      for (const part of m[1].split(',')) {
        const name = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0].trim();
        if (name !== '' && !part.trim().startsWith('type ')) set.add(name);
      }
      names.set(m[2], set);
    }
  }
  return names;
}
const IMPORTED = importedNames();
// Builtins node does not load at start-up, which the hook needs only on rare paths (a missing
// HOME, a spawn in hardened mode, a large SPEC's hash): loaded on the first call of one of their
// functions, not when a part starts (node:os alone costs more than a quick check). Only named
// function imports: a default import of one of these fails the build.
const LAZY_BUILTINS = new Set(['node:os', 'node:child_process', 'node:crypto', 'node:url']);
const BUILTINS = { name: 'builtins-once', setup(b) {
  b.onResolve({ filter: /^node:[a-z_]+$/ }, (args) => (args.namespace === 'builtin' ? { path: args.path, external: true } : { path: args.path, namespace: 'builtin', sideEffects: false }));
  b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => {
    const id = JSON.stringify(args.path);
    const names = [...(IMPORTED.get(args.path) ?? [])].sort();
    const contents = LAZY_BUILTINS.has(args.path)
      ? names.map((n) => `export function ${n}(...args) { return require(${id}).${n}(...args); }`).join('\n')
      : `const m = /* @__PURE__ */ require(${id});\nexport default m;\n${names.map((n) => `export const ${n} = /* @__PURE__ */ (() => m.${n})();`).join('\n')}`;
    return { loader: 'js', contents: `${contents}\n` };
  });
} };
// Libraries a hook part needs only on rare paths (minimatch: a glob with braces, classes or
// extglobs), nested in the part as a function that runs on first use. Bundled into the part's
// own scope, their hundred-odd top-level functions would be created, and read back from the
// code cache, on every call; nested in a function nobody called, they cost next to nothing.
// Only leaf libraries: a nested module is a copy, so it must share no state with the part.
const NESTED = ['minimatch'];
const NESTED_LIBS = { name: 'nested-libs', setup(b) {
  b.onResolve({ filter: new RegExp(`^(?:${NESTED.join('|')})$`) }, (args) => (args.namespace === 'nested' ? undefined : { path: args.path, namespace: 'nested' }));
  b.onLoad({ filter: /.*/, namespace: 'nested' }, async (args) => {
    const lib = await build({ ...common, entryPoints: [args.path], format: 'cjs', charset: 'ascii', write: false, plugins: [BUILTINS] });
    // The names it exports (an ES module build lists them; a CommonJS one does not).
    const esm = await build({ ...common, entryPoints: [args.path], format: 'esm', metafile: true, write: false, plugins: [BUILTINS] });
    const names = Object.values(esm.metafile.outputs)[0].exports.filter((n) => n !== 'default');
    if (names.length === 0) throw new Error(`nested library ${args.path}: no exports found`);
    const getters = names.map((n) => `  get ${n}() { return load().${n}; },`).join('\n');
    return {
      loader: 'js',
      resolveDir: process.cwd(),
      contents: `let lib;\nfunction load() {\n  if (lib === undefined) {\n    const module = { exports: {} };\n    (function (exports, module) {\n${lib.outputFiles[0].text}\n    })(module.exports, module);\n    lib = module.exports;\n  }\n  return lib;\n}\nmodule.exports = {\n  __esModule: true,\n${getters}\n};\n`,
    };
  });
} };
const LAZY_DIR = 'hook';

// The performance rules a build can hold (docs/performance.md; the lists are in scripts/hot-path.mjs).
/** The package a bundled input comes from, or null for the project's own files. */
function packageOf(input) {
  const at = input.lastIndexOf('node_modules/');
  if (at < 0) return null;
  const rest = input.slice(at + 'node_modules/'.length).split('/');
  return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
}
/** A part bundles none of the packages it must not load at its top level. */
function checkPart(name, metafile) {
  const forbidden = PART_FORBIDDEN[name];
  if (forbidden === undefined) throw new Error(`hook part ${name}: no entry in PART_FORBIDDEN of scripts/hot-path.mjs; add one (docs/performance.md)`);
  const found = [...new Set(Object.keys(metafile.inputs).map(packageOf).filter((p) => p !== null && forbidden.includes(p)))];
  if (found.length > 0) throw new Error(`hook part ${name} bundles ${found.join(', ')}, which it must not load (docs/performance.md)`);
}
/**
 * The boot and the entry run on every hook call: exactly the modules listed in scripts/hot-path.mjs
 * (so each is linted with the hot-path rules), only the builtins allowed there, within a size cap.
 */
function checkHotPath(what, metafile, text, files, builtins) {
  const problems = [];
  const own = [];
  for (const input of Object.keys(metafile.inputs)) {
    if (input.startsWith('builtin:')) {
      const id = input.slice('builtin:'.length);
      if (!builtins.includes(id)) problems.push(`loads ${id} (allowed: ${builtins.join(', ')})`);
    } else if (input.startsWith('src/')) own.push(input);
    else if (!input.startsWith('part:')) problems.push(`bundles ${input}`);
  }
  for (const f of own) if (!files.includes(f)) problems.push(`bundles ${f}, which is not in its list in scripts/hot-path.mjs (add it there, and it is linted as hot path)`);
  for (const f of files) if (!own.includes(f)) problems.push(`no longer bundles ${f}; remove it from its list in scripts/hot-path.mjs`);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_BYTES[what]) problems.push(`is ${bytes} bytes, over its cap of ${MAX_BYTES[what]} (scripts/hot-path.mjs)`);
  if (problems.length > 0) throw new Error(`the hook's ${what} (hot path, docs/performance.md):\n  ${problems.join('\n  ')}`);
}
// Each part is one self-contained CommonJS bundle: every module it needs in one scope (no module
// table, no interop wrapper per module, one file to read and compile). Parts share no code at
// run time: a call loads exactly one of them, so a module copied into two parts never meets its
// copy. Named by a hash of the content: the code cache relies on it.
const partFiles = await Promise.all(
  LAZY.map(async (name) => {
    const out = await build({
      ...common,
      entryPoints: [`src/hooks/${name}.ts`],
      format: 'cjs',
      // ASCII only (other characters escaped): node reads an ASCII file into a one-byte string with
      // no decoding, and V8 scans one-byte source faster; a single '…' made the whole part two-byte.
      charset: 'ascii',
      supported: noDynamicImport,
      plugins: [NESTED_LIBS, BUILTINS],
      write: false,
      metafile: true,
    });
    checkPart(name, out.metafile);
    const text = out.outputFiles[0].text;
    const hash = createHash('sha256').update(text).digest('hex').slice(0, 8).toUpperCase();
    return { name, file: `${name}-${hash}.cjs`, path: path.resolve('dist', LAZY_DIR, `${name}-${hash}.cjs`), text };
  }),
);
const partFile = Object.fromEntries(partFiles.map((p) => [p.name, p.file]));
// The entry (src/bin/hook.ts) is built like a part, into dist/hook/ beside the others, so its
// bytecode is cached too; dist/hook.cjs (src/bin/hookBoot.ts) only loads it. In the entry, each
// import('../<name>.js') of src/hooks/lazy/loaders.ts becomes loadPart() of the part's file, reached
// through the require() the boot hands it: one loader, and one code cache to write at exit, for the call.
const PARTS_MODULE = 'tdd-gate:parts';
const LAZY_PARTS = { name: 'lazy-parts', setup(b) {
  b.onResolve({ filter: /^\.\.\/\w+\.js$/ }, (args) => {
    if (args.kind !== 'dynamic-import' || args.importer !== path.resolve(LOADERS)) return undefined;
    const name = path.basename(args.path, '.js');
    if (!partFile[name]) throw new Error(`${args.importer}: no part built for ${args.path}`);
    return { path: name, namespace: 'part' };
  });
  b.onResolve({ filter: new RegExp(`^${PARTS_MODULE}$`) }, (args) => ({ path: args.path, external: true }));
  b.onLoad({ filter: /.*/, namespace: 'part' }, (args) => ({
    loader: 'js',
    contents: `module.exports = require(${JSON.stringify(PARTS_MODULE)}).loadPart(__dirname, ${JSON.stringify(partFile[args.path])}, require);\n`,
  }));
} };
const hookEntry = await build({
  ...common,
  entryPoints: ['src/bin/hook.ts'],
  format: 'cjs',
  charset: 'ascii',
  supported: noDynamicImport,
  plugins: [LAZY_PARTS, NESTED_LIBS, BUILTINS],
  write: false,
  metafile: true,
});
const entryText = hookEntry.outputFiles[0].text;
const entryFile = `hook-${createHash('sha256').update(entryText).digest('hex').slice(0, 8).toUpperCase()}.cjs`;
const boot = await build({
  ...common,
  entryPoints: { hook: 'src/bin/hookBoot.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  charset: 'ascii',
  define: { HOOK_ENTRY: JSON.stringify(entryFile) },
  plugins: [BUILTINS],
  write: false,
  metafile: true,
});
checkHotPath('entry', hookEntry.metafile, entryText, ENTRY_FILES, HOT_PATH_BUILTINS.entry);
checkHotPath('boot', boot.metafile, boot.outputFiles[0].text, BOOT_FILES, HOT_PATH_BUILTINS.boot);
if (!boot.outputFiles[0].text.includes(JSON.stringify(PARTS_MODULE))) throw new Error('src/bin/hookBoot.ts no longer answers the entry\'s require of the parts loader');
const cli = await build({
  ...common,
  entryPoints: { cli: 'src/bin/cli.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  format: 'esm',
  // proper-lockfile and graceful-fs are CommonJS and require() node builtins.
  banner: { js: "import { createRequire as __tddCreateRequire } from 'node:module'; const require = __tddCreateRequire(import.meta.url);" },
  write: false,
});

const outputs = [
  ...partFiles.map((p) => ({ path: p.path, text: p.text })),
  { path: path.resolve('dist', LAZY_DIR, entryFile), text: entryText },
  ...boot.outputFiles.map((o) => ({ path: o.path, text: o.text })),
  { path: path.resolve('dist/hook.mjs'), text: "// The hook is dist/hook.cjs; this entry stays for hook commands written before it.\nimport { createRequire } from 'node:module';\ncreateRequire(import.meta.url)('./hook.cjs');\n" },
  ...cli.outputFiles.map((o) => ({ path: o.path, text: o.text })),
];

// Replace each file by rename, never leave dist/ half-empty: hooks and tests may be running it
// right now. Parts are written before the entry that loads them, stale files removed last.
mkdirSync(path.join('dist', LAZY_DIR), { recursive: true });
for (const o of outputs) {
  const tmp = `${o.path}.${process.pid}.tmp`;
  writeFileSync(tmp, o.text);
  renameSync(tmp, o.path);
}
const wanted = new Set(outputs.map((o) => path.relative('dist', o.path)));
for (const dir of ['', LAZY_DIR]) {
  for (const d of readdirSync(path.join('dist', dir), { withFileTypes: true })) {
    const rel = path.join(dir, d.name);
    if (d.isDirectory() ? rel !== LAZY_DIR : !wanted.has(rel) && !d.name.endsWith('.tmp')) rmSync(path.join('dist', rel), { recursive: true, force: true });
  }
}
