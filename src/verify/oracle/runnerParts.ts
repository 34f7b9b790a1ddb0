import { ABSENT_PART, runnerPartTexts } from '../../state/rules/runnerParts.js';
import { docExamplePart, rustDocExamples, rustTestRegions, testRegionPart } from '../rules/testRegions.js';
import { sha256Hex } from '../../state/hash.js';

// The extraction is one pure function in src/state/rules/runnerParts.ts, shared with the hook.
export { reachedScripts, runnerPartTexts } from '../../state/rules/runnerParts.js';
export { rustTestRegions };

/** Each part frozen by digest; a part that is absent is frozen as absent. */
function runnerParts(read: (rel: string) => string | null, testCommand: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(runnerPartTexts(read, testCommand))) out[k] = sha256Hex(v === null ? ABSENT_PART : v);
  return out;
}

/** Every frozen part of a project: the runner settings, and the test regions of its Rust sources. */
export function oracleParts(read: (rel: string) => string | null, testCommand: string, sources: readonly string[]): Record<string, string> {
  const out = runnerParts(read, testCommand);
  for (const rel of sources) {
    if (!rel.endsWith('.rs')) continue;
    const text = read(rel) ?? '';
    const regions = rustTestRegions(text);
    if (regions !== null) out[testRegionPart(rel)] = sha256Hex(regions);
    // doc examples are doc tests: the ones there at the freeze stay as they were
    for (const [item, code] of Object.entries(rustDocExamples(text))) out[docExamplePart(rel, item)] = sha256Hex(code);
  }
  return out;
}
