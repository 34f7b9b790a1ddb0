import { normalizeSpec } from './rules/specHash.js';
import { sha256Hex } from './sha256.js';
import { stateSlug } from './rules/stateSlug.js';

export { sha256Hex };

/** DESIGN §2 spec hash: SHA-256 of the normalized SPEC text. */
export function specHash(text: string): string {
  return sha256Hex(normalizeSpec(text));
}

/** DESIGN §2: `state-<slug>-<h6>.json`, h6 = the first 6 hex digits of sha256(branch). */
export function stateFileName(branch: string): string {
  return `state-${stateSlug(branch)}-${sha256Hex(branch).slice(0, 6)}.json`;
}
