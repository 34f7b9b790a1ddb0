import type { RunFacts } from './report.js';

interface GoEvent {
  Action?: unknown;
  Package?: unknown;
  Test?: unknown;
  Output?: unknown;
}

/**
 * `go test -json` output: the human text (every Output field, plus any plain line such as a
 * build error on stderr) and the facts, with a failing test's file taken from its `x_test.go:N:` lines.
 */
export function parseGoJson(raw: string): { text: string; facts: RunFacts } {
  let text = '';
  const outputs = new Map<string, string[]>();
  const finals = new Map<string, string>();
  for (const line of raw.split('\n')) {
    if (line.trim() === '') continue;
    let e: GoEvent;
    try {
      e = JSON.parse(line) as GoEvent;
    } catch {
      text += line + '\n';
      continue;
    }
    if (typeof e !== 'object' || e === null) continue;
    if (typeof e.Output === 'string') text += e.Output;
    if (typeof e.Test !== 'string') continue;
    const key = `${String(e.Package)}\0${e.Test}`;
    if (typeof e.Output === 'string') outputs.set(key, [...(outputs.get(key) ?? []), e.Output]);
    if (e.Action === 'pass' || e.Action === 'fail' || e.Action === 'skip') finals.set(key, e.Action);
  }
  const counts = { total: 0, failed: 0, passed: 0 };
  const failing = new Set<string>();
  for (const [key, action] of finals) {
    if (action === 'skip') continue;
    counts.total++;
    if (action === 'pass') counts.passed++;
    else {
      counts.failed++;
      for (const out of outputs.get(key) ?? []) {
        const m = /^\s+(\S+_test\.go):\d+:/.exec(out);
        if (m?.[1]) failing.add(m[1]);
      }
    }
  }
  return { text, facts: { counts: finals.size > 0 ? counts : null, failingFiles: [...failing], loadErrorFiles: [], messages: [], source: 'go-json' } };
}
