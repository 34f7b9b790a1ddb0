// The spec-writer's definition is checked by the plugin lint like the role agents: its tool list
// (no Bash, no agent dispatch), its name, and the spec-draft block the orchestrator reads.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LINT = path.join(ROOT, 'scripts', 'lint-plugin.mjs');
const AGENT = 'agents/spec-writer.md';

function lintWith(change: ((s: string) => string) | null): { status: number | null; out: string } {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-lint-')));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const part of ['.claude-plugin', 'agents', 'skills', 'docs', 'examples', 'src/cli']) cpSync(path.join(ROOT, part), path.join(dir, part), { recursive: true });
  const file = path.join(dir, AGENT);
  if (change === null) rmSync(file);
  else writeFileSync(file, change(readFileSync(file, 'utf8')));
  const r = spawnSync(process.execPath, [LINT, dir], { encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe('plugin lint: the spec-writer', () => {
  it('passes as shipped', () => {
    expect(lintWith((s) => s)).toMatchObject({ status: 0 });
  });

  it.each<[string, (s: string) => string, string]>([
    ['Bash in its tools', (s) => s.replace(/^tools: (.*)$/m, 'tools: $1, Bash'), 'tools include Bash, but the spec-writer reads the code and writes only the SPEC under specs/'],
    ['no Write', (s) => s.replace(/^tools: .*$/m, 'tools: Read, Grep, Glob, Edit'), 'tools lack Write'],
    ['no Read', (s) => s.replace(/^tools: .*$/m, 'tools: Grep, Glob, Write, Edit'), 'tools lack Read'],
    ['the Agent tool', (s) => s.replace(/^tools: (.*)$/m, 'tools: $1, Agent'), 'tools include Agent: only the orchestrator dispatches agents'],
    ['no tool list', (s) => s.replace(/^tools: .*\n/m, ''), 'inherits every tool'],
    ['a name that differs from the file', (s) => s.replace('name: spec-writer', 'name: specwriter'), 'must match the file name'],
    ['no spec-draft block', (s) => s.replace('```spec-draft', '```text'), 'shows no ```spec-draft block'],
    ['a draft path outside specs/', (s) => s.replace('spec: specs/SPEC-003-deploy-dry-run.md', 'spec: docs/SPEC-003.md'), 'shows no ```spec-draft block'],
  ])('catches %s', (_what, change, message) => {
    const r = lintWith(change);
    expect(r.out).toContain(message);
    expect(r.status).toBe(1);
  });

  it('catches a missing spec-writer', () => {
    const r = lintWith(null);
    expect(r.out).toContain('missing agents/spec-writer.md');
    expect(r.status).toBe(1);
  });
});
