/**
 * Formatters, fixers and snapshot updates: tools that rewrite the files (or directories) they are
 * given, or the whole tree when given none. Operands may be globs the tool expands itself.
 */
import { has, parseArgv } from './argv.js';
import type { Call, Sink } from './sink.js';
import type { Arg } from './words.js';

interface Rule {
  /** Flags that make the tool write (any one); empty = it writes unless a read-only flag is given. */
  writeFlags: string[];
  readOnlyFlags?: string[];
  /** Subcommands that must come first (`biome format`, `ruff check`), if any. */
  subcommands?: string[];
  valued?: string[];
}

const RULES: Record<string, Rule> = {
  prettier: { writeFlags: ['--write', '-w'], valued: ['--config', '--ignore-path', '--plugin', '--parser', '--log-level', '--cache-location'] },
  eslint: { writeFlags: ['--fix', '--fix-type'], valued: ['-c', '--config', '--ext', '--ignore-path', '--rule', '--format', '-f', '-o', '--output-file', '--fix-type', '--max-warnings', '--cache-location', '--parser', '--plugin', '--resolve-plugins-relative-to'] },
  biome: { writeFlags: ['--write', '--apply', '--apply-unsafe', '--fix', '--unsafe'], subcommands: ['check', 'lint', 'format', 'ci'], valued: ['--config-path', '--max-diagnostics', '--reporter'] },
  ruff: { writeFlags: ['--fix', '--unsafe-fixes'], subcommands: ['check', 'format'], valued: ['--config', '--select', '--ignore', '--extend-select', '--target-version', '--line-length'] },
  black: { writeFlags: [], readOnlyFlags: ['--check', '--diff', '--version', '--help'], valued: ['-l', '--line-length', '-t', '--target-version', '--config', '--include', '--exclude', '--extend-exclude'] },
  isort: { writeFlags: [], readOnlyFlags: ['--check', '--check-only', '-c', '--diff', '--version', '--help'], valued: ['--settings-path', '--profile', '-l'] },
  autopep8: { writeFlags: ['-i', '--in-place'] },
  yapf: { writeFlags: ['-i', '--in-place'] },
  gofmt: { writeFlags: ['-w'] },
  goimports: { writeFlags: ['-w'] },
  rustfmt: { writeFlags: [], readOnlyFlags: ['--check', '--help', '--version'] },
  'clang-format': { writeFlags: ['-i'] },
  standard: { writeFlags: ['--fix'] },
  stylelint: { writeFlags: ['--fix'] },
  rubocop: { writeFlags: ['-a', '-A', '--autocorrect', '--autocorrect-all', '--auto-correct', '--auto-correct-all'] },
  dprint: { writeFlags: [], subcommands: ['fmt'], readOnlyFlags: ['--help', '--version'] },
  'php-cs-fixer': { writeFlags: [], subcommands: ['fix'], readOnlyFlags: ['--dry-run'] },
  xo: { writeFlags: ['--fix'] },
  oxlint: { writeFlags: ['--fix', '--fix-suggestions', '--fix-dangerously'] },
  'markdownlint': { writeFlags: ['--fix'] },
  'markdownlint-cli2': { writeFlags: ['--fix'] },
};

/** `cargo fmt`, `go fmt`, `deno fmt`: subcommands of a toolchain that format the whole project. */
const TOOLCHAIN_FMT: Record<string, string[]> = { cargo: ['fmt', 'clippy --fix', 'fix'], go: ['fmt', 'fix'], deno: ['fmt', 'lint --fix'] };

