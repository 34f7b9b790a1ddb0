import { readFileSync, rmSync, symlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEffect } from '../../src/gate/rules/bash/cliCalls.js';
import { ev } from '../helpers/events.js';
import { runHookBundle } from '../helpers/hook.js';
import { corpusRepo, type CorpusRepo } from './fixture.js';

/** What the model reads when the Bash gate answers: the rule, the phase and role, and the way forward. */
let repo: CorpusRepo;
beforeAll(() => {
  repo = corpusRepo();
});
afterAll(() => repo.cleanup());

function bash(command: string, agent: string | null = 'tdd-gate:implementer', phase = 'tdd-green', env: NodeJS.ProcessEnv = {}) {
  repo.setPhase(phase);
  return runHookBundle(ev.bash({ cwd: repo.root, ...(agent !== null ? { agent_type: agent } : {}) }, command), { env: { HOME: repo.home, ...env } });
}

describe('Bash gate reasons', () => {
  it('names the file, the writer, the rule, phase and role, and the next step', () => {
    const r = bash('sed -i s/3/4/ tests/a.test.ts');
    expect(r.decision).toBe('deny');
    expect(r.reason).toContain('[tests-frozen]');
    expect(r.reason).toContain('tests/a.test.ts');
    expect(r.reason).toContain('sed -i');
    expect(r.reason).toContain('phase tdd-green');
    expect(r.reason).toContain('tdd-gate:implementer');
    expect(r.reason).toContain('changing source files only');
  });

  it('says what could not be resolved, and how to proceed', () => {
    const r = bash('rm "$TARGET"');
    expect(r.reason).toContain('[bash-unresolved]');
    expect(r.reason).toContain('$TARGET');
    expect(r.reason).toContain('Write/Edit');
  });

  it('explains a HEAD move and the file-restore alternative', () => {
    const r = bash('git checkout other');
    expect(r.reason).toContain('[head-move]');
    expect(r.reason).toContain('git checkout -- <file>');
  });

  it('tells a subagent that state-changing CLI verbs are the orchestrator\'s', () => {
    const r = bash('tdd-gate verify green');
    expect(r.reason).toContain('[subagent-cli]');
    expect(r.reason).toContain('verify green');
  });

  it('asks the user before the main thread aborts the cycle, and records the ask', () => {
    const r = bash('tdd-gate abort --reason "stuck"', null);
    expect(r.decision).toBe('ask');
    expect(r.reason).toContain('[cli-confirm]');
    expect(r.reason).toContain('SPEC-001');
    const events = readFileSync(`${repo.root}/.tdd/events.jsonl`, 'utf8');
    expect(events).toContain('"type":"hook-ask"');
    expect(events).toContain('"rule":"cli-confirm"');
  });

  it('lets a deny win over an ask in the same command', () => {
    expect(bash('tdd-gate abort --reason x; git checkout other', null).decision).toBe('deny');
  });

  it('passes a RED stub written by a heredoc, and denies the same file without the marker', () => {
    expect(bash("cat > src/b.ts <<'EOF'\n// STUB:TDD\nexport const b = () => { throw new Error('todo'); };\nEOF", 'tdd-gate:test-writer', 'tdd-red').decision).toBe('pass');
    const r = bash("cat > src/b.ts <<'EOF'\nexport const b = () => 1;\nEOF", 'tdd-gate:test-writer', 'tdd-red');
    expect(r.reason).toContain('[red-source]');
  });
});

describe('directories and links', () => {
  it('walks a directory reached through a link', () => {
    symlinkSync('../tests', `${repo.root}/src/tests-link`);
    try {
      expect(bash('npx prettier --write src/tests-link').reason).toContain('[tests-frozen]');
    } finally {
      rmSync(`${repo.root}/src/tests-link`);
    }
  });
});

describe('inherited environment variables', () => {
  it('resolves the temp dir and the project dir the way the Bash tool sees them', () => {
    const env = { TMPDIR: '/tmp', CLAUDE_PROJECT_DIR: repo.root };
    expect(bash('npx vitest run > "$TMPDIR/run.log" 2>&1', 'tdd-gate:implementer', 'tdd-green', env).decision).toBe('pass');
    expect(bash('echo x > "$CLAUDE_PROJECT_DIR/tests/a.test.ts"', 'tdd-gate:implementer', 'tdd-green', env).reason).toContain('[tests-frozen]');
  });

  it('fails closed on a variable the hook does not know', () => {
    expect(bash('echo x > "$SOME_DIR/run.log"', 'tdd-gate:implementer', 'tdd-green', { TMPDIR: '' }).reason).toContain('[bash-unresolved]');
  });
});

describe('CLI verbs seen by the Bash gate', () => {
  it.each([
    ['status', [], 'read'],
    ['log', ['--json'], 'read'],
    ['context', ['--role', 'implementer'], 'read'],
    ['stack check', [], 'read'],
    ['spec check', ['specs/a.md', '--draft'], 'read'],
    ['stack detect', [], 'read'],
    ['stack detect', ['--write'], 'change'],
    ['', ['--help'], 'read'],
    ['verify green', [], 'change'],
    ['freeze', ['--verdict', 'v'], 'change'],
    ['init', ['--spec', 's'], 'change'],
    ['init', ['--spec', 's', '--force'], 'confirm'],
    ['abort', ['--reason', 'x'], 'confirm'],
    ['frobnicate', [], 'change'],
    [null, [], 'change'],
  ] as const)('%s %j is %s', (verb, args, effect) => {
    expect(cliEffect(verb, args)).toBe(effect);
  });
});
