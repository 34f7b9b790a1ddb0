import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { appendEvent } from '../../state/eventLog.js';
import { GateError, RefusalError, UsageError } from '../../state/rules/errors.js';
import { TDD_GITIGNORE as GITIGNORE } from '../../state/tddDir.js';
import { MODES, type Mode } from '../../state/schema/state.js';
import type { CliState } from '../../state/schema/cliState.js';
import { parseFlags, requireFlag } from '../args.js';
import { loadStack, loadState, openSession, out, readSpec, updateState, type Session } from '../session.js';
import { readSpecFacts, specEntryProblem } from '../../spec/spec.js';
import { scanTree } from '../../verify/tree.js';
import { listProjectFiles } from '../../state/projectFiles.js';
import { STACK_REL } from '../../state/loadStack.js';
import { backslashGlobProblems } from '../../state/schema/stackGlobs.js';
import { requirePersonAsked } from '../personAsked.js';
import { setsNote } from '../../heldout/rules/defaults.js';
import { heldoutFiles } from '../../heldout/cycle.js';
import { bringBack, storeDirs } from '../../heldout/store.js';
import type { Verb } from '../verb.js';
import { assertWallAvailable, syncHardening } from './harden.js';
import { TDD_DIR } from '../../state/rules/tddDir.js';

const USAGE = 'tdd-gate init --spec <path> [--spec-id ID] [--mode standard|light-dispatch|light-inline|prototype-inline] [--force]';


const CODE = /\.(?:[cm]?[jt]sx?|py|go|rs|rb|java|kt|cs|php|swift|c|cc|cpp|h|hpp|ex|exs|scala|clj|dart|lua)$/;
/** Build and tool configuration at the root: code, but not the project's sources. */
const TOOLING = /(?:^|\/)(?:[^/]*\.config\.[^/]+|\.[^/]*rc(?:\.[^/]+)?|setup\.py|build\.rs|noxfile\.py|tasks\.py|[Gg]ulpfile\.[^/]+|[Gg]runtfile\.[^/]+)$/;
const SOURCE_DIRS = new Set(['src', 'lib', 'app', 'pkg', 'internal', 'cmd', 'crates', 'source']);

/** Code at the root or in the usual source folders that is neither a test nor a source. */
function unclassifiedCode(files: readonly string[], tree: { tests: Record<string, string>; sources: Record<string, string> }): string[] {
  return files.filter((rel) => {
    if (!CODE.test(rel) || rel in tree.tests || rel in tree.sources || TOOLING.test(rel)) return false;
    const parts = rel.split('/');
    return parts.length === 1 || SOURCE_DIRS.has(parts[0]!);
  });
}

/** Top-level folders whose Python code is tooling or tests, not the project's sources. */
const NOT_SOURCE_PACKAGE = /^(?:\..*|tests?|testing|docs?|examples?|samples?|scripts?|tools?|benchmarks?|bench(?:es)?|build|dist|venv|env|site-packages|typings|stubs)$/;

/**
 * Top-level Python packages (a folder with `__init__.py`) holding code that is neither a test nor
 * a source, whatever else the globs match: the package's code would be writable in RED without a
 * stub. A file beside tests in their own folder (a conftest, a helper, the folder's
 * `__init__.py`) belongs to the tests.
 */
function unclassifiedPackages(files: readonly string[], tree: { tests: Record<string, string>; sources: Record<string, string> }): Map<string, string[]> {
  const packages = new Set(files.filter((rel) => /^[^/]+\/__init__\.py$/.test(rel)).map((rel) => rel.split('/')[0]!));
  const testDirs = new Set(Object.keys(tree.tests).map((rel) => path.posix.dirname(rel)));
  const out = new Map<string, string[]>();
  for (const rel of files) {
    const top = rel.split('/')[0]!;
    if (!packages.has(top) || NOT_SOURCE_PACKAGE.test(top) || !CODE.test(rel) || rel in tree.tests || rel in tree.sources) continue;
    if (testDirs.has(path.posix.dirname(rel))) continue;
    out.set(top, [...(out.get(top) ?? []), rel]);
  }
  return out;
}

