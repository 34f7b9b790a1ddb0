import { spawn } from 'node:child_process';
import { readFileSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli, cliEnv, ok, project, readState, redToGreen, startRed, VITEST } from './fixtures.js';

const ADD_TEST = "import { expect, test } from 'vitest';\nimport { add } from '../src/add.js';\ntest('adds', () => { expect(add(1, 2)).toBe(3); });\n";
const OLD_TEST = "import { expect, test } from 'vitest';\ntest('old', () => { expect(1).toBe(1); });\n";
const STUB = '// STUB:TDD\nexport function add(_a: number, _b: number): number { return 0; }\n';
const REAL = 'export function add(a: number, b: number): number { return a + b; }\n';

/** A vitest project frozen on a genuine RED, with the stub still in place (the tests fail). */
function frozenVitest() {
  const repo = project('vitest', { 'tests/old.test.ts': OLD_TEST });
  startRed(repo);
  repo.write('tests/add.test.ts', ADD_TEST);
  repo.write('src/add.ts', STUB);
  redToGreen(repo);
  return repo;
}

describe('cheats against a real vitest project in GREEN', () => {
  it('each way around a failing frozen test is refused; the real implementation then goes through', { timeout: 240_000 }, async () => {
    const repo = frozenVitest();
    const refused = (re: RegExp) => expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(re);

    // the source ends the process before vitest reports
    repo.write('src/add.ts', "process.exit(0);\nexport function add(_a: number, _b: number): number { return 0; }\n");
    refused(/not GREEN/);

    // the source reaches into the runner: expect.extend, a vitest import, the VITEST variable
    repo.write('src/add.ts', "import { expect } from 'vitest';\nexpect.extend({ toBe: () => ({ pass: true, message: () => '' }) });\n" + STUB.replace('// STUB:TDD\n', ''));
    refused(/src\/add\.ts:1 imports the test framework/);
    repo.write('src/add.ts', 'export function add(a: number, b: number): number { return process.env.VITEST ? 3 : a + b; }\n');
    refused(/reads the test runner’s environment/);

    repo.write('src/add.ts', STUB);
    // a frozen test replaced by a link to the very same bytes
    repo.write('tests/add.copy.txt', ADD_TEST);
    unlinkSync(repo.path('tests/add.test.ts'));
    symlinkSync('add.copy.txt', repo.path('tests/add.test.ts'));
    refused(/frozen files changed: tests\/add\.test\.ts/);
    unlinkSync(repo.path('tests/add.test.ts'));
    rmSync(repo.path('tests/add.copy.txt'));
    repo.write('tests/add.test.ts', ADD_TEST);

    // a git-ignored runner config written after the freeze, excluding the new test
    repo.write('.gitignore', 'node_modules\nvitest.config.mjs\n');
    repo.write('vitest.config.mjs', "export default { test: { exclude: ['**/add.test.ts', '**/node_modules/**'] } };\n");
    refused(/test files added after the freeze: .*vitest\.config\.mjs/);
    rmSync(repo.path('vitest.config.mjs'));
    // .npmrc node-options
    repo.write('.npmrc', 'node-options=--require ./src/preload.cjs\n');
    refused(/added after the freeze: \.npmrc/);
    rmSync(repo.path('.npmrc'));

    // NODE_OPTIONS from the caller: a preload that ends vitest with exit 0 never reaches the run
    repo.write('tools/preload.cjs', "if (process.argv.some((a) => a.includes('vitest'))) process.exit(0);\n");
    expect(ok(cliEnv(repo, { NODE_OPTIONS: `--require ${repo.path('tools/preload.cjs')}` }, 'verify', 'green'), 1).stderr).toMatch(/not GREEN: 1 of 2 tests fail/);
    rmSync(repo.path('tools/preload.cjs'));

    // a process started from the project that would swap the test while vitest runs
    const watcher = spawn('sh', ['-c', 'sleep 60'], { cwd: repo.root, stdio: 'ignore', detached: true });
    try {
      await new Promise((r) => setTimeout(r, 200));
      refused(new RegExp(`processes started from the project are still running: .*\\b${watcher.pid} sh\\b`));
    } finally {
      process.kill(-watcher.pid!, 'SIGKILL');
    }

    // and with everything put back, the real implementation is GREEN and done
    repo.write('src/add.ts', REAL);
    const g = JSON.parse(ok(cli(repo, 'verify', 'green', '--json')).stdout) as Record<string, unknown>;
    expect(g).toMatchObject({ valid: true, tests: { 'tests/add.test.ts::adds': 'passed', 'tests/old.test.ts::old': 'passed' } });
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });

  it('the tests run from the frozen bytes, read-only: a source that rewrites a test while it runs changes nothing', { timeout: 120_000 }, () => {
    const repo = frozenVitest();
    // at import, try to turn the frozen test into one that passes
    repo.write(
      'src/add.ts',
      "import { writeFileSync } from 'node:fs';\nconst runner = ['vi', 'test'].join('');\ntry { writeFileSync(new URL('../tests/add.test.ts', import.meta.url), `import { test } from '${runner}';\\ntest('adds', () => {});\\n`); } catch {}\ntry { writeFileSync(new URL('../.tdd/stack.json', import.meta.url), '{}'); } catch {}\nexport function add(_a: number, _b: number): number { return 0; }\n",
    );
    const stackBefore = readFileSync(repo.path('.tdd/stack.json'), 'utf8');
    const r = ok(cli(repo, 'verify', 'green'), 1);
    expect(r.stderr).toMatch(/not GREEN: 1 of 2 tests fail|frozen files changed while the tests ran/);
    expect(readState(repo).receipts.green.valid).toBe(false);
    // the gate's own files are out of the tests' reach as well
    expect(readFileSync(repo.path('.tdd/stack.json'), 'utf8')).toBe(stackBefore);
  });
});

