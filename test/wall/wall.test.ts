// The OS wall by default, through the built CLI and hook: on at `init` without `harden on`, off
// by the project's `os_wall`, one line where the sandbox cannot run, the rule named when the wall
// stops a write, no placeholder left in the project.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { noWallCase, WALL } from '../hardened/wall.js';
import { cliAsync, ok, project, type CliRun } from '../cli/fixtures.js';
import { runHookBundle } from '../helpers/hook.js';

function home(): string {
  const h = mkdtempSync(path.join(tmpdir(), 'tdd-gate-home-'));
  onTestFinished(() => rmSync(h, { recursive: true, force: true }));
  return h;
}

/** A PATH with node and git but neither bubblewrap nor socat. */
function pathWithoutSandbox(): string {
  const bin = mkdtempSync(path.join(tmpdir(), 'tdd-gate-nobwrap-'));
  onTestFinished(() => rmSync(bin, { recursive: true, force: true }));
  symlinkSync(process.execPath, path.join(bin, 'node'));
  symlinkSync('/usr/bin/git', path.join(bin, 'git'));
  return bin;
}

function settings(root: string): { sandbox?: { enabled: boolean; failIfUnavailable: boolean; filesystem: { denyWrite: string[] }; network: { allowLocalBinding?: boolean } } } | null {
  try {
    return JSON.parse(readFileSync(path.join(root, '.claude/settings.local.json'), 'utf8')) as never;
  } catch {
    return null;
  }
}

function hook(event: string, input: Record<string, unknown>, env: NodeJS.ProcessEnv): { context: string | null; stdout: string } {
  const r = runHookBundle({ session_id: 's', transcript_path: '/tmp/t.jsonl', hook_event_name: event, ...input }, { event, env });
  if (r.stdout.trim() === '') return { context: null, stdout: r.stdout };
  const out = JSON.parse(r.stdout) as { hookSpecificOutput?: { additionalContext?: string } };
  return { context: out.hookSpecificOutput?.additionalContext ?? null, stdout: r.stdout };
}

describe('where the sandbox cannot run', () => {
  it('init, status and SessionStart say so in one line, with what to install; no settings are written', async () => {
    const repo = project('node-test');
    const env = { PATH: pathWithoutSandbox(), HOME: home() };
    const init = await cliAsync(repo.root, ['init', '--spec', 'specs/SPEC-001.md', '--mode', 'light-inline'], env);
    ok(init);
    const line = /tdd-gate: no OS wall here — Claude Code's Bash sandbox cannot run \(bubblewrap and socat are not installed; install bubblewrap and socat \(Debian\/Ubuntu: `sudo apt-get install bubblewrap socat`.*\); the gate allows during a cycle only Bash commands it can fully analyse\./;
    expect(init.stderr).toMatch(line);
    expect(init.stderr.split('\n').filter((l) => l.includes('OS wall'))).toHaveLength(1);
    expect(settings(repo.root)).toBeNull();
    expect(ok(await cliAsync(repo.root, ['status'], env)).stdout).toMatch(line);
    const start = hook('SessionStart', { source: 'startup', cwd: repo.root }, env);
    expect(start.context).toMatch(line);
    expect(start.context!.split('\n').filter((l) => l.includes('OS wall'))).toHaveLength(1);
  });

  it('a project that requires the wall (`"os_wall": "on"`) starts no cycle there', async () => {
    const repo = project('node-test', {}, { os_wall: 'on' });
    const r = await cliAsync(repo.root, ['init', '--spec', 'specs/SPEC-001.md', '--mode', 'light-inline'], { PATH: pathWithoutSandbox(), HOME: home() });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/the OS wall is required here, but Claude Code's Bash sandbox cannot run: bubblewrap and socat are not installed/);
  });
});

noWallCase('the OS wall by default');

