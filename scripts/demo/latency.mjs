#!/usr/bin/env node
// The hook latency as the real client's debug log shows it: one scripted session of 20 writes
// (10 denied on a frozen test, 10 allowed on sources) in a repository with a cycle in GREEN, and
// the same session in one without a cycle. Prints the PreToolUse medians and ranges.
//
//   node scripts/demo/latency.mjs   (after npm run build; uses this working tree's dist/)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { claudeVersion, findClaude, isolation, makeHome, PLUGIN_ROOT, runSession } from './claude.mjs';
import { gateReason, marker } from './fakeApi.mjs';

const SPEC = '# SPEC-001\n\n#### Scenario: adds\n- GIVEN 1 and 2\n- THEN 3\n';
const sha256 = (t) => createHash('sha256').update(t, 'utf8').digest('hex');

function repo(active) {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-latency-')));
  const git = (...a) => execFileSync('git', a, { cwd: root, stdio: 'ignore' });
  const write = (rel, text) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'l@example.com');
  git('config', 'user.name', 'l');
  write('specs/SPEC-001.md', SPEC);
  write('tests/add.test.ts', 'frozen\n');
  write('.tdd/stack.json', JSON.stringify({ language: 'typescript', test_command: 'npx vitest run', test_file_glob: 'tests/**', source_file_glob: 'src/**', red_confirm: 'AssertionError' }));
  git('add', '-A');
  git('commit', '-q', '-m', 'init');
  if (active) {
    const now = new Date().toISOString();
    write(`.tdd/state-main-${sha256('main').slice(0, 6)}.json`, JSON.stringify({ version: 1, phase: 'tdd-green', mode: 'light-inline', spec_id: 'SPEC-001', spec_path: 'specs/SPEC-001.md', spec_hash: sha256(SPEC.replace(/\n+$/, '')), plan_artifact: '', started_at: now, phase_entered_at: now }));
  }
  return root;
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return `median ${s[Math.floor((s.length - 1) / 2)]} ms, min ${s[0]} ms, max ${s[s.length - 1]} ms (n=${s.length})`;
};

const bin = findClaude();
if (!bin) {
  console.error('No Claude Code client (npm install first).');
  process.exit(1);
}
console.log(`Claude Code ${claudeVersion(bin).version}, isolation ${isolation().kind}`);
for (const active of [true, false]) {
  const root = repo(active);
  const home = makeHome();
  const turns = [{ tools: [{ name: 'Read', input: { file_path: path.join(root, 'tests/add.test.ts') } }] }];
  for (let i = 0; i < 10; i++) turns.push({ tools: [{ name: 'Write', input: { file_path: path.join(root, 'tests/add.test.ts'), content: `x${i}\n` } }] });
  for (let i = 0; i < 10; i++) turns.push({ tools: [{ name: 'Write', input: { file_path: path.join(root, `src/f${i}.ts`), content: 'export {};\n' } }] });
  turns.push({ text: 'done' });
  try {
    const r = await runSession({ bin, home, cwd: root, prompt: `${marker('main')} go`, script: { main: turns }, args: ['--plugin-dir', PLUGIN_ROOT, '--allowedTools', 'Read,Write'] });
    const pre = r.latencies.filter((l) => l.event === 'PreToolUse').map((l) => l.ms);
    const start = r.latencies.filter((l) => l.event === 'SessionStart').map((l) => l.ms);
    const denied = r.api.toolResults.filter((t) => gateReason(t.content) !== null).length;
    console.log(`${active ? 'cycle in GREEN' : 'no cycle      '}: PreToolUse ${stats(pre)}; SessionStart ${start.join(', ')} ms; ${denied} denied; problems: ${r.api.failures.length}`);
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  }
}
