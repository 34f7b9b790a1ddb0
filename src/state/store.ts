import type { AnchorPaths } from './anchorPaths.js';
import type { AnchorRecord } from './anchor.js';

/**
 * What the hook asks of the outside world besides the call itself, as two small interfaces the
 * handlers receive: the time, and the three records a cycle is made of (the branch's state file,
 * `.tdd/stack.json`, the anchor). The entry builds the real ones; a test passes its own, so the
 * whole decision runs in process from a table's state and stack config (test/helpers/hookInProcess.ts).
 *
 * Only types and a constant here: this module is reachable from the hook's entry, whose start-up
 * cost every tool call pays (docs/performance.md). The disk store's readers (state parsing, stack
 * parsing, the anchor) are loaded by the parts that load a cycle, past the quick check.
 */

/** The hook's clock: milliseconds since the epoch, as Date.now() gives them. */
export interface Clock {
  now(): number;
}

export const SYSTEM_CLOCK: Clock = { now: () => Date.now() };

/**
 * The records of a branch's cycle. `null` from a reader means "none stored" (no state file, no
 * stack.json, no anchor), exactly as on disk; a reader throws only what the disk reader would
 * (a GateError for an unreadable file).
 */
export interface Store {
  /** The state file's exact text (the anchor hashes it). */
  readStateText(statePath: string): string | null;
  /** The text of `<root>/.tdd/stack.json`. */
  readStackText(root: string): string | null;
  /** The anchor record the CLI keeps outside the work tree (ADR 006). */
  readAnchor(paths: AnchorPaths): AnchorRecord | null;
  /**
   * The quick check's question (docs/performance.md): is there a state file for this branch in
   * `root` that is not "done"? Answered for the disk by the entry itself, with a few stats.
   */
  hasLiveState(root: string, branch: string): boolean;
}

/** What the entry passes the handlers. `store: null` is the disk, read by each part's own readers. */
export interface HookDeps {
  clock: Clock;
  store: Store | null;
}

export const REAL_DEPS: HookDeps = { clock: SYSTEM_CLOCK, store: null };
