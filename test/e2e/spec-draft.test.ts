// From a one-line request to an approved SPEC and a started cycle, through the real client: /tdd
// with no SPEC dispatches the spec-writer (which the gate keeps inside specs/), shows the draft and
// asks; the person asks for a change (a second `claude -p --continue`), the draft is revised and
// shown again; the person approves (a third), the status goes active and `init` starts the cycle.
// Nothing is frozen before the approval: no state file exists until then.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { testRepo } from '../helpers/repo.js';
import { describeE2E, E2E_TIMEOUT, lastUserText, marker, PLUGIN_ROOT, resultOf, session, throwawayHome, type Script, type TurnContext } from './harness.js';

const SPEC_PATH = 'specs/SPEC-002-subtract.md';
const CALC = 'export function add(a, b) {\n  return a + b;\n}\n';

const DRAFT = `---
id: SPEC-002
title: Subtract two numbers
status: draft
---

# SPEC-002: Subtract two numbers

## Context

The person asked for sub(a, b) beside add(a, b) in src/calc.js.

## Requirements

### Requirement: sub returns the difference

#### Scenario: positive difference
- GIVEN the numbers 5 and 3
- WHEN sub(5, 3) is called
- THEN it returns 2
`;
const REVISED = `${DRAFT}
#### Scenario: negative difference
- GIVEN the numbers 2 and 5
- WHEN sub(2, 5) is called
- THEN it returns -3
`;
const draftBlock = (scenarios: string[]) =>
  `Draft written.\n\n\`\`\`spec-draft\nspec: ${SPEC_PATH}\nscenarios:\n${scenarios.map((s) => `  - ${s}`).join('\n')}\nassumptions:\n  - sub takes two numbers\nquestions:\n  - none\n\`\`\``;

function resultText(ctx: TurnContext, id: string): string {
  return ctx.toolResults.find((t) => t.tool_use_id === id)?.content ?? '';
}

