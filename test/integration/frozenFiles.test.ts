import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import { runHookInProcess } from '../helpers/hookInProcess.js';
import { state, testRepo, type TestRepo } from '../helpers/repo.js';

const IMPL = { agent_type: 'tdd-gate:implementer' };

/** A repo in `phase` whose freeze recorded these files besides the tests, as `tdd-gate freeze` does. */
function frozenRepo(phase: string): TestRepo {
  const frozen: Record<string, string> = { '.npmrc': 'audit=false\n', 'tools/preload.cjs': '// loaded by the test run\n', 'Cargo.toml': '[package]\nname = "x"\n', 'tests/a.test.ts': 'it("a", () => {});\n' };
  const repo = testRepo({ files: { ...frozen, 'src/a.ts': 'export {};\n' } });
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  repo.setState(state(phase, { frozen: { files: Object.fromEntries(Object.entries(frozen).map(([f, text]) => [f, sha(text)])) } }));
  return repo;
}

describe('wall 1 knows every file the freeze recorded, not only those a test glob names', () => {
  it.each(['tdd-green', 'tdd-refactor'])('%s: denies writes to them by every route, and leaves the sources alone', async (phase) => {
    const repo = frozenRepo(phase);
    const who = { cwd: repo.root, ...IMPL, ...(phase === 'tdd-refactor' ? { agent_type: 'tdd-gate:refactorer' } : {}) };
    for (const r of [
      await runHookInProcess(ev.write(who, '.npmrc', 'node-options=--require ./tools/preload.cjs\n')),
      await runHookInProcess(ev.edit(who, repo.path('tools/preload.cjs'), '// loaded by the test run', 'process.exit(0)')),
      await runHookInProcess(ev.edit(who, 'Cargo.toml', 'name = "x"', 'name = "x"\nautotests = false')),
      await runHookInProcess(ev.bash(who, "echo 'node-options=--require ./tools/preload.cjs' >> .npmrc")),
    ]) {
      expect(r.decision).toBe('deny');
      expect(r.reason).toContain('[tests-frozen]');
    }
    expect((await runHookInProcess(ev.write(who, 'src/a.ts', 'export const a = 1;\n'))).decision).toBe('pass');
    expect((await runHookInProcess(ev.write(who, 'tools/other.cjs', '// not frozen\n'))).decision).toBe('pass');
  });
});
