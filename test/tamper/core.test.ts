// The pure parts of tamper evidence, as spec tables (issue 11).
import { describe, expect, it } from 'vitest';
import { programPolicy, cliEffect, type ProgramReference } from '../../src/gate/rules/bash/cliCalls.js';
import { classify, type ClassifyContext } from '../../src/state/rules/classify.js';
import { compileGlobs } from '../../src/state/rules/globs.js';
import { splitGlobs, DEFAULT_TEST_CONFIG_GLOB } from '../../src/state/schema/stack.js';

const ctx: ClassifyContext = {
  specRel: 'specs/SPEC-001.md',
  isTest: compileGlobs(splitGlobs('tests/**|**/*.test.ts'), false),
  isTestConfig: compileGlobs(DEFAULT_TEST_CONFIG_GLOB, false),
  isSource: compileGlobs(splitGlobs('src/**'), false),
  nocase: false,
  controlAbs: [],
  controlDirs: [],
};

describe('control files by name: creating, replacing or linking them is a control write', () => {
  it.each([
    ['/repo/.claude', '.claude', 'control'],
    ['/repo/sub/.claude', 'sub/.claude', 'control'],
    ['/repo/.tdd', '.tdd', 'control'],
    ['/repo/.git', '.git', 'control'],
    ['/repo/.mcp.json', '.mcp.json', 'control'],
    ['/repo/.claude/commands/x.md', '.claude/commands/x.md', 'control'],
    ['/repo/.claude/skills/s/SKILL.md', '.claude/skills/s/SKILL.md', 'control'],
    ['/repo/.claude/hooks/pre.sh', '.claude/hooks/pre.sh', 'control'],
    ['/repo/.claude/workflows/w.js', '.claude/workflows/w.js', 'control'],
    ['/home/u/.claude/shell-snapshots/snapshot-bash-1.sh', null, 'control'],
    ['/home/u/.claude/agents/a.md', null, 'control'],
    ['/home/u/.claude/plans/p.md', null, 'other'],
    ['/repo/docs/claude.md', 'docs/claude.md', 'other'],
    ['/repo/.claudeignore', '.claudeignore', 'other'],
  ])('%s → %s', (abs, rel, expected) => {
    expect(classify({ abs, rel }, ctx)).toBe(expected);
  });
});

describe("the plugin's programs in a command", () => {
  const ref = (role: 'hook' | 'cli', documented: boolean): ProgramReference => ({ role, word: role === 'hook' ? 'dist/hook.mjs' : 'dist/cli.mjs', documented });
  it.each([
    ['no reference', [], null],
    ['the CLI, documented', [ref('cli', true)], null],
    ['the CLI, another spelling', [ref('cli', false)], 'cli-spelling'],
    ['the hook program', [ref('hook', false)], 'hook-feed'],
    ['the hook beside the documented CLI', [ref('cli', true), ref('hook', false)], 'hook-feed'],
  ] as const)('%s → %s', (_name, refs, rule) => {
    expect(programPolicy(refs)?.ruleId ?? null).toBe(rule);
  });

  it.each([
    ['recover', 'confirm'],
    ['abort', 'confirm'],
    ['status', 'read'],
    ['freeze', 'change'],
  ] as const)('`%s` → %s', (verb, effect) => {
    expect(cliEffect(verb, [])).toBe(effect);
  });
});
