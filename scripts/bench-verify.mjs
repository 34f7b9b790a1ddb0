// What a verify costs over the raw test command, per runner: the fixture projects of the CLI tests
// (test/cli/fixtures.ts) taken to GREEN, then, N times each, the raw test command and
// `tdd-gate verify green` (median). Before every timed run a source file gets a new comment, so
// each run really runs (a verify of unchanged inputs is reused, not re-run: timed separately as
// "reused"). The target: verify <= raw * 1.25 + 1 s.
//
//   npm run build && node scripts/bench-verify.mjs            every runner found on this machine
//   BENCH_N=7 BENCH_RUNNERS=pytest,cargo node scripts/bench-verify.mjs
//
// A measurement, not a test: it moves with the machine's load.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
const N = Number(process.env.BENCH_N ?? 5);
// BENCH_CLI: another build of the CLI for the timed verifies (an older commit's, for before/after figures).
const CLI = path.resolve(process.env.BENCH_CLI ?? path.join(ROOT, 'dist/cli.mjs'));
const ONLY = (process.env.BENCH_RUNNERS ?? '').split(',').filter(Boolean);
const work = mkdtempSync(path.join(tmpdir(), 'tdd-gate-bench-verify-'));
const cleanups = [];

// The fixtures are TypeScript written for vitest: bundle them with vitest's few hooks stubbed.
const stub = {
  name: 'vitest-stub',
  setup(b) {
    b.onResolve({ filter: /^vitest$/ }, () => ({ path: 'vitest', namespace: 'stub' }));
    b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
      contents: `export const onTestFinished = (fn) => globalThis.__benchCleanups.push(fn);
        export const expect = Object.assign(() => new Proxy({}, { get: () => () => undefined }), { fail: (m) => { throw new Error(m); } });`,
      loader: 'js',
    }));
  },
};
globalThis.__benchCleanups = cleanups;
const bundle = path.join(work, 'fixtures.mjs');
await build({
  stdin: { contents: "export * from './test/cli/fixtures.ts';\nexport { testRepo } from './test/helpers/repo.ts';\n", resolveDir: ROOT, loader: 'ts' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: bundle,
  plugins: [stub],
  define: { 'import.meta.dirname': JSON.stringify(path.join(ROOT, 'test/cli')) },
  logLevel: 'error',
});
const fx = await import(pathToFileURL(bundle).href);
const { testRepo } = fx;

const has = (cmd, args) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;

/** Each runner: how to make its project, its source file, and the real implementation. */
const RUNNERS = {
  vitest: {
    ok: () => true,
    make: () => fx.project('vitest', { 'src/add.ts': '// STUB:TDD\nexport function add(a: number, b: number): number { return 0; }\n' }),
    test: ['tests/add.test.ts', "import { expect, it } from 'vitest';\nimport { add } from '../src/add';\nit('adds', () => { expect(add(1, 2)).toBe(3); });\n"],
    source: ['src/add.ts', 'export function add(a: number, b: number): number { return a + b; }\n'],
  },
  jest: {
    ok: () => true,
    make: () => fx.project('jest', { 'src/add.js': '// STUB:TDD\nexports.add = () => 0;\n' }),
    test: ['__tests__/add.test.js', "const { add } = require('../src/add');\ntest('adds', () => { expect(add(1, 2)).toBe(3); });\n"],
    source: ['src/add.js', 'exports.add = (a, b) => a + b;\n'],
  },
  'node:test': {
    ok: () => true,
    make: () => fx.project('node-test', { 'src/add.js': '// STUB:TDD\nexport function add() { return 0; }\n' }),
    test: ['test/add.test.js', "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds', () => { assert.equal(add(1, 2), 3); });\n"],
    source: ['src/add.js', 'export function add(a, b) { return a + b; }\n'],
  },
  pytest: {
    ok: () => has('python3', ['-m', 'pytest', '--version']),
    make: () => testRepo({ stack: fx.PYTEST_STACK, files: { 'conftest.py': '', 'src/add.py': '# STUB:TDD\ndef add(a, b):\n    return 0\n' } }),
    test: ['tests/test_add.py', 'from src.add import add\n\ndef test_add():\n    assert add(1, 2) == 3\n'],
    source: ['src/add.py', 'def add(a, b):\n    return a + b\n'],
  },
  go: {
    ok: () => has('go', ['version']),
    make: () => testRepo({ stack: fx.GO_STACK, files: { 'go.mod': 'module example.com/calc\n\ngo 1.19\n', 'calc.go': 'package calc\n\n// STUB:TDD\nfunc Add(a, b int) int { return 0 }\n' } }),
    test: ['add_test.go', 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Errorf("got %d", Add(1, 2))\n\t}\n}\n'],
    source: ['calc.go', 'package calc\n\nfunc Add(a, b int) int { return a + b }\n'],
  },
  cargo: {
    ok: () => has('cargo', ['--version']),
    make: () =>
      testRepo({
        stack: fx.CARGO_STACK,
        files: { '.gitignore': 'target\n', 'Cargo.toml': '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n', 'src/lib.rs': '// STUB:TDD\npub fn add(_a: i32, _b: i32) -> i32 { 0 }\n' },
      }),
    test: ['tests/add.rs', '#[test]\nfn adds() { assert_eq!(calc::add(1, 2), 3); }\n'],
    source: ['src/lib.rs', 'pub fn add(a: i32, b: i32) -> i32 { a + b }\n'],
  },
};

