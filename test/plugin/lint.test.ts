// The markdown half of the plugin is code: the lint script and the client's own validator must
// pass on it, and the lint must catch what it claims to catch.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LINT = path.join(ROOT, 'scripts', 'lint-plugin.mjs');
const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude');

function lint(root = ROOT) {
  const r = spawnSync(process.execPath, [LINT, root], { encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
}

/** A copy of the plugin's markdown and registry, to break on purpose. */
function pluginCopy(): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-lint-')));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const part of ['.claude-plugin', 'agents', 'skills', 'examples', 'src/cli']) cpSync(path.join(ROOT, part), path.join(dir, part), { recursive: true });
  return dir;
}

function edit(dir: string, rel: string, fn: (s: string) => string): void {
  const file = path.join(dir, rel);
  writeFileSync(file, fn(readFileSync(file, 'utf8')));
}

describe('plugin lint', () => {
  it('passes on the repository', () => {
    const r = lint();
    expect(r.out).toMatch(/lint-plugin: 6 agents, \d+ skills, \d+ CLI verbs: ok/);
    expect(r.status).toBe(0);
  });

  it.each([
    ['an agent name that differs from its file', 'agents/planner.md', (s: string) => s.replace('name: planner', 'name: plan'), 'must match the file name'],
    ['a write tool for the test-validator', 'agents/test-validator.md', (s: string) => s.replace(/^tools: (.*)$/m, 'tools: $1, Edit'), 'tools include Edit, but the test-validator never writes'],
    ['Edit for the planner', 'agents/planner.md', (s: string) => s.replace(/^tools: (.*)$/m, 'tools: $1, Edit'), 'tools include Edit, but the planner'],
    ['no Bash for the implementer', 'agents/implementer.md', (s: string) => s.replace(/^tools: .*$/m, 'tools: Read, Edit, Write'), 'tools lack Bash'],
    ['no tool list at all', 'agents/refactorer.md', (s: string) => s.replace(/^tools: .*\n/m, ''), 'inherits every tool'],
    ['an unknown agent key', 'agents/refactorer.md', (s: string) => s.replace('model: inherit', 'model: inherit\nmodle: x'), 'unknown front-matter key modle'],
    ['a key plugin agents ignore', 'agents/refactorer.md', (s: string) => s.replace('model: inherit', 'model: inherit\npermissionMode: acceptEdits'), 'ignored for plugin agents'],
    ['a tdd-result example for another role', 'agents/implementer.md', (s: string) => s.replace('```tdd-result\nrole: implementer', '```tdd-result\nrole: refactorer'), 'must say role: implementer'],
    ['an unknown CLI verb', 'skills/tdd/SKILL.md', (s: string) => `${s}\nRun \`node "\${CLAUDE_PLUGIN_ROOT}/dist/cli.mjs" frobnicate\`.\n`, 'names the CLI verb "frobnicate"'],
    ['a misspelt two-word verb', 'skills/tdd/SKILL.md', (s: string) => s.replace('`verify green`', '`verify gren`'), 'names the CLI verb "verify gren"'],
    ['a flag the verb does not take', 'skills/tdd/SKILL.md', (s: string) => s.replace('advance red --plan', 'advance red --plan-file'), 'passes --plan-file to "advance red"'],
    ['an agent that does not exist', 'skills/tdd/SKILL.md', (s: string) => `${s}\nDispatch \`tdd-gate:reviewer\`.\n`, 'names tdd-gate:reviewer'],
    ['a positional argument the client would substitute', 'skills/tdd/SKILL.md', (s: string) => `${s}\nThen use $1.\n`, 'contains $1'],
    ['an unquoted plugin path', 'skills/setup/SKILL.md', (s: string) => `${s}\nnode \${CLAUDE_PLUGIN_ROOT}/dist/cli.mjs status\n`, 'quote the CLI path'],
    ['a skill name that differs from its folder', 'skills/setup/SKILL.md', (s: string) => s.replace('name: setup', 'name: onboard'), 'must match the folder name'],
    ['front matter YAML would misread', 'skills/setup/SKILL.md', (s: string) => s.replace(/^description: .*$/m, 'description: Setup: detect the stack'), 'needs quotes'],
  ])('catches %s', (_what, rel, change, message) => {
    const dir = pluginCopy();
    edit(dir, rel, change);
    const r = lint(dir);
    expect(r.out).toContain(message);
    expect(r.status).toBe(1);
  });

  it('catches a missing role agent', () => {
    const dir = pluginCopy();
    rmSync(path.join(dir, 'agents', 'test-validator.md'));
    const r = lint(dir);
    expect(r.out).toContain('missing agents/test-validator.md');
    expect(r.status).toBe(1);
  });
});

describe.skipIf(!existsSync(CLAUDE))('claude plugin validate --strict', () => {
  // `validate .` reads the marketplace manifest only; the plugin manifest path also validates
  // every agent's and skill's front matter and hooks/hooks.json.
  it.each(['.', '.claude-plugin/plugin.json'])('passes for %s', (target) => {
    const r = spawnSync(CLAUDE, ['plugin', 'validate', '--strict', target], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(r.stdout + r.stderr).toContain('Validation passed');
    expect(r.status).toBe(0);
  });
});
