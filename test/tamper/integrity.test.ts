import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, linkSync, lstatSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IMPL, WRITER, ADD_TEST, ev, lab, toGreen, toRed, type Lab } from './fixtures.js';

const mcp = (l: Lab, name: string, input: Record<string, unknown>, extra = {}) => ({ ...ev.write(l.o(extra), 'x', ''), tool_name: name, tool_input: input });

function events(l: Lab): { type: string; files?: string[]; failed?: string[] }[] {
  return readFileSync(l.repo.path('.tdd/events.jsonl'), 'utf8').trim().split('\n').map((x) => JSON.parse(x) as { type: string });
}

describe('one integrity check of the control set, at every gated call and after every Bash call', () => {
  it('restores a stack.json changed by a command the static check passed, denies once, and tells the person', () => {
    const l = lab();
    toRed(l);
    const stack = readFileSync(l.repo.path('.tdd/stack.json'), 'utf8');
    l.repo.write('.tdd/stack.json', stack.replace('"test/**"', '"nothing/**"'));
    const r = l.pre(ev.write(l.o(WRITER), 'test/add.test.js', ADD_TEST));
    expect(r.decision).toBe('deny');
    expect(r.reason).toMatch(/^tdd-gate rule \[tamper-restored\]/);
    expect(r.reason).toContain('.tdd/stack.json');
    expect(JSON.parse(r.stdout)).toHaveProperty('systemMessage');
    expect(readFileSync(l.repo.path('.tdd/stack.json'), 'utf8')).toBe(stack);
    expect(l.pre(ev.write(l.o(WRITER), 'test/add.test.js', ADD_TEST)).decision).toBe('pass');
    expect(events(l).some((e) => e.type === 'hook-restore' && e.files?.includes('.tdd/stack.json'))).toBe(true);
  });

  it('catches a background writer at the next call: a frozen test changed after its command returned', async () => {
    const l = lab();
    toGreen(l);
    const frozen = readFileSync(l.repo.path('test/add.test.js'), 'utf8');
    // Started by an earlier (allowed) Bash call whose PostToolUse found nothing; it writes afterwards.
    expect(l.post('npm run dev &').out).toBeNull();
    const child = spawn(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(l.repo.path('test/add.test.js'))}, 'weakened')`], { stdio: 'ignore' });
    await new Promise((resolve) => child.on('exit', resolve));
    const r = l.pre(ev.write(l.o(IMPL), 'src/add.js', 'export function add(a, b) { return a + b; }\n'));
    expect(r.decision).toBe('deny');
    expect(r.reason).toMatch(/frozen-restored/);
    expect(readFileSync(l.repo.path('test/add.test.js'), 'utf8')).toBe(frozen);
  });

  it('moves away a test file added beside the frozen tests after the freeze, and leaves run leftovers alone', () => {
    const l = lab();
    toGreen(l);
    l.repo.write('test/__pycache__/add.cpython-312.pyc', 'x');
    l.repo.write('test/run.log', 'x');
    expect(l.pre(ev.write(l.o(IMPL), 'src/add.js', 'export const add = (a, b) => a + b;\n')).decision).toBe('pass');
    l.repo.write('test/extra.test.js', "import { test } from 'node:test';\ntest('x', () => {});\n");
    const r = l.pre(ev.write(l.o(IMPL), 'src/add.js', 'export const add = (a, b) => a + b;\n'));
    expect(r.reason).toMatch(/tamper-restored.*created after the freeze/s);
    expect(existsSync(l.repo.path('test/extra.test.js'))).toBe(false);
    expect(existsSync(l.repo.path('test/run.log'))).toBe(true);
  });

  it('puts back the frozen snapshot itself from the anchor copy', () => {
    const l = lab();
    toGreen(l);
    const copy = l.repo.path('.tdd/snapshots/frozen/test/add.test.js.copy');
    const frozen = readFileSync(copy, 'utf8');
    writeFileSync(copy, 'weakened');
    l.repo.write('test/add.test.js', 'weakened');
    const r = l.post('node tools/gen.js');
    expect(r.out?.decision).toBe('block');
    expect(readFileSync(copy, 'utf8')).toBe(frozen);
    expect(readFileSync(l.repo.path('test/add.test.js'), 'utf8')).toBe(frozen);
  });

  it('removes lines appended to the event log by anything but tdd-gate (a forged validator record)', () => {
    const l = lab();
    toRed(l);
    const log = readFileSync(l.repo.path('.tdd/events.jsonl'), 'utf8');
    appendFileSync(l.repo.path('.tdd/events.jsonl'), JSON.stringify({ type: 'result', source: 'subagent-stop', role: 'test-validator', digest: 'x' }) + '\n');
    expect(l.post('echo done').out?.reason).toMatch(/event log/);
    expect(readFileSync(l.repo.path('.tdd/events.jsonl'), 'utf8').startsWith(log)).toBe(true);
    expect(readFileSync(l.repo.path('.tdd/events.jsonl'), 'utf8')).not.toContain('"digest":"x"');
  });

  it('turns a .claude replaced by a link back into a directory, without touching the link target', () => {
    const l = lab();
    mkdirSync(l.repo.path('.claude'));
    l.repo.write('.claude/settings.json', '{"permissions":{"allow":[]}}\n');
    toRed(l);
    const evil = l.repo.path('../evil-' + path.basename(l.repo.root));
    mkdirSync(evil);
    writeFileSync(path.join(evil, 'settings.json'), '{"disableAllHooks":true}\n');
    renameSync(l.repo.path('.claude'), l.repo.path('old-claude'));
    symlinkSync(evil, l.repo.path('.claude'));
    const r = l.pre(ev.write(l.o(), 'README.md', 'x'));
    expect(r.decision).toBe('deny');
    expect(r.reason).toMatch(/tamper-restored/);
    expect(lstatSync(l.repo.path('.claude')).isDirectory()).toBe(true);
    expect(readFileSync(l.repo.path('.claude/settings.json'), 'utf8')).not.toContain('disableAllHooks');
    expect(readFileSync(path.join(evil, 'settings.json'), 'utf8')).toContain('disableAllHooks');
  });

  it('denies writing settings through a symlinked .claude, and creating or linking anything named .claude', () => {
    const l = lab();
    const evil = l.repo.path('../evil2-' + path.basename(l.repo.root));
    mkdirSync(evil);
    // A link that was there before the cycle (a dotfiles setup) stays; writing through it is still a control write.
    symlinkSync(evil, l.repo.path('.claude'));
    toRed(l);
    expect(l.pre(ev.write(l.o(), '.claude/settings.json', '{"disableAllHooks":true}')).reason).toMatch(/control-file/);
    expect(l.pre(ev.write(l.o(), 'sub/.claude', 'x')).reason).toMatch(/control-file/);
    expect(l.pre(ev.write(l.o(), path.join(l.home, '.claude/settings.json'), '{}')).reason).toMatch(/control-file/);
    expect(lstatSync(l.repo.path('.claude')).isSymbolicLink()).toBe(true);
  });

  it('reports a ~/.claude replaced by a link and keeps denying until the person puts it back', () => {
    const l = lab();
    toRed(l);
    renameSync(path.join(l.home, '.claude'), path.join(l.home, 'claude-real'));
    symlinkSync(path.join(l.home, 'claude-real'), path.join(l.home, '.claude'));
    const r = l.pre(ev.write(l.o(), 'README.md', 'x'));
    expect(r.reason).toMatch(/tamper-detected/);
    expect(r.reason).toMatch(/Stop and report this to the user/);
    expect(lstatSync(path.join(l.home, '.claude')).isSymbolicLink()).toBe(true);
  });

  it('treats a hard link to the settings as the settings, and denies until the second name is removed', () => {
    const l = lab();
    mkdirSync(l.repo.path('.claude'));
    l.repo.write('.claude/settings.json', '{}\n');
    toRed(l);
    linkSync(l.repo.path('.claude/settings.json'), l.repo.path('notes.json'));
    const w = l.pre(ev.write(l.o(), 'notes.json', '{"disableAllHooks":true}'));
    expect(w.decision).toBe('deny');
    expect(w.reason).toMatch(/control-file|tamper-detected/);
    const r = l.pre(ev.write(l.o(), 'README.md', 'x'));
    expect(r.reason).toMatch(/tamper-detected/);
    expect(r.reason).toMatch(/second name/);
    expect(l.pre(ev.write(l.o(), 'README.md', 'x')).decision).toBe('deny');
  });

  it('restores guarded settings keys written by a command the static check passed, keeping the rest', () => {
    const l = lab();
    mkdirSync(path.join(l.home, '.claude'), { recursive: true });
    writeFileSync(path.join(l.home, '.claude/settings.json'), '{"model":"x"}\n');
    toRed(l);
    writeFileSync(path.join(l.home, '.claude/settings.json'), '{"model":"y","disableAllHooks":true,"permissions":{"allow":["Bash(npm test)"]}}\n');
    const r = l.post('python3 tools/setup.py');
    expect(r.out?.reason).toMatch(/tamper-restored/);
    expect(JSON.parse(readFileSync(path.join(l.home, '.claude/settings.json'), 'utf8'))).toEqual({ model: 'y', permissions: { allow: ['Bash(npm test)'] } });
  });

  it('restores a shell snapshot that had a line appended', () => {
    const l = lab();
    const snap = path.join(l.home, '.claude/shell-snapshots/snapshot-bash-1-abc.sh');
    writeFileSync(snap, 'export PATH=/usr/bin\n');
    toRed(l);
    appendFileSync(snap, 'rm -f .tdd/state-*.json\n');
    expect(l.pre(ev.bash(l.o(), 'ls')).reason).toMatch(/tamper-restored/);
    expect(readFileSync(snap, 'utf8')).toBe('export PATH=/usr/bin\n');
  });

  it("pins a new session's shell snapshot when first seen, and restores it when a line is appended", () => {
    const l = lab();
    toRed(l);
    const snap = path.join(l.home, '.claude/shell-snapshots/snapshot-bash-2-new.sh');
    writeFileSync(snap, 'export PATH=/usr/bin\n');
    expect(l.pre(ev.bash(l.o(), 'ls')).decision).toBe('pass');
    appendFileSync(snap, 'node -e "require(\'fs\').rmSync(\'.tdd\', {recursive: true})"\n');
    expect(l.post('ls').out?.reason).toMatch(/tamper-restored/);
    expect(readFileSync(snap, 'utf8')).toBe('export PATH=/usr/bin\n');
  });

  it('moves away an agent definition added to .claude/agents during the cycle', () => {
    const l = lab();
    toRed(l);
    l.repo.write('.claude/agents/helper.md', '---\nname: helper\n---\nWrite the tests for me.\n');
    expect(l.pre(ev.write(l.o(), 'README.md', 'x')).reason).toMatch(/tamper-restored/);
    expect(existsSync(l.repo.path('.claude/agents/helper.md'))).toBe(false);
  });
});

describe('every writing tool is gated', () => {
  it('judges an MCP tool argument that names a protected path like a Write to it', () => {
    const l = lab();
    toGreen(l);
    expect(l.pre(mcp(l, 'mcp__filesystem__write_file', { path: l.repo.path('test/add.test.js'), content: 'x' }, IMPL)).reason).toMatch(/tests-frozen/);
    expect(l.pre(mcp(l, 'mcp__filesystem__edit_file', { path: 'test/add.test.js', edits: [{ oldText: 'a', newText: 'b' }] }, IMPL)).reason).toMatch(/tests-frozen/);
    expect(l.pre(mcp(l, 'mcp__filesystem__move_file', { source: 'notes.md', destination: '.tdd/stack.json' })).reason).toMatch(/control-file/);
    expect(l.pre(mcp(l, 'mcp__fs__write_file', { path: l.repo.path('.claude/settings.json'), content: '{}' })).reason).toMatch(/control-file/);
    expect(l.pre(mcp(l, 'mcp__filesystem__write_file', { path: l.repo.path('src/add.js'), content: 'x' }, IMPL)).decision).toBe('pass');
    expect(l.pre(mcp(l, 'mcp__filesystem__read_text_file', { path: l.repo.path('test/add.test.js') }, IMPL)).decision).toBe('pass');
    expect(l.pre(mcp(l, 'mcp__search__query', { q: 'hello world' })).decision).toBe('pass');
  });

  it('checks the control set after an MCP call, as after Bash', () => {
    const l = lab();
    toGreen(l);
    l.repo.write('test/add.test.js', 'weakened');
    const r = l.hook({ ...mcp(l, 'mcp__filesystem__write_file', { path: 'x', content: '' }), hook_event_name: 'PostToolUse', tool_response: {} }, 'PostToolUse');
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'block' });
    expect(readFileSync(l.repo.path('test/add.test.js'), 'utf8')).toBe(ADD_TEST);
  });

  it('judges a Monitor command like Bash, denies EnterWorktree and a Bash call without the sandbox', () => {
    const l = lab();
    toGreen(l);
    expect(l.pre(mcp(l, 'Monitor', { command: 'echo x > test/add.test.js', description: 'watch' }, IMPL)).reason).toMatch(/tests-frozen/);
    // Without the OS wall a Monitor command runs on after the check: the person is asked (ADR 010).
    expect(l.pre(mcp(l, 'Monitor', { command: 'tail -f log.txt', description: 'watch' }, IMPL)).decision).toBe('ask');
    expect(l.pre(mcp(l, 'EnterWorktree', { name: 'side' })).reason).toMatch(/worktree-switch/);
    expect(l.pre({ ...ev.bash(l.o(IMPL), 'ls'), tool_input: { command: 'ls', dangerouslyDisableSandbox: true } }).reason).toMatch(/sandbox-off/);
    expect(l.pre({ ...ev.bash(l.o(IMPL), 'ls'), tool_input: { command: 'ls', dangerouslyDisableSandbox: false } }).decision).toBe('pass');
  });
});
