#!/usr/bin/env node
// `npm run demo`: one short TDD cycle through the real /tdd-gate:tdd skill in standard mode (a
// separate subagent per role), its agents and the tdd-gate CLI, inside the real Claude Code client,
// with no API key and no network. A scripted stand-in for the model (a fake Messages API on
// loopback) follows the skill; Claude Code runs every call through the plugin's hooks; the CLI runs
// the tests. The scenario is in scripts/demo/cycle.mjs. Each step is printed as it happens: the
// time since the start, the role at work, the call, and what tdd-gate answered. Uses the committed
// dist/ as is: nothing is built. Exit status 0 means the cycle reached `done` and the gate held.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { claudeVersion, findClaude, makeHome, PLUGIN_ROOT, runSession } from './demo/claude.mjs';
import { COMMAND, demoScript, IMPL, makeProject, TEST } from './demo/cycle.mjs';
import { gateReason, hookNotices, isLaunchNotice } from './demo/fakeApi.mjs';

const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code) => (text) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
const bold = paint('1');
const dim = paint('2');
const red = paint('31');
const green = paint('32');
const yellow = paint('33');
const cyan = paint('36');

const WIDTH = 100;
/** Columns: elapsed time (6), two spaces, the role at work, a space, the step; results under the step's text. */
const ROLE_WIDTH = 15;
const STEP_COL = 6 + 2 + ROLE_WIDTH + 1;
const RESULT_COL = STEP_COL + 6;

