// What holding the runner's installation still costs the oracle's namespace per verify
// (docs/evidence.md, "What the oracle mounts"): per runner, the namespace script with an empty
// command (`true`), with and without the installation's mounts and its listing through them,
// timed by hyperfine. The installation is this repository's own node_modules (vitest, jest) and
// the Python interpreter on PATH with its pytest.
//
//   node scripts/bench-oracle-mounts.mjs            vitest, jest, pytest
//   BENCH_RUNS=30 BENCH_RUNNERS=jest node scripts/bench-oracle-mounts.mjs
//
// A measurement, not a test: it moves with the machine's load. Linux with a mount namespace only.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const ONLY = (process.env.BENCH_RUNNERS ?? '').split(',').filter(Boolean);
const work = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-bench-mounts-')));

try {
  const bundle = path.join(work, 'mod.mjs');
  await build({
    stdin: { contents: "export { scanInstallation, namespacePlan } from './src/verify/installation.ts';\nexport { prepareNamespace, namespaceWorks } from './src/verify/oracle/isolate.ts';\n", resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    logLevel: 'error',
  });
  const { scanInstallation, namespacePlan, prepareNamespace, namespaceWorks } = await import(pathToFileURL(bundle).href);
  if (!namespaceWorks()) throw new Error('no mount namespace on this system');

  const python = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
  const runners = {
    vitest: { command: 'node node_modules/vitest/vitest.mjs run', toolchain: null },
    jest: { command: 'node node_modules/jest/bin/jest.js --ci', toolchain: null },
    pytest: { command: 'python3 -m pytest -q', toolchain: { programs: [{ name: 'python3', found: python, real: realpathSync(python), id: 'bench' }], vars: {}, hooks: {} } },
  };
  const q = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
  const rows = [];
  for (const [name, r] of Object.entries(runners)) {
    if (ONLY.length > 0 && !ONLY.includes(name)) continue;
    const project = path.join(work, name);
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), '{"private":true}\n');
    if (name !== 'pytest') execFileSync('cp', ['-al', path.join(ROOT, 'node_modules'), path.join(project, 'node_modules')]);
    const scan = scanInstallation({ root: project, commandText: r.command, env: { PATH: process.env.PATH, HOME: process.env.HOME }, toolchain: r.toolchain, cacheFile: path.join(work, `${name}-cache.json`) });
    const plan = namespacePlan(scan);
    if (typeof plan === 'string') throw new Error(plan);
    const scripts = {};
    for (const [label, p] of [['without', null], ['with', plan]]) {
      const prepared = prepareNamespace(project, {}, null, p);
      const w = prepared.wrap('true');
      const input = path.join(work, `${name}-${label}.in`);
      writeFileSync(input, w.input ?? '');
      const file = path.join(work, `${name}-${label}.sh`);
      writeFileSync(file, `exec ${[w.file, ...w.args].map(q).join(' ')} < ${q(input)}\n`);
      const check = spawnSync('sh', [file], { encoding: 'utf8' });
      if (check.status !== 0) throw new Error(`${name} ${label}: ${check.stdout}${check.stderr}`);
      scripts[label] = file;
    }
    const json = path.join(work, `${name}.json`);
    execFileSync('hyperfine', ['-N', '--warmup', '3', '--runs', String(RUNS), '--export-json', json, `sh ${scripts.without}`, `sh ${scripts.with}`], { stdio: 'inherit' });
    const [without, withMounts] = JSON.parse(readFileSync(json, 'utf8')).results;
    const files = Object.values(plan ? scan.manifest : {}).reduce((n, f) => n + Object.keys(f).length, 0);
    rows.push({ name, roots: plan.readOnly.length, pins: plan.fstab.split('\n').filter((l) => l.includes(' rbind ')).length, files, without: without.median * 1000, with: withMounts.median * 1000 });
  }
  console.log('\nrunner  read-only roots  pinned folders  files  namespace without  with  extra (median, ms)');
  for (const r of rows) console.log(`${r.name.padEnd(8)}${String(r.roots).padStart(15)}${String(r.pins).padStart(16)}${String(r.files).padStart(7)}${r.without.toFixed(1).padStart(19)}${r.with.toFixed(1).padStart(6)}${(r.with - r.without).toFixed(1).padStart(7)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
