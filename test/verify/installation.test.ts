import { chmodSync, closeSync, linkSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Toolchain } from '../../src/verify/rules/toolchain.js';
import { scanInstallation, statMoves } from '../../src/verify/installation.js';
import {
  distOfInfoDir,
  installationMoves,
  installationRecord,
  nodeCandidates,
  nodePackageRoot,
  nodeStarts,
  pytestPlugins,
  recordFiles,
  requiresDist,
  runnerInstallationRoots,
  runnerKinds,
  topLevelNames,
} from '../../src/verify/rules/installation.js';

describe('installation rules', () => {
  it.each([
    ['/p/app', 'expect', ['/p/app/node_modules/expect', '/p/node_modules/expect', '/node_modules/expect']],
    ['/p/node_modules/jest-circus', 'expect', ['/p/node_modules/jest-circus/node_modules/expect', '/p/node_modules/expect', '/node_modules/expect']],
  ])('node resolves %s → %s from the nearest node_modules up', (dir, name, want) => {
    expect(nodeCandidates(dir, name)).toEqual(want);
  });

  it.each([
    ['/p/node_modules/expect/build/index.js', '/p/node_modules/expect'],
    ['/p/node_modules/@vitest/expect/dist/index.js', '/p/node_modules/@vitest/expect'],
    ['/p/node_modules/a/node_modules/b/x.js', '/p/node_modules/a/node_modules/b'],
    ['/p/node_modules/.bin/vitest', null],
    ['/p/src/x.js', null],
  ])('the package of %s is %s', (p, want) => {
    expect(nodePackageRoot(p)).toBe(want);
  });

  it.each([
    ['node node_modules/vitest/vitest.mjs run', [], ['vitest']],
    ['npx jest --ci', ['chai', 'lodash'], ['jest', 'chai']],
    ['node --test', ['chai'], ['chai']],
    ['node --require ts-node/register node_modules/.bin/mocha', [], ['mocha', 'ts-node']],
    ['npm test', [], ['vitest', 'jest', 'mocha', 'ava', 'tap', 'uvu']],
  ])('the closure of `%s` (deps %j) starts at %j', (cmd, deps, want) => {
    expect(nodeStarts(cmd, deps)).toEqual(want);
  });

  it.each([
    ['python3 -m pytest -q', { python: true, go: false, cargo: false }],
    ['.venv/bin/pytest', { python: true }],
    ['go test ./...', { go: true, python: false }],
    ['cargo test --offline', { cargo: true }],
    ['node --test', { node: true, nodeTest: true }],
  ])('runner kinds of `%s`', (cmd, want) => {
    expect(runnerKinds(cmd)).toMatchObject(want);
  });

  it('reads pytest11 plugins, requirements without extras, RECORD files and top-level names', () => {
    expect(pytestPlugins('[console_scripts]\nx = a:b\n[pytest11]\nbenchmark = pytest_benchmark.plugin\nhyp = _hypothesis_pytestplugin:x\n')).toEqual(['pytest_benchmark.plugin', '_hypothesis_pytestplugin']);
    expect(requiresDist('Name: pytest\nRequires-Dist: iniconfig\nRequires-Dist: pluggy<2,>=1.5\nRequires-Dist: exceptiongroup>=1; python_version < "3.11"\nRequires-Dist: xmlschema; extra == "dev"\n\nRequires-Dist: body\n')).toEqual(['exceptiongroup', 'iniconfig', 'pluggy']);
    expect(recordFiles('_pytest/x.py,sha256=a,1\n_pytest/__pycache__/x.cpython-311.pyc,,\n"odd,name.py",,\n../../../bin/pytest,,\n')).toEqual(['_pytest/x.py', 'odd,name.py', '../../../bin/pytest']);
    expect(topLevelNames(['_pytest/x.py', 'py.py', 'pytest-8.dist-info/RECORD', '../../../bin/pytest', 'pytest/__init__.py'])).toEqual(['_pytest', 'py', 'pytest']);
    expect(distOfInfoDir('pytest_asyncio-0.23.1.dist-info')).toBe('pytest-asyncio');
  });

  it('names what moved: a changed, added or removed file, a re-resolved package, a new one, a path that appeared', () => {
    const frozenFiles = { '/m/expect': { 'a.js': '1', 'b.js': '2' }, '/m/jest': { 'x.js': '1' } };
    const frozen = installationRecord(frozenFiles, { '/m/expect': 'expect', '/m/jest': 'jest' }, ['/m/.bin/mocha']);
    const show = (a: string) => a.replace('/m/', 'node_modules/');
    expect(installationMoves(frozen, frozen, frozenFiles, frozenFiles, show)).toEqual([]);
    const nowFiles = { '/m/expect': { 'a.js': 'X', 'c.js': '3' }, '/m/sub/jest': { 'x.js': '1' }, '/m/plugin': { 'p.js': '1' } };
    const now = installationRecord(nowFiles, { '/m/expect': 'expect', '/m/sub/jest': 'jest', '/m/plugin': 'evil' }, []);
    expect(installationMoves(frozen, now, frozenFiles, nowFiles, show, (a) => a === '/m/.bin/mocha')).toEqual([
      'expect (node_modules/expect): a.js changed; c.js added; b.js removed',
      'jest now resolves to node_modules/sub/jest, was node_modules/jest',
      'evil (node_modules/plugin) joined it (not there at the freeze)',
      'node_modules/.bin/mocha appeared (it was not there at the freeze)',
    ]);
    // without the frozen manifest the package is still named
    expect(installationMoves(frozen, now, null, nowFiles, show)[0]).toBe('expect (node_modules/expect): its files changed');
    expect(runnerInstallationRoots({ runner_installation: { ...frozen, covers: ['/m/site/_pytest'] } })).toEqual(['/m/.bin/mocha', '/m/expect', '/m/jest', '/m/site/_pytest']);
    expect(runnerInstallationRoots({})).toEqual([]);
  });
});

