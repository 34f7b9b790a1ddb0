// Tamper evidence inside the real client: an MCP server's write and a background command's late
// write, on a cycle the CLI anchored (docs/tamper-evidence.md).
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { ADD_TEST, lab, toGreen } from '../tamper/fixtures.js';
import { ALLOWED_TOOLS, describeE2E, E2E_TIMEOUT, hooksOf, resultOf, session, throwawayHome } from './harness.js';
import { runtimePath } from './opaque.js';

/** A minimal stdio MCP server with one tool, write_file(path, content), relative to its cwd. */
const MCP_SERVER = `
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  let m; try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined) return;
  if (m.method === 'initialize') return send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params?.protocolVersion ?? '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'fs', version: '1.0.0' } } });
  if (m.method === 'tools/list') return send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'write_file', description: 'Write a file', inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] } }] } });
  if (m.method === 'tools/call') { writeFileSync(m.params.arguments.path, m.params.arguments.content); return send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'wrote ' + m.params.arguments.path }] } }); }
  send({ jsonrpc: '2.0', id: m.id, result: {} });
});
`;

function scratch(): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-e2e-mcp-')));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describeE2E('tamper', (bin) => {
  it('an MCP write to a frozen test is denied like a Write; one to another file goes through', async () => {
    const home = throwawayHome();
    const l = lab({ home, data: false });
    toGreen(l);
    const dir = scratch();
    writeFileSync(path.join(dir, 'server.mjs'), MCP_SERVER);
    const config = path.join(dir, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { fs: { command: process.execPath, args: [path.join(dir, 'server.mjs')] } } }));
    const write = (file: string, content: string) => ({ name: 'mcp__fs__write_file', input: { path: l.repo.path(file), content } });
    const r = await session(bin, l.repo, {
      home,
      allowedTools: `${ALLOWED_TOOLS},ToolSearch,mcp__fs__write_file`,
      args: ['--mcp-config', config, '--strict-mcp-config'],
      script: {
        main: [
          { tools: [{ name: 'ToolSearch', input: { query: 'select:mcp__fs__write_file', max_results: 5 } }] },
          { tools: [write('test/add.test.js', 'weakened\n')] },
          { tools: [write('notes.md', 'hello\n')] },
          { text: 'Done.' },
        ],
      },
    });
    const denied = resultOf(r, 1);
    expect(denied.is_error, denied.content).toBe(true);
    expect(denied.content).toMatch(/tdd-gate rule \[(role|tests-frozen)\]/u);
    expect(readFileSync(l.repo.path('test/add.test.js'), 'utf8')).toBe(ADD_TEST);
    expect(resultOf(r, 2).is_error, resultOf(r, 2).content).toBe(false);
    expect(readFileSync(l.repo.path('notes.md'), 'utf8')).toBe('hello\n');
  }, E2E_TIMEOUT);

  // Started in the background, a writer acts after its own PostToolUse has run; its target is put
  // together at run time, so the static check has nothing to deny but the background itself. Then
  // it leaves a mark, which the next command waits for: however slow the machine, the write has
  // happened by then.
  const LATER = `import { writeFileSync } from 'node:fs';\nconst target = ${runtimePath('test/add.test.js')};\nsetTimeout(() => {\n  writeFileSync(target, 'weakened\\n');\n  writeFileSync('tools/later.done', '');\n}, 1500);\n`;

  // Without the OS wall a background call is refused before it runs (ADR 010): it would act after
  // the gate checked it. The gate asks (the client's permission mode lets an ask reach a person);
  // in `-p` mode nobody can answer, so the client refuses the call and nothing runs.
  it('without the OS wall a background command is refused before it runs', async () => {
    const home = throwawayHome();
    const l = lab({ home, data: false });
    toGreen(l);
    l.repo.write('tools/later.mjs', LATER);
    const r = await session(bin, l.repo, {
      home,
      script: {
        main: [
          { tools: [{ name: 'Bash', input: { command: 'node tools/later.mjs', description: 'Start the generator', run_in_background: true } }] },
          { tools: [{ name: 'Bash', input: { command: 'sleep 3; ls tools', description: 'List' } }] },
          { text: 'Done.' },
        ],
      },
      partial: ['main'],
    });
    expect(resultOf(r, 0).is_error).toBe(true);
    expect(resultOf(r, 0).content).toMatch(/tdd-gate rule \[bash-unmodelled\]: .*`run_in_background` runs the command in the background/s);
    expect(resultOf(r, 0).content).toContain('"bash_allow": ["run_in_background"]');
    expect(resultOf(r, 1).content).not.toContain('later.done');
    expect(readFileSync(l.repo.path('test/add.test.js'), 'utf8')).toBe(ADD_TEST);
  }, E2E_TIMEOUT);

  // A project that relies on background commands allows them (stack.json bash_allow, before the
  // cycle): the writer then runs, and the frozen test it changes after it returned is caught and
  // reverted by the checks after the next call.
  it('a background command the project allows, that changes a frozen test after it returned, is caught and reverted', async () => {
    const home = throwawayHome();
    const l = lab({ home, data: false, stack: { bash_allow: ['run_in_background'] } });
    toGreen(l);
    l.repo.write('tools/later.mjs', LATER);
    const r = await session(bin, l.repo, {
      home,
      script: {
        main: [
          { tools: [{ name: 'Bash', input: { command: 'node tools/later.mjs', description: 'Start the generator', run_in_background: true } }] },
          { tools: [{ name: 'Bash', input: { command: 'while [ ! -e tools/later.done ]; do sleep 0.2; done', description: 'Wait for the generator' } }] },
          { tools: [{ name: 'Bash', input: { command: 'ls', description: 'List' } }] },
          { text: 'Done.' },
        ],
      },
      partial: ['main'],
    });
    expect(resultOf(r, 0).is_error, resultOf(r, 0).content).toBe(false);
    const outputs = [...hooksOf(r, 'PreToolUse'), ...hooksOf(r, 'PostToolUse')].map((h) => h.stdout).join('\n');
    expect(outputs).toMatch(/frozen-restored/);
    expect(readFileSync(l.repo.path('test/add.test.js'), 'utf8')).toBe(ADD_TEST);
  }, E2E_TIMEOUT);

  it('settings that switch hooks off, written by a script the static check passes, are put back before the next call', async () => {
    const home = throwawayHome();
    const l = lab({ home, data: false });
    toGreen(l);
    // The plain script names its target: the static check (wall 1) denies it before it runs.
    l.repo.write('tools/plain.mjs', "import { mkdirSync, writeFileSync } from 'node:fs';\nmkdirSync('.claude', { recursive: true });\nwriteFileSync('.claude/settings.local.json', JSON.stringify({ disableAllHooks: true }));\n");
    // This one puts its target together at run time: only the integrity check (wall 2) sees it.
    l.repo.write('tools/setup.mjs', `import { mkdirSync, writeFileSync } from 'node:fs';\nconst dir = ${runtimePath('.claude')};\nconst file = dir + ${runtimePath('/settings.local.json')};\nmkdirSync(dir, { recursive: true });\nwriteFileSync(file, JSON.stringify({ disableAllHooks: true }));\n`);
    const r = await session(bin, l.repo, {
      home,
      script: {
        main: [
          { tools: [{ name: 'Bash', input: { command: 'node tools/plain.mjs', description: 'Set up' } }] },
          { tools: [{ name: 'Bash', input: { command: 'node tools/setup.mjs', description: 'Set up' } }] },
          { tools: [{ name: 'Read', input: { file_path: l.repo.path('test/add.test.js') } }] },
          { tools: [{ name: 'Write', input: { file_path: l.repo.path('test/add.test.js'), content: 'weakened\n' } }] },
          { text: 'Done.' },
        ],
      },
    });
    const plain = resultOf(r, 0);
    expect(plain.is_error, plain.content).toBe(true);
    expect(plain.content).toMatch(/tdd-gate rule \[control-file\]: Blocked write to \.claude\/settings\.local\.json/u);
    expect(resultOf(r, 1).is_error, resultOf(r, 1).content).toBe(false);
    const post = hooksOf(r, 'PostToolUse').map((h) => h.stdout).join('\n');
    expect(post).toMatch(/tamper-restored/);
    expect(readFileSync(l.repo.path('.claude/settings.local.json'), 'utf8')).not.toContain('disableAllHooks');
    const denied = resultOf(r, 3);
    expect(denied.is_error, denied.content).toBe(true);
    expect(denied.content).toMatch(/tdd-gate rule \[(role|tests-frozen)\]/u);
    expect(readFileSync(l.repo.path('test/add.test.js'), 'utf8')).toBe(ADD_TEST);
  }, E2E_TIMEOUT);

  it('a state deleted by a script the static check passes blocks the next call, and the person is told', async () => {
    const home = throwawayHome();
    const l = lab({ home, data: false });
    toGreen(l);
    l.repo.write('tools/clean.mjs', `import { rmSync } from 'node:fs';\nconst state = ${runtimePath('.tdd')};\nrmSync(state, { recursive: true, force: true });\n`);
    const r = await session(bin, l.repo, {
      home,
      script: {
        main: [
          { tools: [{ name: 'Bash', input: { command: 'node tools/clean.mjs', description: 'Clean' } }] },
          { tools: [{ name: 'Write', input: { file_path: l.repo.path('notes.md'), content: 'x\n' } }] },
          { text: 'Done.' },
        ],
      },
    });
    expect(resultOf(r, 0).is_error, resultOf(r, 0).content).toBe(false);
    const denied = resultOf(r, 1);
    expect(denied.is_error, denied.content).toBe(true);
    expect(denied.content).toMatch(/tdd-gate rule \[state-tampered\]/u);
    const pre = hooksOf(r, 'PreToolUse').map((h) => JSON.parse(h.stdout || '{}') as { systemMessage?: string });
    expect(pre.some((o) => o.systemMessage?.includes('tdd-gate recover'))).toBe(true);
  }, E2E_TIMEOUT);
});
