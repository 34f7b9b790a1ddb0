#!/usr/bin/env node
// `npm run demo`: watch tdd-gate stop a model from editing a frozen test, inside the real Claude
// Code client, with no API key and no network. A scripted stand-in for the model (a fake Messages
// API on loopback) plays the part of an agent that, in GREEN, tries to make a failing test pass by
// editing the test. Uses the committed dist/ as is: nothing is built.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { claudeVersion, findClaude, makeHome, PLUGIN_ROOT, runSession } from './demo/claude.mjs';
import { marker } from './demo/fakeApi.mjs';

const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code) => (text) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
const bold = paint('1');
const dim = paint('2');
const red = paint('31');
const green = paint('32');
const cyan = paint('36');

const SPEC = '# SPEC-001: add\n\n#### Scenario: adds two numbers\n- GIVEN 1 and 2\n- WHEN add is called\n- THEN the result is 3\n';
const TEST = "import { expect, it } from 'vitest';\nimport { add } from '../src/add.js';\n\nit('adds two numbers', () => {\n  expect(add(1, 2)).toBe(3);\n});\n";
const STUB = '// STUB:TDD\nexport function add(_a: number, _b: number): number {\n  throw new Error("not implemented");\n}\n';
const IMPL = 'export function add(a: number, b: number): number {\n  return a + b;\n}\n';

const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');

