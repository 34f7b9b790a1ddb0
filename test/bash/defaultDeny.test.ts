import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeBash } from '../../src/gate/rules/bash/analyze.js';
import type { BashAnalysis } from '../../src/gate/rules/bash/types.js';
import { decideBash, type BashFacts } from '../../src/gate/rules/decideBash.js';
import type { Decision } from '../../src/gate/rules/decision.js';
import { ev } from '../helpers/events.js';
import { HOOK } from '../helpers/hook.js';
import { DEFAULT_STACK, SPEC_TEXT, git, state, stateFileFor } from '../helpers/repo.js';
import { ATTACKS, ORDINARY, PROJECT } from './defaultDeny.js';

/**
 * Default-deny without the OS wall (ADR 010): every attack class is never allowed silently (asked
 * where a person can answer, denied where not), passes the default-deny layer under the OS wall,
 * and the everyday corpus passes without asking. Through the pure analysis and policy, and
 * through the built hook in a temporary git repository.
 */

const ROOT = '/p';
const DIRS = new Set<string>();
for (const rel of Object.keys(PROJECT)) for (let d = path.posix.dirname(rel); d !== '.'; d = path.posix.dirname(d)) DIRS.add(`${ROOT}/${d}`);

function analyse(cmd: string, allow: string[] = []): BashAnalysis {
  const rel = (abs: string) => (abs.startsWith(ROOT + '/') ? abs.slice(ROOT.length + 1) : null);
  return analyzeBash(cmd, {
    cwd: ROOT,
    home: '/h',
    root: ROOT,
    read: (abs) => {
      const r = rel(abs);
      return r === null ? null : (PROJECT[r] ?? null);
    },
    exists: (abs) => {
      const r = rel(abs);
      return abs === ROOT || DIRS.has(abs) || (r !== null && r in PROJECT);
    },
    allow: allow.map((e) => e.split(' ')),
  });
}

/** Facts where no target is protected: only the default-deny layer (and unresolved writes) can object. */
function facts(over: Partial<BashFacts> = {}): BashFacts {
  return {
    cwd: ROOT,
    agentType: 'tdd-gate:implementer',
    specId: 'SPEC-001',
    phase: 'tdd-green',
    mode: 'standard',
    cycle: () => {
      throw new Error('no target is protected in these tables');
    },
    targets: () => [],
    classesOf: () => ['other'],
    contentAfter: () => null,
    outsideProject: () => false,
    allExist: () => true,
    display: (abs) => abs,
    ...over,
  };
}

const decide = (cmd: string, over: Partial<BashFacts> = {}, allow: string[] = []): Decision => decideBash(analyse(cmd, allow), facts(over));
const ruleOf = (d: Decision) => (d.kind === 'pass' ? null : d.ruleId);

const ATTACK_ROWS = Object.entries(ATTACKS).flatMap(([cls, cmds]) => cmds.map((cmd) => [cls, cmd] as const));

describe('default-deny, pure: the everyday corpus', () => {
  it('holds at least 150 commands across JavaScript, Python, Go and Rust', () => {
    expect(ORDINARY.length).toBeGreaterThanOrEqual(150);
  });

  it.each(ORDINARY)('%s passes without asking', (cmd) => {
    const a = analyse(cmd);
    expect(a.unmodelled, JSON.stringify(a.unmodelled)).toEqual([]);
    const d = decide(cmd, { canAsk: true });
    expect(d.kind, d.kind === 'pass' ? '' : d.reason).toBe('pass');
  });
});

