import { parseFlags } from '../args.js';
import { readEvents, type LoggedEvent } from '../../state/events.js';
import { loadState, openSession, out } from '../session.js';
import type { Verb } from '../verb.js';

const USAGE = 'tdd-gate log [--all] [--json]';

function describe(e: LoggedEvent): string {
  const str = (k: string) => (typeof e[k] === 'string' ? (e[k]) : '');
  switch (e.type) {
    case 'transition':
      return `${str('from')} → ${str('to')} (${str('verb')})${str('note') ? `: ${str('note')}` : ''}`;
    case 'refusal':
      return `refused ${str('verb')}: ${str('reason')}`;
    case 'receipt':
      return `${str('kind')} run ${e.valid ? 'valid' : 'INVALID'}${str('reason') ? `: ${str('reason')}` : ''}`;
    case 'hook-deny':
    case 'hook-ask':
      return `${e.type === 'hook-deny' ? 'denied' : 'asked'} ${str('tool')} ${str('target')} [${str('rule')}] role ${str('role') || 'main'} in ${str('phase')}`;
    default:
      return JSON.stringify(Object.fromEntries(Object.entries(e).filter(([k]) => k !== 'at' && k !== 'type')));
  }
}

export const log: Verb = {
  name: 'log',
  summary: "show the event log of this branch's cycle (transitions, refusals, receipts, hook denials; read-only)",
  usage: USAGE,
  // eslint-disable-next-line @typescript-eslint/require-await
  async run(args, io) {
    const { values } = parseFlags(args, { all: { type: 'boolean' }, json: { type: 'boolean' } }, USAGE);
    const s = openSession(io);
    let since: string | undefined;
    if (!values.all) {
      try {
        since = loadState(s)?.started_at;
      } catch {
        since = undefined;
      }
    }
    const events = readEvents(s.root, since);
    const byType: Record<string, number> = {};
    const denyRules: Record<string, number> = {};
    for (const e of events) {
      byType[e.type] = (byType[e.type] ?? 0) + 1;
      if (e.type === 'hook-deny') denyRules[String(e.rule)] = (denyRules[String(e.rule)] ?? 0) + 1;
    }
    if (values.json) {
      out(s, JSON.stringify({ since: since ?? null, counts: byType, hook_denies_by_rule: denyRules, events }));
      return 0;
    }
    if (events.length === 0) {
      out(s, `tdd-gate: no events${since ? ` since ${since}` : ''}.`);
      return 0;
    }
    out(s, events.map((e) => `${e.at}  ${e.type.padEnd(10)}  ${describe(e)}`).join('\n'));
    const denies = Object.entries(denyRules).map(([r, n]) => `${r} ×${n}`).join(', ');
    out(s, `-- ${events.length} events${since ? ` since ${since}` : ''}; hook denials: ${byType['hook-deny'] ?? 0}${denies ? ` (${denies})` : ''}; refusals: ${byType.refusal ?? 0}`);
    return 0;
  },
};
