// The I/O edges of hardened mode: sandbox availability, background tasks, the gate's CLI-call check, the SessionStart note.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { hardeningFor } from '../../src/wall/rules/sandbox.js';
import { listBackgroundTasks, type ProcessInfo } from '../../src/wall/sandboxProcesses.js';
import { hardeningNote, seatbeltProfile, wallAvailability } from '../../src/wall/sandbox.js';
import { hardenedBashCheck } from '../../src/wall/sandboxGate.js';
import { noWallCase, WALL } from './wall.js';
import { applySection, readRecord, writeRecord } from '../../src/wall/settingsMerge.js';

describe('wallAvailability', () => {
  it('refuses native Windows and says to use WSL 2', () => {
    expect(wallAvailability({ PATH: '' }, 'win32')).toMatchObject({ ok: false, problem: expect.stringMatching(/native Windows .* WSL 2 with bubblewrap and socat/) });
  });
  it('names each missing Linux package and how to install it', () => {
    expect(wallAvailability({ PATH: '' }, 'linux').problem).toMatch(/^bubblewrap and socat are not installed; install bubblewrap and socat \(Debian\/Ubuntu: `sudo apt-get install bubblewrap socat`/);
  });
});

describe('listBackgroundTasks: other Bash tasks of the same client', () => {
  const p = (pid: number, ppid: number, comm: string, command = comm): ProcessInfo => ({ pid, ppid, comm, command });
  const BASE = [p(1, 0, 'init'), p(10, 1, 'claude', '/usr/bin/claude -p go'), p(11, 10, 'socat'), p(20, 10, 'bash', 'bash -c source snapshot && eval cli'), p(21, 20, 'node', 'node cli.mjs freeze')];
  it.each<[string, ProcessInfo[], number[]]>([
    ['only this command', BASE, []],
    ['a sandboxed background task (older clients: bwrap under the client)', [...BASE, p(30, 10, 'bwrap'), p(31, 30, 'bwrap'), p(32, 31, 'bash')], [30]],
    ['a background task behind the client\'s launcher shell (newer clients)', [...BASE, p(40, 10, 'sh', 'sh -c { read line <&7 }'), p(41, 40, 'bwrap')], [40]],
    ['an MCP server is not a Bash task', [...BASE, p(50, 10, 'node', 'node mcp-server.js'), p(51, 50, 'bash')], []],
  ])('%s', (_n, procs, want) => {
    expect(listBackgroundTasks(procs, 21, true).map((t) => t.pid)).toEqual(want);
  });
  it('finds none outside Claude Code (a terminal\'s other shells are not tasks)', () => {
    expect(listBackgroundTasks([p(1, 0, 'tmux'), p(5, 1, 'bash'), p(6, 5, 'node'), p(7, 1, 'bash')], 6, false)).toEqual([]);
  });
  it('knows the native client by its place, not its name', () => {
    expect(listBackgroundTasks([p(1, 0, 'init'), p(10, 1, '2.1.331'), p(20, 10, 'bash'), p(21, 20, 'node'), p(30, 10, 'sh')], 21, true).map((t) => t.pid)).toEqual([30]);
  });
});

function repoWithRecord(): { root: string; gitDir: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'tdd-gate-harden-io-'));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const gitDir = path.join(root, '.git');
  mkdirSync(gitDir);
  return { root, gitDir };
}