describe('default-deny, pure: attack classes', () => {
  it.each(ATTACK_ROWS)('%s: %s is asked about where a person can answer', (_cls, cmd) => {
    const d = decide(cmd, { canAsk: true });
    expect(d.kind).not.toBe('pass');
    // Only a precise deny of another rule (an unresolved write, a HEAD move) may come first.
    if (d.kind === 'ask') expect(d.ruleId).toBe('bash-unmodelled');
  });

  it.each(ATTACK_ROWS)('%s: %s is denied where no one can answer', (_cls, cmd) => {
    const d = decide(cmd, { canAsk: false });
    expect(d.kind).toBe('deny');
  });

  it.each(ATTACK_ROWS)('%s: %s is left to the sandbox under the OS wall', (_cls, cmd) => {
    expect(ruleOf(decide(cmd, { canAsk: true, osWall: true }))).not.toBe('bash-unmodelled');
  });

  it('a background call (run_in_background, the Monitor tool) is asked about even when its command is known', () => {
    expect(ruleOf(decide('npx vitest --watch', { canAsk: true, background: true }))).toBe('bash-unmodelled');
    expect(decide('npx vitest --watch', { canAsk: true, background: true, osWall: true }).kind).toBe('pass');
  });

  it('the reason names the program, what it does and how a project allows it', () => {
    const d = decide('tclsh /tmp/x.tcl', { canAsk: true });
    expect(d.kind).toBe('ask');
    const reason = d.kind === 'ask' ? d.reason : '';
    expect(reason).toContain('`tclsh`');
    expect(reason).toContain('bash_allow');
    expect(reason).toContain('stack.json');
    const g = decide('go run .', { canAsk: false });
    expect(g.kind === 'deny' ? g.reason : '').toContain('go run');
  });
});

describe('default-deny, pure: a project allowlist (stack.json bash_allow)', () => {
  it.each([
    ['tclsh /tmp/x.tcl', ['tclsh']],
    ['cmake -E copy a b', ['cmake']],
    ['go run ./cmd/tool', ['go run']],
    ['npm run deploy-x', ['tclsh tools/deploy.tcl']],
    ['./tools/x.bin --check', ['./tools/x.bin']],
  ])('%s passes when %j is allowed', (cmd, allow) => {
    expect(decideBash(analyse(cmd, allow), facts({ canAsk: false })).kind).toBe('pass');
  });

  it.each([
    ['go generate ./...', ['go run']],
    ['make CC=tclsh build', ['make test']],
    ['tclsh /tmp/x.tcl', ['tcl']],
  ])('%s still asks with only %j allowed', (cmd, allow) => {
    expect(ruleOf(decideBash(analyse(cmd, allow), facts({ canAsk: true })))).toBe('bash-unmodelled');
  });
});

// ---- through the built hook ----

interface Outcome {
  decision: 'pass' | 'deny' | 'ask' | 'other';
  reason: string;
}

let base = '';
let root = '';
let home = '';

function runHook(input: unknown): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOOK, 'PreToolUse'], { env: { ...process.env, TDD_GATE_DISABLE: '', HOME: home, CLAUDE_PLUGIN_ROOT: '' } });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', () => {
      if (stdout.trim() === '') return resolve({ decision: 'pass', reason: '' });
      try {
        const out = JSON.parse(stdout) as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
        const d = out.hookSpecificOutput?.permissionDecision;
        resolve({ decision: d === 'deny' || d === 'ask' ? d : 'other', reason: out.hookSpecificOutput?.permissionDecisionReason ?? '' });
      } catch {
        resolve({ decision: 'other', reason: stdout.slice(0, 200) });
      }
    });
    child.stdin.end(JSON.stringify(input));
  });
}

async function runAll<T>(items: readonly T[], fn: (t: T) => Promise<Outcome>): Promise<Map<T, Outcome>> {
  const out = new Map<T, Outcome>();
  const queue = [...items];
  const worker = async () => {
    for (let t = queue.shift(); t !== undefined; t = queue.shift()) out.set(t, await fn(t));
  };
  await Promise.all([worker(), worker()]);
  return out;
}

const bashEvent = (cmd: string, extra: Record<string, unknown> = {}) => ({ ...ev.bash({ cwd: root, agent_type: 'tdd-gate:implementer' }, cmd), ...extra });
const SAMPLE = Object.values(ATTACKS).flatMap((cmds) => cmds.filter((_, i) => i % 3 === 0));
let ordinary = new Map<string, Outcome>();
let asked = new Map<string, Outcome>();
let refused = new Map<string, Outcome>();
let walled = new Map<string, Outcome>();
let monitor: Outcome = { decision: 'other', reason: '' };
let background: Outcome = { decision: 'other', reason: '' };

