import type { PathMatcher } from './globs.js';
import { TDD_DIR } from './tddDir.js';

/** What a write target is, for the phase table (DESIGN §3). */
export type PathClass = 'control' | 'plan' | 'spec' | 'test' | 'source' | 'other';

export interface ClassifyContext {
  /** Root-relative path of the SPEC (posix separators). */
  specRel: string;
  isTest: PathMatcher;
  isTestConfig: PathMatcher;
  isSource: PathMatcher;
  /**
   * GREEN/REFACTOR: the files frozen with the tests that no test glob names (`.npmrc`, a preload,
   * `Cargo.toml`, a setup file the runner's config loads): judged as tests, denied at the write.
   */
  isFrozenFile?: PathMatcher;
  nocase: boolean;
  /** Absolute paths that switch the gate off when written (home settings, the plugin itself). */
  controlAbs: readonly string[];
  /** Absolute directories whose whole content is control. */
  controlDirs: readonly string[];
  /** The control set by location and name (src/tamper/rules/controlSet.ts), for a canonical target. */
  isControl?: (abs: string, rel: string | null) => boolean;
}

/** A canonical write target: absolute path, and the root-relative path when inside the project. */
export interface TargetLocation {
  abs: string;
  rel: string | null;
}

/**
 * Claude Code's files that switch hooks off or run code: settings, agents, commands, skills,
 * hooks, workflows and the shell snapshots sourced before every Bash call, in any `.claude`
 * directory (the project's or the home's), and a project's `.mcp.json`.
 */
const CLAUDE_CONTROL = /(^|\/)\.claude\/(settings(\.local)?\.json$|(agents|commands|skills|hooks|workflows|shell-snapshots)(\/|$))|(^|\/)\.claude\.json$/;
/** Creating, replacing or linking anything under these names moves a control directory. */
const CONTROL_NAMES = new Set(['.claude', TDD_DIR, '.git']);

export function classify(target: TargetLocation, ctx: ClassifyContext): PathClass {
  const fold = (s: string) => (ctx.nocase ? s.toLowerCase() : s);
  const abs = fold(target.abs);
  if (abs.includes('.claude') && CLAUDE_CONTROL.test(abs)) return 'control';
  if (CONTROL_NAMES.has(abs.slice(abs.lastIndexOf('/') + 1))) return 'control';
  if (target.rel !== null && fold(target.rel) === '.mcp.json') return 'control';
  if (ctx.controlAbs.some((p) => fold(p) === abs)) return 'control';
  if (ctx.controlDirs.some((d) => abs === fold(d) || abs.startsWith(fold(d) + '/'))) return 'control';
  const rel = target.rel;
  if (rel === null) return ctx.isControl?.(target.abs, null) === true ? 'control' : 'other';
  const frel = fold(rel);
  if (frel === TDD_DIR || frel.startsWith(`${TDD_DIR}/`)) {
    return frel.startsWith('.tdd/plans/') ? 'plan' : 'control';
  }
  if (frel === fold(ctx.specRel)) return 'spec';
  // What the freeze recorded stays frozen wherever it lies.
  if (ctx.isFrozenFile?.(rel) === true) return 'test';
  // The rest of the control set (a frozen .npmrc is the freeze's first).
  if (ctx.isControl?.(target.abs, rel) === true) return 'control';
  // Installed dependencies and environments are neither the project's tests nor its sources,
  // whatever their names (a package shipping `test/` or `src/`): `rm -rf node_modules` is no test
  // write. The stack's matchers already leave them out (src/state/rules/envDirs.ts); node_modules is
  // checked here too for a context built without them. Editing node_modules by hand in GREEN is
  // denied on its own (dependency-edit).
  if (frel.startsWith('node_modules/') || frel.includes('/node_modules/')) return 'other';
  if (ctx.isTest(rel) || ctx.isTestConfig(rel)) return 'test';
  if (ctx.isSource(rel)) return 'source';
  return 'other';
}
