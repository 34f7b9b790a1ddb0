#!/usr/bin/env node
// `npm run demo`: one short TDD cycle through the real /tdd skill, its agents and the tdd-gate CLI,
// inside the real Claude Code client, with no API key and no network. A scripted stand-in for the
// model (a fake Messages API on loopback) follows the skill; Claude Code runs every call through
// the plugin's hooks; the CLI runs the tests. The scenario is in scripts/demo/cycle.mjs. Uses the
// committed dist/ as is: nothing is built. Exit status 0 means the cycle reached `done` and the
// gate held.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { claudeVersion, findClaude, makeHome, PLUGIN_ROOT, runSession } from './demo/claude.mjs';
import { demoScript, IMPL, makeProject, TEST } from './demo/cycle.mjs';
import { gateReason, hookNotices } from './demo/fakeApi.mjs';

const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code) => (text) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
const bold = paint('1');
const dim = paint('2');
const red = paint('31');
const green = paint('32');
const yellow = paint('33');
const cyan = paint('36');

function wrap(text, indent, width = 100) {
  const out = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const w of paragraph.split(/\s+/u).filter(Boolean)) {
      if (line && line.length + 1 + w.length > width - indent.length) {
        out.push(indent + line);
        line = w;
      } else line = line ? `${line} ${w}` : w;
    }
    out.push(indent + line);
  }
  return out.join('\n');
}