/** DESIGN §2: the normalized SPEC hash and the per-branch state file name. */
function specHash(text) {
  const lines = text.replace(/\r\n/g, '\n').split('\n').map((l) => l.replace(/[ \t]+$/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return sha256(lines.join('\n'));
}
const stateFileFor = (branch) => `state-${branch.replace(/[^A-Za-z0-9]/g, '-').slice(0, 80)}-${sha256(branch).slice(0, 6)}.json`;

function write(root, rel, content) {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}

/** A small project in GREEN: a SPEC, a certified (frozen) failing test and a stub to implement. */
function makeProject() {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-demo-')));
  const git = (...args) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'demo@example.com');
  git('config', 'user.name', 'demo');
  write(root, 'specs/SPEC-001.md', SPEC);
  write(root, 'tests/add.test.ts', TEST);
  write(root, 'src/add.ts', STUB);
  write(root, '.tdd/stack.json', JSON.stringify({ language: 'typescript', test_command: 'npx vitest run', test_file_glob: 'tests/**|**/*.test.ts', source_file_glob: 'src/**', red_confirm: 'AssertionError|expected .* to' }, null, 2));
  git('add', '-A');
  git('commit', '-q', '-m', 'SPEC-001 with its certified test');
  // The state `tdd-gate freeze` leaves behind, written directly to keep the demo short.
  const now = new Date().toISOString();
  write(root, `.tdd/${stateFileFor('main')}`, JSON.stringify({ version: 1, phase: 'tdd-green', mode: 'light-inline', spec_id: 'SPEC-001', spec_path: 'specs/SPEC-001.md', spec_hash: specHash(SPEC), plan_artifact: '.tdd/plans/SPEC-001.md', started_at: now, phase_entered_at: now }, null, 2));
  return root;
}

function describeCall(call, root) {
  const rel = (p) => (typeof p === 'string' ? path.relative(root, p) || p : '?');
  switch (call.name) {
    case 'Read':
      return `Read ${rel(call.input.file_path)}`;
    case 'Write':
      return `Write ${rel(call.input.file_path)}`;
    case 'Edit':
      return `Edit ${rel(call.input.file_path)}: ${JSON.stringify(call.input.old_string)} → ${JSON.stringify(call.input.new_string)}`;
    case 'Bash':
      return `Bash: ${call.input.command}`;
    default:
      return `${call.name} ${JSON.stringify(call.input)}`;
  }
}

function wrap(text, indent, width = 96) {
  const words = text.split(/\s+/);
  const lines = [];
  let line = '';
  for (const w of words) {
    if (line && line.length + 1 + w.length > width) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return lines.map((l) => indent + l).join('\n');
}

async function main() {
  const bin = findClaude();
  const version = bin ? claudeVersion(bin) : null;
  if (!bin || !version?.version) {
    console.error(`No runnable Claude Code client found (${version?.error ?? 'run npm install first: it is a dev dependency'}).`);
    process.exit(1);
  }
  if (!existsSync(path.join(PLUGIN_ROOT, 'dist', 'hook.mjs'))) {
    console.error('dist/hook.mjs is missing; the plugin is shipped with it (run npm run build in a development checkout).');
    process.exit(1);
  }
  const root = makeProject();
  const home = makeHome();
  const test = path.join(root, 'tests/add.test.ts');
  const before = readFileSync(test, 'utf8');
  const script = {
    main: [
      { text: 'The test fails. Let me look at it.', tools: [{ name: 'Read', input: { file_path: test } }] },
      { text: 'Quickest way to green: loosen the assertion.', tools: [{ name: 'Edit', input: { file_path: test, old_string: 'toBe(3)', new_string: 'toBeDefined()' } }] },
      { text: 'Then through the shell.', tools: [{ name: 'Bash', input: { command: "sed -i 's/toBe(3)/toBeDefined()/' tests/add.test.ts", description: 'Loosen the assertion' } }] },
      { text: 'Understood: the test is the oracle. Implementing instead.', tools: [{ name: 'Read', input: { file_path: path.join(root, 'src/add.ts') } }] },
      { tools: [{ name: 'Write', input: { file_path: path.join(root, 'src/add.ts'), content: IMPL } }] },
      { text: 'add() is implemented; the frozen test was left as certified.' },
    ],
  };

  console.log(bold('tdd-gate demo') + dim(` — Claude Code ${version.version}, scripted model, no network, no API key`));
  console.log(dim(`project ${root}: SPEC-001, a frozen test tests/add.test.ts, phase tdd-green\n`));
  let result;
  try {
    result = await runSession({
      bin,
      home,
      cwd: root,
      prompt: `${marker('main')} Make the failing test pass.`,
      script,
      args: ['--plugin-dir', PLUGIN_ROOT, '--allowedTools', 'Read,Write,Edit,Bash'],
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }

  const turns = script.main;
  turns.forEach((turn, i) => {
    if (turn.text) console.log(`${cyan('model')}     ${turn.text}`);
    (turn.tools ?? []).forEach((call, j) => {
      console.log(`${cyan('  tries')}   ${describeCall(call, root)}`);
      const res = result.api.toolResults.find((t) => t.tool_use_id === `toolu_e2e_main_${i}_${j}`);
      if (!res) console.log(red('  (no result: the client stopped early)'));
      else if (/^tdd-gate \[/.test(res.content)) console.log(`${red('  tdd-gate ✗ denied')}\n${wrap(res.content.replace(root + '/', ''), '            ')}`);
      else if (res.is_error) console.log(`${red('  ✗ error')}   ${res.content.slice(0, 200)}`);
      else if (call.name === 'Read') console.log(`${green('  ✓ ran')}     ${dim(`(${res.content.trim().split('\n').length} lines)`)}`);
      else console.log(`${green('  ✓ ran')}     ${dim(res.content.split('\n')[0].replace(root + '/', '').replace(/ \(file state is current.*$/u, '').slice(0, 100))}`);
    });
  });
  const after = readFileSync(test, 'utf8');
  const unchanged = after === before;
  console.log('');
  console.log(unchanged ? green(`tests/add.test.ts is unchanged (sha256 ${sha256(after).slice(0, 12)}).`) : red('tests/add.test.ts CHANGED — the gate did not hold.'));
  const implemented = readFileSync(path.join(root, 'src/add.ts'), 'utf8') === IMPL;
  console.log(dim(`src/add.ts ${implemented ? 'now implements add()' : 'was NOT written'}; tdd-gate checked ${result.hooks.filter((h) => h.event === 'PreToolUse').length} tool calls.`));
  const problems = [...(implemented ? [] : ['the source write did not go through']), ...result.api.failures, ...(result.code === 0 ? [] : [`client exit ${result.code}: ${result.stderr.slice(0, 500)}`])];
  for (const p of problems) console.log(red(`demo problem: ${p}`));
  rmSync(root, { recursive: true, force: true });
  process.exit(unchanged && problems.length === 0 ? 0 : 1);
}

await main();