beforeAll(async () => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-deny-')));
  root = path.join(base, 'proj');
  home = path.join(base, 'home');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  writeFileSync(path.join(home, '.claude', 'settings.json'), '{}\n');
  mkdirSync(root);
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'config', 'user.email', 't@example.com');
  git(root, 'config', 'user.name', 'T');
  for (const [rel, content] of Object.entries(PROJECT)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content.split('/p/').join(`${root}/`));
  }
  mkdirSync(path.join(root, 'specs'), { recursive: true });
  writeFileSync(path.join(root, 'specs/SPEC-001.md'), SPEC_TEXT);
  mkdirSync(path.join(root, '.tdd'), { recursive: true });
  writeFileSync(path.join(root, '.tdd/stack.json'), JSON.stringify(DEFAULT_STACK, null, 2));
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'init');
  writeFileSync(path.join(root, '.tdd', stateFileFor('main')), JSON.stringify(state('tdd-green'), null, 2));
  ordinary = await runAll(ORDINARY, (cmd) => runHook(bashEvent(cmd)));
  asked = await runAll(SAMPLE, (cmd) => runHook(bashEvent(cmd)));
  refused = await runAll(SAMPLE, (cmd) => runHook(bashEvent(cmd, { permission_mode: 'bypassPermissions' })));
  monitor = await runHook({ ...bashEvent('npx vitest --watch'), tool_name: 'Monitor', tool_input: { command: 'npx vitest --watch', description: 'watch' } });
  background = await runHook(bashEvent('npx vitest --watch', { tool_input: { command: 'npx vitest --watch', run_in_background: true } }));
  // The OS wall: hardened mode applied in this worktree (the record the gate keeps in the git directory).
  mkdirSync(path.join(root, '.git', 'tdd-gate'), { recursive: true });
  const record = { version: 1, on: true, original: null, applied: { sha256: 'x', section: { sandbox: { enabled: true, excludedCommands: [] } }, at: '2020-01-01T00:00:00.000Z', phase: 'tdd-green' } };
  writeFileSync(path.join(root, '.git', 'tdd-gate', 'hardened.json'), JSON.stringify(record));
  walled = await runAll(SAMPLE, (cmd) => runHook(bashEvent(cmd)));
}, 600_000);

afterAll(() => {
  if (base !== '') rmSync(base, { recursive: true, force: true });
});

describe('default-deny through the built hook', () => {
  it('blocks at most 2% of the everyday corpus (here: none)', () => {
    const blocked = [...ordinary.entries()].filter(([, o]) => o.decision !== 'pass').map(([cmd, o]) => `${cmd} → ${o.decision}: ${o.reason.slice(0, 200)}`);
    expect(blocked).toEqual([]);
  });

  it('asks the person about every attack class in default mode, naming the rule', () => {
    const silent = [...asked.entries()].filter(([, o]) => o.decision === 'pass').map(([cmd]) => cmd);
    expect(silent).toEqual([]);
    for (const [cmd, o] of asked) expect(o.decision === 'ask' ? o.reason : '[bash-unmodelled]', cmd).toContain('[bash-unmodelled]');
    expect([...asked.values()].filter((o) => o.decision === 'ask').length).toBeGreaterThan(SAMPLE.length / 2);
  });

  it('denies them where the permission mode would let an ask through without a person', () => {
    const notDenied = [...refused.entries()].filter(([, o]) => o.decision !== 'deny').map(([cmd, o]) => `${cmd} → ${o.decision}`);
    expect(notDenied).toEqual([]);
  });

  it('asks about a Monitor command and a Bash call run in the background', () => {
    expect(monitor.decision, monitor.reason).toBe('ask');
    expect(monitor.reason).toContain('run_in_background');
    expect(background.decision, background.reason).toBe('ask');
  });

  it('leaves them to the sandbox under the OS wall', () => {
    const stillUnmodelled = [...walled.entries()].filter(([, o]) => o.reason.includes('[bash-unmodelled]')).map(([cmd]) => cmd);
    expect(stillUnmodelled).toEqual([]);
  });
});
