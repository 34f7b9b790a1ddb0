// Each agent shows the tdd-result block it must end with; the example must be one that
// `tdd-gate result` and the SubagentStop hook accept for that role, or the agent learns a wrong format.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseResult, type Role } from '../../src/handoff/rules/block.js';

const AGENTS: Role[] = ['planner', 'test-writer', 'test-validator', 'implementer', 'refactorer'];

describe('agent prompts', () => {
  it.each(AGENTS)('the %s example tdd-result block parses for its role', (role) => {
    const text = readFileSync(path.resolve(import.meta.dirname, '../../agents', `${role}.md`), 'utf8');
    const examples = [...text.matchAll(/^```tdd-result\n[\s\S]*?^```$/gmu)].map((m) => m[0]);
    expect(examples.length).toBeGreaterThan(0);
    for (const block of examples) {
      const parsed = parseResult(`Done.\n\n${block}\n`, { role });
      expect(parsed, block).toMatchObject({ ok: true });
    }
  });
});
