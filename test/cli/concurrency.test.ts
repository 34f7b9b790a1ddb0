import { describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import { HOOK } from '../helpers/hook.js';
import { testRepo } from '../helpers/repo.js';
import { cliAsync, ok, cli, readState, spawnAsync, events } from './fixtures.js';

describe('concurrency', () => {
  it('status and hook reads during transitions never see a torn state', { timeout: 120_000 }, async () => {
    const repo = testRepo();
    repo.write('.tdd/plans/p.md', 'plan\n');
    ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md'));

    let running = true;
    const writer = (async () => {
      const results: number[] = [];
      for (let round = 0; round < 4; round++) {
        results.push((await cliAsync(repo.root, ['advance', 'red', '--plan', '.tdd/plans/p.md'])).status);
        results.push((await cliAsync(repo.root, ['abort', '--reason', `round ${round}`])).status);
        results.push((await cliAsync(repo.root, ['init', '--spec', 'specs/SPEC-001.md'])).status);
      }
      running = false;
      return results;
    })();

    const phases = new Set<string>();
    const problems: string[] = [];
    const reader = async (kind: 'status' | 'hook') => {
      while (running) {
        if (kind === 'status') {
          const r = await cliAsync(repo.root, ['status', '--json']);
          try {
            const s = JSON.parse(r.stdout) as { phase?: string };
            if (r.status !== 0 || !s.phase) problems.push(`status ${r.status}: ${r.stdout}${r.stderr}`);
            else phases.add(s.phase);
          } catch {
            problems.push(`status printed no JSON: ${r.stdout}${r.stderr}`);
          }
        } else {
          const input = JSON.stringify(ev.write({ cwd: repo.root, agent_type: 'tdd-gate:test-writer' }, 'tests/a.test.ts'));
          const r = await spawnAsync(process.execPath, [HOOK], repo.root, input);
          if (r.status !== 0 || /not valid JSON|is invalid|unreadable|corrupt/i.test(r.stdout)) problems.push(`hook: ${r.stdout}${r.stderr}`);
        }
      }
    };
    const [results] = await Promise.all([writer, reader('status'), reader('status'), reader('hook'), reader('hook')]);
    expect(problems).toEqual([]);
    expect(results.every((s) => s === 0)).toBe(true);
    expect([...phases].every((p) => ['tdd-plan', 'tdd-red', 'done'].includes(p))).toBe(true);
    expect(readState(repo).phase).toBe('tdd-plan');
  });

  it('parallel state changes serialize on the lock; each is recorded, none is lost', { timeout: 60_000 }, async () => {
    const repo = testRepo();
    ok(cli(repo, 'init', '--spec', 'specs/SPEC-001.md'));
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => cliAsync(repo.root, ['init', '--spec', 'specs/SPEC-001.md', '--force', '--spec-id', `S-${i}`])));
    expect(runs.map((r) => r.status)).toEqual(Array(8).fill(0));
    const st = readState(repo);
    expect(st.phase).toBe('tdd-plan');
    expect(st.history).toHaveLength(1);
    expect(events(repo).filter((e) => e.type === 'transition' && e.forced)).toHaveLength(8);
  });
});
