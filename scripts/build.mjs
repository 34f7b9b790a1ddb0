// Builds dist/: what a marketplace install runs with plain node, nothing installed (ADR 007).
//
//   dist/hook.cjs     the hook's entry: the quick check only, CommonJS (node starts a .mjs file
//                     with its ES module loader, which costs more than the whole quick check)
//   dist/hook/*.cjs   the rest of the hook, split by esbuild into the parts each path needs,
//                     loaded with ordinary require() through src/hooks/lazy/* when a path needs them
//   dist/hook.mjs     the old entry, kept so existing hook commands and scripts still work
//   dist/cli.mjs      the CLI, one ES module bundle
import { build, transform } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

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

/** The lazily loaded parts: the src/hooks/<name>.ts that a loader in src/hooks/lazy/ imports with import('../<name>.js'). */
const LAZY = readdirSync('src/hooks/lazy')
  .filter((f) => f.endsWith('.ts'))
  .flatMap((f) => [...readFileSync(path.join('src/hooks/lazy', f), 'utf8').matchAll(/import\('\.\.\/(\w+)\.js'\)/g)].map((m) => m[1]));
const LAZY_DIR = 'hook';

// The parts: esbuild splits only ES modules, so split as ESM, then turn each module into CommonJS.
// Shared code (the decision core, minimatch, the path helpers) lands in one module, once. Every
// module is named by a hash of its content (esbuild's hash covers what it imports): the code
// cache relies on it.
const parts = await build({
  ...common,
  entryPoints: Object.fromEntries(LAZY.map((name) => [name, `src/hooks/${name}.ts`])),
  // ASCII only (other characters escaped): node reads an ASCII file into a one-byte string with
  // no decoding, and V8 scans one-byte source faster; a single '…' made the whole pack two-byte.
  charset: 'ascii',
  outdir: path.join('dist', LAZY_DIR),
  outExtension: { '.js': '.cjs' },
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  format: 'esm',
  splitting: true,
  metafile: true,
  write: false,
});
const cjsOf = new Map(
  await Promise.all(
    parts.outputFiles.map(async (o) => {
      const cjs = await transform(o.text, { loader: 'js', format: 'cjs', platform: 'node', target: 'node18', minify: common.minify, supported: noDynamicImport, charset: 'ascii' });
      return [path.basename(o.path), cjs.code];
    }),
  ),
);
const outputsByName = Object.fromEntries(Object.entries(parts.metafile.outputs).map(([out, o]) => [path.basename(out), o]));
const partFile = Object.fromEntries(
  Object.entries(outputsByName)
    .filter(([, o]) => o.entryPoint !== undefined)
    .map(([name, o]) => [path.basename(o.entryPoint, '.ts'), name]),
);

/** A module and every module it imports statically: what loading it runs. */
function closure(name, seen = new Set()) {
  if (seen.has(name)) return seen;
  seen.add(name);
  for (const i of outputsByName[name].imports) if (i.kind === 'import-statement' && !i.external) closure(path.basename(i.path), seen);
  return seen;
}

// Each part ships as one pack file: its modules, minus those the entry's part (dispatch) already
// brought. Reading and compiling a file has a cost of its own, larger than most of these modules:
// one file per path, not one per module. src/hooks/lazy/parts.ts reads the packs.
const ROOT = 'dispatch';
const rootModules = closure(partFile[ROOT]);
const partFiles = Object.entries(partFile).map(([part, name]) => {
  const modules = [...closure(name)].filter((m) => part === ROOT || !rootModules.has(m));
  const body = modules.map((m) => `${JSON.stringify(m)}: function (exports, require, module, __filename, __dirname) {\n${cjsOf.get(m)}\n}`).join(',\n');
  return { path: path.resolve('dist', LAZY_DIR, name), text: `// tdd-gate: the ${part} part, packed (scripts/build.mjs)\nmodule.exports = {\n${body}\n};\n` };
});

// The loader of the parts (src/hooks/lazy/parts.ts), which compiles them with the code cache.
const LOADER = 'load.cjs';
const loader = await build({ ...common, entryPoints: ['src/hooks/lazy/parts.ts'], outfile: path.join('dist', LAZY_DIR, LOADER), format: 'cjs', write: false });

// The entry: a lazy loader's import('../<name>.js') becomes loadPart() of the part's file.
const entry = await build({
  ...common,
  entryPoints: { hook: 'src/bin/hook.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  supported: noDynamicImport,
  write: false,
  plugins: [
    {
      name: 'lazy-parts',
      setup(b) {
        b.onResolve({ filter: /^\.\.\/\w+\.js$/ }, (args) => {
          if (path.basename(args.resolveDir) !== 'lazy') return undefined;
          const name = path.basename(args.path, '.js');
          if (!partFile[name]) throw new Error(`${args.importer}: no part built for ${args.path}`);
          return { path: name, namespace: 'part' };
        });
        b.onLoad({ filter: /.*/, namespace: 'part' }, (args) => ({
          loader: 'js',
          contents: `const dir = require('node:path').join(__dirname, ${JSON.stringify(LAZY_DIR)});\nmodule.exports = require(${JSON.stringify(`./${LAZY_DIR}/${LOADER}`)}).loadPart(dir, ${JSON.stringify(partFile[args.path])}, require);\n`,
        }));
        b.onResolve({ filter: new RegExp(`^\\./${LAZY_DIR}/`) }, (args) => ({ path: args.path, external: true }));
      },
    },
  ],
});

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
  ...entry.outputFiles.map((o) => ({ path: o.path, text: o.text })),
  ...partFiles,
  ...loader.outputFiles.map((o) => ({ path: o.path, text: o.text })),
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
