import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import { runHookBundle } from '../helpers/hook.js';
import { cli, cliEnv, JEST, jestLiar, JEST_PKG, ok, project, readState, redToGreen, startRed } from './fixtures.js';

const ADD_TEST = "const { add } = require('../src/add');\n\ndescribe('add', () => {\n  test('adds two numbers', () => {\n    expect(add(1, 2)).toBe(3);\n  });\n});\n";
const OLD_TEST = "test('old', () => {\n  expect(1 + 1).toBe(2);\n});\n";
const STUB = '// STUB:TDD\nfunction add(_a, _b) {\n  return 0;\n}\nmodule.exports = { add };\n';
const BODY = 'function add(_a, _b) {\n  return 0;\n}\nmodule.exports = { add };\n';
const REAL = 'function add(a, b) {\n  return a + b;\n}\nmodule.exports = { add };\n';
const ADDS = '__tests__/add.test.js::add > adds two numbers';
const SCRIPTS = { test: 'jest --ci', lint: 'true' };
/** The project loads a start-up file through .npmrc (as dotenv set-ups do); the file itself is not a test. */
const NPMRC = 'node-options=--require ./tools/preload.js\n';
const PRELOAD = "// project start-up\nrequire('../src/boot');\n";
const BOOT = 'module.exports = {};\n';

describe('cheats against a real jest project (`npm test`, script `jest`) in GREEN', () => {
  it('each way around a failing frozen test is refused with what happened; the real implementation reaches done', { timeout: 240_000 }, () => {
    const repo = project(
      'jest',
      { '__tests__/old.test.js': OLD_TEST, 'package.json': JEST_PKG({ scripts: SCRIPTS }), '.npmrc': NPMRC, 'tools/preload.js': PRELOAD, 'src/boot.js': BOOT },
      { test_command: 'npm test --silent' },
    );
    startRed(repo);
    repo.write('__tests__/add.test.js', ADD_TEST);
    repo.write('src/add.js', STUB);
    redToGreen(repo);
    const refused = (re: RegExp) => expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(re);
    const implementer = { cwd: repo.root, agent_type: 'tdd-gate:implementer' };

    // zero tests: the source ends the process when the test file loads it
    repo.write('src/add.js', 'process.exit(0);\n' + BODY);
    refused(/saw the run begin but not end|printed no runner summary|ran no tests|frozen tests did not run|failed to load/);

    // the runner's settings in package.json are frozen: the `jest` key and the script `npm test` runs
    repo.write('src/add.js', STUB);
    repo.write('package.json', JEST_PKG({ scripts: SCRIPTS }).replace('"testEnvironment": "node"', '"testEnvironment": "node", "testPathIgnorePatterns": ["/node_modules/", "add"]'));
    refused(/runner's settings changed: package\.json#runner/);
    repo.write('package.json', JEST_PKG({ scripts: SCRIPTS }).replace('"maxWorkers": 1', '"maxWorkers": 1, "testMatch": ["**/old.test.js"]'));
    refused(/runner's settings changed: package\.json#runner/);
    repo.write('package.json', JEST_PKG({ scripts: { ...SCRIPTS, test: 'jest --passWithNoTests -t nothing' } }));
    refused(/runner's settings changed: package\.json#runner/);
    repo.write('package.json', JEST_PKG({ scripts: SCRIPTS }));

    // a jest config written after the freeze, untracked or git-ignored: the hook denies the write, verify refuses what a script wrote
    for (const cfg of ['jest.config.js', 'jest.config.cjs', '.babelrc.js', 'babel.config.json']) {
      expect(runHookBundle(ev.write(implementer, repo.path(cfg), 'module.exports = {};\n')), cfg).toMatchObject({ decision: 'deny' });
    }
    repo.write('jest.config.js', "module.exports = { testPathIgnorePatterns: ['/node_modules/', 'add'] };\n");
    refused(/test files added after the freeze: jest\.config\.js/);
    repo.write('.gitignore', 'node_modules\njest.config.js\n');
    repo.write('jest.config.js', "module.exports = { setupFiles: ['./src/setup.js'], reporters: [] };\n");
    refused(/test files added after the freeze: jest\.config\.js/);
    rmSync(repo.path('jest.config.js'));
    repo.write('.gitignore', 'node_modules\n');
    // babel transforms the tests under jest's default transform: a babel config is the runner's too
    repo.write('.babelrc.js', "module.exports = { plugins: ['./tools/strip-expect.js'] };\n");
    refused(/test files added after the freeze: \.babelrc\.js/);
    rmSync(repo.path('.babelrc.js'));
    repo.write('package.json', JEST_PKG({ scripts: SCRIPTS, babel: { plugins: ['./tools/strip-expect.js'] } }));
    refused(/runner's settings changed: package\.json#runner/);
    repo.write('package.json', JEST_PKG({ scripts: SCRIPTS }));

    // .npmrc is frozen, and so is the preload it names: a preload that rewrites jest's JSON report
    // and its printed summary alike would otherwise leave nothing to compare
    repo.write('.npmrc', NPMRC + 'node-options=--require ./src/add.js\n');
    refused(/frozen files changed: \.npmrc/);
    repo.write('.npmrc', NPMRC);
    repo.write('tools/preload.js', jestLiar({ summary: true }));
    refused(/frozen files changed: tools\/preload\.js/);
    repo.write('tools/preload.js', PRELOAD);
    // a source the preload loads rewrites jest's --json report
    // (its command line read plainly is refused at the source: process.argv.find is how a source tells the runner apart)
    repo.write('src/boot.js', jestLiar({ flag: "['--output', 'File='].join('')" }));
    refused(/src\/boot\.js:3 reads the program’s own name or arguments .*\[process-args\]/);
    // spelled so the scan does not see it, it finds no report of jest's to rewrite: the gate's reporter, sealed, says what ran
    repo.write('src/boot.js', jestLiar({ flag: "['--output', 'File='].join('')" }).replace('process.argv', "process[['ar', 'gv'].join('')]"));
    refused(/1 of 2 tests fail|1 tests fail although the command exited 0/);
    // spelled plainly, the report option is the runner's business: the hook denies it, verify refuses it
    expect(runHookBundle(ev.write(implementer, repo.path('src/boot.js'), jestLiar()))).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/reads the test runner’s report options/) as unknown });
    repo.write('src/boot.js', jestLiar());
    refused(/src\/boot\.js:2 reads the test runner’s report options/);
    repo.write('src/boot.js', BOOT);

    // the source reaches into the runner: denied at the write (the hook), refused at verify (a script wrote it)
    const reaches: [string, RegExp][] = [
      ["expect.extend({ toBe: () => ({ pass: true, message: () => '' }) });\n" + BODY, /extends the test framework \(expect\.extend\)/],
      ["const { expect } = require('@jest/globals');\nexpect.extend({ toBe: () => ({ pass: true, message: () => '' }) });\n" + BODY, /imports the test framework/],
      ['function add(a, b) {\n  return process.env.JEST_WORKER_ID ? 3 : 0;\n}\nmodule.exports = { add };\n', /reads the test runner’s environment/],
      // jest hands sources its `jest` object too
      ["function add(a, b) {\n  return typeof jest !== 'undefined' ? 3 : 0;\n}\nmodule.exports = { add };\n", /detects the test framework’s runtime/],
    ];
    for (const [content, why] of reaches) {
      expect(runHookBundle(ev.write(implementer, repo.path('src/add.js'), content))).toMatchObject({ decision: 'deny', reason: expect.stringMatching(why) as unknown });
      repo.write('src/add.js', content);
      refused(why);
    }

    // jest has no skip from inside a test, but a source can swap the global `test` for `test.skip` as the test file loads it
    repo.write('src/add.js', "const g = globalThis;\nconst name = ['te', 'st'].join('');\ng[name] = g[name].skip;\n" + BODY);
    refused(/frozen tests were skipped instead of run: __tests__\/add\.test\.js::add > adds two numbers/);
    // … or wrap it so that each test runs an empty body: the tests pass, but none of their expect() calls ran
    repo.write('src/add.js', "const g = globalThis;\nconst name = ['te', 'st'].join('');\nconst run = g[name];\ng[name] = (title) => run(title, () => {});\n" + BODY);
    refused(/1 tests that made RED valid passed without running the expect\(\) assertions they are written with: __tests__\/add\.test\.js::add > adds two numbers/);

    // a frozen test replaced by a link to the very same bytes
    repo.write('src/add.js', STUB);
    repo.write('__tests__/add.copy.txt', ADD_TEST);
    unlinkSync(repo.path('__tests__/add.test.js'));
    symlinkSync('add.copy.txt', repo.path('__tests__/add.test.js'));
    refused(/frozen files changed: __tests__\/add\.test\.js/);
    unlinkSync(repo.path('__tests__/add.test.js'));
    rmSync(repo.path('__tests__/add.copy.txt'));
    repo.write('__tests__/add.test.js', ADD_TEST);

    // NODE_OPTIONS from the caller's environment does not reach the run
    const outside = mkdtempSync(path.join(tmpdir(), 'tdd-gate-caller-'));
    try {
      writeFileSync(path.join(outside, 'lie.js'), jestLiar());
      expect(ok(cliEnv(repo, { NODE_OPTIONS: `--require ${path.join(outside, 'lie.js')}` }, 'verify', 'green'), 1).stderr).toMatch(/not GREEN: 1 of 2 tests fail/);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }

    // with everything put back, the real implementation is GREEN and done
    repo.write('src/add.js', REAL);
    expect(JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout)).toMatchObject({ valid: true, tests: { [ADDS]: 'passed', '__tests__/old.test.js::old': 'passed' } });
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });
});

