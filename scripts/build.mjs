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
 * Lazy modules (src/hooks/lazy/*.ts: `load()` returns `import('../x.js')`) are embedded as strings
 * and compiled only when called: V8 scans a string literal far faster than it parses code, so the
 * common "no cycle here" call costs little more than starting node, and a Write in GREEN does not
 * pay for the shell parser (ADR 003). Nested lazy modules are embedded the same way.
 */
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
      const out = await build({ ...common, entryPoints: [entry], format: 'cjs', write: false, plugins: [lazyModules] });
      const text = out.outputFiles[0].text + `\n//# sourceURL=tdd-gate-${path.basename(entry, '.ts')}.js`;
      return {
        loader: 'js',
        resolveDir: path.dirname(args.path),
        contents: `const TEXT = ${JSON.stringify(text)};
let loaded;
export async function load() {
  if (!loaded) {
    const module = { exports: {} };
    new Function('module', 'exports', 'require', TEXT)(module, module.exports, require);
    loaded = module.exports;
  }
  return loaded;
}`,
      };
    });
  },
};

const outputs = [
  ...(await build({
    ...common,
    entryPoints: { hook: 'src/bin/hook.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.mjs' },
    format: 'esm',
    banner: { js: requireBanner },
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
  writeFileSync(tmp, o.contents);
  renameSync(tmp, o.path);
}
for (const name of readdirSync('dist')) {
  if (!wanted.has(name) && !name.endsWith('.tmp')) rmSync(path.join('dist', name), { recursive: true, force: true });
}
