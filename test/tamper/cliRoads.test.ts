// The CLI authorises its own state-changing verbs (ADR 006): inside Claude Code a verb runs only on
// the one-shot ticket the hook recorded when it saw and allowed a Bash call running that verb with
// those arguments. Every other road (a wrapper or interpreter that runs the CLI, a git hook, a
// delayed background job, a subagent) reaches the CLI with no ticket and is refused. In a terminal
// nothing changes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/hook.js';
import { CLI, IMPL, ev, lab, ok, phaseOf, toRed, type Lab } from './fixtures.js';

const INSIDE = { CLAUDECODE: '1' };
const NO_TICKET = /ran inside Claude Code, but not as a Bash call that the tdd-gate hook saw and allowed for this verb .*so nothing changed/u;

function cli(l: Lab, env: NodeJS.ProcessEnv, ...args: string[]) {
  const r = runCli(l.repo.root, args, { ...l.env, ...env });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

function gate(l: Lab, command: string, extra: Record<string, unknown> = {}) {
  return l.pre(ev.bash({ cwd: l.repo.root, tool_use_id: `toolu_${Math.random().toString(36).slice(2)}`, ...extra }, command)).decision;
}

describe('the CLI refuses a state-changing verb that reached it by another road', () => {
  // Each road ends in the same place: the CLI runs inside Claude Code, and no Bash call the hook
  // allowed named this verb with these arguments. What the road was does not matter to the CLI.
  it.each<[string, (l: Lab) => void, string[]]>([
    ['no Bash call at all (cmake -E env, tclsh exec, awk system(), gdb, a git fsmonitor)', () => undefined, ['init', '--spec', 'specs/SPEC-001.md']],
    ['the hook saw another verb (a harmless `status` that runs a script)', (l) => expect(gate(l, 'tdd-gate status')).toBe('pass'), ['init', '--spec', 'specs/SPEC-001.md']],
    ['the hook saw other arguments', (l) => expect(gate(l, 'tdd-gate init --spec specs/OTHER.md')).toBe('pass'), ['init', '--spec', 'specs/SPEC-001.md']],
    ['a subagent asked (denied: no ticket)', (l) => expect(gate(l, 'tdd-gate init --spec specs/SPEC-001.md', IMPL)).toBe('deny'), ['init', '--spec', 'specs/SPEC-001.md']],
    ['the hook saw a program it does not know run something', (l) => expect(gate(l, 'cmake -E env tdd-gate-wrapper')).toBe('pass'), ['init', '--spec', 'specs/SPEC-001.md']],
  ])('with no cycle: %s', (_name, before, args) => {
    const l = lab();
    before(l);
    const r = cli(l, INSIDE, ...args);
    expect(r.status, r.out).toBe(1);
    expect(r.out).toMatch(NO_TICKET);
    expect(() => readFileSync(l.statePath, 'utf8')).toThrow();
  });

  it.each<[string, string, string[]]>([
    ['advance red', 'tdd-gate status', ['advance', 'red', '--plan', '.tdd/plans/SPEC-001.md']],
    ['verify red', 'tdd-gate verify green', ['verify', 'red']],
    ['stack detect --write', 'tdd-gate stack detect', ['stack', 'detect', '--write']],
  ])('in a cycle: %s with a ticket for something else', (_name, seen, args) => {
    const l = lab();
    ok(l.cli('init', '--spec', 'specs/SPEC-001.md'));
    l.repo.write('.tdd/plans/SPEC-001.md', '# Plan\n- AC-1: add(1, 2) is 3\n');
    const before = readFileSync(l.statePath, 'utf8');
    gate(l, seen);
    const r = cli(l, INSIDE, ...args);
    expect(r.status, r.out).toBe(1);
    expect(r.out).toMatch(NO_TICKET);
    expect(readFileSync(l.statePath, 'utf8')).toBe(before);
  });

  it('a ticket is one-shot: the second run of the verb (a delayed background job) is refused', () => {
    const l = lab();
    expect(gate(l, 'tdd-gate init --spec specs/SPEC-001.md')).toBe('pass');
    expect(cli(l, INSIDE, 'init', '--spec', 'specs/SPEC-001.md').status).toBe(0);
    expect(phaseOf(l)).toBe('tdd-plan');
    const again = cli(l, INSIDE, 'init', '--spec', 'specs/SPEC-001.md', '--force');
    expect(again.status, again.out).toBe(1);
    expect(phaseOf(l)).toBe('tdd-plan');
  });

  it('abort is asked about whatever the spelling, and refused without the question', () => {
    const l = lab();
    toRed(l);
    for (const spelling of ['tdd-gate abort --reason stop', `node "${CLI}" abort --reason stop`, 'X=1 tdd-gate abort --reason stop', 'true && tdd-gate   abort --reason stop']) {
      expect(gate(l, spelling), spelling).toBe('ask');
    }
    const r = cli(l, INSIDE, 'abort', '--reason', 'unasked');
    // the four asked tickets named `--reason stop`: this one has other arguments
    expect(r.status, r.out).toBe(1);
    expect(phaseOf(l)).toBe('tdd-red');
  });
});

describe('ordinary work: the road the hook saw works, and a terminal needs nothing', () => {
  it('init → advance red → verify red, each run as the Bash call the hook allowed', () => {
    const l = lab();
    const run = (...args: string[]) => {
      expect(gate(l, `tdd-gate ${args.join(' ')}`)).toBe('pass');
      return cli(l, INSIDE, ...args);
    };
    expect(run('init', '--spec', 'specs/SPEC-001.md').status).toBe(0);
    l.repo.write('.tdd/plans/SPEC-001.md', '# Plan\n- AC-1: add(1, 2) is 3\n');
    expect(run('advance', 'red', '--plan', '.tdd/plans/SPEC-001.md').status).toBe(0);
    expect(phaseOf(l)).toBe('tdd-red');
  });

  it('the documented node spelling, a variable argument (any arguments), read-only verbs without a ticket', () => {
    const l = lab();
    expect(gate(l, `node "${CLI}" init --spec specs/SPEC-001.md`)).toBe('pass');
    expect(cli(l, INSIDE, 'init', '--spec', 'specs/SPEC-001.md').status).toBe(0);
    l.repo.write('.tdd/plans/SPEC-001.md', '# Plan\n');
    expect(gate(l, 'P=.tdd/plans/SPEC-001.md; tdd-gate advance red --plan "$P"')).toBe('pass');
    expect(cli(l, INSIDE, 'advance', 'red', '--plan', '.tdd/plans/SPEC-001.md').status).toBe(0);
    for (const args of [['status'], ['log'], ['stack', 'check'], ['stack', 'detect'], ['doctor']]) {
      const r = cli(l, INSIDE, ...args);
      expect(r.out, args.join(' ')).not.toMatch(NO_TICKET);
    }
  });

  it('in a terminal (no Claude Code variable or process) every verb runs without a ticket', () => {
    const l = lab();
    ok(l.cli('init', '--spec', 'specs/SPEC-001.md'));
    l.repo.write('.tdd/plans/SPEC-001.md', '# Plan\n');
    ok(l.cli('advance', 'red', '--plan', '.tdd/plans/SPEC-001.md'));
    ok(l.cli('abort', '--reason', 'the person stops'));
    expect(phaseOf(l)).toBe('done');
  });
});