describe.runIf(WALL.ok)('the OS wall by default (bubblewrap works here)', () => {
  it('goes up at init with no `harden on`, holds the control set, explains a stopped write, and comes down at abort with no placeholder left', { timeout: 120_000 }, async () => {
    const repo = project('node-test');
    const h = home();
    // The person's own files (a missing one inside a writable folder, as this temporary home is, gets no entry: see controlPaths.ts).
    for (const f of ['.bashrc', '.gitconfig', '.npmrc', '.claude/settings.json']) {
      mkdirSync(path.dirname(path.join(h, f)), { recursive: true });
      writeFileSync(path.join(h, f), '');
    }
    const run = (...args: string[]): Promise<CliRun> => cliAsync(repo.root, args, { HOME: h });
    ok(await run('init', '--spec', 'specs/SPEC-001.md', '--mode', 'light-inline'));
    const s = settings(repo.root)!;
    expect(s.sandbox).toMatchObject({ enabled: true, failIfUnavailable: true, network: { allowLocalBinding: true } });
    expect(s.sandbox!.filesystem.denyWrite).toEqual(
      expect.arrayContaining([repo.path('.tdd'), repo.path('.git/config'), repo.path('.git/hooks'), path.join(h, '.bashrc'), path.join(h, '.gitconfig'), path.join(h, '.npmrc'), path.join(h, '.claude/settings.json'), repo.path('specs/SPEC-001.md')]),
    );
    // No placeholder-making entry for a missing control file at the project root.
    expect(s.sandbox!.filesystem.denyWrite).not.toContain(repo.path('CLAUDE.md'));
    expect(ok(await run('status')).stdout).toMatch(/ {2}wall {5}up \(on by default\)/);

    // PostToolUse: the command saw only "Read-only file system"; the gate names the rule.
    for (const [stderr, want] of [
      [`rm: cannot remove '.tdd/state-main.json': Read-only file system`, /cycle's records/],
      [`bash: ${h}/.bashrc: Read-only file system`, /shell start-up files/],
      [`error: could not lock config file .git/config: Read-only file system`, /git -c key=value/],
    ] as const) {
      const r = hook('PostToolUse', { cwd: repo.root, tool_name: 'Bash', tool_use_id: 'x', tool_input: { command: 'node tool.js' }, tool_response: { stdout: '', stderr, interrupted: false } }, { HOME: h });
      expect(r.context).toMatch(/^tdd-gate \[os-wall\]: the OS wall/);
      expect(r.context).toMatch(want);
    }
    const quiet = hook('PostToolUse', { cwd: repo.root, tool_name: 'Bash', tool_use_id: 'y', tool_input: { command: 'ls' }, tool_response: { stdout: 'a\nb\n', stderr: '', interrupted: false } }, { HOME: h });
    expect(quiet.context).toBeNull();

    // The client's placeholders, left behind by a sandboxed command still running at its exit.
    writeFileSync(repo.path('.bashrc'), '');
    writeFileSync(repo.path('.bash_profile'), '');
    writeFileSync(repo.path('.profile'), 'mine\n');
    ok(await run('abort', '--reason', 'test'));
    expect(settings(repo.root)).toBeNull();
    expect(existsSync(repo.path('.bashrc'))).toBe(false);
    expect(existsSync(repo.path('.bash_profile'))).toBe(false);
    expect(readFileSync(repo.path('.profile'), 'utf8')).toBe('mine\n');
  });

  it('stays down for a project that opts out (`"os_wall": "off"`), and `harden on` in the worktree wins', async () => {
    const repo = project('node-test', {}, { os_wall: 'off' });
    const h = home();
    const run = (...args: string[]): Promise<CliRun> => cliAsync(repo.root, args, { HOME: h });
    ok(await run('init', '--spec', 'specs/SPEC-001.md', '--mode', 'light-inline'));
    expect(settings(repo.root)).toBeNull();
    expect(ok(await run('status')).stdout).toMatch(/wall {5}off: turned off for the project/);
    ok(await run('harden', 'on'));
    expect(settings(repo.root)?.sandbox?.enabled).toBe(true);
    ok(await run('harden', 'off'));
    expect(settings(repo.root)).toBeNull();
    expect(ok(await run('status')).stdout).toMatch(/wall {5}off: turned off for this worktree/);
  });
});
