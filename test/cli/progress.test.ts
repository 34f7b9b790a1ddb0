import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCommand } from '../../src/verify/runner.js';

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return { isTTY, write: (s: string) => chunks.push(s), chunks };
}

/** Resolves once `cond` holds: the test waits for what it needs to see, never for a fixed time. */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 50));
}

describe('a long test run shows progress on stderr', () => {
  it('a spinner with what runs and for how long on a terminal; nothing for a short run off a terminal', { timeout: 60_000 }, async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'tdd-gate-progress-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const tty = sink(true);
    const plain = sink(false);
    // Each command runs until the test lets it end: the terminal one once the spinner has shown
    // its third second, the other at once (a short run, which shows nothing off a terminal).
    const wait = (file: string) => `until [ -e ${file} ]; do sleep 0.05; done`;
    writeFileSync(path.join(root, 'plain.go'), '');
    const runs = Promise.all([
      runCommand({ root, command: wait('tty.go'), label: 'green', timeoutSeconds: 50, env: { PATH: process.env.PATH }, progress: tty }),
      runCommand({ root, command: wait('plain.go'), label: 'red', timeoutSeconds: 50, env: { PATH: process.env.PATH }, progress: plain }),
    ]);
    await until(() => tty.chunks.join('').includes('(3s)'));
    writeFileSync(path.join(root, 'tty.go'), '');
    await runs;
    expect(tty.chunks.join('')).toMatch(/\r. tdd-gate: green: until \[ -e tty\.go \]; do sleep 0\.05; done \(3s\)/);
    expect(tty.chunks.at(-1)).toBe('\r\u001b[K');
    expect(plain.chunks).toEqual([]);
  });
});
