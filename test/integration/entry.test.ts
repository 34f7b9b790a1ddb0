import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import { HOOK } from '../helpers/hook.js';
import { state, testRepo } from '../helpers/repo.js';

// dist/hook.cjs with its parts and code cache (ADR 007), as hooks.json runs it.
const OLD_ENTRY = path.resolve(path.dirname(HOOK), 'hook.mjs');
const dataDirs: string[] = [];
afterEach(() => {
  for (const d of dataDirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function run(entry: string, input: unknown, env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [entry, 'PreToolUse'], { input: JSON.stringify(input), encoding: 'utf8', env: { ...process.env, TDD_GATE_DISABLE: '', ...env }, timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function greenTestWrite() {
  const repo = testRepo();
  repo.setState(state('tdd-green'));
  return ev.write({ cwd: repo.root, agent_type: 'tdd-gate:implementer' }, 'tests/a.test.ts');
}

describe('the hook entry and its code cache', () => {
  it('answers the same through the old dist/hook.mjs entry', () => {
    const input = greenTestWrite();
    const now = run(HOOK, input);
    expect(now.stdout).toContain('"deny"');
    expect(run(OLD_ENTRY, input)).toEqual(now);
  });

  it('keeps a code cache in CLAUDE_PLUGIN_DATA, answers the same from it, and recompiles past a broken entry', () => {
    const data = mkdtempSync(path.join(tmpdir(), 'tdd-gate-plugin-data-'));
    dataDirs.push(data);
    const input = greenTestWrite();
    const cold = run(HOOK, input, { CLAUDE_PLUGIN_DATA: data });
    const dir = path.join(data, 'code-cache', `${process.version}-${process.arch}`);
    const entries = readdirSync(dir);
    expect(entries.length).toBeGreaterThan(0);
    // the entry itself is read back from the cache too, not only the part it loads
    expect(entries.some((e) => /^hook-[0-9A-F]{8}\.cjs\.cache$/.test(e))).toBe(true);
    expect(run(HOOK, input, { CLAUDE_PLUGIN_DATA: data })).toEqual(cold);
    for (const e of entries) writeFileSync(path.join(dir, e), ''); // empty: V8 refuses it, the part compiles afresh
    expect(run(HOOK, input, { CLAUDE_PLUGIN_DATA: data })).toEqual(cold);
    for (const e of entries) expect(statSync(path.join(dir, e)).size).toBeGreaterThan(0); // and is cached again
  });

});
