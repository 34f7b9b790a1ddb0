import { parseShell } from '../../gate/rules/bash/parser.js';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { importPreloadSupported, jsCanaryOption, pyCanarySource } from '../canary.js';
import { CARGO_RUNNER_NAME, cargoRunnerEnv, cargoRunnerSource, commandTargets, hostTriple, platformTriples } from './cargo.js';
import { MOCHA_REPORTER_NAME, mochaCommand, mochaReporterSource, reachesMocha } from './mocha.js';
import { nodeTestCalls, nodeTestOptions, nodeTestReporterSupported } from './nodeTest.js';
import { PYTEST_PLUGIN_MODULE, pytestPluginSource } from './pytestOutcomes.js';
import { JEST_REPORTER_NAME, jestReporterSource } from './jestReporter.js';
import { VITEST_REPORTER_NAME, vitestReporterSource } from './vitestReporter.js';
import { goCanaryPlan, goUnreached } from './goCanary.js';

/**
 * vitest/jest (the gate's sealed reporters, jest's JSON shape), pytest, mocha and node:test (sealed
 * reports of the gate's own) go to a file; go's JSON events replace the text on stdout.
 */
type ReportKind = 'vitest-json' | 'jest-json' | 'pytest' | 'pytest-unreached' | 'go-json' | 'node-test' | 'node-test-unreached' | 'mocha' | 'mocha-unreached' | 'cargo' | 'none';

/** The command to run, the report it writes, and (node:test) what to add to NODE_OPTIONS for it. */
export interface Instrumented {
  command: string;
  kind: ReportKind;
  nodeOptions?: string;
  /** More environment for the run (npm's own `node-options` setting, which replaces NODE_OPTIONS). */
  env?: Record<string, string>;
  /** A Python module the run loads, from a fresh read-only directory outside the project put first on PYTHONPATH. */
  pythonModule?: { name: string; source: string };
  /** A second report the instrumentation writes beside the runner's (pytest's outcomes as the gate's plugin saw them). */
  sideReport?: string;
  /**
   * A JavaScript module the run loads by its path (mocha's reporter; cargo's runner, a shell
   * script): written to a fresh read-only directory outside the project; every `token` in `command`
   * becomes the file's quoted path, and in `env`'s values its bare path.
   */
  jsModule?: { name: string; source: string; token: string };
  /** Where each test process's check of the assertion machinery writes its line (src/verify/canary.ts). */
  canary?: string;
  /** Files for a fresh read-only folder outside the project (go's overlay, goCanary.ts): `token` in the command and the files becomes its path. */
  tempFiles?: { files: Record<string, string>; token: string };
  /** What the report must show, handed to the judge as is (go's end-of-binary test, goCanary.ts). */
  expect?: string;
  /** The gate's reporter seals its report (seal.ts): the run's key goes to `keyFile`, the `main` (or `side`) report is opened with it. */
  seal?: { keyFile: string; report: 'main' | 'side' };
}

/** What the CLI tells the instrumentation about the project. */
export interface InstrumentOptions {
  /** pytest: the root-relative Python sources whose classes the canary checks for an equality that is always true (canary.ts). */
  pyEqualityChecked?: readonly string[];
  /** The project's root, where the gate's own test for go test finds the packages (goCanary.ts). */
  root?: string;
}

