import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCommand } from '../../src/verify/runner.js';

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return { isTTY, write: (s: string) => chunks.push(s), chunks };
}

describe('a long test run shows progress on stderr', () => {
  it('a spinner with what runs and for how long on a terminal; nothing for a short run off a terminal', { timeout: 30_000 }, async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'tdd-gate-progress-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const tty = sink(true);
    const plain = sink(false);
    await Promise.all([
      runCommand({ root, command: 'sleep 3.5', label: 'green', timeoutSeconds: 30, env: { PATH: process.env.PATH }, progress: tty }),
      runCommand({ root, command: 'sleep 3.5', label: 'red', timeoutSeconds: 30, env: { PATH: process.env.PATH }, progress: plain }),
    ]);
    expect(tty.chunks.join('')).toMatch(/\r. tdd-gate: green: sleep 3\.5 \(3s\)/);
    expect(tty.chunks.at(-1)).toBe('\r\u001b[K');
    expect(plain.chunks).toEqual([]);
  });
});
