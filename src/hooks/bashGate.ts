import { existsSync, lstatSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { minimatch } from 'minimatch';
import { analyzeBash } from '../core/bash/analyze.js';
import { cliEffect } from '../core/bash/cliCalls.js';
import type { BashAnalysis, BashWrite } from '../core/bash/types.js';
import { PASS, ask, deny, type Decision } from '../core/decision.js';
import { decideWriteTarget, type CycleFacts, type WriteTarget } from '../core/decideWrite.js';
import { ROLE, describeRole, rolesEnforced } from '../core/roles.js';
import type { BashEvent } from '../schema/event.js';
import type { ActiveCycle } from './cycle.js';
import { classesOf, cycleFacts } from './fileGate.js';
import { canonicalize } from '../io/canonicalPath.js';

/** Files looked at for one glob or directory write; past this the command is too broad to check. */
const MAX_FILES = 20_000;
/** Never descended into by tree walks: tools that rewrite a tree leave these alone. */
const SKIP_DIRS = new Set(['node_modules', '.git']);

class TooMany extends Error {}

/**
 * Bash: a command is judged like the Write/Edit calls it stands for. The pure analysis says what
 * it may write; here each target is resolved on disk (symlinks, globs, directories) and decided by
 * the same phase table, plus the DESIGN §3 rules for HEAD moves and the CLI.
 */
export function gateBash(cycle: ActiveCycle, event: BashEvent): Decision {
  const command = event.tool_input.command;
  const analysis = analyzeBash(command, { cwd: event.cwd, home: cycle.home, root: cycle.repo.root, inherited: inheritedEnv(process.env) });
  const judge = new Judge(cycle, event);
  return (
    firstDeny([
      () => judge.cli(analysis),
      () => judge.headMoves(analysis),
      () => judge.unknown(analysis),
      () => judge.writes(analysis),
      () => judge.mentions(analysis),
    ]) ?? judge.confirm(analysis)
  );
}

/**
 * Variables the Bash tool's shell inherits from Claude Code, as the hook does: temp dirs and the
 * project and plugin roots. Resolving them keeps `echo x > "$TMPDIR/log"` from failing closed.
 */
const INHERITED = ['TMPDIR', 'TMP', 'TEMP', 'CLAUDE_PROJECT_DIR', 'CLAUDE_PLUGIN_ROOT', 'USER', 'LOGNAME', 'XDG_CACHE_HOME', 'XDG_RUNTIME_DIR'];

function inheritedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of INHERITED) {
    const v = env[name];
    if (v !== undefined && v !== '') out[name] = v;
  }
  return out;
}

function firstDeny(steps: (() => Decision)[]): Decision | null {
  for (const step of steps) {
    const d = step();
    if (d.kind !== 'pass') return d;
  }
  return null;
}

class Judge {
  private readonly where: string;
  private factsMemo: CycleFacts | null = null;

  constructor(
    private readonly cycle: ActiveCycle,
    private readonly event: BashEvent,
  ) {
    const s = cycle.state;
    this.where = `(phase ${s.phase}, mode ${s.mode}, ${describeRole(event.agent_type ?? null)})`;
  }

  private facts(): CycleFacts {
    // SPEC drift is hashed only once, and only when some target is a test or source file.
    this.factsMemo ??= cycleFacts(this.cycle, this.event.agent_type, true);
    return this.factsMemo;
  }

  cli(a: BashAnalysis): Decision {
    if (this.event.agent_type === undefined) return PASS;
    for (const call of a.cliCalls) {
      if (cliEffect(call.verb, call.args) === 'read') continue;
      return deny(
        'subagent-cli',
        `Blocked \`${short(call.text)}\` ${this.where}: subagents never run the tdd-gate CLI's state-changing verbs (${call.verb ?? 'a verb that is not static'}); only the orchestrator moves the cycle. Read-only verbs (status, log, context, stack check) are fine. Finish your task and report back in your tdd-result block.`,
      );
    }
    return PASS;
  }

