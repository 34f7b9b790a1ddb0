// Fail closed when the hook cannot run: the client must not let a write through because our hook
// process is missing, crashed or hung (DESIGN §4). `node` is replaced on the client's PATH.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { state, testRepo } from '../helpers/repo.js';
import { describeE2E, E2E_TIMEOUT, resultOf, session, type SessionResult } from './harness.js';

const FROZEN = "it('adds', () => expect(1 + 2).toBe(3));\n";

function binDir(): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-e2e-bin-')));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A PATH with only what the client needs to start (shell, git, the isolation tools): no node. */
function pathWithoutNode(): string {
  const dir = binDir();
  for (const tool of ['sh', 'bash', 'git', 'unshare', 'ip']) {
    let found = '';
    try {
      found = execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
    } catch {
      continue;
    }
    if (found.startsWith('/')) symlinkSync(found, path.join(dir, tool));
  }
  return dir;
}

/** A PATH whose first `node` is a shell script with the given body. */
function pathWithFakeNode(body: string): string {
  const dir = binDir();
  writeFileSync(path.join(dir, 'node'), `#!/bin/sh\n${body}\n`);
  chmodSync(path.join(dir, 'node'), 0o755);
  return `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}`;
}

async function frozenTestWrite(bin: string, PATH: string): Promise<{ r: SessionResult; after: string }> {
  const repo = testRepo({ files: { 'tests/add.test.ts': FROZEN } });
  repo.setState(state('tdd-green', { mode: 'light-inline' }));
  const test = repo.path('tests/add.test.ts');
  const r = await session(bin, repo, {
    env: { PATH },
    script: {
      main: [
        { tools: [{ name: 'Read', input: { file_path: test } }] },
        { tools: [{ name: 'Write', input: { file_path: test, content: 'it.skip("adds", () => {});\n' } }] },
        { text: 'Done.' },
      ],
    },
  });
  return { r, after: readFileSync(test, 'utf8') };
}

describeE2E('fail closed', (bin) => {
  // The Read passes through the hook too (held-out tests), so it is the first call blocked; the
  // client then refuses the Write on its own (the file was never read), and nothing is written.
  it('node missing from PATH: the first gated call (the Read) is blocked with the hook command’s own message, and the write is not performed', async () => {
    const { r, after } = await frozenTestWrite(bin, pathWithoutNode());
    const read = resultOf(r, 0);
    expect(read.is_error).toBe(true);
    expect(read.content).toContain('tdd-gate: node is not on PATH, so the TDD gate cannot run and this call is blocked.');
    expect(resultOf(r, 1).is_error).toBe(true);
    expect(after).toBe(FROZEN);
  }, E2E_TIMEOUT);

  // hooks.json's `"onFailure": "block"` is not a key this client (2.1.197) knows, so a hook process
  // that exits 1 (a crash before our own catch, a broken bundle, an old node) would be a
  // non-blocking error. The PreToolUse command ends in `|| exit 2`, which blocks instead.
  let crash: { r: SessionResult; after: string } | null = null;
  it('the hook process crashes (node exits 1): the hook command turns it into exit 2', async () => {
    crash = await frozenTestWrite(bin, pathWithFakeNode('echo "node: simulated crash" >&2\nexit 1'));
    // The Read is gated too: older clients then refuse the unread Write themselves, newer ones send
    // it to the hook as well. Every call the hook saw ended in exit 2.
    const pre = crash.r.hooks.filter((h) => h.event === 'PreToolUse');
    expect(pre.length).toBeGreaterThanOrEqual(1);
    for (const h of pre) expect(h.exitCode).toBe(2);
  }, E2E_TIMEOUT);
  it('… and the write is blocked (fail closed)', () => {
    expect(crash).not.toBeNull();
    expect(resultOf(crash!.r, 1).is_error).toBe(true);
    expect(crash!.after).toBe(FROZEN);
  });

  // The same for a hang: the client's own hook timeout (15 s) is a non-blocking error, so the
  // command runs node under `timeout 10` and blocks when it expires. (The fake node also hangs the
  // SessionStart hook until the client's 15 s limit, so this scenario takes about 25 s.)
  let hang: { r: SessionResult; after: string } | null = null;
  it('the hook process hangs past the timeout: the client ran the hook', async () => {
    hang = await frozenTestWrite(bin, pathWithFakeNode('exec sleep 60'));
    expect(hang.r.hooks.filter((h) => h.event === 'PreToolUse').length).toBeGreaterThanOrEqual(1);
  }, E2E_TIMEOUT);
  it('… and the write is blocked (fail closed)', () => {
    expect(hang).not.toBeNull();
    expect(resultOf(hang!.r, 1).is_error).toBe(true);
    expect(hang!.after).toBe(FROZEN);
  });
});
