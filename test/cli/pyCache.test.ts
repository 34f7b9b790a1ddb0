// Python's bytecode kept between runs (src/verify/oracle/pyCache.ts): only what the CLI compiled
// itself, checked by digest, is ever read again; what a run writes into the folder never is.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openPyCache } from '../../src/verify/oracle/pyCache.js';

const hasPython = spawnSync('python3', ['-c', 'import py_compile'], { encoding: 'utf8' }).status === 0;
const hasPytest = hasPython && spawnSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).status === 0;

function files(dir: string, rel = ''): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? files(dir, `${rel}${d.name}/`) : [`${rel}${d.name}`]));
}

describe.skipIf(!hasPython)('the bytecode cache', () => {
  it('keeps checked-hash bytecode the CLI compiled; drops what a run or anyone else wrote', () => {
    const work = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-pyc-test-')));
    onTestFinished(() => rmSync(work, { recursive: true, force: true }));
    const lib = path.join(work, 'lib');
    mkdirSync(lib);
    writeFileSync(path.join(lib, 'mod.py'), 'X = 1\n');
    const opts = { dir: path.join(work, 'store', 'rw', 'pyc'), manifest: path.join(work, 'store', 'manifest.json'), command: 'python3 -m pytest', root: path.join(work, 'project'), pathEnv: process.env.PATH };
    /** A "run": python importing mod with the cache folder as its prefix; prints X. */
    const run = (dir: string, code = 'import mod; print(mod.X)') => spawnSync('python3', ['-c', code], { env: { PATH: process.env.PATH, PYTHONPATH: lib, PYTHONPYCACHEPREFIX: dir }, encoding: 'utf8' });

    const first = openPyCache(opts);
    expect(run(first.dir).stdout).toBe('1\n');
    first.finish();
    const kept = files(opts.dir).filter((f) => f.includes('mod.'));
    expect(kept).toHaveLength(1);
    const pyc = path.join(opts.dir, kept[0]!);
    // checked-hash (flags 0b11), recorded by digest
    expect(readFileSync(pyc).readUInt32LE(4)).toBe(3);
    expect(Object.keys(JSON.parse(readFileSync(opts.manifest, 'utf8')) as object)).toContain(kept[0]);

    // a run writes its own bytecode for mod (compiled from X = 2) into the folder: never read later
    const second = openPyCache(opts);
    const evil = path.join(work, 'evil');
    mkdirSync(evil);
    writeFileSync(path.join(evil, 'mod.py'), 'X = 2\n');
    const compiled = spawnSync('python3', ['-c', `import py_compile; py_compile.compile(${JSON.stringify(path.join(evil, 'mod.py'))}, cfile=${JSON.stringify(pyc)}, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)`]);
    expect(compiled.status).toBe(0);
    second.finish();
    expect(run(openPyCache(opts).dir).stdout).toBe('1\n');
    expect(readFileSync(pyc).readUInt32LE(4)).toBe(3);

    // the same bytes written between runs (past the hook): dropped before the next run reads them
    spawnSync('python3', ['-c', `import py_compile; py_compile.compile(${JSON.stringify(path.join(evil, 'mod.py'))}, cfile=${JSON.stringify(pyc)}, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)`]);
    const third = openPyCache(opts);
    expect(run(third.dir).stdout).toBe('1\n');
    third.finish();

    // the source changes: Python checks the hash, runs the new bytes; the CLI recompiles it
    writeFileSync(path.join(lib, 'mod.py'), 'X = 3\n');
    const fourth = openPyCache(opts);
    expect(run(fourth.dir).stdout).toBe('3\n');
    fourth.finish();
    expect(run(openPyCache(opts).dir).stdout).toBe('3\n');
  });

  it('keeps no bytecode of the project’s own sources', () => {
    const work = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-pyc-test-')));
    onTestFinished(() => rmSync(work, { recursive: true, force: true }));
    const root = path.join(work, 'project');
    mkdirSync(path.join(root, 'src'), { recursive: true });
    writeFileSync(path.join(root, 'src', 'calc.py'), 'Y = 1\n');
    const opts = { dir: path.join(work, 'rw'), manifest: path.join(work, 'm.json'), command: 'python3 -m pytest', root, pathEnv: process.env.PATH, skipUnder: [root] };
    const c = openPyCache(opts);
    spawnSync('python3', ['-c', 'import calc'], { env: { PATH: process.env.PATH, PYTHONPATH: path.join(root, 'src'), PYTHONPYCACHEPREFIX: c.dir } });
    c.finish();
    expect(files(opts.dir).filter((f) => f.includes('calc.'))).toEqual([]);
  });

  it.skipIf(!hasPytest)('keeps the assertion-rewritten bytecode of a plugin package, so the next run does not rewrite it again', () => {
    const work = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-pyc-test-')));
    onTestFinished(() => rmSync(work, { recursive: true, force: true }));
    // a plugin package none of whose modules is compiled plainly: only its rewritten bytecode lands in its folder
    const lib = path.join(work, 'lib');
    mkdirSync(path.join(lib, 'plug'), { recursive: true });
    writeFileSync(path.join(lib, 'plug', '__init__.py'), 'from plug.core import pytest_configure\n');
    writeFileSync(path.join(lib, 'plug', 'core.py'), 'def pytest_configure(config):\n    assert config is not None\n');
    const root = path.join(work, 'project');
    mkdirSync(root);
    writeFileSync(path.join(root, 'test_x.py'), 'def test_x():\n    assert 1\n');
    const opts = { dir: path.join(work, 'rw'), manifest: path.join(work, 'm.json'), command: 'python3 -m pytest', root, pathEnv: process.env.PATH, skipUnder: [root] };
    const pytest = (dir: string) => spawnSync('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-p', 'plug'], { cwd: root, env: { PATH: process.env.PATH, HOME: process.env.HOME, PYTHONPATH: lib, PYTHONPYCACHEPREFIX: dir }, encoding: 'utf8' });
    const rewritten = (dir: string) => files(dir).filter((f) => /plug\/core\.[^/]*-pytest-[^/]*\.pyc$/.test(f));

    const first = openPyCache(opts);
    expect(pytest(first.dir).status).toBe(0);
    expect(rewritten(opts.dir)).toHaveLength(1);
    first.finish();
    const kept = rewritten(opts.dir);
    expect(kept).toHaveLength(1);
    expect(Object.keys(JSON.parse(readFileSync(opts.manifest, 'utf8')) as object)).toContain(kept[0]);
    const bytes = readFileSync(path.join(opts.dir, kept[0]!));

    // the next run reads the kept file as it is (pytest would rewrite a stale one in place)
    const second = openPyCache(opts);
    expect(pytest(second.dir).status).toBe(0);
    expect(readFileSync(path.join(opts.dir, kept[0]!)).equals(bytes)).toBe(true);
    second.finish();
    expect(rewritten(opts.dir)).toEqual(kept);
  });

  it('does not start an interpreter at every run for a module it cannot compile, until its source changes', () => {
    const work = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-pyc-test-')));
    onTestFinished(() => rmSync(work, { recursive: true, force: true }));
    const lib = path.join(work, 'lib');
    mkdirSync(lib);
    writeFileSync(path.join(lib, 'plug.py'), 'X = 1\n');
    // python3 on PATH logs each start, then runs the real one
    const bin = path.join(work, 'bin');
    mkdirSync(bin);
    const real = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout.trim();
    const log = path.join(work, 'starts.log');
    writeFileSync(path.join(bin, 'python3'), `#!/bin/sh\necho start >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
    const starts = () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
    const opts = { dir: path.join(work, 'rw'), manifest: path.join(work, 'm.json'), command: 'python3 -m pytest', root: path.join(work, 'project'), pathEnv: `${bin}:${process.env.PATH ?? ''}` };
    // a run's rewritten module under a pytest the CLI's interpreter does not have
    const runWrites = (dir: string) => {
      const target = path.join(dir, lib.slice(1), 'plug.cpython-99-pytest-0.0.0.pyc');
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, 'not bytecode');
    };
    writeFileSync(log, '');
    const first = openPyCache(opts);
    runWrites(first.dir);
    first.finish();
    expect(starts()).toBeGreaterThan(0);
    expect(files(opts.dir).filter((f) => f.includes('plug.'))).toEqual([]);

    writeFileSync(log, '');
    const second = openPyCache(opts);
    runWrites(second.dir);
    second.finish();
    expect(starts()).toBe(0);
    expect(files(opts.dir).filter((f) => f.includes('plug.'))).toEqual([]);

    // the source changed: tried again
    writeFileSync(path.join(lib, 'plug.py'), 'X = 2\n');
    const third = openPyCache(opts);
    runWrites(third.dir);
    third.finish();
    expect(starts()).toBeGreaterThan(0);
  });
});
