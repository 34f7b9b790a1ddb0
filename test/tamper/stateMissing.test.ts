// The state file deleted behind the CLI's back (`rm -rf .tdd`, e.g. by a skill's shell command on a
// client that runs it without hooks): the gate blocks every write until `recover`, and what the
// person reads says so — `status` and the status line do not call it "no cycle".
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/hook.js';
import { lab, toGreen } from './fixtures.js';

describe('the state file deleted while the anchor holds an active cycle', () => {
  it('status says the state is missing and names recover (exit 1); the status line already says so; recover brings the cycle back', () => {
    const l = lab();
    toGreen(l);
    rmSync(l.repo.path('.tdd'), { recursive: true, force: true });
    const status = l.cli('status');
    expect(status.status).toBe(1);
    expect(status.stdout).toMatch(/^tdd-gate: the state file \.tdd\/state-main-[0-9a-f]{6}\.json of branch main is missing, but the anchor kept outside the work tree says a cycle is active: .*`tdd-gate recover`/u);
    expect(status.stdout).not.toContain('no TDD cycle');
    const json = JSON.parse(l.cli('status', '--json').stdout) as { active: unknown; rule: string };
    expect(json).toMatchObject({ active: null, rule: 'state-tampered' });
    const line = runCli(l.repo.root, ['statusline'], l.env);
    expect(line.stdout.trim()).toBe('tdd-gate: no cycle · gate OFF: state ≠ anchor (tdd-gate recover)');
    expect(l.cli('recover').status).toBe(0);
    expect(l.cli('status').stdout).toMatch(/^tdd-gate: tdd-green for SPEC-001/u);
  });
});