describe('installation scan (go, cargo) on a toolchain of its own', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const tmp = () => {
    const d = mkdtempSync(path.join(tmpdir(), 'tdd-gate-install-'));
    dirs.push(d);
    return d;
  };
  const tool = (name: string, abs: string): Toolchain => ({ programs: [{ name, found: abs, real: abs, id: 'x' }], vars: {}, hooks: {} });

  it("go: the testing package, the build tools and the go binary; a sed -i on testing is named; a write during a run shows in the stats", () => {
    const d = tmp();
    const goroot = path.join(d, 'go');
    for (const p of ['bin', 'src/testing', 'src/internal/testlog', 'pkg/tool/linux_amd64']) mkdirSync(path.join(goroot, p), { recursive: true });
    writeFileSync(path.join(goroot, 'bin/go'), '#!/bin/sh\n');
    chmodSync(path.join(goroot, 'bin/go'), 0o755);
    writeFileSync(path.join(goroot, 'src/testing/testing.go'), 'package testing\n');
    writeFileSync(path.join(goroot, 'src/internal/testlog/log.go'), 'package testlog\n');
    writeFileSync(path.join(goroot, 'pkg/tool/linux_amd64/test2json'), 'bin\n');
    const input = { root: d, commandText: 'go test ./...', env: {}, toolchain: tool('go', path.join(goroot, 'bin/go')), cacheFile: path.join(d, 'cache.json') };
    const first = scanInstallation(input);
    expect(Object.values(first.record.packages).map((p) => p.name).sort()).toEqual(['go build tools (compile, link, vet, test2json)', 'go internal/testlog', 'go testing', 'the go command']);
    expect(statMoves(first)).toEqual([]);
    // a hard link made elsewhere moves the change time alone: the bytes are the frozen ones
    linkSync(path.join(goroot, 'src/testing/testing.go'), path.join(d, 'elsewhere.go'));
    expect(statMoves(first)).toEqual([]);
    // written in place: moved
    writeFileSync(path.join(goroot, 'src/internal/testlog/log.go'), 'package testlog\n// patched\n');
    expect(statMoves(first)).toEqual([path.join(goroot, 'src/internal/testlog/log.go')]);
    writeFileSync(path.join(goroot, 'src/internal/testlog/log.go'), 'package testlog\n');
    writeFileSync(path.join(goroot, 'src/testing/testing.go.tmp'), 'package testing\n// every test passes\n');
    renameSync(path.join(goroot, 'src/testing/testing.go.tmp'), path.join(goroot, 'src/testing/testing.go'));
    expect(statMoves(first)).toContain(path.join(goroot, 'src/testing/testing.go'));
    const second = scanInstallation(input);
    expect(installationMoves(first.record, second.record, first.manifest, second.manifest)).toEqual([`go testing (${path.join(goroot, 'src/testing')}): testing.go changed`]);
  });

  it('a large file is known by its identity: a hard link made elsewhere (the change time alone) keeps it, other bytes put in place with the old time do not', () => {
    const d = tmp();
    const goroot = path.join(d, 'go');
    for (const p of ['bin', 'src/testing', 'pkg/tool/linux_amd64']) mkdirSync(path.join(goroot, p), { recursive: true });
    writeFileSync(path.join(goroot, 'bin/go'), '#!/bin/sh\n');
    writeFileSync(path.join(goroot, 'src/testing/testing.go'), 'package testing\n');
    const compile = path.join(goroot, 'pkg/tool/linux_amd64/compile');
    writeFileSync(compile, Buffer.alloc(9 * 1024 * 1024, 1));
    const input = { root: d, commandText: 'go test ./...', env: {}, toolchain: tool('go', path.join(goroot, 'bin/go')), cacheFile: path.join(d, 'cache.json') };
    const first = scanInstallation(input);
    const id = Object.values(first.manifest).find((f) => 'linux_amd64/compile' in f)?.['linux_amd64/compile'];
    expect(id).toMatch(/^id:/);
    linkSync(compile, path.join(d, 'elsewhere'));
    const second = scanInstallation(input);
    expect(installationMoves(first.record, second.record, first.manifest, second.manifest)).toEqual([]);
    // during a run too: a hard link made elsewhere is not a write
    linkSync(compile, path.join(d, 'elsewhere2'));
    expect(statMoves(second)).toEqual([]);
    // the same size, other bytes, the modification time put back
    const { atime, mtime } = statSync(compile);
    const fd = openSync(compile, 'r+');
    writeSync(fd, Buffer.from([2]), 0, 1, 4096);
    closeSync(fd);
    utimesSync(compile, atime, mtime);
    expect(statMoves(second)).toEqual([compile]);
    const third = scanInstallation(input);
    expect(installationMoves(first.record, third.record, first.manifest, third.manifest)).toEqual([`go build tools (compile, link, vet, test2json) (${path.join(goroot, 'pkg/tool')}): linux_amd64/compile changed`]);
  });

  it('cargo: the sysroot rustc reports, its cargo and rustc, the libraries with libtest; a swapped libtest is named', () => {
    const d = tmp();
    const sysroot = path.join(d, 'toolchains', 'stable');
    const lib = path.join(sysroot, 'lib/rustlib/x86_64-unknown-linux-gnu/lib');
    mkdirSync(lib, { recursive: true });
    mkdirSync(path.join(sysroot, 'bin'));
    for (const b of ['cargo', 'rustc']) writeFileSync(path.join(sysroot, 'bin', b), `${b}\n`);
    writeFileSync(path.join(lib, 'libtest-abc.rlib'), 'harness\n');
    writeFileSync(path.join(lib, 'libstd-abc.rlib'), 'std\n');
    const bin = path.join(d, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'rustc'), `#!/bin/sh\necho ${sysroot}\n`, { mode: 0o755 });
    const input = { root: d, commandText: 'cargo test', env: { PATH: `${bin}:/usr/bin:/bin` }, toolchain: tool('cargo', path.join(sysroot, 'bin/cargo')), cacheFile: path.join(d, 'cache.json') };
    const first = scanInstallation(input);
    expect(Object.values(first.record.packages).map((p) => p.name).sort()).toEqual(['cargo (stable)', 'rust standard library and test harness (x86_64-unknown-linux-gnu)', 'rustc (stable)']);
    writeFileSync(path.join(lib, 'libtest-abc.rlib'), 'a harness that passes everything\n');
    const second = scanInstallation(input);
    expect(installationMoves(first.record, second.record, first.manifest, second.manifest)).toEqual([`rust standard library and test harness (x86_64-unknown-linux-gnu) (${lib}): libtest-abc.rlib changed`]);
  });
});
