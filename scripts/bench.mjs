// Times the built hook as a whole process (what Claude Code pays on every tool call) against
// bare node start-up. Uses hyperfine when installed (apt-get install hyperfine), else a spawn loop.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const HOOK = path.resolve('dist/hook.mjs');
const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const work = mkdtempSync(path.join(tmpdir(), 'tdd-gate-bench-'));

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

const cases = [
  { name: 'bare node start-up (baseline)', cmd: (f) => `node -e 0 < ${f}`, file: input('baseline', idle, 'Write', { file_path: 'a', content: '' }), limit: null },
  { name: 'no state file: Write passes', file: input('idle', idle, 'Write', { file_path: 'tests/a.test.ts', content: 'x' }), limit: 1.3, expect: 'pass' },
  { name: 'tdd-green: test write denied', file: input('deny', green, 'Write', { file_path: 'tests/a.test.ts', content: 'x' }), limit: 1.5, expect: 'deny' },
  { name: 'tdd-green: source write, 1 MB SPEC hashed', file: input('bigspec', bigSpec, 'Write', { file_path: 'src/a.ts', content: 'x' }), limit: 1.5, expect: 'pass' },
  { name: 'tdd-green: Bash heredoc write + test run', file: input('bash', green, 'Bash', { command: heredoc }), limit: 1.5, expect: 'pass' },
];

// Each case must really take the path it claims to measure.
for (const c of cases.slice(1)) {
  const out = spawnSync('node', [HOOK], { input: readFileSync(c.file) }).stdout.toString();
  const got = out.includes('"deny"') ? 'deny' : out.trim() === '' ? 'pass' : 'other';
  if (got !== c.expect) throw new Error(`bench case "${c.name}" answered ${got}, expected ${c.expect}: ${out}`);
}

/**
 * BENCH_MODE=callgrind counts instructions under valgrind instead of timing: slow (about 20 s a
 * run) but the same figure every time, whatever else the machine is doing.
 */
function instructions(c) {
  const cmd = c.cmd ? c.cmd(c.file) : `node ${HOOK} < ${c.file}`;
  const out = spawnSync('sh', ['-c', `valgrind --tool=callgrind --callgrind-out-file=/dev/null ${cmd.replace(/^node /, `${process.execPath} `)} 2>&1 >/dev/null`]).stdout.toString();
  const m = /Collected : (\d+)/.exec(out);
  if (!m) throw new Error(`valgrind gave no count for ${c.name}: ${out.slice(-500)}`);
  return Number(m[1]);
}

function hasHyperfine() {
  return spawnSync('hyperfine', ['--version']).status === 0;
}

function medianMs(c) {
  const cmd = c.cmd ? c.cmd(c.file) : `node ${HOOK} < ${c.file}`;
  if (hasHyperfine()) {
    const json = path.join(work, 'h.json');
    execFileSync('hyperfine', ['--warmup', '5', '--runs', String(RUNS), '--style', 'none', '--export-json', json, cmd], { stdio: ['ignore', 'ignore', 'pipe'] });
    const r = JSON.parse(readFileSync(json, 'utf8')).results[0];
    return { wall: r.median * 1000, cpu: (r.user + r.system) * 1000 };
  }
  const times = [];
  for (let i = 0; i < RUNS + 5; i++) {
    const t = process.hrtime.bigint();
    spawnSync('sh', ['-c', cmd]);
    if (i < 5) continue;
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { wall: times[Math.floor(times.length / 2)], cpu: NaN };
}

try {
  if (process.env.BENCH_MODE === 'callgrind') {
    console.log(`tdd-gate hook benchmark (instructions under valgrind callgrind, node ${process.version})\n`);
    const base = instructions(cases[0]);
    for (const c of cases) {
      const n = c === cases[0] ? base : instructions(c);
      const verdict = c.limit === null ? '' : n / base <= c.limit ? `ok (target ≤ ${c.limit}×)` : `OVER target ${c.limit}×`;
      console.log(`${c.name.padEnd(44)} ${(n / 1e6).toFixed(1).padStart(8)} M instr  ${(n / base).toFixed(2)}×  ${verdict}`);
    }
  } else {
    timed();
  }
} finally {
  if (process.env.BENCH_KEEP !== '1') rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
}

function timed() {
  console.log(`tdd-gate hook benchmark (${hasHyperfine() ? 'hyperfine' : 'spawn loop; install hyperfine for steadier figures'}, ${RUNS} runs, medians, node ${process.version})\n`);
  // Wall time is what the user waits; CPU time (user + system, hyperfine only) is steadier on a busy machine.
  console.log(`${'case'.padEnd(44)} ${'wall median'.padStart(12)} ${'ratio'.padStart(6)}   ${'cpu mean'.padStart(9)} ${'ratio'.padStart(6)}`);
  const base = medianMs(cases[0]);
  let failed = false;
  for (const c of cases) {
    const t = c === cases[0] ? base : medianMs(c);
    const ratio = t.wall / base.wall;
    const cpuRatio = t.cpu / base.cpu;
    const verdict = c.limit === null ? '' : ratio <= c.limit ? `ok (target ≤ ${c.limit}×)` : `OVER target ${c.limit}×`;
    if (c.limit !== null && ratio > c.limit) failed = true;
    console.log(
      `${c.name.padEnd(44)} ${t.wall.toFixed(1).padStart(9)} ms ${ratio.toFixed(2).padStart(5)}×   ${t.cpu.toFixed(1).padStart(6)} ms ${cpuRatio.toFixed(2).padStart(5)}×  ${verdict}`,
    );
  }
  if (failed && process.env.BENCH_STRICT === '1') process.exitCode = 1;
}
