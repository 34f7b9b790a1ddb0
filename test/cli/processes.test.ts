import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { strayProcesses } from '../../src/cli/oracle/processes.js';

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
