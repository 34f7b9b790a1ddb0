// One self-contained ESM bundle per entry point: a marketplace install runs dist/ with plain node.
import { build } from 'esbuild';
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
};

// proper-lockfile and graceful-fs are CommonJS and require() node builtins.
const requireBanner = "import { createRequire as __tddCreateRequire } from 'node:module'; const require = __tddCreateRequire(import.meta.url);";

/**
 * Lazy modules (src/hooks/lazy/*.ts: `load()` returns `import('../x.js')`) are compiled only when
 * called, so the common "no cycle here" call costs little more than starting node and a Write in
 * GREEN does not pay for the shell parser (ADR 003). Their code travels in the same file, after the
 * entry's code, base64 inside block comments: V8 skips a comment with a scan for its end, while
 * even a string literal must be decoded and allocated. `load()` reads the bundle file once, cuts
 * the module out and compiles it with `new Function`. Nested lazy modules work the same way.
 */
const lazyTexts = new Map();
const bundlePathGlobal = '__tddGateBundlePath';

const lazyModules = {
  name: 'lazy-modules',
  setup(b) {
    b.onResolve({ filter: /\/lazy\/\w+\.js$/ }, (args) => ({
      path: path.resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts')),
      namespace: 'lazy',
    }));
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, async (args) => {
      const loader = readFileSync(args.path, 'utf8');
      const target = /import\('([^']+)'\)/.exec(loader)?.[1];
      if (!target) throw new Error(`${args.path}: a lazy module must return import('<module>.js')`);
      const entry = path.resolve(path.dirname(args.path), target.replace(/\.js$/, '.ts'));
      const name = path.basename(entry, '.ts');
      if (!lazyTexts.has(name)) {
        lazyTexts.set(name, '');
        const out = await build({ ...common, entryPoints: [entry], format: 'cjs', write: false, plugins: [lazyModules] });
        lazyTexts.set(name, out.outputFiles[0].text + `\n//# sourceURL=tdd-gate-${name}.js`);
      }
      return {
        loader: 'js',
        resolveDir: path.dirname(args.path),
        contents: `import { readFileSync } from 'node:fs';
let loaded;
export async function load() {
  if (!loaded) {
    const bundle = readFileSync(globalThis.${bundlePathGlobal}, 'latin1');
    const start = bundle.lastIndexOf('/*@lazy:${name}:'); // the last one: the first is this line
    if (start < 0) throw new Error('tdd-gate bundle is missing its ${name} module; reinstall the plugin');
    const end = bundle.indexOf('*/', start);
    const text = Buffer.from(bundle.slice(start + ${`/*@lazy:${name}:`.length}, end), 'base64').toString('utf8');
    const module = { exports: {} };
    new Function('module', 'exports', 'require', text)(module, module.exports, require);
    loaded = module.exports;
  }
  return loaded;
}`,
      };
    });
  },
};

/** The lazy modules' code, appended to the entry bundle as base64 block comments. */
function lazyTrailer() {
  return [...lazyTexts].map(([name, text]) => `/*@lazy:${name}:${Buffer.from(text, 'utf8').toString('base64')}*/`).join('\n') + '\n';
}

const outputs = [
  ...(await build({
    ...common,
    entryPoints: { hook: 'src/bin/hook.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.mjs' },
    format: 'esm',
    banner: { js: `${requireBanner} import { fileURLToPath as __tddFileURLToPath } from 'node:url'; globalThis.${bundlePathGlobal} = __tddFileURLToPath(import.meta.url);` },
    plugins: [lazyModules],
    write: false,
  })).outputFiles,
  ...(await build({
    ...common,
    entryPoints: { cli: 'src/bin/cli.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.mjs' },
    format: 'esm',
    banner: { js: requireBanner },
    write: false,
  })).outputFiles,
];

// Replace each bundle by rename, never leave dist/ empty: hooks and tests may be running it right now.
mkdirSync('dist', { recursive: true });
const wanted = new Set(outputs.map((o) => path.basename(o.path)));
for (const o of outputs) {
  const tmp = `${o.path}.${process.pid}.tmp`;
  writeFileSync(tmp, path.basename(o.path) === 'hook.mjs' ? o.text + lazyTrailer() : o.contents);
  renameSync(tmp, o.path);
}
for (const name of readdirSync('dist')) {
  if (!wanted.has(name) && !name.endsWith('.tmp')) rmSync(path.join('dist', name), { recursive: true, force: true });
}
