import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { importPreloadSupported, jsCanaryOption, pyCanarySource } from '../canary.js';
import { MOCHA_REPORTER_NAME, mochaCommand, mochaReporterSource, reachesMocha } from './mocha.js';
import { nodeTestOptions, nodeTestReporterSupported } from './nodeTest.js';
import { PYTEST_PLUGIN_MODULE, pytestPluginSource } from './pytestOutcomes.js';
import { goCanaryPlan, goUnreached } from './goCanary.js';

/** vitest/jest/junit/node:test reports go to a file; go's JSON events replace the text on stdout. */
type ReportKind = 'vitest-json' | 'jest-json' | 'junit-xml' | 'go-json' | 'node-test' | 'mocha' | 'mocha-unreached' | 'cargo' | 'none';

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
   * A JavaScript module the run loads by its path (mocha's reporter): written to a fresh read-only
   * directory outside the project; every `token` in `command` becomes the file's quoted path.
   */
  jsModule?: { name: string; source: string; token: string };
  /** Where each test process's check of the assertion machinery writes its line (src/verify/canary.ts). */
  canary?: string;
  /** Files for a fresh read-only folder outside the project (go's overlay, goCanary.ts): `token` in the command and the files becomes its path. */
  tempFiles?: { files: Record<string, string>; token: string };
  /** What the report must show, handed to the judge as is (go's end-of-binary test, goCanary.ts). */
  expect?: string;
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
export function instrumentCommand(command: string, reportFile: string, script?: (name: string) => string | null, root?: string): Instrumented {
  const plan = instrumentPlain(command, reportFile, script, root);
  // mocha is never read from its text: a run the reporter cannot reach is refused (mocha.ts).
  if (plan.kind === 'none' && process.platform !== 'win32' && reachesMocha(command, script)) return { command, kind: 'mocha-unreached' };
  // go test where the gate's end-of-binary test cannot go (behind `&&`, a pipe): read from its text
  // for RED, refused at GREEN with the way forward (goCanary.ts).
  if (plan.kind === 'none' && process.platform !== 'win32' && root !== undefined && /(^|[\s;&|(])go\s+(?:-C[=\s]\S+\s+)?test(?=\s|$)/.test(command)) return { command, kind: 'go-json', expect: JSON.stringify(goUnreached()) };
  return withCanary(plan, `${reportFile}.canary`);
}

/**
 * The assertion machinery checked in every test process (src/verify/canary.ts): a preload through
 * NODE_OPTIONS for the JavaScript runners, a few more hooks in the gate's pytest plugin.
 */
function withCanary(plan: Instrumented, out: string): Instrumented {
  if (plan.kind === 'vitest-json' || plan.kind === 'jest-json' || plan.kind === 'node-test' || plan.kind === 'mocha') {
    if (!importPreloadSupported(process.versions.node)) return plan;
    return { ...plan, nodeOptions: [plan.nodeOptions, jsCanaryOption(out)].filter(Boolean).join(' '), canary: out };
  }
  if (plan.kind === 'junit-xml' && plan.pythonModule) {
    return { ...plan, pythonModule: { ...plan.pythonModule, source: plan.pythonModule.source + pyCanarySource(out) }, canary: out };
  }
  return plan;
}

function instrumentPlain(command: string, reportFile: string, script?: (name: string) => string | null, root?: string): Instrumented {
  const plain = { command, kind: 'none' as const };
  if (process.platform === 'win32') return plain;
  // node:test, however the command reaches it: the reporter goes in through NODE_OPTIONS (the
  // project's node is taken to be the one running tdd-gate).
  const nodeOptions = nodeTestReporterSupported(process.versions.node) ? nodeTestOptions(command, reportFile, script) : null;
  if (nodeOptions !== null) return { command, kind: 'node-test', nodeOptions };
  const go = goTest(command, reportFile, root);
  if (go !== null) return go;
  if (COMPOUND.test(command)) return plain;
  const f = quote(reportFile);
  // `npm test` (or `npm run x`, `yarn x`, `pnpm x`) whose script is a plain call of vitest, jest or
  // pytest: the report flags go through the package manager to the runner.
  // The package manager's own flags (`npm test --silent`) may come before or after the script's name.
  const pm = /^(npm|pnpm|yarn)(?:\s+--?[\w-]+)*(?:\s+run(?:-script)?)?\s+([\w:.@/][\w:.@/-]*)(?:\s+--?[\w-]+)*$/.exec(command.trim());
  if (pm && script) {
    const name = pm[1] === 'npm' && (pm[2] === 't' || pm[2] === 'tst') ? 'test' : (pm[2] ?? '');
    const body = script(name)?.trim() ?? null;
    if (body !== null && !/^(npm|pnpm|yarn)\b/.test(body)) {
      const inner = instrumentPlain(body, reportFile);
      if ((inner.kind === 'vitest-json' || inner.kind === 'jest-json' || inner.kind === 'junit-xml' || inner.kind === 'mocha') && inner.command.startsWith(body)) {
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
  if (mocha !== null) return { command: mocha, kind: 'mocha', jsModule: { name: MOCHA_REPORTER_NAME, source: mochaReporterSource(reportFile), token } };
  if (/(^|[\s/])vitest(\.mjs)?(\s|$)/.test(command) && !/--reporter|--outputFile/.test(command)) {
    return { command: `${command} --reporter=default --reporter=json --outputFile.json=${f}`, kind: 'vitest-json' };
  }
  if (/(^|[\s/])jest(\.js)?(\s|$)/.test(command) && !/--json|--outputFile|--reporters/.test(command)) {
    // --no-cache: jest's transform cache lives outside the project (the temp dir), where anyone can
    // rewrite the cached code of a frozen test; the tests run from their bytes, not from the cache.
    // A cache directory of the run's own: jest still writes its file map there, and the shared
    // default (<tmp>/jest_<uid>) may belong to another user, or to root when the oracle's user
    // namespace makes this user uid 0. The runner removes it with the report.
    // --ci: a verification run writes no snapshot (a new one would record whatever the code returns).
    const ci = /(^|\s)--ci\b/.test(command) ? '' : ' --ci';
    // --testLocationInResults: each test's line and column, to know it by its declaration.
    const loc = /--testLocationInResults\b/.test(command) ? '' : ' --testLocationInResults';
    return { command: `${command}${ci}${loc} --json --outputFile=${f} --no-cache --cacheDirectory=${quote(`${reportFile}.cache`)}`, kind: 'jest-json' };
  }
  if (/(^|[\s/])(pytest|py\.test)(\s|$)|-m\s+pytest(\s|$)/.test(command) && !/--junit-?xml/.test(command)) {
    // The gate's own plugin records what each test phase raised, to hold the junit report to.
    // (An interpreter started with -I or -E ignores PYTHONPATH: the report is read alone.)
    if (/(^|[\s/])python[\d.]*\s+(?:-\w+\s+)*-\w*[IE]/.test(command)) return { command: `${command} --junitxml=${f}`, kind: 'junit-xml' };
    const side = `${reportFile}.outcomes`;
    return {
      command: `${command} -p ${PYTEST_PLUGIN_MODULE} --junitxml=${f}`,
      kind: 'junit-xml',
      pythonModule: { name: PYTEST_PLUGIN_MODULE, source: pytestPluginSource(side) },
      sideReport: side,
    };
  }
  // cargo stops at the first failing test binary unless told not to: every test must run.
  const cargo = /(^|\s)cargo\s+(?:\+\S+\s+)?test(?=\s|$)/.exec(command);
  if (cargo && !/--no-fail-fast/.test(command)) {
    const at = cargo.index + cargo[0].length;
    // Quiet output (`-q`, libtest's terse format) prints dots, not test names: it goes.
    const loud = command.slice(at).replace(/\s(?:-q|--quiet|--format[= ]terse)(?=\s|$)/g, '');
    return { command: `${command.slice(0, at)} --no-fail-fast${loud}`, kind: 'cargo' };
  }
  return plain;
}

/**
 * go test: `-json`, and the gate's end-of-binary test in every package with tests through
 * -overlay (goCanary.ts). A quoted `-run` pattern may hold `|` (`-run 'TestA|TestB'`): shell syntax
 * is looked for outside quotes.
 */
function goTest(command: string, reportFile: string, root?: string): Instrumented | null {
  // `go -C <dir> test`: go changes to the folder first; the overlay's paths are relative to it.
  const go = /(^|\s)go\s+(?:-C[=\s]([\w./@+-]+)\s+)?test(?=\s|$)/.exec(command);
  if (!go || COMPOUND.test(command.replace(/'[^']*'|"[^"$`\\]*"/g, "''"))) return null;
  const at = go.index + go[0].length;
  if (root !== undefined) {
    const g = goCanaryPlan(command.slice(0, at), command.slice(at), root, `${reportFile}.canary`, undefined, go[2] === undefined ? '.' : path.isAbsolute(go[2]) ? path.relative(root, go[2]) || '.' : path.posix.normalize(go[2]));
    return { command: g.command, kind: 'go-json', canary: `${reportFile}.canary`, expect: JSON.stringify(g.expect), ...(g.tempFiles ? { tempFiles: g.tempFiles } : {}) };
  }
  return { command: /\s--?json(\s|$)/.test(command) ? command : `${command.slice(0, at)} -json${command.slice(at)}`, kind: 'go-json' };
}
