import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, linkSync, symlinkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { namespacePlan, scanInstallation, type NamespacePlan } from '../../../src/verify/installation.js';
import { INSTALLATION_MISMATCH_EXIT, namespaceWorks, prepareNamespace } from '../../../src/verify/oracle/isolate.js';
import type { Toolchain } from '../../../src/verify/rules/toolchain.js';

// The oracle's namespace holds the runner's installation still (src/verify/oracle/isolate.ts with
// namespacePlan): its roots read-only, the folders above them pinned, and the command runs only
// when a listing through the mounts is the one the scan hashed. Run here on a Go toolchain of
// the test's own (a folder whose name has a space, as fstab has to spell it).

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function goToolchain(): { d: string; goroot: string; project: string; scan: () => ReturnType<typeof scanInstallation> } {
  const d = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-mounts-')));
  dirs.push(d);
  const goroot = path.join(d, 'go root');
  for (const p of ['bin', 'src/testing', 'src/internal/testlog', 'pkg/tool/linux_amd64']) mkdirSync(path.join(goroot, p), { recursive: true });
  writeFileSync(path.join(goroot, 'bin/go'), '#!/bin/sh\n');
  chmodSync(path.join(goroot, 'bin/go'), 0o755);
  writeFileSync(path.join(goroot, 'src/testing/testing.go'), 'package testing\n');
  writeFileSync(path.join(goroot, 'src/internal/testlog/log.go'), 'package testlog\n');
  writeFileSync(path.join(goroot, 'pkg/tool/linux_amd64/test2json'), 'bin\n');
  const project = path.join(d, 'project');
  mkdirSync(project);
  const toolchain: Toolchain = { programs: [{ name: 'go', found: path.join(goroot, 'bin/go'), real: path.join(goroot, 'bin/go'), id: 'x' }], vars: {}, hooks: {} };
  return { d, goroot, project, scan: () => scanInstallation({ root: project, commandText: 'go test ./...', env: {}, toolchain, cacheFile: path.join(d, 'cache.json') }) };
}

function planOf(scan: ReturnType<typeof scanInstallation>): NamespacePlan {
  const plan = namespacePlan(scan);
  if (typeof plan === 'string') throw new Error(plan);
  return plan;
}

/** The command run as the oracle runs it: in the namespace, over the project, with the installation's plan. */
function runIn(project: string, plan: NamespacePlan, command: string, env: NodeJS.ProcessEnv = process.env): { status: number | null; output: string } {
  const prepared = prepareNamespace(project, {}, null, plan);
  try {
    const w = prepared.wrap!(command);
    const r = spawnSync(w.file, w.args, { input: w.input, encoding: 'utf8', cwd: project, timeout: 30_000, env });
    return { status: r.status, output: `${r.stdout}${r.stderr}` };
  } finally {
    prepared.cleanup();
  }
}

