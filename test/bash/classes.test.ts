import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import { HOOK } from '../helpers/hook.js';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ABSENT_PART, runnerPartTexts } from '../../src/state/rules/runnerParts.js';
import { ATTACKS_BY_CLASS, EXTRA_FILES, HOME_FILES, MUST_DENY, MUST_PASS, ORDINARY_BY_CLASS, STASHES } from './classes.js';
import type { Case } from './corpus.js';
import { corpusRepo, type CorpusRepo } from './fixture.js';

/**
 * Attack classes and ordinary commands through the built hook (dist/hook.mjs), a few at a time,
 * in RED, GREEN and REFACTOR. GREEN and REFACTOR hold a freeze as \`tdd-gate freeze\` records it:
 * the frozen files by hash and the runner parts of package.json & co.
 */
type Phase = NonNullable<Case['phase']>;
const repos = new Map<Phase, CorpusRepo>();
const outcomes = new Map<Case, { decision: string; reason: string }>();
const DENY = [...MUST_DENY, ...ATTACKS_BY_CLASS];
const PASS = [...MUST_PASS, ...ORDINARY_BY_CLASS];
const ALL = [...DENY, ...PASS];
const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');
const FROZEN = ['tests/a.test.ts', 'tests/unit/c.test.ts', 'vitest.config.ts', 'specs/SPEC-001.md'];

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
  for (const phase of ['tdd-red', 'tdd-green', 'tdd-refactor'] as const) {
    const repo = corpusRepo({ stashes: STASHES });
    // The corpus fixture links src/link.ts to a test; ordinary whole-directory edits of src/ would write through it.
    rmSync(path.join(repo.root, 'src/link.ts'));
    for (const [rel, content] of Object.entries(EXTRA_FILES)) {
      mkdirSync(path.dirname(path.join(repo.root, rel)), { recursive: true });
      writeFileSync(path.join(repo.root, rel), content);
    }
    for (const [rel, content] of Object.entries(HOME_FILES)) writeFileSync(path.join(repo.home, rel), content);
    const read = (rel: string) => {
      try {
        return readFileSync(path.join(repo.root, rel), 'utf8');
      } catch {
        return null;
      }
    };
    const parts = Object.fromEntries(Object.entries(runnerPartTexts(read, 'npx vitest run')).map(([k, v]) => [k, sha(v ?? ABSENT_PART)]));
    const files = Object.fromEntries(FROZEN.map((rel) => [rel, sha(readFileSync(path.join(repo.root, rel)))]));
    repo.setPhase(phase, phase === 'tdd-red' ? {} : { frozen: { at: '2026-11-22T00:00:00.000Z', spec_hash: 'x', files, parts } });
    repos.set(phase, repo);
  }
  const queue = [...ALL];
  const worker = async () => {
    for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
      const repo = repos.get(c.phase ?? 'tdd-green') as CorpusRepo;
      const role = c.role === undefined ? (c.phase === 'tdd-refactor' ? 'tdd-gate:refactorer' : 'tdd-gate:implementer') : c.role;
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
  it.each(DENY.map((c) => [label(c), c] as const))('%s', (_l, c) => {
    const o = outcomes.get(c);
    expect(o?.decision, o?.reason).toBe('deny');
    if (c.why) expect(o?.reason).toMatch(c.why);
    // A deny never suggests a construct the gate cannot see.
    expect(o?.reason).not.toMatch(/script file|run it by name/);
  });
});

describe('ordinary RED, GREEN and REFACTOR work passes', () => {
  it('covers every class in every phase', () => {
    expect(new Set(ORDINARY_BY_CLASS.map((c) => c.phase ?? 'tdd-green'))).toEqual(new Set(['tdd-red', 'tdd-green', 'tdd-refactor']));
    expect(ORDINARY_BY_CLASS.length).toBeGreaterThanOrEqual(150);
  });

  it.each(PASS.map((c) => [label(c), c] as const))('%s', (_l, c) => {
    const o = outcomes.get(c);
    expect(o?.decision, o?.reason).toBe('pass');
  });
});