  confirm(a: BashAnalysis): Decision {
    if (this.event.agent_type !== undefined) return PASS;
    const call = a.cliCalls.find((c) => cliEffect(c.verb, c.args) === 'confirm');
    if (!call) return PASS;
    return ask(
      'cli-confirm',
      call.verb === 'result'
        ? `\`${short(call.text)}\` resumes the TDD loop after a halt (its retry bounds were reached). Confirm only if you, the user, have looked at the halt report and want the agents to continue; it is recorded either way.`
        : `\`${short(call.text)}\` ends the active TDD cycle (phase ${this.cycle.state.phase}, SPEC ${this.cycle.state.spec_id}) early. Confirm only if you, the user, want to stop this cycle; it is recorded either way.`,
    );
  }

  headMoves(a: BashAnalysis): Decision {
    for (const move of a.headMoves) {
      // A git command that certainly runs in another repository leaves this cycle's branch alone.
      if (move.cwds.every((c) => c !== null && this.outsideProject(c))) continue;
      const u = move.unlessPaths;
      if (u && u.cwd !== null) {
        const cwd = u.cwd;
        if (u.paths.every((p) => existsSync(path.resolve(cwd, p)))) continue;
      }
      return deny(
        'head-move',
        `Blocked \`${short(move.text)}\` ${this.where}: while a TDD cycle is active, git commands that move HEAD to another branch or commit or bring in other commits (checkout/switch of a branch, worktree add, merge, rebase, cherry-pick, pull, am, revert, reset to a commit, stash pop/apply) are blocked: the cycle's state belongs to this branch and frozen files must not change out of sight. Stay on this branch; to restore a single file use \`git checkout -- <file>\` or \`git restore <file>\` (judged like any write). Branch work can resume after \`tdd-gate done\`, or after the user aborts the cycle.`,
      );
    }
    return PASS;
  }

  unknown(a: BashAnalysis): Decision {
    if (a.unknown.length === 0) return PASS;
    return deny(
      'bash-unresolved',
      `Blocked Bash command ${this.where}: ${a.unknown.slice(0, 3).join('; ')}. While a TDD cycle is active the gate must know every file a command writes to apply the phase rules, so it fails closed here. Spell the paths out literally or use the Write/Edit tools for file changes; if the command is what the task needs as written, stop and tell the user.`,
    );
  }

  writes(a: BashAnalysis): Decision {
    try {
      for (const w of a.writes) {
        const d = this.judgeWrite(w);
        if (d.kind !== 'pass') return d;
      }
    } catch (err) {
      if (!(err instanceof TooMany)) throw err;
      return deny(
        'bash-unresolved',
        `Blocked Bash command ${this.where}: a glob or directory it writes covers more than ${MAX_FILES} files, too many to check against the phase rules. Name the files or a narrower directory.`,
      );
    }
    return PASS;
  }

  mentions(a: BashAnalysis): Decision {
    for (const m of a.mentions) {
      const cwd = m.cwd ?? this.event.cwd;
      for (const candidate of m.candidates) {
        const { classes } = classesOf(this.cycle, cwd, candidate);
        if (classes.every((c) => c === 'other')) continue;
        const d = decideWriteTarget(this.facts(), { display: candidate, classes, contentAfter: null });
        if (d.kind === 'pass') continue;
        return deny(
          'bash-unresolved',
          `Blocked Bash command ${this.where}: ${m.reason}, and it names ${candidate}, which this phase protects (${d.ruleId}). The gate cannot tell whether the command writes it, so it fails closed. Rewrite the command so it parses and names its targets literally, or use the Write/Edit tools.`,
        );
      }
    }
    return PASS;
  }

  private judgeWrite(w: BashWrite): Decision {
    const cwd = w.cwd ?? this.event.cwd;
    const via = `\`${w.via}\` in a Bash command`;
    for (const abs of this.expand(w, cwd)) {
      const { classes, real } = classesOf(this.cycle, cwd, abs);
      let cls = classes;
      if (w.onlyTests) {
        if (!classes.includes('test')) continue;
        cls = ['test'];
      }
      if (cls.every((c) => c === 'other') && !this.readOnlyRoleInProject(real)) continue;
      const target: WriteTarget = { display: `${this.display(abs)} (written by ${via})`, classes: cls };
      if (cls.includes('source')) target.contentAfter = contentAfterWrite(w, cwd, real);
      const d = decideWriteTarget(this.facts(), target);
      if (d.kind !== 'pass') return d;
    }
    return PASS;
  }

