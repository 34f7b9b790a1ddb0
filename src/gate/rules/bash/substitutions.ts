/** The few command substitutions whose output is known without running them. */
import type { ParsedScript } from './parser.js';
import type { Scope } from './scope.js';
import type { AnalyzeContext } from './types.js';
import { baseName } from './paths.js';
import { escapeGlob, resolveWord, type Arg, type Output, type WordEnv } from './words.js';

/** A stand-in for `mktemp` output: a fresh file under the temp directory, outside any project. */
const MKTEMP_PATH = '/tmp/tmp.tdd-gate-mktemp';

export function knownOutput(script: ParsedScript | undefined, scope: Scope, ctx: AnalyzeContext, env: WordEnv): Output {
  const only = script?.commands.length === 1 ? script.commands[0]?.command : undefined;
  if (only?.type !== 'Command' || only.name === undefined || only.redirects.length > 0) return null;
  const words = [only.name, ...only.suffix.flatMap((s) => (s.type === 'Word' ? [s] : []))];
  const args = words.flatMap((w) => resolveWord(w, scope, { ...env, substitute: () => null }));
  if (args[0]?.text === 'basename' || args[0]?.text === 'dirname') return pathPart(args[0].text, args.slice(1));
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

/**
 * `basename f [suffix]`, `basename -s suffix f`, `dirname f`: the name or the directory, of a known
 * path or of a glob (a loop over `src/*.ts`: `basename "$f"` is a name matching `*.ts`).
 */
function pathPart(cmd: string, args: readonly Arg[]): Output {
  let rest = [...args];
  let suffix: string | null = null;
  if (cmd === 'basename' && rest[0]?.text === '-s' && rest.length === 3) {
    suffix = rest[1]?.text ?? null;
    if (suffix === null) return null;
    rest = rest.slice(2);
  } else if (cmd === 'basename' && rest.length === 2) {
    suffix = rest[1]?.text ?? null;
    if (suffix === null || rest[1]?.glob) return null;
    rest = rest.slice(0, 1);
  }
  const name = rest[0];
  if (rest.length !== 1 || name === undefined || name.text === null || name.text.startsWith('-')) return null;
  const text = name.text.replace(/\/+$/, '') || '/';
  let out: string;
  if (cmd === 'dirname') {
    const at = text.lastIndexOf('/');
    out = at < 0 ? '.' : at === 0 ? '/' : text.slice(0, at);
  } else {
    out = baseName(text) || '/';
    // A glob keeps its escapes: the suffix is matched against its literal spelling.
    const end = suffix === null ? '' : name.glob ? escapeGlob(suffix) : suffix;
    if (end !== '' && out.endsWith(end) && out.length > end.length) out = out.slice(0, -end.length);
  }
  return name.glob ? { glob: out } : out;
}
