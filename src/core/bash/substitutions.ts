/** The few command substitutions whose output is known without running them. */
import type { ParsedScript } from './parser.js';
import type { Scope } from './scope.js';
import type { AnalyzeContext } from './types.js';
import { resolveWord, type WordEnv } from './words.js';

/** A stand-in for `mktemp` output: a fresh file under the temp directory, outside any project. */
export const MKTEMP_PATH = '/tmp/tmp.tdd-gate-mktemp';

export function knownOutput(script: ParsedScript | undefined, scope: Scope, ctx: AnalyzeContext, env: WordEnv): string | null {
  const only = script?.commands.length === 1 ? script.commands[0]?.command : undefined;
  if (only?.type !== 'Command' || only.name === undefined || only.redirects.length > 0) return null;
  const words = [only.name, ...only.suffix.flatMap((s) => (s.type === 'Word' ? [s] : []))];
  const args = words.flatMap((w) => resolveWord(w, scope, { ...env, substitute: () => null }));
  if (args.some((a) => a.text === null || a.glob)) return null;
  const [name = '', ...rest] = args.map((a) => a.text as string);
  const cwd = scope.cwds.length === 1 ? scope.cwds[0] : null;
  switch (name) {
    case 'pwd':
      return cwd ?? null;
    case 'git':
      return rest.join(' ') === 'rev-parse --show-toplevel' ? ctx.root : null;
    case 'mktemp':
      // Only the default location is known: `-p dir`, `--tmpdir=dir` or a template with a path may be anywhere.
      return rest.every((r) => r === '-d' || r === '-q' || r === '-u' || (!r.startsWith('-') && !r.includes('/'))) ? MKTEMP_PATH : null;
    case 'echo':
      return rest.join(' ');
    default:
      return null;
  }
}