/** Shell syntax after which appending arguments would reach another command. */
const COMPOUND = /&&|\|\||[;|<>`]|\$\(/;

function quote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Ask the runner for a machine-readable report as well, when the command is a plain call to a
 * runner we know and does not pick its own reporter. Anything else runs as written and is read
 * by the text parsers.
 */
export function instrumentCommand(command: string, reportFile: string, script?: (name: string) => string | null, options: InstrumentOptions = {}): Instrumented {
  const root = options.root;
  const plan = instrumentPlain(command, reportFile, script, root);
  // mocha is never read from its text: a run the reporter cannot reach is refused (mocha.ts).
  if (plan.kind === 'none' && process.platform !== 'win32' && reachesMocha(command, script)) return { command, kind: 'mocha-unreached' };
  // go test where the gate's end-of-binary test cannot go (behind `&&`, a pipe): read from its text
  // for RED, refused at GREEN with the way forward (goCanary.ts).
  if (plan.kind === 'none' && process.platform !== 'win32' && root !== undefined && /(^|[\s;&|(])go\s+(?:-C[=\s]\S+\s+)?test(?=\s|$)/.test(command)) return { command, kind: 'go-json', expect: JSON.stringify(goUnreached()) };
  return withCanary(plan, `${reportFile}.canary`, options.pyEqualityChecked ?? []);
}

/**
 * The assertion machinery checked in every test process (src/verify/canary.ts): a preload through
 * NODE_OPTIONS for the JavaScript runners, a few more hooks in the gate's pytest plugin.
 */
function withCanary(plan: Instrumented, out: string, pyEqualityChecked: readonly string[]): Instrumented {
  if (plan.kind === 'vitest-json' || plan.kind === 'jest-json' || plan.kind === 'node-test' || plan.kind === 'mocha') {
    if (!importPreloadSupported(process.versions.node)) return plan;
    return { ...plan, nodeOptions: [plan.nodeOptions, jsCanaryOption(out)].filter(Boolean).join(' '), canary: out };
  }
  if (plan.kind === 'pytest' && plan.pythonModule) {
    return { ...plan, pythonModule: { ...plan.pythonModule, source: plan.pythonModule.source + pyCanarySource(out, pyEqualityChecked) }, canary: out };
  }
  return plan;
}

/** A token for the reporter file's path in a command: made of random bytes, it cannot occur in one. */
function moduleToken(runner: string): string {
  return `@tdd-gate-${runner}-reporter-${randomBytes(12).toString('hex')}@`;
}

/** Flags added at the end of a command's own, before a `--` that ends the runner's options. */
function appendFlags(command: string, flags: string): string {
  const dashes = /\s--(?=\s|$)/.exec(command);
  if (dashes) return `${command.slice(0, dashes.index)} ${flags}${command.slice(dashes.index)}`;
  return `${command} ${flags}`;
}

/**
 * vitest through the gate's sealed reporter (vitestReporter.ts): `--reporter=<file>` after what the
 * command says, and `--reporter=default` before it when the command names no reporter of its own
 * (vitest's reporters on the command line replace its configuration's, so a person still reads the
 * default one's). null when the command is not a vitest call.
 */
export function vitestCommand(command: string, reportFile: string): Instrumented | null {
  if (!/(^|[\s/])vitest(\.mjs)?(\s|$)/.test(command)) return null;
  const token = moduleToken('vitest');
  const own = /(^|\s)--reporter(?:s)?(?=[=\s])/.test(command);
  return {
    command: appendFlags(command, `${own ? '' : '--reporter=default '}--reporter=${token}`),
    kind: 'vitest-json',
    jsModule: { name: VITEST_REPORTER_NAME, source: vitestReporterSource(`${reportFile}.key`, reportFile), token },
    seal: { keyFile: `${reportFile}.key`, report: 'main' },
  };
}

/**
 * jest through the gate's sealed reporter (jestReporter.ts): `--reporters=<file>` after what the
 * command says, and `--reporters=default` before it when the command names no reporter of its own
 * (jest's `--reporters` on the command line replace its configuration's). null when the command is
 * not a jest call.
 */
export function jestCommand(command: string, reportFile: string): Instrumented | null {
  if (!/(^|[\s/])jest(\.js)?(\s|$)/.test(command)) return null;
  const token = moduleToken('jest');
  // --ci: a verification run writes no snapshot (a new one would record whatever the code returns).
  const ci = /(^|\s)--ci\b/.test(command) ? '' : '--ci ';
  // --testLocationInResults: each test's line and column, to know it by its declaration.
  const loc = /--testLocationInResults\b/.test(command) ? '' : '--testLocationInResults ';
  const own = /(^|\s)--reporters(?=[=\s])/.test(command);
  // --no-cache: jest's transform cache lives outside the project (the temp dir), where anyone can
  // rewrite the cached code of a frozen test; the tests run from their bytes, not from the cache.
  // A cache directory of the run's own: jest still writes its file map there, and the shared
  // default (<tmp>/jest_<uid>) may belong to another user, or to root when the oracle's user
  // namespace makes this user uid 0. The runner removes it with the report.
  const flags = `${ci}${loc}${own ? '' : '--reporters=default '}--reporters=${token} --no-cache --cacheDirectory=${quote(`${reportFile}.cache`)}`;
  return {
    command: appendFlags(command, flags),
    kind: 'jest-json',
    jsModule: { name: JEST_REPORTER_NAME, source: jestReporterSource(`${reportFile}.key`, reportFile), token },
    seal: { keyFile: `${reportFile}.key`, report: 'main' },
  };
}

/**
 * cargo test through the gate's runner (cargo.ts), wherever the command runs it (the runner goes
 * in through the environment); `--no-fail-fast` so every test binary runs, in a plain command.
 */
function cargoPlan(command: string, reportFile: string): Instrumented | null {
  const cargo = /(^|\s)cargo\s+(?:\+\S+\s+)?t(?:est)?(?=\s|$)/.exec(command);
  if (!cargo) return null;
  const runner = cargoRunner(command, reportFile);
  if (COMPOUND.test(command) || /--no-fail-fast/.test(command)) return runner;
  const at = cargo.index + cargo[0].length;
  // Quiet output (`-q`, libtest's terse format) prints dots, not the doc tests' names: it goes.
  const loud = command.slice(at).replace(/\s(?:-q|--quiet|--format[= ]terse)(?=\s|$)/g, '');
  return { ...runner, command: `${command.slice(0, at)} --no-fail-fast${loud}` };
}

/** The command as it is, every test binary of the cargo it runs (however it reaches cargo) through the gate's runner. */
export function cargoRunner(command: string, reportFile: string): Instrumented {
  const token = `@tdd-gate-cargo-runner-${randomBytes(12).toString('hex')}@`;
  const triples = [hostTriple(), ...platformTriples(), ...commandTargets(command)].filter((t): t is string => t !== null);
  return { command, kind: 'cargo', jsModule: { name: CARGO_RUNNER_NAME, source: cargoRunnerSource(reportFile), token }, env: cargoRunnerEnv(token, triples) };
}

/** What a runner call inside a compound command can be instrumented to, by its own words. */
const SEGMENT_KINDS: ReadonlySet<string> = new Set(['vitest-json', 'jest-json', 'pytest', 'pytest-unreached', 'mocha', 'go-json']);

/** The simple commands of a script, each from its first word to its last (its redirections left out). */
function simpleCommands(node: unknown, out: { start: number; end: number }[]): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) simpleCommands(n, out);
    return;
  }
  const n = node as { type?: string; pos?: number; name?: { end?: number }; suffix?: { type?: string; end?: number }[] };
  // Words hold substitutions: what runs inside one is not a call the command makes as written.
  if (n.type === 'Word') return;
  if (n.type === 'Command') {
    if (typeof n.pos !== 'number' || typeof n.name?.end !== 'number') return;
    let end = n.name.end;
    for (const w of n.suffix ?? []) if (w.type === 'Word' && typeof w.end === 'number') end = Math.max(end, w.end);
    out.push({ start: n.pos, end });
    return;
  }
  for (const v of Object.values(n)) simpleCommands(v, out);
}

/**
 * A compound command (`cd web && npx vitest run`, `pytest -q | tee log`): the one simple command in
 * it that calls a runner we know gets, in place, what a plain call of it would; the rest runs as
 * written. null when none does, when more than one does (a sealed report holds one run), or when
 * the shell cannot be read.
 */
function instrumentSegment(command: string, reportFile: string, script?: (name: string) => string | null, root?: string): Instrumented | null {
  const calls: { start: number; end: number }[] = [];
  try {
    simpleCommands(parseShell(command).commands, calls);
  } catch {
    return null;
  }
  let found: { plan: Instrumented; start: number; end: number } | null = null;
  // The folder a plain `cd <dir>` before the call moved to (go's overlay names files from there).
  let cwd = '.';
  for (const call of calls) {
    const text = command.slice(call.start, call.end);
    if (COMPOUND.test(text)) continue;
    const cd = /^cd\s+([\w./@+-]+)$/.exec(text);
    if (cd?.[1] !== undefined) cwd = path.isAbsolute(cd[1]) ? path.relative(root ?? '/', cd[1]) || '.' : path.posix.join(cwd, cd[1]);
    const plan = instrumentPlain(text, reportFile, script, root, cwd);
    if (!SEGMENT_KINDS.has(plan.kind)) continue;
    if (found !== null) return null;
    found = { plan, ...call };
  }
  if (found === null) return null;
  return { ...found.plan, command: `${command.slice(0, found.start)}${found.plan.command}${command.slice(found.end)}` };
}

function instrumentPlain(command: string, reportFile: string, script?: (name: string) => string | null, root?: string, cwd?: string): Instrumented {
  const plain = { command, kind: 'none' as const };
  if (process.platform === 'win32') return plain;
  // node:test, however the command reaches it: the reporter goes in through NODE_OPTIONS (the
  // project's node is taken to be the one running tdd-gate).
  const nodeOptions = nodeTestReporterSupported(process.versions.node) ? nodeTestOptions(command, reportFile, script) : null;
  if (nodeOptions !== null) {
    // One sealed report holds one `node --test` process's run.
    if (nodeTestCalls(command, script).length > 1) return { command, kind: 'node-test-unreached' };
    return { command, kind: 'node-test', nodeOptions, seal: { keyFile: `${reportFile}.key`, report: 'main' } };
  }
  const go = goTest(command, reportFile, root, cwd);
  if (go !== null) return go;
  const cargo = cargoPlan(command, reportFile);
  if (cargo !== null) return cargo;
  if (COMPOUND.test(command)) return instrumentSegment(command, reportFile, script, root) ?? plain;
  // `npm test` (or `npm run x`, `yarn x`, `pnpm x`) whose script is a plain call of vitest, jest or
  // pytest: the report flags go through the package manager to the runner.
  // The package manager's own flags (`npm test --silent`) may come before or after the script's name.
  const pm = /^(npm|pnpm|yarn)(?:\s+--?[\w-]+)*(?:\s+run(?:-script)?)?\s+([\w:.@/][\w:.@/-]*)(?:\s+--?[\w-]+)*$/.exec(command.trim());
  if (pm && script) {
    const name = pm[1] === 'npm' && (pm[2] === 't' || pm[2] === 'tst') ? 'test' : (pm[2] ?? '');
    const body = script(name)?.trim() ?? null;
    if (body !== null && !/^(npm|pnpm|yarn)\b/.test(body)) {
      const inner = instrumentPlain(body, reportFile);
      if (inner.kind === 'pytest-unreached') return { command, kind: 'pytest-unreached' };
      if ((inner.kind === 'vitest-json' || inner.kind === 'jest-json' || inner.kind === 'pytest' || inner.kind === 'mocha') && inner.command.startsWith(body)) {
        return { ...inner, command: `${command.trim()}${pm[1] === 'npm' ? ' --' : ''}${inner.command.slice(body.length)}` };
      }
    }
    return plain;
  }
  // mocha: the gate's own reporter, from a file the runner writes outside the project for the run
  // (mocha.ts); the last --reporter wins over the project's. The token cannot occur in a command
  // (it is made of random bytes), so only the flag's value is replaced.
  const token = `@tdd-gate-mocha-reporter-${randomBytes(12).toString('hex')}@`;
  const mocha = mochaCommand(command, token);
  if (mocha !== null) return { command: mocha, kind: 'mocha', jsModule: { name: MOCHA_REPORTER_NAME, source: mochaReporterSource(reportFile), token }, seal: { keyFile: `${reportFile}.key`, report: 'main' } };
  const vitest = vitestCommand(command, reportFile);
  if (vitest !== null) return vitest;
  const jest = jestCommand(command, reportFile);
  if (jest !== null) return jest;
  if (/(^|[\s/])(pytest|py\.test)(\s|$)|-m\s+pytest(\s|$)/.test(command)) {
    // The gate's own plugin writes the sealed report (pytestOutcomes.ts). An interpreter started
    // with -I or -E ignores PYTHONPATH and cannot load it: no report, refused with what to change.
    if (/(^|[\s/])python[\d.]*\s+(?:-\w+\s+)*-\w*[IE]/.test(command)) return { command, kind: 'pytest-unreached' };
    return {
      command: `${command} -p ${PYTEST_PLUGIN_MODULE}`,
      kind: 'pytest',
      pythonModule: { name: PYTEST_PLUGIN_MODULE, source: pytestPluginSource(reportFile, `${reportFile}.key`) },
      seal: { keyFile: `${reportFile}.key`, report: 'main' },
    };
  }
  return plain;
}

/**
 * go test: `-json`, and the gate's end-of-binary test in every package with tests through
 * -overlay (goCanary.ts). A quoted `-run` pattern may hold `|` (`-run 'TestA|TestB'`): shell syntax
 * is looked for outside quotes.
 */
function goTest(command: string, reportFile: string, root?: string, cwd = '.'): Instrumented | null {
  // `go -C <dir> test`: go changes to the folder first; the overlay's paths are relative to it.
  const go = /(^|\s)go\s+(?:-C[=\s]([\w./@+-]+)\s+)?test(?=\s|$)/.exec(command);
  if (!go || COMPOUND.test(command.replace(/'[^']*'|"[^"$`\\]*"/g, "''"))) return null;
  const at = go.index + go[0].length;
  if (root !== undefined) {
    const g = goCanaryPlan(command.slice(0, at), command.slice(at), root, `${reportFile}.canary`, undefined, go[2] === undefined ? cwd : path.isAbsolute(go[2]) ? path.relative(root, go[2]) || '.' : path.posix.join(cwd, go[2]));
    return { command: g.command, kind: 'go-json', canary: `${reportFile}.canary`, expect: JSON.stringify(g.expect), ...(g.tempFiles ? { tempFiles: g.tempFiles } : {}) };
  }
  return { command: /\s--?json(\s|$)/.test(command) ? command : `${command.slice(0, at)} -json${command.slice(at)}`, kind: 'go-json' };
}