describeE2E('spec draft', (bin) => {
  it('/tdd <plain request>: spec-writer drafts (confined to specs/), the person is asked, one change, approval, then init', async () => {
    const repo = testRepo({ files: { 'src/calc.js': CALC, 'package.json': '{ "type": "module" }\n' } });
    const home = throwawayHome();
    const cli = `node "${path.join(PLUGIN_ROOT, 'dist', 'cli.mjs')}"`;
    const bash = (command: string) => ({ tools: [{ name: 'Bash', input: { command, description: command.replace(cli, 'tdd-gate').slice(0, 60) } }] });
    const dispatch = (name: string, prompt: string) => ({
      tools: [{ name: 'Agent', input: { subagent_type: 'tdd-gate:spec-writer', description: 'draft the SPEC', prompt: `${marker(name)} ${prompt}`, run_in_background: false } }],
    });
    const show = (ctx: TurnContext, readTurn: number) => ({
      text: `Draft ${SPEC_PATH}:\n\n${resultText(ctx, `toolu_e2e_main_${readTurn}_0`)}\n\nApprove, change (say what), or cancel?`,
    });
    const script: Script = {
      main: [
        // run 1: /tdd add a sub function
        /* 0 */ bash(`${cli} status`),
        /* 1 */ dispatch('spec-writer', 'Request: add a sub(a, b) function to src/calc.js'),
        /* 2 */ bash(`${cli} spec check ${SPEC_PATH} --draft`),
        /* 3 */ { tools: [{ name: 'Read', input: { file_path: repo.path(SPEC_PATH) } }] },
        /* 4 */ (ctx) => show(ctx, 3),
        // run 2: the person asks for a change
        /* 5 */ dispatch('spec-writer-revise', `Revise ${SPEC_PATH}: also cover a negative result, sub(2, 5) is -3`),
        /* 6 */ bash(`${cli} spec check ${SPEC_PATH} --draft`),
        /* 7 */ { tools: [{ name: 'Read', input: { file_path: repo.path(SPEC_PATH) } }] },
        /* 8 */ (ctx) => show(ctx, 7),
        // run 3: the person approves
        /* 9 */ { tools: [{ name: 'Read', input: { file_path: repo.path(SPEC_PATH) } }] },
        /* 10 */ { tools: [{ name: 'Edit', input: { file_path: repo.path(SPEC_PATH), old_string: 'status: draft', new_string: 'status: active' } }] },
        /* 11 */ bash(`${cli} init --spec ${SPEC_PATH} --mode light-dispatch`),
        /* 12 */ { text: 'Cycle started for SPEC-002 (mode light-dispatch: 2 ACs, a few lines).' },
      ],
      'spec-writer': [
        { tools: [{ name: 'Read', input: { file_path: repo.path('src/calc.js') } }] },
        // It tries to write the code itself: the gate keeps it in specs/.
        { tools: [{ name: 'Write', input: { file_path: repo.path('src/calc.js'), content: `${CALC}export function sub(a, b) {\n  return a - b;\n}\n` } }] },
        { tools: [{ name: 'Write', input: { file_path: repo.path(SPEC_PATH), content: DRAFT } }] },
        { text: draftBlock(['positive difference']) },
      ],
      'spec-writer-revise': [
        { tools: [{ name: 'Read', input: { file_path: repo.path(SPEC_PATH) } }] },
        { tools: [{ name: 'Write', input: { file_path: repo.path(SPEC_PATH), content: REVISED } }] },
        { text: draftBlock(['positive difference', 'negative difference']) },
      ],
    };
    const stateFiles = () => (existsSync(repo.path('.tdd')) ? readdirSync(repo.path('.tdd')).filter((f) => f.startsWith('state-')) : []);

    // Run 1: a plain request.
    const r1 = await session(bin, repo, { home, promptPrefix: '/tdd', prompt: 'add a sub(a, b) function to src/calc.js', script, partial: ['main', 'spec-writer-revise'] });
    const skill = lastUserText(r1, 'main', 0);
    expect(skill).toContain('## Drafting a SPEC from a plain request');
    expect(skill).toContain('run_in_background: false');
    const denied = resultOf(r1, 1, 0, 'spec-writer');
    expect(denied.is_error).toBe(true);
    expect(denied.content).toContain('tdd-gate rule [spec-writer-scope]');
    expect(readFileSync(repo.path('src/calc.js'), 'utf8')).toBe(CALC);
    expect(resultOf(r1, 2, 0, 'spec-writer').is_error).toBe(false);
    expect(resultOf(r1, 2).content).toContain('a complete draft, ready to show for approval');
    expect(readFileSync(repo.path(SPEC_PATH), 'utf8')).toBe(DRAFT);
    expect(stateFiles()).toEqual([]);

    // Run 2: "change": the draft is revised and shown again; still nothing frozen.
    const r2 = await session(bin, repo, { home, prompt: 'Change: also cover a negative result, sub(2, 5) is -3', args: ['--continue'], script, partial: ['main', 'spec-writer'] });
    expect(resultOf(r2, 6).content).toContain('2 criteria (AC-1, AC-2)');
    expect(readFileSync(repo.path(SPEC_PATH), 'utf8')).toBe(REVISED);
    expect(stateFiles()).toEqual([]);

    // Run 3: "approve": status active, init.
    const r3 = await session(bin, repo, { home, prompt: 'Approve.', args: ['--continue'], script, partial: ['main', 'spec-writer', 'spec-writer-revise'] });
    expect(resultOf(r3, 10).is_error, resultOf(r3, 10).content).toBe(false);
    expect(readFileSync(repo.path(SPEC_PATH), 'utf8')).toBe(REVISED.replace('status: draft', 'status: active'));
    const init = resultOf(r3, 11);
    expect(init.is_error, init.content).toBe(false);
    expect(init.content).toContain(`cycle started for SPEC-002 (${SPEC_PATH}, 2 scenarios, mode light-dispatch) in tdd-plan`);
    expect(stateFiles()).toHaveLength(1);
    // Each run played its part of the one conversation to the end, and no further.
    const last = (r: typeof r1) => Math.max(...r.api.requests.filter((q) => q.kind === 'turn' && q.conversation === 'main').map((q) => q.turn ?? -1));
    expect([last(r1), last(r2), last(r3)]).toEqual([4, 8, 12]);
  }, E2E_TIMEOUT);
});
