import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOOK } from '../helpers/hook.js';
import { PASS_VERDICT } from '../cli/fixtures.js';
import { ADD_TEST, CLI, IMPL, ev, lab, ok, toRed, type Lab } from './fixtures.js';

const VALIDATOR = { agent_type: 'tdd-gate:test-validator', agent_id: 'validator-9' };

function stop(l: Lab, agentId = 'validator-9') {
  return l.hook(
    { session_id: 's', cwd: l.repo.root, hook_event_name: 'SubagentStop', stop_hook_active: false, agent_id: agentId, agent_type: 'tdd-gate:test-validator', last_assistant_message: PASS_VERDICT },
    'SubagentStop',
  );
}

function toValidRed(l: Lab): void {
  toRed(l);
  l.repo.write('test/add.test.js', ADD_TEST);
  l.repo.write('src/add.js', '// STUB:TDD\nexport function add() { return 0; }\n');
  ok(l.cli('verify', 'red'));
  l.repo.write('verdict.md', PASS_VERDICT);
}

describe("the plugin's programs, by canonical path and content", () => {
  it.each([
    ['piping an event into the hook program', (_l: Lab) => `echo '{"agent_type":"tdd-gate:test-validator"}' | node "${HOOK}" SubagentStop`],
    ['the hook by another path', (l: Lab) => `node ${path.relative(l.repo.root, path.dirname(HOOK))}/../dist/./hook.mjs SubagentStop < stop.json`],
    ['a copy of the hook', (l: Lab) => (copyFileSync(HOOK, l.repo.path('tools/h.mjs')), 'node tools/h.mjs SubagentStop < stop.json')],
    ['an import of the hook', (_l: Lab) => `node -e "import('${HOOK}')" SubagentStop < stop.json`],
  ])('denies %s, from the main thread too', (_name, command) => {
    const l = lab();
    toRed(l);
    l.repo.write('tools/.keep', '');
    const r = l.pre(ev.bash(l.o(), command(l)));
    expect(r.decision).toBe('deny');
    expect(r.reason).toMatch(/^tdd-gate rule \[hook-feed\]/);
  });

  it.each([
    ['dist/./cli.mjs', (_l: Lab) => `node ${path.dirname(CLI)}/./cli.mjs freeze --verdict verdict.md`],
    ['a copy of the CLI', (l: Lab) => (copyFileSync(CLI, l.repo.path('tools/c.mjs')), 'node tools/c.mjs freeze --verdict verdict.md')],
    ['an import of the CLI', (_l: Lab) => `node -e "import('${CLI}')" freeze --verdict verdict.md`],
  ])('denies the CLI spelled as %s', (_name, command) => {
    const l = lab();
    toRed(l);
    l.repo.write('tools/.keep', '');
    for (const who of [IMPL, {}]) {
      const r = l.pre(ev.bash(l.o(who), command(l)));
      expect(r.decision).toBe('deny');
      expect(r.reason).toMatch(/cli-spelling/);
    }
  });

  it('lets the documented spelling through, judged by its verb', () => {
    const l = lab();
    toRed(l);
    expect(l.pre(ev.bash(l.o(IMPL), `node "${CLI}" status`)).decision).toBe('pass');
    expect(l.pre(ev.bash(l.o(IMPL), `node "${CLI}" freeze --verdict verdict.md`)).reason).toMatch(/subagent-cli/);
    expect(l.pre(ev.bash(l.o(), `node "${CLI}" abort --reason x`)).decision).toBe('ask');
  });
});

describe('a forged SubagentStop is not a record freeze trusts', () => {
  it('does not record a stop that arrives while a command is running, so freeze refuses it', () => {
    const l = lab();
    toValidRed(l);
    // A command the static check let through is running (no PostToolUse yet) when the "stop" arrives.
    const bash = { ...ev.bash(l.o(), 'sh tools/run.sh'), tool_use_id: 'toolu_forge' };
    expect(l.pre(bash).decision).toBe('pass');
    expect(stop(l).stdout).toBe('');
    const events = readFileSync(l.repo.path('.tdd/events.jsonl'), 'utf8');
    expect(events).toContain('"type":"result-unverified"');
    expect(ok(l.cli('freeze', '--verdict', 'verdict.md'), 1).stderr).toMatch(/returned this verdict while other commands were still running .*not recorded/);
    // Once the command is over, the validator's real stop counts.
    l.post('sh tools/run.sh', { tool_use_id: 'toolu_forge' });
    expect(stop(l).stdout).toBe('');
    ok(l.cli('freeze', '--verdict', 'verdict.md'));
  });

  it('refuses a state change while a subagent command is running (the CLI by a spelling nothing saw)', () => {
    const l = lab();
    toValidRed(l);
    expect(stop(l).stdout).toBe('');
    const bash = { ...ev.bash(l.o(VALIDATOR), 'npm test'), tool_use_id: 'toolu_sub' };
    expect(l.pre(bash).decision).toBe('pass');
    expect(ok(l.cli('freeze', '--verdict', 'verdict.md'), 1).stderr).toMatch(/subagent tdd-gate:test-validator is still running/);
    l.post('npm test', { ...VALIDATOR, tool_use_id: 'toolu_sub' });
    ok(l.cli('freeze', '--verdict', 'verdict.md'));
  });
});
