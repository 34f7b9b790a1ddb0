// `tdd-gate result` given the notice an Agent call returns for a child started in the background
// (newer clients do that by default) instead of the child's final message: a usage error that says
// to wait for the child's completion notification; nothing is recorded, no retry is spent.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isLaunchNotice } from '../../src/handoff/rules/launchNotice.js';
import { runCli } from '../helpers/hook.js';
import { stateFileFor, testRepo } from '../helpers/repo.js';

const NOTICES = [
  // 2.1.331, the default for every Agent call
  "Async agent launched successfully. (This tool result is internal metadata — never quote or paste any part of it, including the agentId below, into a user-facing reply.)\nagentId: a3a01c061d151029d (internal ID - do not mention to user. Use SendMessage with to: 'a3a01c061d151029d', summary: '<5-10 word recap>' to continue this agent.)\nThe agent is working in the background. You will be notified automatically when it completes.",
  // 2.1.197, with run_in_background: true
  "Async agent launched successfully.\nagentId: ad91f51dfb8557a1c (internal ID - do not mention to user.)\nThe agent is working in the background. You will be notified automatically when it completes.",
];

describe('a launch notice is not a child result', () => {
  it.each(NOTICES.map((n, i) => [i, n]))('notice %i: result refuses it as a usage error and records nothing', (_i, notice) => {
    const repo = testRepo();
    expect(runCli(repo.root, ['init', '--spec', 'specs/SPEC-001.md']).status).toBe(0);
    const stateFile = repo.path(`.tdd/${stateFileFor('main')}`);
    const before = readFileSync(stateFile, 'utf8');
    repo.write('notice.txt', notice);
    const r = runCli(repo.root, ['result', 'notice.txt', '--role', 'planner']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('started in the background, not the child');
    expect(r.stderr).toContain('completion notification');
    expect(readFileSync(stateFile, 'utf8')).toBe(before);
    expect(readFileSync(repo.path('.tdd/events.jsonl'), 'utf8')).not.toContain('"type":"result"');
  });

  const cases: Array<[string, string, boolean]> = [
    ['a final message with its block, that mentions the background in prose', 'Ran the suite; nothing is running in the background.\n```tdd-result\nrole: planner\nstatus: ok\nfiles:\n  - .tdd/plans/SPEC-001.md\n```', false],
    ['an empty message', '', false],
    ...NOTICES.map((n): [string, string, boolean] => ['a launch notice', n, true]),
  ];
  it.each(cases)('%s → %s', (_name, text, expected) => {
    expect(isLaunchNotice(text)).toBe(expected);
  });
});
