// One self-contained ESM bundle per entry point: a marketplace install runs dist/ with plain node.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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
 * The hook's full gate (schemas, matchers, decision core) is embedded as a string and compiled only
 * when a TDD cycle is active: V8 scans a string literal far faster than it parses code, so the
 * common "no cycle here" call costs little more than starting node.
 */
async function hookCoreText() {
  const out = await build({ ...common, entryPoints: ['src/hooks/dispatch.ts'], format: 'cjs', write: false });
  return out.outputFiles[0].text;
}

function embedHookCore(coreText) {
  return {
    name: 'embed-hook-core',
    setup(b) {
      b.onResolve({ filter: /\/loadDispatch\.js$/ }, (args) => ({ path: args.path, namespace: 'hook-core' }));
      b.onLoad({ filter: /.*/, namespace: 'hook-core' }, () => ({
        loader: 'js',
        contents: `const CORE = ${JSON.stringify(coreText + '\n//# sourceURL=tdd-gate-hook-core.js')};
export async function loadDispatch() {
  const module = { exports: {} };
  new Function('module', 'exports', 'require', CORE)(module, module.exports, require);
  return module.exports;
}`,
      }));
    },
  };
}

const coreText = await hookCoreText();
const outputs = [
  ...(await build({
    ...common,
    entryPoints: { hook: 'src/bin/hook.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.mjs' },
    format: 'esm',
    banner: { js: requireBanner },
    plugins: [embedHookCore(coreText)],
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
