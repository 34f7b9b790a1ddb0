// What the Bash sandbox costs per call: one session of 20 trivial Bash calls with the sandbox off,
// one with it on, alternated twice; prints the median time per scripted turn. No API key needed
// (the fake Messages API plays the turns). `TDD_GATE_E2E_CLAUDE=<path>` picks another client.
// Usage: node scripts/hardened-overhead.mjs
import { execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { claudeVersion, findClaude, makeHome, runSession } from './demo/claude.mjs';
import { marker } from './demo/fakeApi.mjs';

const bin = findClaude();
if (bin === null) throw new Error('no Claude Code client: run npm install first');
console.log(`Claude Code ${claudeVersion(bin).version ?? '?'}`);
const N = 20;
for (const on of [false, true, false, true]) {
  const repo = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-overhead-')));
  const home = makeHome();
  try {
    execSync('git init -q -b main && git -c user.email=o@example.com -c user.name=o commit -q --allow-empty -m init', { cwd: repo });
    mkdirSync(path.join(repo, '.claude'));
    writeFileSync(path.join(repo, '.claude/settings.local.json'), JSON.stringify({ sandbox: { enabled: on, allowUnsandboxedCommands: false } }));
    const turns = Array.from({ length: N }, (_, i) => ({ tools: [{ name: 'Bash', input: { command: `true ${i}`, description: 'noop' } }] }));
    const r = await runSession({ bin, home, cwd: repo, prompt: `${marker('main')} go`, args: ['--allowedTools', 'Bash'], script: { main: [...turns, { text: 'ok' }] } });
    const at = r.api.requests.filter((q) => q.kind === 'turn').map((q) => q.at);
    const gaps = at.slice(1).map((t, i) => t - at[i]).sort((a, b) => a - b);
    console.log(`${on ? 'sandbox on ' : 'sandbox off'}: median ${gaps[Math.floor(gaps.length / 2)]} ms per Bash turn (${N} calls)`);
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}