  /** The test-validator never writes in the project (scratch files outside it, like a test log in /tmp, are fine). */
  private readOnlyRoleInProject(abs: string): boolean {
    if (this.event.agent_type !== ROLE.testValidator || !rolesEnforced(this.cycle.state.mode)) return false;
    const rel = path.relative(this.cycle.repo.root, abs);
    return !rel.startsWith('..') && !path.isAbsolute(rel);
  }

  /** A directory outside this cycle's repository (symlinks resolved). */
  private outsideProject(dir: string): boolean {
    const rel = path.relative(this.cycle.repo.root, canonicalize(path.resolve(this.event.cwd, dir)));
    return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
  }

  private display(abs: string): string {
    const rel = path.relative(this.cycle.repo.root, abs);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : abs;
  }

  /** The concrete paths a write may touch: glob matches (and the literal, for a glob with no match), tree contents. */
  private *expand(w: BashWrite, cwd: string): Generator<string> {
    const counter = { n: 0 };
    if (w.glob) {
      const pattern = path.isAbsolute(w.path) ? w.path : `${escapeForGlob(cwd)}/${w.path}`;
      const literal = pattern.replace(/\\(.)/gs, '$1');
      yield literal;
      for (const match of globMatches(pattern, this.cycle.nocase, counter)) {
        yield match;
        if (w.tree) yield* walkTree(match, counter);
      }
      return;
    }
    const abs = path.resolve(cwd, w.path);
    yield abs;
    if (w.tree) yield* walkTree(abs, counter);
  }
}

function short(text: string): string {
  return text.length > 120 ? text.slice(0, 117) + '…' : text;
}

/** The file's content after a Bash write, when it can be known (RED: does the stub keep its marker?). */
function contentAfterWrite(w: BashWrite, cwd: string, real: string): string | null {
  if (w.tree || w.glob) return null;
  if (w.copyOf !== undefined) return readOrNull(path.resolve(cwd, w.copyOf));
  if (w.content === undefined) return null;
  return w.append ? readOrEmpty(real) + w.content : w.content;
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function escapeForGlob(s: string): string {
  return s.replace(/[\\*?[\](){}|!+@]/g, (c) => '\\' + c);
}

function count(counter: { n: number }): void {
  if (++counter.n > MAX_FILES) throw new TooMany();
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function linkedDir(p: string): string | null {
  try {
    return lstatSync(p).isSymbolicLink() && statSync(p).isDirectory() ? realpathSync(p) : null;
  } catch {
    return null;
  }
}

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Everything under a directory. A target that is a link to a directory is walked at the link's
 * target (`prettier --write src/linked-tests`); links further down are targets themselves, not followed.
 */
function* walkTree(target: string, counter: { n: number }): Generator<string> {
  const root = isDir(target) ? target : linkedDir(target);
  if (root === null) return;
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    for (const name of listDir(dir)) {
      if (SKIP_DIRS.has(name)) continue;
      const p = path.join(dir, name);
      count(counter);
      yield p;
      if (isDir(p)) stack.push(p);
    }
  }
}

/** Expand a glob segment by segment against the file system; `**` descends (as with globstar). */
function* globMatches(pattern: string, nocase: boolean, counter: { n: number }): Generator<string> {
  const segments = pattern.split('/').filter((s) => s !== '');
  const opts = { dot: true, nocase, nobrace: true } as const;
  function* step(base: string, i: number): Generator<string> {
    if (i === segments.length) {
      yield base;
      return;
    }
    const seg = segments[i] as string;
    if (seg === '**') {
      yield* step(base, i + 1);
      for (const name of listDir(base)) {
        if (SKIP_DIRS.has(name)) continue;
        const p = path.join(base, name);
        count(counter);
        if (isDir(p)) yield* step(p, i);
        else if (i + 1 === segments.length) yield p;
      }
      return;
    }
    if (!/(^|[^\\])[*?[]/.test(seg) && !/[@!+*?]\(/.test(seg)) {
      yield* step(path.join(base, seg.replace(/\\(.)/g, '$1')), i + 1);
      return;
    }
    const mm = new minimatch.Minimatch(seg, opts);
    for (const name of listDir(base)) {
      count(counter);
      if (mm.match(name)) yield* step(path.join(base, name), i + 1);
    }
  }
  yield* step('/', 0);
}
