import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import { runHookInProcess } from '../helpers/hookInProcess.js';
import { CORPUS, type Case, type Category } from './corpus.js';
import { corpusRepo, type CorpusRepo } from './fixture.js';

/**
 * The labelled corpus through the hook's whole entry (src/hooks/run.ts, in process: the input as
 * Claude Code sends it, the quick check, the Bash part, the renderer), one repository per phase
 * so cases never share a state file. Prints the accuracy per category; every case must match its
 * label. A sample of it also runs through the built bundle (test/integration/gate-smoke.test.ts).
 */
type Phase = NonNullable<Case['phase']>;
interface Outcome {
  status: number | null;
  decision: 'pass' | 'deny' | 'ask' | 'other';
  reason: string;
}

const repos = new Map<Phase, CorpusRepo>();
const outcomes = new Map<Case, Outcome>();


function roleOf(c: Case): string | null {
  return c.role === undefined ? 'tdd-gate:implementer' : c.role;
}

function label(c: Case): string {
  return `[${c.cat}] ${c.phase ?? 'tdd-green'} ${roleOf(c) ?? 'main'}: ${c.cmd.replace(/\n/g, '⏎')} → ${c.expect}`;
}

beforeAll(async () => {
  for (const phase of ['tdd-plan', 'tdd-red', 'tdd-green', 'tdd-refactor'] as const) {
    // The newest stash entry changes a test: popping or applying it writes a frozen file.
    const repo = corpusRepo({ stashes: [{ 'tests/a.test.ts': 'stashed\n' }] });
    repo.setPhase(phase);
    repos.set(phase, repo);
  }
  for (const c of CORPUS) {
    const repo = repos.get(c.phase ?? 'tdd-green') as CorpusRepo;
    const role = roleOf(c);
    const input = ev.bash({ cwd: repo.root, ...(role !== null ? { agent_type: role } : {}) }, c.cmd);
    outcomes.set(c, await runHookInProcess(input, { env: { HOME: repo.home, CLAUDE_PLUGIN_ROOT: '' } }));
  }
}, 300_000);

afterAll(() => {
  for (const repo of repos.values()) repo.cleanup();
  const tally = new Map<Category, { ok: number; total: number }>();
  const misses: string[] = [];
  for (const c of CORPUS) {
    const o = outcomes.get(c);
    const t = tally.get(c.cat) ?? { ok: 0, total: 0 };
    t.total++;
    if (o?.decision === c.expect) t.ok++;
    else misses.push(`  ${label(c)} (got ${o?.decision ?? 'nothing'}${o?.reason ? `: ${o.reason.slice(0, 160)}` : ''})`);
    tally.set(c.cat, t);
  }
  const rows = [...tally.entries()].map(([cat, t]) => `${cat.padEnd(9)} ${String(t.ok).padStart(4)}/${String(t.total).padEnd(4)} ${((100 * t.ok) / t.total).toFixed(1)}%`);
  const all = [...tally.values()].reduce((s, t) => ({ ok: s.ok + t.ok, total: s.total + t.total }), { ok: 0, total: 0 });
  console.log(`Bash corpus accuracy (the hook's entry, in process)\n${rows.join('\n')}\n${'total'.padEnd(9)} ${String(all.ok).padStart(4)}/${all.total}${misses.length > 0 ? `\nmismatches:\n${misses.join('\n')}` : ''}`);
});

describe('Bash corpus through the hook', () => {
  it('holds at least 250 labelled commands', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(250);
  });

  it.each(CORPUS.map((c) => [label(c), c] as const))('%s', (_name, c) => {
    const o = outcomes.get(c);
    expect(o?.status).toBe(0);
    expect(o?.decision, o?.reason).toBe(c.expect);
  });
});
