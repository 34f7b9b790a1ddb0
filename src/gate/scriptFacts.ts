/** The files a Bash command runs (scripts, package.json, Makefiles), read for the analysis to follow. */
import { readOrNull } from '../state/readOrNull.js';

/** Files larger than this are not followed: what they do passes to the after-the-fact check. */
const MAX_SCRIPT = 256 * 1024;

/** A reader that answers each path once (a script sourced twice is read once). */
export function scriptReader(): (abs: string) => string | null {
  const seen = new Map<string, string | null>();
  return (abs) => {
    if (!seen.has(abs)) seen.set(abs, readOrNull(abs, MAX_SCRIPT));
    return seen.get(abs) ?? null;
  };
}
