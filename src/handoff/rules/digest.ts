import { sha256Hex } from '../../state/hash.js';
import type { TddResult } from './block.js';

/**
 * A digest of what a block says (not how it is spaced): the SubagentStop hook records it for
 * each child's result, and `freeze` requires the verdict it is given to carry the digest the
 * test-validator's own stop recorded, so an orchestrator cannot write a PASS of its own.
 */
export function resultDigest(result: TddResult): string {
  const { raw: _raw, ...fields } = result;
  return sha256Hex(JSON.stringify(fields));
}