/** Keep a corrupt state file under another name instead of overwriting it. */
function setAside(s: Session): string {
  const aside = `${s.statePath}.corrupt-${s.now().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(s.statePath, aside);
  return path.relative(s.root, aside);
}

export const init: Verb = {
  name: 'init',
  summary: 'start a cycle for a SPEC (C1 gate: a `#### Scenario`, status active) in tdd-plan',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseFlags(args, { spec: { type: 'string' }, 'spec-id': { type: 'string' }, mode: { type: 'string' }, force: { type: 'boolean' } }, USAGE);
    const specArg = requireFlag(values.spec, '--spec', USAGE);
    const mode = (values.mode ?? 'standard') as Mode;
    if (!MODES.includes(mode)) throw new UsageError(`--mode must be one of ${MODES.join(', ')}. Usage: ${USAGE}`);
    const s = openSession(io);
    const specAbs = path.resolve(io.cwd, specArg);
    const specRel = path.relative(s.root, specAbs).split(path.sep).join('/');
    if (specRel.startsWith('..') || path.isAbsolute(specRel)) throw new RefusalError(`the SPEC ${specArg} is outside the project ${s.root}; keep it in the repository`);
    const facts = readSpecFacts(readSpec(s, specRel));
    const problem = specEntryProblem(facts, specRel, s.root);
    if (problem) throw new RefusalError(problem);
    const stack = loadStack(s);
    // a glob that can match nothing would make every RED "no test file was written"
    const globs = backslashGlobProblems(stack.config);
    if (globs.length > 0) throw new RefusalError(`${STACK_REL}: ${globs.join('; ')}, then init again`);
    assertWallAvailable(s);

    let note: string | undefined;
    try {
      const current = loadState(s);
      if (current && current.phase !== 'done') {
        if (!values.force) {
          throw new RefusalError(`a cycle for ${current.spec_id} is active (${current.phase}); finish it (\`tdd-gate done\`), end it (\`tdd-gate abort --reason "<why>"\`), or start over with --force (recorded)`);
        }
        requirePersonAsked(s, 'init --force');
        note = `forced over an active ${current.phase} cycle of ${current.spec_id}`;
        // Its held-out tests come back into the open before the new cycle starts (docs/heldout.md).
        const held = heldoutFiles(current);
        if (Object.keys(held).length > 0) {
          const back = bringBack(s.root, storeDirs(s.repo, s.io.env), held);
          if (back.length > 0) note += `; ${back.length} held-out test file(s) put back`;
        }
      }
    } catch (err) {
      if (!(err instanceof GateError && err.ruleId === 'state-corrupt')) throw err;
      if (!values.force) throw new RefusalError(`${err.fix === undefined ? err.message : `${err.problem}.`} Restore it, or start over with \`tdd-gate init --force\` (the corrupt file is kept as a copy)`, { cause: err });
      note = `forced over a corrupt state file (kept as ${setAside(s)})`;
    }

    const tdd = path.join(s.root, TDD_DIR);
    mkdirSync(tdd, { recursive: true });
    if (!existsSync(path.join(tdd, '.gitignore'))) writeFileSync(path.join(tdd, '.gitignore'), GITIGNORE);
    rmSync(path.join(tdd, 'snapshots'), { recursive: true, force: true });
    const tree = scanTree(s.root, stack);
    const missed = unclassifiedCode(listProjectFiles(s.root), tree);
    if (Object.keys(tree.sources).length === 0 && missed.length > 0) {
      throw new RefusalError(
        `source_file_glob (${String(stack.config.source_file_glob)}) matches no file, but the project has code in ${missed.slice(0, 3).join(', ')}${missed.length > 3 ? ` and ${missed.length - 3} more` : ''}: it would be neither test nor source, writable in RED without a stub. Set source_file_glob in .tdd/stack.json to match it (\`tdd-gate stack detect\` prints a guess), then init again`,
      );
    }
    const packages = unclassifiedPackages(listProjectFiles(s.root), tree);
    if (packages.size > 0) {
      const names = [...packages.keys()];
      const first = packages.get(names[0]!)!;
      const glob = String(stack.config.source_file_glob);
      throw new RefusalError(
        `source_file_glob (${glob}) does not match the Python package ${names.slice(0, 3).map((n) => `${n}/`).join(', ')}${names.length > 3 ? ` and ${names.length - 3} more` : ''} (${first.slice(0, 3).join(', ')}${first.length > 3 ? ` and ${first.length - 3} more` : ''}): its code would be neither test nor source, writable in RED without a stub. Add it to source_file_glob in .tdd/stack.json (\`${[glob, ...names.map((n) => `${n}/**`)].join('|')}\`), then init again`,
      );
    }
    const at = s.now().toISOString();
    const specId = values['spec-id'] ?? facts.id ?? path.basename(specRel).replace(/\.[^.]*$/, '');
    const state: CliState = {
      version: 1,
      phase: 'tdd-plan',
      mode,
      spec_id: specId,
      spec_path: specRel,
      spec_hash: '',
      plan_artifact: '',
      started_at: at,
      phase_entered_at: at,
      baseline: { at, files: tree.tests, sources: tree.sources },
      history: [{ at, from: 'none', to: 'tdd-plan', verb: 'init', ...(note ? { note } : {}) }],
    };
    await updateState(s, (current) => {
      if (current && current.phase !== 'done' && !values.force) throw new RefusalError(`a cycle for ${current.spec_id} was started meanwhile; run \`tdd-gate status\``);
      return state;
    });
    appendEvent(s.root, { type: 'transition', from: 'none', to: 'tdd-plan', verb: 'init', spec_id: specId, ...(note ? { note, forced: true } : {}) });
    out(s, `tdd-gate: cycle started for ${specId} (${specRel}, ${facts.scenarios} scenario${facts.scenarios === 1 ? '' : 's'}, mode ${mode}) in tdd-plan.${note ? ` Note: ${note}.` : ''}`);
    await syncHardening(s);
    out(s, `tests: ${setsNote(mode)}`);
    out(s, 'next: write the test plan under .tdd/plans/, then `tdd-gate advance red --plan <file>`');
    return 0;
  },
};
