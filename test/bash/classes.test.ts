import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import { HOOK } from '../helpers/hook.js';
import { EXTRA_FILES, HOME_FILES, MUST_DENY, MUST_PASS } from './classes.js';
import type { Case } from './corpus.js';
import { corpusRepo, type CorpusRepo } from './fixture.js';

/** Attack classes and ordinary commands through the built hook (dist/hook.mjs), a few at a time. */
type Phase = NonNullable<Case['phase']>;
const repos = new Map<Phase, CorpusRepo>();
const outcomes = new Map<Case, { decision: string; reason: string }>();
const ALL = [...MUST_DENY, ...MUST_PASS];

function runHook(input: unknown, env: NodeJS.ProcessEnv): Promise<{ decision: string; reason: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOOK, 'PreToolUse'], { env: { ...process.env, TDD_GATE_DISABLE: '', ...env } });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', () => {
      if (stdout.trim() === '') return resolve({ decision: 'pass', reason: '' });
      const out = JSON.parse(stdout) as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
      resolve({ decision: out.hookSpecificOutput?.permissionDecision ?? 'other', reason: out.hookSpecificOutput?.permissionDecisionReason ?? '' });
    });
    child.stdin.end(JSON.stringify(input));
  });
}

beforeAll(async () => {
  for (const phase of ['tdd-red', 'tdd-green'] as const) {
    const repo = corpusRepo();
    // The corpus fixture links src/link.ts to a test; ordinary whole-directory edits of src/ would write through it.
    rmSync(path.join(repo.root, 'src/link.ts'));
    for (const [rel, content] of Object.entries(EXTRA_FILES)) {
      mkdirSync(path.dirname(path.join(repo.root, rel)), { recursive: true });
      writeFileSync(path.join(repo.root, rel), content);
    }
    for (const [rel, content] of Object.entries(HOME_FILES)) writeFileSync(path.join(repo.home, rel), content);
    repo.setPhase(phase);
    repos.set(phase, repo);
  }
  const queue = [...ALL];
  const worker = async () => {
    for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
      const repo = repos.get(c.phase ?? 'tdd-green') as CorpusRepo;
      const role = c.role === undefined ? 'tdd-gate:implementer' : c.role;
      const input = ev.bash({ cwd: repo.root, ...(role !== null ? { agent_type: role } : {}) }, c.cmd);
      outcomes.set(c, await runHook(input, { HOME: repo.home, CLAUDE_PLUGIN_ROOT: '', TMPDIR: '/tmp' }));
    }
  };
  await Promise.all(Array.from({ length: 3 }, worker));
}, 600_000);

afterAll(() => {
  for (const repo of repos.values()) repo.cleanup();
});

const label = (c: Case) => `${c.phase ?? 'tdd-green'}: ${c.cmd.replace(/\n/g, '⏎')}`;

describe('attack classes are denied while a cycle is active', () => {
  it.each(MUST_DENY.map((c) => [label(c), c] as const))('%s', (_l, c) => {
    const o = outcomes.get(c);
    expect(o?.decision, o?.reason).toBe('deny');
    // A deny never suggests a construct the gate cannot see.
    expect(o?.reason).not.toMatch(/script file|run it by name/);
  });
});

describe('ordinary GREEN and RED work passes', () => {
  it.each(MUST_PASS.map((c) => [label(c), c] as const))('%s', (_l, c) => {
    const o = outcomes.get(c);
    expect(o?.decision, o?.reason).toBe('pass');
  });
});
