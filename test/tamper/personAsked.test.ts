// The verbs that end or override a cycle are the person's: run inside Claude Code (CLAUDECODE=1),
// they need the gate's question on record for the call that runs them (the in-flight mark of a
// main-thread Bash call the gate answered `ask`). A shell command that a skill or slash command
// embeds on a client without PreSkillShellCommand never reached the gate: it is refused (ADR 008).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { isClaudeProcess } from '../../src/cli/personAsked.js';
import { runCli } from '../helpers/hook.js';
import { CLI, ev, lab, phaseOf, toGreen, type Lab } from './fixtures.js';

const PERSON_ONLY = /is the user's decision, and this command ran inside Claude Code without passing the gate's question to the user .* so nothing changed\. The user runs it in a terminal, or confirms it when it runs as an ordinary Bash call\./u;

function cli(l: Lab, env: NodeJS.ProcessEnv, ...args: string[]) {
  const r = runCli(l.repo.root, args, { ...l.env, ...env });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

/** The gate's PreToolUse for a main-thread (or a subagent's) Bash call running `command`. */
function gate(l: Lab, command: string, extra: Record<string, unknown> = {}) {
  const r = l.pre(ev.bash({ cwd: l.repo.root, tool_use_id: `toolu_${Math.random().toString(36).slice(2)}`, ...extra }, command));
  return (JSON.parse(r.stdout || '{}') as { hookSpecificOutput?: { permissionDecision?: string } }).hookSpecificOutput?.permissionDecision ?? 'pass';
}

describe('abort, init --force and result --resume inside Claude Code', () => {
  it.each<[string, string[]]>([
    ['abort', ['abort', '--reason', 'a skill ended it']],
    ['init --force', ['init', '--spec', 'specs/SPEC-001.md', '--force']],
    ['result --resume', ['result', '--resume']],
  ])('%s with no question on record (a skill\'s shell command on an older client) is refused; the cycle stays', (_name, args) => {
    const l = lab();
    toGreen(l);
    const before = readFileSync(l.statePath, 'utf8');
    const r = cli(l, { CLAUDECODE: '1' }, ...args);
    expect(r.status, r.out).toBe(1);
    expect(r.out).toMatch(PERSON_ONLY);
    expect(readFileSync(l.statePath, 'utf8')).toBe(before);
    expect(readFileSync(l.repo.path('.tdd/events.jsonl'), 'utf8')).toContain('without passing the gate');
  });

  it('abort that the gate asked the person about (an ordinary Bash call, approved) ends the cycle', () => {
    const l = lab();
    toGreen(l);
    expect(gate(l, `node "${CLI}" abort --reason "the user stops"`)).toBe('ask');
    const r = cli(l, { CLAUDECODE: '1' }, 'abort', '--reason', 'the user stops');
    expect(r.status, r.out).toBe(0);
    expect(phaseOf(l)).toBe('done');
  });

  it('a question the gate asked about a subagent does not exist (it denies them), and an allowed command is no question', () => {
    const l = lab();
    toGreen(l);
    expect(gate(l, `node "${CLI}" abort --reason x`, { agent_type: 'tdd-gate:implementer', agent_id: 'impl-1' })).toBe('deny');
    expect(gate(l, 'node --test')).toBe('pass');
    const r = cli(l, { CLAUDECODE: '1' }, 'abort', '--reason', 'x');
    expect(r.status, r.out).toBe(1);
    expect(phaseOf(l)).toBe('tdd-green');
  });

  it('in a terminal (no CLAUDECODE), and with the person\'s own kill switch, the person aborts without a question', () => {
    const a = lab();
    toGreen(a);
    expect(cli(a, { CLAUDECODE: '' }, 'abort', '--reason', 'from a terminal').status).toBe(0);
    expect(phaseOf(a)).toBe('done');
    const b = lab();
    toGreen(b);
    expect(cli(b, { CLAUDECODE: '1', TDD_GATE_DISABLE: '1' }, 'abort', '--reason', 'gate off on purpose').status).toBe(0);
    expect(phaseOf(b)).toBe('done');
  });

  it('a command that unsets CLAUDECODE is still inside Claude Code when a Claude Code process is above it (Linux)', () => {
    if (process.platform !== 'linux') return;
    const l = lab();
    toGreen(l);
    const before = readFileSync(l.statePath, 'utf8');
    // A parent that is Claude Code by name (its binary is `claude`), running the CLI with the variable gone.
    const dir = mkdtempSync(path.join(tmpdir(), 'tdd-gate-claude-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const claude = path.join(dir, 'claude');
    symlinkSync(process.execPath, claude);
    const script = `const r = require('node:child_process').spawnSync(process.execPath, ${JSON.stringify([CLI, 'abort', '--reason', 'unset'])}, { encoding: 'utf8' }); process.stdout.write(r.stdout + r.stderr); process.exitCode = r.status;`;
    const env: NodeJS.ProcessEnv = { ...process.env, ...l.env };
    delete env.CLAUDECODE;
    delete env.CLAUDE_CODE_ENTRYPOINT;
    const r = spawnSync(claude, ['-e', script], { cwd: l.repo.root, env, encoding: 'utf8' });
    expect(r.status, r.stdout).toBe(1);
    expect(r.stdout).toMatch(PERSON_ONLY);
    expect(readFileSync(l.statePath, 'utf8')).toBe(before);
  });

  it.each<[string, string, boolean]>([
    ['the native binary', 'claude', true],
    ['the Windows binary name', 'claude.exe', true],
    ['node running the package', 'node', true],
    ['a shell', 'bash', false],
    ['node running something else', 'node', false],
  ])('a Claude Code process: %s', (_name, comm, expected) => {
    const cmdline = _name === 'node running the package' ? 'node\0/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js\0' : 'x\0';
    expect(isClaudeProcess(comm, cmdline)).toBe(expected);
  });
});