describe('a frozen vitest test that skips itself at run time', () => {
  it('a switch in the source that makes the test call context.skip() is refused, naming the skipped test', { timeout: 120_000 }, () => {
    const SKIPPABLE = "import { expect, it } from 'vitest';\nimport * as calc from '../src/calc.js';\nit('adds', (ctx) => { if (!calc.ENABLED) ctx.skip(); expect(calc.add(1, 2)).toBe(3); });\n";
    const CALC_STUB = '// STUB:TDD\nexport const ENABLED = true;\nexport function add(_a: number, _b: number): number { return 0; }\n';
    const repo = project('vitest', { 'tests/old.test.ts': OLD_TEST });
    startRed(repo);
    // written in RED, so the test (switch and all) is frozen
    repo.write('tests/calc.test.ts', SKIPPABLE);
    repo.write('src/calc.ts', CALC_STUB);
    redToGreen(repo);
    // GREEN: turn the switch off instead of implementing add
    repo.write('src/calc.ts', 'export const ENABLED = false;\nexport function add(_a: number, _b: number): number { return 0; }\n');
    expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(/frozen tests were skipped instead of run: tests\/calc\.test\.ts::adds/);
    expect(readState(repo).receipts.green.valid).toBe(false);
    // the real implementation, switch on, goes through
    repo.write('src/calc.ts', 'export const ENABLED = true;\nexport function add(a: number, b: number): number { return a + b; }\n');
    ok(cli(repo, 'verify', 'green'));
  });
});

describe('vitest behind `npm test`', () => {
  it('gets the report flags through npm, so RED and GREEN are judged per test', { timeout: 120_000 }, () => {
    const repo = project('vitest', { 'tests/old.test.ts': OLD_TEST, 'package.json': JSON.stringify({ type: 'module', private: true, scripts: { test: `node ${VITEST} run` } }) }, { test_command: 'npm test --silent' });
    startRed(repo);
    repo.write('tests/add.test.ts', ADD_TEST);
    repo.write('src/add.ts', STUB);
    const red = JSON.parse(ok(cli(repo, 'verify', 'red', '--json')).stdout) as Record<string, unknown>;
    expect(red).toMatchObject({ valid: true, red_tests: ['tests/add.test.ts::adds'] });
  });
});
