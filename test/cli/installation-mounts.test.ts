import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { namespaceWorks } from '../../src/verify/oracle/isolate.js';
import { testRepo, type TestRepo } from '../helpers/repo.js';
import { cli, cliEnv, NODE_MODULES, NODE_TEST_STACK, ok, PYTEST_STACK, readState, redToGreen, startRed, VITEST_STACK } from './fixtures.js';

// The oracle runs the runner from what was frozen (docs/evidence.md, "What the oracle mounts"):
// in its namespace every root of the recorded installation is read-only for the run, so a source
// that rewrites the runner or its assertion package as it loads fails (EROFS) and changes nothing;
// in the private copy (no namespace) the same write is found after the run and refused, naming the
// package; a change made between the freeze and the verify is refused naming the package and the
// file, with what to do. A genuine cycle reaches done either way.

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * The project's own node_modules: hard links to the shared one (fast), except the packages the
 * test lets code write into and those holding files over 8 MB, which are real copies. (A write
 * through a hard link would reach the shared folder; a file that large is known by its identity,
 * change time included, which every hard link made or removed moves: other tests linking the
 * shared folder meanwhile would change it under this one's freeze.) Packages not needed here
 * (the coding agents' own binaries) are left out.
 */
function ownModules(repo: TestRepo, written: readonly string[]): void {
  const big = execFileSync('find', [NODE_MODULES, '-type', 'f', '-size', '+8M'], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((f) => {
      const rel = path.relative(NODE_MODULES, f).split(path.sep);
      return rel[0]!.startsWith('@') ? `${rel[0]}/${rel[1]}` : rel[0]!;
    });
  const copied = new Set([...big, ...written]);
  const dest = repo.path('node_modules');
  const linked: string[] = [];
  const copies: [string, string][] = [];
  const place = (rel: string) => {
    if (rel.startsWith('@anthropic-ai/')) return;
    if (copied.has(rel)) copies.push([path.join(NODE_MODULES, rel), path.join(dest, rel)]);
    else linked.push(rel);
  };
  for (const name of readdirSync(NODE_MODULES)) {
    if (name.startsWith('@')) for (const sub of readdirSync(path.join(NODE_MODULES, name))) place(`${name}/${sub}`);
    else place(name);
  }
  // one cp per folder the links go into
  const byParent = new Map<string, string[]>();
  for (const rel of linked) byParent.set(path.dirname(rel), [...(byParent.get(path.dirname(rel)) ?? []), path.join(NODE_MODULES, rel)]);
  for (const [parent, sources] of byParent) {
    mkdirSync(path.join(dest, parent), { recursive: true });
    execFileSync('cp', ['-al', ...sources, path.join(dest, parent)]);
  }
  for (const [from, to] of copies) {
    mkdirSync(path.dirname(to), { recursive: true });
    execFileSync('cp', ['-r', from, to]);
  }
}

/** `verify green`: its exit status, and what it said with the run's log it points to. */
function verifyGreen(repo: TestRepo): { status: number | null; text: string } {
  const r = cli(repo, 'verify', 'green');
  const said = `${r.stdout}\n${r.stderr}`;
  const log = /\(log: ([^)]+\.log)\)/.exec(said)?.[1];
  return { status: r.status, text: log !== undefined && existsSync(repo.path(log)) ? `${said}\n${readFileSync(repo.path(log), 'utf8')}` : said };
}

function toDone(repo: TestRepo, oracle: 'namespace' | 'copy'): void {
  ok(cli(repo, 'verify', 'green'));
  ok(cli(repo, 'done'));
  const state = readState(repo) as unknown as { phase: string; receipts?: Record<string, { oracle?: string }> };
  expect(state.phase).toBe('done');
  expect(state.receipts?.green?.oracle).toBe(oracle);
}

const CHANGED = /the test runner's installation changed since the freeze: .*reinstall the frozen versions/s;

/** A vitest project frozen at RED; `isolation` picks the oracle's mode. */
function vitestAtGreen(isolation: 'namespace' | 'copy'): { repo: TestRepo; target: string } {
  const repo = testRepo({
    stack: { ...VITEST_STACK, test_command: 'node node_modules/vitest/vitest.mjs run', oracle_isolation: isolation },
    files: { '.gitignore': 'node_modules\n', 'package.json': '{"type":"module","private":true}\n' },
  });
  ownModules(repo, ['@vitest/expect']);
  startRed(repo);
  repo.write('tests/add.test.ts', "import { expect, it } from 'vitest';\nimport { add } from '../src/add';\nit('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n");
  repo.write('src/add.ts', '// STUB:TDD\nexport function add(_a: number, _b: number): number { return 0; }\n');
  redToGreen(repo);
  const dist = repo.path('node_modules/@vitest/expect/dist');
  const file = readdirSync(dist).find((f) => f === 'index.js') ?? readdirSync(dist).find((f) => f.endsWith('.js'))!;
  return { repo, target: path.join(dist, file) };
}

/** A source, right in everything else, that appends to `target` as it loads. */
const writerTs = (target: string) =>
  `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(target)}, '\\n// every expect passes\\n');\nexport function add(a: number, b: number): number { return a + b; }\n`;

describe.skipIf(process.platform !== 'linux' || !namespaceWorks())('the oracle namespace: the runner installation read-only for the run', () => {
  it('vitest: a source that rewrites @vitest/expect as it loads fails with EROFS, the file stays as frozen and the run is refused; a change after the freeze is refused by name; a genuine cycle reaches done', { timeout: 240_000 }, () => {
    const { repo, target } = vitestAtGreen('namespace');
    const before = sha(target);
    repo.write('src/add.ts', writerTs(target));
    const r = verifyGreen(repo);
    expect(r.status).toBe(1);
    expect(r.text).toMatch(/EROFS|read-only file system/i);
    expect(sha(target)).toBe(before);

    // changed between the freeze and the verify (a write the hook did not see): named, with what to do
    const saved = readFileSync(target);
    writeFileSync(`${target}.tmp`, `${saved.toString('utf8')}\n// patched\n`);
    renameSync(`${target}.tmp`, target);
    repo.write('src/add.ts', 'export function add(a: number, b: number): number { return a + b; }\n');
    const changed = verifyGreen(repo);
    expect(changed.status).toBe(1);
    expect(changed.text).toMatch(CHANGED);
    expect(changed.text).toMatch(/@vitest\/expect \(node_modules\/@vitest\/expect\): dist\/[\w.-]+\.js changed/);
    expect(changed.text).toMatch(/npm ci/);
    writeFileSync(`${target}.tmp`, saved);
    renameSync(`${target}.tmp`, target);

    toDone(repo, 'namespace');
  });

  it('vitest: where a root of the installation cannot be mounted read-only, nothing runs and the refusal says so; where it can, a genuine cycle reaches done', { timeout: 240_000 }, () => {
    const { repo } = vitestAtGreen('namespace');
    repo.write('src/add.ts', 'export function add(a: number, b: number): number { return a + b; }\n');
    // a mount program that reads no table and cannot mount @vitest/expect
    const bin = mkdtempSync(path.join(tmpdir(), 'tdd-gate-mount-shim-'));
    onTestFinished(() => rmSync(bin, { recursive: true, force: true }));
    const real = execFileSync('sh', ['-c', 'command -v mount'], { encoding: 'utf8' }).trim();
    writeFileSync(
      path.join(bin, 'mount'),
      `#!/bin/sh\ncase "$1" in -a) exit 1;; esac\nfor a in "$@"; do case $a in */@vitest/expect) echo "mount: $a: permission denied" >&2; exit 32;; esac; done\nexec ${real} "$@"\n`,
      { mode: 0o755 },
    );
    const r = cliEnv(repo, { PATH: `${bin}:${process.env.PATH ?? ''}` }, 'verify', 'green');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/the runner's installation could not be mounted read-only: .*@vitest\/expect: permission denied.*Stop and tell the user/s);
    const state = readState(repo) as unknown as { receipts?: Record<string, unknown> };
    expect(state.receipts?.green).toBeUndefined();
    toDone(repo, 'namespace');
  });

  it('node:test: a source that rewrites chai as it loads fails with EROFS and the run is refused; a genuine cycle reaches done', { timeout: 240_000 }, () => {
    const repo = testRepo({
      stack: { ...NODE_TEST_STACK, oracle_isolation: 'namespace' },
      files: { '.gitignore': 'node_modules\n', 'package.json': '{"type":"module","private":true,"devDependencies":{"chai":"*"}}\n' },
    });
    ownModules(repo, ['chai']);
    startRed(repo);
    repo.write('test/add.test.js', "import { test } from 'node:test';\nimport { expect } from 'chai';\nimport { add } from '../src/add.js';\ntest('adds', () => {\n  expect(add(1, 2)).to.equal(3);\n});\n");
    repo.write('src/add.js', '// STUB:TDD\nexport function add() { return 0; }\n');
    redToGreen(repo);
    const chai = repo.path('node_modules/chai/index.js');
    const before = sha(chai);
    repo.write('src/add.js', `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(chai)}, 'export * from "./lib/chai.js";\\n// equal is always true\\n');\nexport function add(a, b) { return a + b; }\n`);
    const r = verifyGreen(repo);
    expect(r.status).toBe(1);
    expect(r.text).toMatch(/EROFS|read-only file system/i);
    expect(sha(chai)).toBe(before);
    repo.write('src/add.js', 'export function add(a, b) { return a + b; }\n');
    toDone(repo, 'namespace');
  });

  it('pytest: a source that rewrites pytest\'s own assertion module as it is imported fails with EROFS and the run is refused; a change after the freeze names the package; a genuine cycle reaches done', { timeout: 240_000 }, () => {
    const repo = testRepo({ stack: { ...PYTEST_STACK, test_command: '.venv/bin/python -m pytest -q -p no:cacheprovider', oracle_isolation: 'namespace' }, files: { '.gitignore': '.venv\n' } });
    execFileSync('python3', ['-m', 'venv', '--without-pip', '--system-site-packages', repo.path('.venv')]);
    const lib = readdirSync(repo.path('.venv/lib')).find((n) => n.startsWith('python')) ?? 'python3';
    const site = repo.path(`.venv/lib/${lib}/site-packages`);
    // pytest itself in the virtualenv's own site folder (first on the path): the test writes only there.
    const base = execFileSync('python3', ['-c', 'import os, pytest; print(os.path.dirname(os.path.dirname(pytest.__file__)))'], { encoding: 'utf8' }).trim();
    const info = readdirSync(base).find((n) => /^pytest-[0-9].*\.dist-info$/.test(n))!;
    for (const n of ['pytest', '_pytest', info]) execFileSync('cp', ['-r', path.join(base, n), path.join(site, n)]);
    startRed(repo);
    repo.write('tests/test_add.py', 'from src.add import add\n\ndef test_adds():\n    assert add(1, 2) == 3\n');
    repo.write('src/__init__.py', '');
    repo.write('src/add.py', '# STUB:TDD\ndef add(a, b):\n    return 0\n');
    redToGreen(repo);
    const state = readState(repo) as unknown as { runner_installation?: { packages: Record<string, { name: string }> } };
    const roots = Object.entries(state.runner_installation?.packages ?? {}).filter(([, p]) => p.name === 'pytest').map(([root]) => root);
    expect(roots).toEqual([path.join(site, info)]);
    const target = path.join(site, '_pytest', 'assertion', 'rewrite.py');
    const before = sha(target);
    repo.write('src/add.py', `import _pytest.assertion.rewrite as r\nwith open(r.__file__, "a") as f:\n    f.write("\\n# every assert passes\\n")\n\ndef add(a, b):\n    return a + b\n`);
    const r = verifyGreen(repo);
    expect(r.status).toBe(1);
    expect(r.text).toMatch(/Read-only file system|EROFS/);
    expect(sha(target)).toBe(before);

    // changed between the freeze and the verify: the package and the file named
    const saved = readFileSync(target);
    writeFileSync(`${target}.tmp`, `${saved.toString('utf8')}\n# patched\n`);
    renameSync(`${target}.tmp`, target);
    repo.write('src/add.py', 'def add(a, b):\n    return a + b\n');
    const changed = verifyGreen(repo);
    expect(changed.status).toBe(1);
    expect(changed.text).toMatch(CHANGED);
    expect(changed.text).toMatch(/pytest \(.*pytest-[0-9][^)]*\.dist-info\): _pytest\/assertion\/rewrite\.py changed/);
    writeFileSync(`${target}.tmp`, saved);
    renameSync(`${target}.tmp`, target);

    toDone(repo, 'namespace');
    expect(existsSync(repo.path('.tdd/snapshots/runner-installation.json'))).toBe(true);
  });
});

describe('the oracle in a private copy: the installation stays writable, a write during the run is found after it', () => {
  it('vitest: a source that rewrites @vitest/expect as it loads is refused after the run, naming the package and what to do; one that puts a runner into .bin is refused as it appeared; a genuine cycle reaches done', { timeout: 240_000 }, () => {
    const { repo, target } = vitestAtGreen('copy');
    const saved = readFileSync(target);
    repo.write('src/add.ts', writerTs(target));
    const r = verifyGreen(repo);
    expect(r.status).toBe(1);
    expect(r.text).toMatch(/the test runner's installation was written while the tests ran \(node_modules\/@vitest\/expect\/dist\/[\w.-]+\.js of @vitest\/expect \(node_modules\/@vitest\/expect\)/);
    expect(r.text).toMatch(/npm ci/);
    expect(sha(target)).not.toBe(createHash('sha256').update(saved).digest('hex'));
    writeFileSync(target, saved);
    // a runner program put into .bin during the run, where the freeze saw none
    const bin = repo.path('node_modules/.bin/mocha');
    repo.write('src/add.ts', `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(bin)}, '#!/bin/sh\\necho "64 passing"\\n', { mode: 0o755 });\nexport function add(a: number, b: number): number { return a + b; }\n`);
    const added = verifyGreen(repo);
    expect(added.status).toBe(1);
    expect(added.text).toMatch(/the test runner's installation was written while the tests ran \(node_modules\/\.bin\/mocha appeared\)/);
    rmSync(bin);
    repo.write('src/add.ts', 'export function add(a: number, b: number): number { return a + b; }\n');
    toDone(repo, 'copy');
  });
});