async function main() {
  const bin = findClaude();
  const version = bin ? claudeVersion(bin) : null;
  if (!bin || !version?.version) {
    console.error(`No runnable Claude Code client found (${version?.error ?? 'run npm install first: it is a dev dependency'}).`);
    process.exit(1);
  }
  if (!existsSync(path.join(PLUGIN_ROOT, 'dist', 'cli.mjs'))) {
    console.error('dist/cli.mjs is missing; the plugin is shipped with it (run npm run build in a development checkout).');
    process.exit(1);
  }
  const root = makeProject();
  const home = makeHome();
  const cliPath = path.join(PLUGIN_ROOT, 'dist', 'cli.mjs');
  const cli = `node "${cliPath}"`;
  const script = demoScript(root, cli);
  const rel = (text) => text.split(`${root}/`).join('').split(cliPath).join('tdd-gate').replace(/node "tdd-gate"/gu, 'tdd-gate');

  console.log(`${bold('tdd-gate demo')}${dim(` — Claude Code ${version.version}, a scripted model, no network, no API key`)}`);
  console.log(dim(`/tdd specs/SPEC-001.md in a fresh project (${root}); the model follows the skill, Claude Code and tdd-gate are real\n`));
  const started = Date.now();
  let result;
  try {
    result = await runSession({
      bin,
      home,
      cwd: root,
      prompt: `/tdd [[e2e:main]] specs/SPEC-001.md`,
      script,
      args: ['--plugin-dir', PLUGIN_ROOT, '--allowedTools', 'Read,Write,Edit,Bash,Agent'],
      timeoutMs: 120_000,
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const { toolResults, requests } = result.api;
  const resultFor = (conversation, turn, index) => toolResults.find((t) => t.tool_use_id === `toolu_e2e_${conversation}_${turn}_${index}`);
  const requestFor = (conversation, turn) => requests.find((q) => q.kind === 'turn' && q.conversation === conversation && q.turn === turn && q.waiting === undefined);
  const problems = [];

  /** One call and what came back: a tdd-gate deny, a CLI answer, or a plain result. */
  function show(call, res, indent) {
    const pad = ' '.repeat(indent);
    const what =
      call.name === 'Bash'
        ? rel(call.input.command).split('\n')[0].replace(/ <<'TDD_RESULT_EOF'$/u, " <<< (the child's final message)")
        : call.name === 'Edit'
          ? `Edit ${rel(call.input.file_path)}: ${JSON.stringify(call.input.old_string)} → ${JSON.stringify(call.input.new_string)}`
          : `${call.name} ${rel(call.input.file_path ?? '')}`;
    console.log(`${pad}${cyan(call.name === 'Bash' && what.startsWith('tdd-gate') ? 'cli  ' : 'tool ')} ${what}`);
    if (!res) {
      console.log(`${pad}      ${red('(no result: the client stopped early)')}`);
      problems.push(`no result for ${what}`);
      return;
    }
    const reason = gateReason(res.content);
    if (reason) {
      console.log(`${pad}      ${red('✗ denied by tdd-gate')}\n${dim(wrap(rel(reason), `${pad}        `))}`);
      return;
    }
    const lines = rel(res.content).trim().split('\n').filter((l) => l.trim() !== '' && !/^Exit code \d+$/u.test(l));
    const mark = res.is_error ? red('✗') : green('✓');
    if (call.name === 'Read') console.log(`${pad}      ${mark} ${dim(`${lines.length} lines`)}`);
    else if (call.name === 'Write' || call.name === 'Edit') console.log(`${pad}      ${mark} ${res.is_error ? lines[0] : dim('written')}`);
    else if (call.name === 'Bash' && !what.startsWith('tdd-gate')) {
      const summary = lines.filter((l) => /^# (tests|pass|fail) \d+/u.test(l)).map((l) => l.slice(2)).join(', ');
      console.log(`${pad}      ${mark} ${dim(summary || lines[0] || '')}`);
    } else if (res.is_error) console.log(`${pad}      ${mark}\n${wrap(lines[0] ?? '', `${pad}        `)}`);
    else if (/ done --json$/u.test(call.input.command ?? '') && !res.is_error) {
      const evidence = /"evidence[^"]*":\s*"([^"]+)"/u.exec(res.content)?.[1] ?? '(see the output)';
      console.log(`${pad}      ${green('✓ done')} ${dim(`evidence record ${rel(evidence)}`)}`);
    } else {
      const head = lines.slice(0, 2).map((l) => l.slice(0, 160));
      console.log(`${pad}      ${res.is_error ? red('✗') : green('✓')} ${head[0] ?? ''}${head[1] ? `\n${dim(`${pad}        ${head[1]}`)}` : ''}`);
    }
  }

  /** A child conversation, nested under the Agent call that started it. */
  function showChild(conversation) {
    const turns = script[conversation] ?? [];
    turns.forEach((turn, k) => {
      const step = typeof turn === 'function' ? null : turn;
      if (!step) return;
      if (step.text && step.tools) console.log(`      ${yellow('says')}  ${step.text}`);
      (step.tools ?? []).forEach((call, j) => show(call, resultFor(conversation, k, j), 6));
      for (const notice of hookNotices(requestFor(conversation, k + 1)?.body)) {
        console.log(`            ${red('↺ tdd-gate after the command')}\n${dim(wrap(rel(notice), '              '))}`);
      }
      if (!step.tools && step.text) {
        const status = /status: (\w+)/u.exec(step.text)?.[1];
        const verdict = /verdict: (\w+)/u.exec(step.text)?.[1];
        console.log(`      ${yellow('reply')} ${step.text.split('\n')[0]} ${dim(`(tdd-result: ${[status && `status ${status}`, verdict && `verdict ${verdict}`].filter(Boolean).join(', ')})`)}`);
      }
    });
  }

  script.main.forEach((turn, i) => {
    const req = requestFor('main', i);
    if (!req) return;
    const step = typeof turn === 'function' ? null : turn;
    const calls = step ? (step.tools ?? []) : (toolResults.filter((t) => t.tool_use_id.startsWith(`toolu_e2e_main_${i}_`)).map((t) => ({ name: t.name, input: t.input })));
    if (step?.text) console.log(`${yellow('/tdd')}  ${step.text}`);
    calls.forEach((call, j) => {
      if (call.name === 'Agent') {
        console.log(`${cyan('agent')} ${bold(call.input.subagent_type)} ${dim(`(${call.input.description.split(': ')[0]}, in the foreground)`)}`);
        showChild(/\[\[e2e:([\w-]+)\]\]/u.exec(call.input.prompt)?.[1] ?? '');
      } else show(call, resultFor('main', i, j), 0);
    });
  });

  const testNow = readFileSync(path.join(root, 'tests/add.test.js'), 'utf8');
  const implemented = existsSync(path.join(root, 'src/add.js')) && readFileSync(path.join(root, 'src/add.js'), 'utf8') === IMPL;
  const evidenceDir = path.join(root, '.tdd', 'evidence');
  const evidence = existsSync(evidenceDir) && readdirSync(evidenceDir).some((f) => /^SPEC-001-.*\.json$/u.test(f));
  const denies = toolResults.filter((t) => gateReason(t.content) !== null).length;
  console.log('');
  console.log(testNow === TEST ? green('The frozen test is unchanged; add() was implemented in the source.') : red('tests/add.test.js CHANGED: the gate did not hold.'));
  console.log(dim(`${denies} call(s) denied, ${result.hooks.length} hook runs, ${seconds} s.`));
  if (testNow !== TEST) problems.push('the frozen test changed');
  if (!implemented) problems.push('src/add.js was not implemented');
  if (!evidence) problems.push('the cycle did not reach done');
  problems.push(...result.api.failures);
  if (result.code !== 0) problems.push(`client exit ${result.code}${result.timedOut ? ' (timed out)' : ''}: ${result.stderr.slice(0, 500)}`);
  for (const p of problems) console.log(red(`demo problem: ${p}`));
  rmSync(root, { recursive: true, force: true });
  process.exit(problems.length === 0 ? 0 : 1);
}

await main();
