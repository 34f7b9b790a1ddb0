// Measures the built hook as Claude Code runs it (one process per tool call) against bare node
// start-up, on every node binary it is given, and checks the targets of ADR 007.
//
//   npm run bench                                   wall time (hyperfine), the node running npm
//   BENCH_NODES=/path/node22:/path/node24 npm run bench     the same on more binaries
//   BENCH_MODE=callgrind npm run bench              instructions under valgrind instead of time
//
// Wall time is what the user waits but moves with the machine's load; instruction counts hold
// under load. Node picks a random hash seed per process, and its start-up cost moves with it by
// up to 20 %: in callgrind mode every case runs once per seed (--random-seed=1..BENCH_SEEDS) and
// is compared with `node -e 0` under the same seed.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// BENCH_HOOK: another build of the hook, e.g. an older commit's, for before/after figures.
const HOOK = path.resolve(process.env.BENCH_HOOK ?? 'dist/hook.cjs');
const MODE = process.env.BENCH_MODE === 'callgrind' ? 'callgrind' : 'wall';
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const SEEDS = Number(process.env.BENCH_SEEDS ?? 3);
const NODES = [process.execPath, ...(process.env.BENCH_NODES ?? '').split(path.delimiter).filter(Boolean)];
const work = mkdtempSync(path.join(tmpdir(), 'tdd-gate-bench-'));
// As inside Claude Code: the plugin's data directory holds the compile cache (src/hooks/lazy/compileCache.ts).
const ENV = { ...process.env, CLAUDE_PLUGIN_DATA: path.join(work, 'plugin-data'), TDD_GATE_DISABLE: '' };
delete ENV.NODE_COMPILE_CACHE;

function repo(name, { state, specBytes = 0 } = {}) {
  const root = path.join(work, name);
  mkdirSync(root, { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root });
  const spec = specBytes > 0 ? 'requirement text, one line of many\n'.repeat(Math.ceil(specBytes / 35)) : '# SPEC\n\n#### Scenario: x\n';
  mkdirSync(path.join(root, 'specs'), { recursive: true });
  writeFileSync(path.join(root, 'specs/SPEC-001.md'), spec);
  if (state) {
    mkdirSync(path.join(root, '.tdd'), { recursive: true });
    writeFileSync(
      path.join(root, '.tdd/stack.json'),
      JSON.stringify({ language: 'typescript', test_command: 'npx vitest run', test_file_glob: 'tests/**|**/*.test.ts', source_file_glob: 'src/**', red_confirm: 'AssertionError' }),
    );
    const lines = spec.replace(/\r\n/g, '\n').split('\n').map((l) => l.replace(/[ \t]+$/, ''));
    while (lines.length && lines[lines.length - 1] === '') lines.pop();
    const specHash = createHash('sha256').update(lines.join('\n')).digest('hex');
    const h6 = createHash('sha256').update('main').digest('hex').slice(0, 6);
    writeFileSync(
      path.join(root, `.tdd/state-main-${h6}.json`),
      JSON.stringify({ version: 1, phase: state, mode: 'standard', spec_id: 'SPEC-001', spec_path: 'specs/SPEC-001.md', spec_hash: specHash, plan_artifact: '', started_at: 'x', phase_entered_at: 'x' }),
    );
  }
  return root;
}

function input(name, cwd, tool_name, tool_input) {
  const file = path.join(work, `${name}.json`);
  writeFileSync(file, JSON.stringify({ session_id: 's', transcript_path: '/dev/null', cwd, hook_event_name: 'PreToolUse', tool_name, tool_input, tool_use_id: 't', agent_id: 'a', agent_type: 'tdd-gate:implementer' }));
  return file;
}

const idle = repo('idle');
const green = repo('green', { state: 'tdd-green' });
const bigSpec = repo('bigspec', { state: 'tdd-green', specBytes: 1_000_000 });
const heredoc = "cat > src/sum.ts <<'EOF'\nexport function sum(a: number, b: number): number {\n  return a + b;\n}\nEOF\nnpx vitest run tests/sum.test.ts 2>&1 | tail -20";

// A SPEC changed in the last two seconds is hashed on every call (src/spec/specHashCache.ts); a real
// one was frozen long before the writes the gate judges.
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2500);

const BASELINE = { name: 'node -e 0 (baseline)', args: ['-e', '0'], file: input('baseline', idle, 'Write', { file_path: 'a', content: '' }), target: null };
const CASES = [
  BASELINE,
  { name: 'no active cycle: Write', file: input('idle', idle, 'Write', { file_path: 'tests/a.test.ts', content: 'x' }), target: 1.05, expect: 'pass' },
  { name: 'GREEN: test Write denied', file: input('deny', green, 'Write', { file_path: 'tests/a.test.ts', content: 'x' }), target: 1.25, expect: 'deny' },
  { name: 'GREEN: source Write, 1 MB SPEC hashed', file: input('bigspec', bigSpec, 'Write', { file_path: 'src/a.ts', content: 'x' }), target: 1.25, expect: 'pass' },
  { name: 'GREEN: Bash heredoc + test run', file: input('bash', green, 'Bash', { command: heredoc }), target: 1.35, expect: 'pass' },
  { name: 'GREEN: Bash append to a test denied', file: input('bashdeny', green, 'Bash', { command: 'echo "it(1)" >> tests/a.test.ts' }), target: 1.35, expect: 'deny' },
];
const argsOf = (c) => c.args ?? [HOOK, 'PreToolUse'];