export function formatterCommand(call: Call, sink: Sink): void {
  if (snapshotUpdate(call, sink)) return;
  const toolchain = TOOLCHAIN_FMT[call.name];
  if (toolchain) {
    const words = call.args.map((a) => a.text ?? '');
    const hit = toolchain.find((sub) => sub.split(' ').every((w, i) => (i === 0 ? words[0] === w : words.includes(w))));
    if (hit && !words.includes('--check')) {
      const ops = parseArgv(call.args.slice(1)).operands;
      // `go fmt ./pkg/...`: the packages named (a directory, with or without its subtree)
      const pkgs = call.name === 'go' ? ops.map((a) => (a.text === null ? a : { ...a, text: a.text.replace(/\/?\.\.\.$/, '') || '.' })) : [];
      writeTrees(call, sink, call.name === 'deno' ? ops : pkgs, `${call.name} ${hit}`);
    }
    return;
  }
  const rule = RULES[call.name];
  if (!rule) return;
  let args = call.args;
  if (rule.subcommands) {
    const sub = args[0]?.text;
    if (sub == null || !rule.subcommands.includes(sub)) return;
    args = args.slice(1);
    // `ruff format`, `dprint fmt`: they write unless told to only check.
    const argv = parseArgv(args, rule.valued ?? []);
    const writes = (call.name === 'ruff' && sub === 'format') || rule.writeFlags.length === 0 ? !has(argv, '--check', '--diff', ...(rule.readOnlyFlags ?? [])) : has(argv, ...rule.writeFlags);
    if (writes) writeTrees(call, sink, argv.operands, `${call.name} ${sub}`);
    return;
  }
  const argv = parseArgv(args, rule.valued ?? []);
  const writes = rule.writeFlags.length === 0 ? !has(argv, ...(rule.readOnlyFlags ?? [])) : has(argv, ...rule.writeFlags);
  if (writes) writeTrees(call, sink, argv.operands, `${call.name} ${rule.writeFlags.find((f) => argv.flags.has(f)) ?? ''}`.trim());
}

/**
 * The files a language's own formatter rewrites in a directory it is given: `cargo fmt` touches
 * `.rs` files only, never `.tdd/` or a JSON file, so it is judged on those.
 */
const LANGUAGE_FILES: Record<string, string[]> = {
  cargo: ['rs'],
  rustfmt: ['rs'],
  go: ['go'],
  gofmt: ['go'],
  goimports: ['go'],
  black: ['py', 'pyi'],
  ruff: ['py', 'pyi'],
  isort: ['py', 'pyi'],
  autopep8: ['py'],
  yapf: ['py'],
};

/** Operands are files, directories or globs the tool expands itself; none means the current directory. */
function writeTrees(call: Call, sink: Sink, operands: readonly Arg[], via: string): void {
  const targets = operands.length > 0 ? operands : [{ text: '.', glob: false, raw: '.' }];
  const exts = LANGUAGE_FILES[call.name];
  for (const t of targets) {
    const selfGlob = t.text !== null && !t.glob && ['*', '?', '['].some((c) => t.text?.includes(c));
    if (exts && t.text !== null && !t.glob && !selfGlob && !exts.some((e) => t.text?.endsWith(`.${e}`))) {
      // A directory: the language's files anywhere under it (and the operand itself, should it be a file).
      sink.write(call.scope, t, via);
      const dir = t.text.replace(/\/+$/, '') || '/';
      for (const e of exts) sink.write(call.scope, { text: `${dir}/**/*.${e}`, glob: true, raw: t.raw }, via);
      continue;
    }
    sink.write(call.scope, selfGlob ? { ...t, glob: true } : t, via, { tree: true });
  }
}

const SNAPSHOT_FLAGS = ['-u', '--update', '--updateSnapshot', '--update-snapshots', '--snapshot-update'];
const TEST_RUNNERS = new Set(['vitest', 'jest', 'playwright', 'bun']);

/** `vitest -u`, `jest -u`, `npm test -- -u`: snapshot updates rewrite snapshot files and inline snapshots in tests. */
export function snapshotUpdate(call: Call, sink: Sink): boolean {
  const words = call.args.map((a) => a.text ?? '');
  const runner = TEST_RUNNERS.has(call.name) || (['npm', 'pnpm', 'yarn', 'bun'].includes(call.name) && (words[0] === 'test' || words[0] === 't' || (words[0] === 'run' && /test/.test(words[1] ?? ''))));
  if (!runner || !words.some((w) => SNAPSHOT_FLAGS.includes(w) || w === '--update=true' || w === '--updateSnapshot=true')) return false;
  sink.write(call.scope, { text: '.', glob: false, raw: '.' }, `${call.name} snapshot update`, { tree: true, onlyTests: true });
  return true;
}
