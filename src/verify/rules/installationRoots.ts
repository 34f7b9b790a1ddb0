/**
 * The paths the runner's installation covers, read from a state (no imports: the hook reads it on
 * the write path). See src/verify/rules/installation.ts.
 */

/** The package roots, the folders they cover and the paths that must stay absent, for the OS wall's denyWrite and the hook. */
export function runnerInstallationRoots(state: object): string[] {
  const r = (state as { runner_installation?: unknown }).runner_installation;
  if (typeof r !== 'object' || r === null) return [];
  const v = r as { packages?: unknown; absent?: unknown; covers?: unknown };
  const roots = typeof v.packages === 'object' && v.packages !== null ? Object.keys(v.packages) : [];
  const strings = (x: unknown) => (Array.isArray(x) ? x.filter((a): a is string => typeof a === 'string') : []);
  return [...new Set([...roots, ...strings(v.covers), ...strings(v.absent)])].sort();
}

/** Whether `abs` lies at or under one of `roots` (absolute, same separators). */
export function underRunnerRoot(abs: string, roots: readonly string[]): boolean {
  for (const r of roots) if (abs === r || (abs.startsWith(r) && abs.charCodeAt(r.length) === 47)) return true;
  return false;
}