function run(node, c, extra = []) {
  const fd = openSync(c.file, 'r');
  try {
    return spawnSync(node, [...extra, ...argsOf(c)], { stdio: [fd, 'pipe', 'pipe'], env: ENV, encoding: 'utf8' });
  } finally {
    closeSync(fd);
  }
}

/** Each case must really take the path it claims to measure; the run also fills the compile cache. */
function check(node) {
  for (const c of CASES.slice(1)) {
    const out = run(node, c).stdout;
    const got = out.includes('"deny"') ? 'deny' : out.trim() === '' ? 'pass' : 'other';
    if (got !== c.expect) throw new Error(`${node}: bench case "${c.name}" answered ${got}, expected ${c.expect}: ${out}`);
  }
}

function instructions(node, c, seed) {
  const r = run('valgrind', { ...c, args: [node, `--random-seed=${seed}`, ...argsOf(c)] }, ['--tool=callgrind', '--callgrind-out-file=/dev/null']);
  const m = /Collected : (\d+)/.exec(r.stderr);
  if (!m) throw new Error(`valgrind gave no count for ${c.name}: ${r.stderr.slice(-500)}`);
  return Number(m[1]);
}

/** Per case: the mean over seeds of instructions, and of the ratio to `node -e 0` under the same seed. */
function measureCallgrind(node) {
  const sums = CASES.map(() => ({ value: 0, ratio: 0 }));
  for (let seed = 1; seed <= SEEDS; seed++) {
    const counts = CASES.map((c) => instructions(node, c, seed));
    counts.forEach((n, i) => {
      sums[i].value += n / SEEDS;
      sums[i].ratio += n / counts[0] / SEEDS;
    });
  }
  return sums.map((s) => ({ value: s.value / 1e6, ratio: s.ratio }));
}

/** Per case: the median wall time over RUNS (hyperfine, all cases of one binary in one go). */
function measureWall(node) {
  const json = path.join(work, 'hyperfine.json');
  const quote = (s) => `'${s.replace(/'/g, "'\\''")}'`;
  const cmds = CASES.map((c) => `${quote(node)} ${argsOf(c).map(quote).join(' ')} < ${quote(c.file)}`);
  execFileSync('hyperfine', ['--warmup', '5', '--runs', String(RUNS), '--style', 'none', '--export-json', json, ...cmds], { stdio: ['ignore', 'ignore', 'inherit'], env: ENV });
  const medians = JSON.parse(readFileSync(json, 'utf8')).results.map((r) => r.median * 1000);
  return medians.map((ms) => ({ value: ms, ratio: ms / medians[0] }));
}

if (MODE === 'wall' && spawnSync('hyperfine', ['--version']).status !== 0) {
  console.error('npm run bench needs hyperfine (apt-get install hyperfine), or BENCH_MODE=callgrind with valgrind.');
  process.exit(2);
}

const unit = MODE === 'callgrind' ? 'M instr' : 'ms';
const summary = [];
let over = false;
try {
  for (const node of NODES) {
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    check(node);
    const results = MODE === 'callgrind' ? measureCallgrind(node) : measureWall(node);
    console.log(`\nnode ${version} (${node}), ${MODE === 'callgrind' ? `instructions, mean of ${SEEDS} seeds` : `wall-time median of ${RUNS} runs`}`);
    CASES.forEach((c, i) => {
      const { value, ratio } = results[i];
      const ok = c.target === null || ratio <= c.target;
      if (!ok) over = true;
      const verdict = c.target === null ? '' : `${ok ? 'ok  ' : 'OVER'} target ≤ ${c.target.toFixed(2)}×`;
      console.log(`  ${c.name.padEnd(38)} ${value.toFixed(1).padStart(8)} ${unit.padEnd(7)} ${ratio.toFixed(2).padStart(5)}×  ${verdict}`);
    });
    summary.push({ version, results });
  }
  console.log(`\n| case | target | ${summary.map((s) => `node ${s.version}`).join(' | ')} |`);
  console.log(`|---|---|${summary.map(() => '---|').join('')}`);
  CASES.forEach((c, i) => {
    const cells = summary.map((s) => (i === 0 ? `${s.results[0].value.toFixed(1)} ${unit}` : `${s.results[i].ratio.toFixed(2)}×`));
    console.log(`| ${c.name} | ${c.target === null ? '' : `≤ ${c.target.toFixed(2)}×`} | ${cells.join(' | ')} |`);
  });
  if (over && process.env.BENCH_STRICT === '1') process.exitCode = 1;
} finally {
  if (process.env.BENCH_KEEP !== '1') rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
}