function timed(fn) {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function cli(repo, ...args) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: repo.root, encoding: 'utf8', env: { ...process.env, TDD_GATE_DISABLE: '' } });
  if (r.status !== 0) throw new Error(`tdd-gate ${args.join(' ')} exited ${r.status}:\n${r.stdout}${r.stderr}`);
  return r;
}

const rows = [];
for (const [name, r] of Object.entries(RUNNERS)) {
  if (ONLY.length > 0 && !ONLY.includes(name)) continue;
  if (!r.ok()) {
    console.log(`${name}: not installed here, skipped`);
    continue;
  }
  const repo = r.make();
  fx.startRed(repo);
  repo.write(...r.test);
  cli(repo, 'verify', 'red');
  fx.writeVerdict(repo);
  cli(repo, 'freeze', '--verdict', 'verdict.md');
  repo.write(...r.source);
  const command = JSON.parse(readFileSync(repo.path('.tdd/stack.json'), 'utf8')).test_command;
  let k = 0;
  const touch = () => appendFileSync(repo.path(r.source[0]), `${r.source[0].endsWith('.py') ? '#' : '//'} run ${k++}\n`);
  // one warm-up of each: toolchains, the first build, the caches
  touch();
  spawnSync('sh', ['-c', command], { cwd: repo.root, stdio: 'ignore' });
  touch();
  cli(repo, 'verify', 'green');
  const raw = [];
  const verify = [];
  const reused = [];
  for (let i = 0; i < N; i++) {
    touch();
    raw.push(timed(() => spawnSync('sh', ['-c', command], { cwd: repo.root, stdio: 'ignore' })));
    touch();
    verify.push(timed(() => cli(repo, 'verify', 'green')));
    reused.push(timed(() => cli(repo, 'verify', 'green')));
  }
  const mr = median(raw);
  const mv = median(verify);
  rows.push({ runner: name, raw: mr, verify: mv, reused: median(reused), ratio: mv / mr, budget: mr * 1.25 + 1000 });
  console.log(`${name}: raw ${raw.map((x) => x.toFixed(0)).join(' ')} ms; verify ${verify.map((x) => x.toFixed(0)).join(' ')} ms; reused ${reused.map((x) => x.toFixed(0)).join(' ')} ms`);
}

const f = (ms) => `${(ms / 1000).toFixed(2)} s`;
console.log(`\nmedian of ${N} (a source changed before each run); target: verify <= raw x 1.25 + 1 s\n`);
console.log(['runner'.padEnd(10), 'raw'.padStart(9), 'verify'.padStart(9), 'ratio'.padStart(7), 'over'.padStart(9), 'budget'.padStart(9), 'reused'.padStart(9), '  within'].join(' '));
for (const row of rows) {
  console.log(
    [row.runner.padEnd(10), f(row.raw).padStart(9), f(row.verify).padStart(9), row.ratio.toFixed(2).padStart(7), f(row.verify - row.raw).padStart(9), f(row.budget).padStart(9), f(row.reused).padStart(9), row.verify <= row.budget ? '  yes' : '  NO'].join(' '),
  );
}
for (const fn of cleanups) fn();
rmSync(work, { recursive: true, force: true });