describe('hardenedBashCheck: with the section applied, a command naming the CLI must be one plain call', () => {
  const CLI = 'node "/plug/dist/cli.mjs"';
  function applied(): { root: string; gitDir: string; branch: string } {
    const { root, gitDir } = repoWithRecord();
    const section = hardeningFor({ root, home: '/h', gitDir, gitCommonDir: gitDir, phase: 'tdd-green', specPath: 's.md', frozenFiles: [], testGlobs: [], cliCommand: CLI, language: 'js', extraDomains: [], tmpDirs: [] })!;
    applySection(root, gitDir, section, 'tdd-green', new Date(Date.now() - 10_000));
    writeRecord(gitDir, { ...readRecord(gitDir), on: true });
    return { root, gitDir, branch: 'main' };
  }
  it.each<[string, string | null]>([
    ['npm test', null],
    [`${CLI} verify green`, null],
    [`${CLI} verify green && rm -rf .tdd`, 'hardened-cli-call'],
    [`X=1 ${CLI} done`, 'hardened-cli-call'],
    [`${CLI} result - --role implementer <<'E'\nx\nE`, 'hardened-result-file'],
  ])('%j → %s', (command, rule) => {
    const d = hardenedBashCheck(applied(), command);
    expect(d === null ? null : d.kind === 'deny' ? d.ruleId : d.kind).toBe(rule);
  });
  it('does nothing while hardened mode has nothing applied', () => {
    const { root, gitDir } = repoWithRecord();
    expect(hardenedBashCheck({ root, gitDir, branch: 'main' }, `${CLI} verify green && rm -rf .tdd`)).toBeNull();
  });
  it('fails closed on an unreadable record', () => {
    const { root, gitDir } = repoWithRecord();
    mkdirSync(path.join(gitDir, 'tdd-gate'));
    writeFileSync(path.join(gitDir, 'tdd-gate', 'hardened.json'), '{');
    expect(hardenedBashCheck({ root, gitDir, branch: 'main' }, 'ls')).toMatchObject({ kind: 'deny', ruleId: 'hardened-record' });
  });
});

describe('hardeningNote (SessionStart)', () => {
  it('says nothing when the wall is off for the worktree', () => {
    const { root, gitDir } = repoWithRecord();
    writeRecord(gitDir, { version: 1, on: false, off: true, original: null, applied: null });
    expect(hardeningNote({ root, gitDir, branch: 'main' }, process.env)).toBeNull();
  });
  it('says the wall is NOT up when the settings do not carry it, and what to do', () => {
    const { root, gitDir } = repoWithRecord();
    writeRecord(gitDir, { version: 1, on: true, original: null, applied: null });
    expect(hardeningNote({ root, gitDir, branch: 'main' }, process.env)).toMatch(/the OS wall is NOT up: .*does not carry its section/);
  });
  noWallCase('the SessionStart note with the wall up');
  it.runIf(WALL.ok)('says the wall is up when the sandbox runs and the section is in the settings', () => {
    const { root, gitDir } = repoWithRecord();
    const section = hardeningFor({ root, home: '/h', gitDir, gitCommonDir: gitDir, phase: 'tdd-green', specPath: 's.md', frozenFiles: [], testGlobs: [], cliCommand: 'node "/c.mjs"', language: 'js', extraDomains: [], tmpDirs: [] })!;
    applySection(root, gitDir, section, 'tdd-green');
    writeRecord(gitDir, { ...readRecord(gitDir), on: true });
    expect(hardeningNote({ root, gitDir, branch: 'main' }, process.env)).toMatch(/the OS wall is up: .*the frozen tests and the test runner are read-only/);
  });
});

describe('seatbeltProfile (macOS): the same wall for the commands the CLI runs', () => {
  it('denies writes everywhere, allows the writable set, then denies the protected paths, then carves out the report directory', () => {
    const profile = seatbeltProfile({ writable: ['/nonexistent/p', '/nonexistent/h/.npm'], readOnly: ['/nonexistent/p/.tdd', '/nonexistent/p/a "b".md'], carveOut: ['/nonexistent/p/.tdd/runs'] });
    expect(profile.split('\n')).toEqual([
      '(version 1)',
      '(allow default)',
      '(deny file-write*)',
      '(allow file-write* (subpath "/nonexistent/p") (subpath "/nonexistent/h/.npm") (regex #"^/dev/"))',
      '(deny file-write* (subpath "/nonexistent/p/.tdd") (subpath "/nonexistent/p/a \\"b\\".md"))',
      '(allow file-write* (subpath "/nonexistent/p/.tdd/runs"))',
    ]);
  });
});
