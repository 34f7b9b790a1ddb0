/**
 * What the canary reported (pure): one line per process that ran it (canary.ts). A run whose test
 * processes changed the assertion machinery, or whose canary never reported from a process that
 * ran tests, is not GREEN.
 */
export interface CanaryLine {
  pid: number;
  argv: string[];
  /** The process ran tests (a vitest/jest worker, a node:test file process, pytest). */
  worker: boolean;
  failures: string[];
  /** pytest: the classes of the project's sources whose equality is always true (canary.ts), by name, file and how. */
  alwaysEqual?: AlwaysEqual[];
}

export interface AlwaysEqual {
  class: string;
  file: string;
  how: string;
}

export function parseCanary(text: string | null): CanaryLine[] {
  const out: CanaryLine[] = [];
  for (const raw of (text ?? '').split('\n')) {
    if (raw.trim() === '') continue;
    try {
      const j = JSON.parse(raw) as Record<string, unknown>;
      if (j.tddGateCanary !== 1) continue;
      out.push({
        pid: typeof j.pid === 'number' ? j.pid : -1,
        argv: Array.isArray(j.argv) ? j.argv.map(String) : [],
        worker: j.worker === true,
        failures: Array.isArray(j.failures) ? j.failures.map(String) : ['its report could not be read'],
        ...(Array.isArray(j.alwaysEqual) ? { alwaysEqual: j.alwaysEqual.filter(isAlwaysEqual) } : {}),
      });
    } catch {
      // a torn last line: the process died as it wrote
    }
  }
  return out;
}

function isAlwaysEqual(v: unknown): v is AlwaysEqual {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.class === 'string' && typeof o.file === 'string' && typeof o.how === 'string';
}

/** The refusal for classes whose equality is always true (null: none). */
export function alwaysEqualProblem(lines: readonly CanaryLine[]): string | null {
  const seen = new Set<string>();
  const found: AlwaysEqual[] = [];
  for (const l of lines) {
    for (const a of l.alwaysEqual ?? []) {
      const k = `${a.file}\u0000${a.class}`;
      if (seen.has(k)) continue;
      seen.add(k);
      found.push(a);
    }
  }
  const first = found[0];
  if (first === undefined) return null;
  const shown = found.slice(0, 3).map((a) => `class ${a.class} in ${a.file} (${a.how} is always ${a.how.includes('!=') ? 'false' : 'true'})`).join(', ');
  const more = found.length > 3 ? ` and ${found.length - 3} more` : '';
  return `the source defines an equality that is always true: ${shown}${more}, checked where the tests ran (an object made without __init__ compared with objects it cannot know); a value equal to anything passes every assertion that compares with it: return real values from the source and verify again. If the project really needs such a class outside the tests, the user lists \`${first.file}#always-equal\` in runner_reach_allow in .tdd/stack.json`;
}

/**
 * Why the canary says the run is not GREEN, or null. `kind` is the run's report kind; `testFiles`,
 * for node:test, the files the report says ran tests (each ran in a process of its own, which must
 * have reported — unless every test ran in the runner's one process).
 */
export function canaryProblem(kind: string, lines: readonly CanaryLine[], testFiles: readonly string[] = []): string | null {
  // go test's end-of-binary test is judged with its events (evidence/goJson.ts: binaryEnd).
  if (kind === 'go-json') return null;
  const equal = alwaysEqualProblem(lines);
  if (equal) return equal;
  const bad = lines.find((l) => l.failures.length > 0);
  if (bad) return `the assertion library was changed at run time: ${bad.failures.slice(0, 3).join('; ')}${bad.failures.length > 3 ? ` (and ${bad.failures.length - 3} more)` : ''}; the source must not touch the assertion or comparison functions the tests use: remove what changes them and verify again`;
  const unreported = 'the gate’s check of the assertion library did not report from the process that ran the tests (it runs when each test process ends: something ended the process early or removed the check)';
  if (lines.length === 0) return `${unreported}; remove what ends the process or reaches into it and verify again`;
  if (kind === 'vitest-json' || kind === 'jest-json' || kind === 'pytest') {
    if (!lines.some((l) => l.worker)) return `${unreported}; remove what ends the process or reaches into it and verify again`;
    return null;
  }
  if (kind === 'node-test') {
    const workers = lines.filter((l) => l.worker);
    // --test-isolation=none: every test ran in the runner's own process, which reported.
    if (workers.length === 0) return null;
    const missing = testFiles.filter((f) => !workers.some((l) => l.argv.some((a) => a === f || a.endsWith(`/${f}`) || f.endsWith(`/${a.replace(/^\.\//, '')}`))));
    if (missing.length > 0) return `${unreported}: ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ` and ${missing.length - 3} more` : ''}; remove what ends the process or reaches into it and verify again`;
  }
  return null;
}