describe("jest's transform cache", () => {
  it('is not where the oracle reads the tests from: a cached copy of a frozen test with its assertion cut out changes nothing', { timeout: 120_000 }, () => {
    // babel-jest, jest's default transform, caches the code it produces; here the cache sits in the project
    const pkg = JSON.stringify({ private: true, jest: { testEnvironment: 'node', watchman: false, maxWorkers: 1, cacheDirectory: '<rootDir>/.jest-cache' } }, null, 2) + '\n';
    const repo = project('jest', { '__tests__/old.test.js': OLD_TEST, 'package.json': pkg, '.gitignore': 'node_modules\n.jest-cache\n' });
    startRed(repo);
    repo.write('__tests__/add.test.js', ADD_TEST);
    repo.write('src/add.js', STUB);
    redToGreen(repo);

    const jest = () => spawnSync(process.execPath, [JEST, '--ci'], { cwd: repo.root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(jest().status).toBe(1);
    // rewrite the cached code of the frozen test (jest checks only a checksum it keeps beside it)
    const dir = repo.path('.jest-cache');
    const cached = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /addtest_[0-9a-f]+$/.test(f));
    expect(cached.length).toBeGreaterThan(0);
    for (const rel of cached) {
      const file = path.join(dir, rel);
      const text = readFileSync(file, 'utf8');
      const code = text.slice(text.indexOf('\n') + 1).replace('expect(add(1, 2)).toBe(3);', '');
      writeFileSync(file, `${createHash('sha1').update(code).digest('hex').slice(0, 32)}\n${code}`);
    }
    expect(jest().status).toBe(0); // jest itself now passes the stub
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/not GREEN: 1 of 2 tests fail/);
  });
});
