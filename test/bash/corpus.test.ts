import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import { runHookBundle } from '../helpers/hook.js';
import { CORPUS, type Case, type Category } from './corpus.js';
import { corpusRepo, type CorpusRepo } from './fixture.js';

/**
 * The labelled corpus through the built hook (dist/hook.mjs), as Claude Code runs it. Prints the
 * accuracy per category; every case must match its label.
 */
let repo: CorpusRepo;
const tally = new Map<Category, { ok: number; total: number; misses: string[] }>();

beforeAll(() => {
  repo = corpusRepo();
});

afterAll(() => {
  repo.cleanup();
  const rows = [...tally.entries()].map(([cat, t]) => `${cat.padEnd(9)} ${String(t.ok).padStart(4)}/${String(t.total).padEnd(4)} ${((100 * t.ok) / t.total).toFixed(1)}%`);
  const all = [...tally.values()].reduce((s, t) => ({ ok: s.ok + t.ok, total: s.total + t.total }), { ok: 0, total: 0 });
  const misses = [...tally.values()].flatMap((t) => t.misses);
  console.log(`Bash corpus accuracy (built hook)\n${rows.join('\n')}\n${'total'.padEnd(9)} ${String(all.ok).padStart(4)}/${all.total}${misses.length > 0 ? `\nmismatches:\n${misses.join('\n')}` : ''}`);
});

function label(c: Case): string {
  const role = c.role === undefined ? 'tdd-gate:implementer' : (c.role ?? 'main');
  return `[${c.cat}] ${c.phase ?? 'tdd-green'} ${role}: ${c.cmd.replace(/\n/g, '⏎')} → ${c.expect}`;
}

describe('Bash corpus through the built hook', () => {
  it('holds at least 250 labelled commands', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(250);
  });

  it.each(CORPUS.map((c) => [label(c), c] as const))('%s', (_name, c) => {
    repo.setPhase(c.phase ?? 'tdd-green');
    const role = c.role === undefined ? 'tdd-gate:implementer' : c.role;
    const input = ev.bash({ cwd: repo.root, ...(role !== null ? { agent_type: role } : {}) }, c.cmd);
    const r = runHookBundle(input, { env: { HOME: repo.home, CLAUDE_PLUGIN_ROOT: '' } });
    const t = tally.get(c.cat) ?? { ok: 0, total: 0, misses: [] };
    t.total++;
    if (r.decision === c.expect) t.ok++;
    else t.misses.push(`  ${label(c)} (got ${r.decision}${r.reason ? `: ${r.reason.slice(0, 160)}` : ''})`);
    tally.set(c.cat, t);
    expect(r.status).toBe(0);
    expect(r.decision, r.reason).toBe(c.expect);
  });
});