describe('the installation plan', () => {
  it('mounts each root read-only once (a folder, a single program), pins every folder above them, lists what the scan listed', () => {
    const { goroot, scan } = goToolchain();
    const plan = planOf(scan());
    expect(plan.readOnly).toEqual([path.join(goroot, 'bin/go'), path.join(goroot, 'pkg/tool'), path.join(goroot, 'src/internal/testlog'), path.join(goroot, 'src/testing')].sort());
    const lines = plan.fstab.trim().split('\n');
    const pins = lines.filter((l) => l.endsWith(' none rbind 0 0')).map((l) => l.split(' ')[0]!.replace(/\\040/g, ' '));
    expect(pins).toEqual(expect.arrayContaining([goroot, path.join(goroot, 'src'), path.join(goroot, 'src/internal'), path.join(goroot, 'bin'), path.dirname(goroot)]));
    expect(pins).not.toContain('/');
    // outermost first, so a pin never covers a read-only mount made before it
    const depths = pins.map((p) => p.split('/').length);
    expect(depths).toEqual([...depths].sort((a, b) => a - b));
    expect(lines.filter((l) => l.endsWith(' none bind,ro 0 0'))).toHaveLength(4);
    expect(plan.fstab).toContain('go\\040root');
    expect(plan.fstab).not.toContain('go root');
    expect(plan.listScript).toContain("'-printf'");
    expect(plan.listSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('node: each package folder of the closure once (a nested node_modules rides with its package), the .bin folder that holds a runner program or must keep one out', () => {
    const d = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-mounts-')));
    dirs.push(d);
    const nm = path.join(d, 'node_modules');
    const pkg = (dir: string, json: object) => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify(json));
      writeFileSync(path.join(dir, 'index.js'), 'module.exports = 1;\n');
    };
    pkg(path.join(nm, 'vitest'), { name: 'vitest', dependencies: { '@vitest/expect': '*', tinyrainbow: '*' } });
    pkg(path.join(nm, '@vitest/expect'), { name: '@vitest/expect' });
    pkg(path.join(nm, 'vitest/node_modules/tinyrainbow'), { name: 'tinyrainbow' });
    pkg(path.join(nm, 'left-pad'), { name: 'left-pad' });
    mkdirSync(path.join(nm, '.bin'));
    symlinkSync('../vitest/index.js', path.join(nm, '.bin/vitest'));
    writeFileSync(path.join(d, 'package.json'), '{"devDependencies":{"vitest":"*"}}');
    const scan = scanInstallation({ root: d, commandText: 'vitest run', env: {}, toolchain: null, cacheFile: null });
    const plan = planOf(scan);
    expect(plan.readOnly).toEqual([path.join(nm, '.bin'), path.join(nm, '@vitest/expect'), path.join(nm, 'vitest')]);
    expect(plan.pins).toEqual(expect.arrayContaining([d, nm, path.join(nm, '@vitest')]));
    expect(plan.pins).not.toContain(path.join(nm, 'left-pad'));
    expect(plan.pins.every((p) => !p.startsWith(path.join(nm, 'vitest')))).toBe(true);
  });
});

describe.skipIf(process.platform !== 'linux' || !namespaceWorks())('the installation in the oracle namespace', () => {
  /** A mount program that reads no table (BusyBox's): `mount -a` fails, every other call is the real one. */
  const noTable = (d: string): NodeJS.ProcessEnv => {
    const bin = path.join(d, 'shim');
    mkdirSync(bin);
    const real = spawnSync('sh', ['-c', 'command -v mount'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(path.join(bin, 'mount'), `#!/bin/sh\ncase "$1" in -a) echo "mount: -a: unknown option" >&2; exit 1;; esac\nexec ${real} "$@"\n`, { mode: 0o755 });
    return { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
  };

  it.each([
    ['one mount -a from the table', false],
    ['a mount program per path, where mount reads no table', true],
  ])('%s: a write into a root fails (EROFS); a pinned folder above it cannot be moved aside (EBUSY); writing beside the roots stays possible', (_label, busybox) => {
    const { d, goroot, project, scan } = goToolchain();
    const plan = planOf(scan());
    const testing = path.join(goroot, 'src/testing/testing.go');
    const q = (p: string) => `'${p}'`;
    const r = runIn(
      project,
      plan,
      [
        `(echo '// every test passes' >> ${q(testing)}) 2>&1 || true`,
        `(cp /dev/null ${q(path.join(goroot, 'bin/go'))}) 2>&1 || true`,
        `(mv ${q(path.join(goroot, 'src'))} ${q(path.join(goroot, 'src.aside'))}) 2>&1 || true`,
        `touch ${q(path.join(goroot, 'src/beside.txt'))} && echo beside-ok`,
      ].join('\n'),
      busybox ? noTable(d) : process.env,
    );
    expect(r.status).toBe(0);
    expect(r.output.match(/Read-only file system/g)?.length).toBe(2);
    expect(r.output).toMatch(/Device or resource busy/);
    expect(r.output).toMatch(/beside-ok/);
    expect(readFileSync(testing, 'utf8')).toBe('package testing\n');
    expect(existsSync(path.join(goroot, 'src/testing'))).toBe(true);
  });

  it('a file swapped after the scan, before the mounts: the command never runs; put back, it runs', () => {
    const { goroot, project, scan } = goToolchain();
    const plan = planOf(scan());
    const testing = path.join(goroot, 'src/testing/testing.go');
    // the same bytes through a new file: only the listing through the mounts can tell
    writeFileSync(`${testing}.tmp`, 'package testing\n');
    renameSync(`${testing}.tmp`, testing);
    const marker = path.join(project, 'ran');
    const r = runIn(project, plan, `touch ${JSON.stringify(marker)}`);
    expect(r.status).toBe(INSTALLATION_MISMATCH_EXIT);
    expect(r.output).toMatch(/the runner's installation as the run would see it is not the one checked against the freeze/);
    expect(existsSync(marker)).toBe(false);
    // a fresh scan of what is there now: the run starts, also when a hard link made elsewhere
    // since (pnpm's store, `cp -al`) moved a file's change time and nothing else
    const plan2 = planOf(scan());
    linkSync(testing, path.join(path.dirname(project), 'elsewhere.go'));
    const again = runIn(project, plan2, `touch ${JSON.stringify(marker)}`);
    expect(again.output).toBe('');
    expect(again.status).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });
});