function wrap(text, indent, width = WIDTH) {
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
  const started = Date.now();
  const root = makeProject();
  const home = makeHome();
  const cliPath = path.join(PLUGIN_ROOT, 'dist', 'cli.mjs');
  const cli = `node "${cliPath}"`;
  const script = demoScript(root, cli);
  const rel = (text) => text.split(`${root}/`).join('').split(cliPath).join('tdd-gate').replace(/node "tdd-gate"/gu, 'tdd-gate');

  console.log(`${bold('tdd-gate demo')}${dim(` — Claude Code ${version.version}, a scripted model, no network, no API key`)}`);
  console.log(dim(`${COMMAND} specs/SPEC-001.md in a fresh project (${root}), standard mode: a separate subagent per role.`));
  console.log(dim('The model follows the skill; Claude Code, the hooks and the CLI are real. Each line: seconds since the start, the role at work, what happened.\n'));

  // ── live progress: each step is printed when the client sends the request that follows it ──
  const roleOf = new Map([['main', 'orchestrator']]);
  const pending = new Map(); // tool_use_id → { conversation, call } still waiting for its result
  const problems = [];
  const clock = () => dim(`${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s`);
  const blank = ' '.repeat(RESULT_COL);
  let lastRole = null;
  /** A line with the time and, when it changed, the role at work. */
  function line(conversation, text) {
    const role = roleOf.get(conversation) ?? conversation;
    const label = role === lastRole ? ''.padEnd(ROLE_WIDTH) : (conversation === 'main' ? yellow : cyan)(role.padEnd(ROLE_WIDTH));
    lastRole = role;
    console.log(`${clock()}  ${label} ${text}`);
  }
  const more = (text) => console.log(`${blank}${text}`);
  /** A result line: its mark, then the text wrapped under itself. */
  const lead = (mark, text) => console.log(`${blank}${mark} ${wrap(text, `${blank}  `).slice(blank.length + 2)}`);
  const detail = (text) => console.log(dim(wrap(text, `${blank}  `)));

  function describeCall(call) {
    if (call.name === 'Bash') {
      const command = rel(call.input.command).split('\n')[0];
      return `${command.startsWith('tdd-gate') ? 'cli  ' : 'bash '} ${command}`;
    }
    if (call.name === 'Edit') return `Edit  ${rel(call.input.file_path)}: ${JSON.stringify(call.input.old_string)} → ${JSON.stringify(call.input.new_string)}`;
    return `${call.name.padEnd(5)} ${rel(call.input.file_path ?? '')}`;
  }

  /** What came back for one call: a tdd-gate deny, the CLI's answer, or the tool's result. */
  function showResult(call, res) {
    const reason = gateReason(res.content);
    if (reason) {
      more(`${red('✗ denied by tdd-gate')}`);
      detail(rel(reason));
      return;
    }
    const lines = rel(res.content).trim().split('\n').filter((l) => l.trim() !== '' && !/^Exit code \d+$/u.test(l));
    const mark = res.is_error ? red('✗') : green('✓');
    const command = call.name === 'Bash' ? rel(call.input.command) : '';
    if (call.name === 'Read') more(`${mark} ${dim(`read, ${lines.length} lines`)}`);
    else if (call.name === 'Write' || call.name === 'Edit') more(`${mark} ${res.is_error ? lines[0] : `allowed by tdd-gate ${dim('(written)')}`}`);
    else if (call.name === 'Bash' && !command.startsWith('tdd-gate')) {
      // The gate allowed the command; whether the command itself succeeded is its own business.
      const summary = lines.filter((l) => /^# (tests|pass|fail) \d+/u.test(l)).map((l) => l.slice(2)).join(', ');
      const outcome = summary ? `${res.is_error ? 'failed' : 'passed'}: ${summary}` : res.is_error ? `failed: ${lines[0] ?? ''}` : 'ran';
      more(`${green('✓')} allowed by tdd-gate ${dim(`(${outcome})`)}`);
    } else if (/ done --json$/u.test(command) && !res.is_error) {
      const evidence = /"evidence[^"]*":\s*"([^"]+)"/u.exec(res.content)?.[1] ?? '(see the output)';
      more(`${green('✓ done')} ${dim(`evidence record ${rel(evidence)}`)}`);
    } else if (/ result \S/u.test(command)) {
      const action = lines[0] ?? '';
      const why = lines.find((l) => l.startsWith('detail: ')) ?? lines[2] ?? '';
      lead(action === 'proceed' ? green('✓') : yellow('↻'), `${action}${why ? ` — ${why.replace(/^detail: /u, '')}` : ''}`);
    } else if (/ context /u.test(command)) {
      more(`${mark} ${dim(`${lines.length} lines of allowlisted context for the next child`)}`);
    } else {
      lead(mark, lines[0] ?? '');
      if (lines[1]) detail(lines.slice(1, res.is_error ? 3 : 2).join(' '));
    }
  }

  function onTurn({ conversation, fresh, body, answer, waiting }) {
    for (const res of fresh) {
      const call = pending.get(res.tool_use_id);
      pending.delete(res.tool_use_id);
      if (!call || call.call.name === 'Agent') {
        if (call && isLaunchNotice(res.content)) line(conversation, dim(`(the ${roleOf.get(call.child) ?? 'child'} went on in the background; waiting for it)`));
        continue;
      }
      showResult(call.call, res);
    }
    for (const notice of hookNotices(body)) {
      more(red('↺ tdd-gate after the command:'));
      detail(rel(notice));
    }
    if (waiting !== undefined || !answer) return;
    const text = answer.content.find((b) => b.type === 'text')?.text;
    const calls = answer.content.filter((b) => b.type === 'tool_use');
    if (text && calls.length === 0) {
      const status = /status: (\w+)/u.exec(text)?.[1];
      const verdict = /verdict: (\w+)/u.exec(text)?.[1];
      const tail = [status && `status ${status}`, verdict && `verdict ${verdict}`].filter(Boolean).join(', ');
      const said = `${text.split('\n')[0]}${tail ? ` (tdd-result: ${tail})` : ''}`;
      const head = conversation === 'main' ? '' : 'reply ';
      line(conversation, `${head}${wrap(said, ' '.repeat(STEP_COL + head.length)).slice(STEP_COL + head.length)}`);
    } else if (text) line(conversation, `${dim('says ')} ${wrap(text, ' '.repeat(RESULT_COL)).slice(RESULT_COL)}`);
    for (const call of calls) {
      if (call.name === 'Agent') {
        const child = /\[\[e2e:([\w-]+)\]\]/u.exec(call.input.prompt)?.[1] ?? '';
        const role = String(call.input.subagent_type).replace(/^tdd-gate:/u, '');
        roleOf.set(child, role);
        const again = [...roleOf.entries()].filter(([, r]) => r === role).length > 1;
        line(conversation, `${bold('agent')} ${call.input.subagent_type} ${dim(again ? '(again, with exactly the retry prompt `result` printed)' : '(a fresh subagent, in the foreground)')}`);
        pending.set(call.id, { conversation, call, child });
      } else {
        line(conversation, describeCall(call));
        pending.set(call.id, { conversation, call });
      }
    }
  }

  line('main', dim(`starting Claude Code: ${COMMAND} specs/SPEC-001.md`));
  const sessionStarted = Date.now();
  let result;
  try {
    result = await runSession({
      bin,
      home,
      cwd: root,
      prompt: `${COMMAND} [[e2e:main]] specs/SPEC-001.md`,
      script,
      args: ['--plugin-dir', PLUGIN_ROOT, '--allowedTools', 'Read,Write,Edit,Bash,Agent'],
      onTurn,
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  for (const { call } of pending.values()) {
    console.log(`${red('(no result: the client stopped early)')} ${describeCall(call)}`);
    problems.push(`no result for ${describeCall(call)}`);
  }
  const { toolResults } = result.api;
  const testNow = readFileSync(path.join(root, 'tests/add.test.js'), 'utf8');
  const implemented = existsSync(path.join(root, 'src/add.js')) && readFileSync(path.join(root, 'src/add.js'), 'utf8') === IMPL;
  const evidenceDir = path.join(root, '.tdd', 'evidence');
  const evidence = existsSync(evidenceDir) && readdirSync(evidenceDir).some((f) => /^SPEC-001-.*\.json$/u.test(f));
  const denies = toolResults.filter((t) => gateReason(t.content) !== null).length;
  const hookSeconds = (result.latencies.reduce((sum, l) => sum + l.ms, 0) / 1000).toFixed(1);
  const turns = result.api.requests.filter((q) => q.kind === 'turn').length;
  const firstTurn = result.api.requests.find((q) => q.kind === 'turn');
  const startup = firstTurn ? ((firstTurn.at - sessionStarted) / 1000).toFixed(1) : '?';
  console.log('');
  console.log(testNow === TEST ? green('The frozen test is unchanged; add() was implemented in the source.') : red('tests/add.test.js CHANGED: the gate did not hold.'));
  console.log(dim(`${denies} call(s) denied; ${seconds} s in all: ${startup} s for the client to start, ${hookSeconds} s in ${result.hooks.length} hook runs, the rest in ${turns} model turns (the client, and the CLI running the tests).`));
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
