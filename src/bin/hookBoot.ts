import { childPath } from '../state/childPath.js';
import { loadPart } from '../hooks/lazy/parts.js';

/**
 * dist/hook.cjs, what hooks.json runs for every hook event (ADR 007). It only loads the hook's
 * entry (src/bin/hook.ts, built as dist/hook/hook-<hash>.cjs) the way every part is loaded, with
 * V8's code cache: node compiles a script it runs as a file afresh each time, and compiling the
 * entry cost more than everything else a call does that finds no active cycle.
 *
 * The entry reaches this one loader for the other parts through `require(PARTS_MODULE)`, so one
 * loader, with one list of entries to cache at exit, serves the whole call.
 */
declare const HOOK_ENTRY: string; // the entry's file name in dist/hook/, set by the build
const PARTS_MODULE = 'tdd-gate:parts';

const parts = { loadPart };
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the boot is CommonJS: node's own require, for the builtins
const hookRequire = (id: string): unknown => (id === PARTS_MODULE ? parts : require(id));
loadPart(childPath(__dirname, 'hook'), HOOK_ENTRY, hookRequire); // node gives __dirname absolute and normalized
