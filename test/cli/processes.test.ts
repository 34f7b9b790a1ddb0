import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { strayProcesses } from '../../src/verify/oracle/processes.js';
import { CLI } from '../helpers/hook.js';
import { project, readState, startRed } from './fixtures.js';

describe.skipIf(process.platform !== 'linux')('processes still running inside the project', () => {
  it('are found by working directory, from the cycle’s start on, not our own line, not an allowed name', async () => {
    const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-procs-')));
    mkdirSync(path.join(root, 'sub'));
    const child = spawn('sleep', ['30'], { cwd: path.join(root, 'sub'), stdio: 'ignore', detached: true });
    onTestFinished(() => {
      process.kill(-child.pid!, 'SIGKILL');
      rmSync(root, { recursive: true, force: true });
    });
    await new Promise((r) => setTimeout(r, 300));
    const before = new Date(Date.now() - 60_000);
    // our own direct children are left alone (a test run still exiting)
    expect(strayProcesses(root, [], before).filter((p) => p.pid === child.pid)).toEqual([]);
    const grand = spawn('sh', ['-c', 'sleep 30 & wait'], { cwd: root, stdio: 'ignore', detached: true });
    onTestFinished(() => {
      process.kill(-grand.pid!, 'SIGKILL');
    });
    await new Promise((r) => setTimeout(r, 300));
    const strays = strayProcesses(root, [], before);
    expect(strays.map((p) => p.comm)).toContain('sleep');
    expect(strays.every((p) => p.cwd.startsWith(root))).toBe(true);
    expect(strayProcesses(root, ['sleep'], before).map((p) => p.comm)).not.toContain('sleep');
    // the other commands of our own command line (`tdd-gate verify green | tail`) share our process group
    const piped = spawn('sh', ['-c', 'sleep 2 & wait'], { cwd: root, stdio: 'ignore' });
    onTestFinished(() => {
      piped.kill('SIGKILL');
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(strayProcesses(root, [], before).filter((p) => p.comm === 'sleep')).toHaveLength(1);
    // what was running before the cycle began is not the cycle's doing
    expect(strayProcesses(root, [], new Date(Date.now() + 5_000))).toEqual([]);
  });
});

/** Gone, or a zombie nobody reaps yet: either way no longer running. */
function running(pid: number): boolean {
  try {
    return !/^State:\s+[ZX]/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(cond: () => boolean, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(process.platform !== 'linux')('stopping the CLI stops every process it started', () => {
  it.each([
    ['a shell', 'sleep 300 & echo $! > gc.pid; wait'],
    ['npm exec', "npm exec --offline -c 'sleep 300 & echo $! > gc.pid; wait'"],
  ])('SIGTERM to `verify red` while the test command (through %s) runs a long-lived grandchild', { timeout: 120_000 }, async (_via, command) => {
    const repo = project('node-test', {}, { test_command: command });
    startRed(repo);
    const cliProc = spawn(process.execPath, [CLI, 'verify', 'red'], { cwd: repo.root, stdio: 'ignore', env: { ...process.env, TDD_GATE_DISABLE: '' } });
    let exit: number | null | undefined;
    cliProc.on('exit', (code, signal) => (exit = code ?? (signal === null ? null : -1)));
    onTestFinished(() => {
      if (exit === undefined) cliProc.kill('SIGKILL');
    });
    await until(() => existsSync(repo.path('gc.pid')) && readFileSync(repo.path('gc.pid'), 'utf8').trim() !== '', 'the grandchild to start');
    const grandchild = Number(readFileSync(repo.path('gc.pid'), 'utf8').trim());
    onTestFinished(() => {
      try {
        process.kill(grandchild, 'SIGKILL');
      } catch {
        // gone, as it should be
      }
    });
    expect(running(grandchild)).toBe(true);
    cliProc.kill('SIGTERM');
    await until(() => exit !== undefined, 'the CLI to exit');
    expect(exit).toBe(128 + 15);
    await until(() => !running(grandchild), 'the grandchild to be gone');
    // the stopped run recorded nothing
    expect(readState(repo).receipts?.red).toBeUndefined();
  });
});
