/**
 * `runner_reach_allow` (pure): each entry is a glob of source files, allowed everything the
 * runner-reach rules refuse (test helpers shipped as source), or `<glob>#<construct>`, allowed that
 * one construct (`src/log.ts#test-mode`: a logger that stays quiet under test). The constructs are
 * testAware.ts's, and `runner` for the rest of the rules (importing the framework, rebinding
 * assertions, …). `runner` also allows testAware.ts's token reading of the same reach
 * (`runner-state`, `assert-shadow`): a file allowed to import the framework may do it however spelled.
 */
export interface ReachAllowEntry {
  glob: string;
  /** null: every construct. */
  construct: string | null;
}

/** The constructs of testAware.ts that read the `runner` rules' reach from tokens. */
const RUNNER_TOKENS = ['runner-state', 'assert-shadow'];

export function parseReachAllow(entries: readonly string[]): ReachAllowEntry[] {
  return entries.map((e) => {
    const hash = e.lastIndexOf('#');
    if (hash <= 0 || !/^[a-z-]+$/.test(e.slice(hash + 1))) return { glob: e, construct: null };
    return { glob: e.slice(0, hash), construct: e.slice(hash + 1) };
  });
}

/**
 * What `rel` is allowed: true (the whole file), or the constructs it may use (none: an empty list).
 * `match` compiles globs as the caller's matchers do.
 */
export function reachAllowedFor(entries: readonly ReachAllowEntry[], rel: string, match: (globs: string[]) => (rel: string) => boolean): true | string[] {
  const whole = entries.filter((e) => e.construct === null).map((e) => e.glob);
  if (whole.length > 0 && match(whole)(rel)) return true;
  const out: string[] = [];
  for (const e of entries) if (e.construct !== null && !out.includes(e.construct) && match([e.glob])(rel)) out.push(e.construct);
  if (out.includes('runner')) for (const c of RUNNER_TOKENS) if (!out.includes(c)) out.push(c);
  return out;
}
