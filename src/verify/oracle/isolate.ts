import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunWrap } from '../runner.js';
import { sha256Hex } from '../../state/hash.js';
import { snapshotCopyPath } from '../../state/snapshots.js';
import { TDD_DIR } from '../../state/rules/tddDir.js';
import type { NamespacePlan } from '../installation.js';

export type Isolation = 'namespace' | 'copy';

/**
 * Runs inside a private mount namespace: a tmpfs only this namespace sees gets the frozen copies
 * (checked against the freeze's hashes after it is made read-only), each frozen path in the
 * project is bind-mounted read-only from there, and the test command runs in a nested user
 * namespace, where those mounts are locked (it cannot remount them writable).
 * The runner's installation is held still the same way (installation.ts, namespacePlan): its
 * roots bind-mounted read-only, the folders above them pinned, and the run starts only when a
 * listing through those mounts is the one the scan hashed.
 * Arguments: $1 project root, $2 mount point, $3 command, $4 uid, $5 gid, $6 a cache folder the
 * run may write (or nothing), $7 the sha256 the installation's listing must have (or nothing);
 * stdin: the manifest, then sections each headed by a line \`#tdd-gate:<name>\` (\`fstab\`, \`pins\`, \`ro\`,
 * \`list.sh\`; a manifest line starts with a digest, never with \`#\`).
 */
const SCRIPT = `set -eu
root=$1; mnt=$2; cmd=$3; uid=$4; gid=$5; cache=\${6:-}; listsum=\${7:-}
mount -t tmpfs -o mode=0700 tdd-gate-oracle "$mnt"
cat > "$mnt/input"
: > "$mnt/manifest"; : > "$mnt/fstab"; : > "$mnt/pins"; : > "$mnt/ro"; : > "$mnt/list.sh"
awk -v d="$mnt" 'BEGIN { f = d "/manifest" } /^#tdd-gate:/ { close(f); f = d "/" substr($0, 11); next } { print > f }' "$mnt/input"
# The runner's installation: the folders above it pinned, its roots read-only (one mount program
# for them all), then listed through the mounts: the run starts only with what the scan hashed.
if [ -s "$mnt/fstab" ]; then
  if ! mount -a -T "$mnt/fstab" > "$mnt/mount.log" 2>&1; then
    # a mount program that reads no table of ours (BusyBox): one call per path
    while IFS= read -r p; do
      mount --rbind "$p" "$p" >> "$mnt/mount.log" 2>&1 || { echo "tdd-gate: the runner's installation could not be mounted read-only: $(head -c 300 "$mnt/mount.log")" >&2; exit 96; }
    done < "$mnt/pins"
    while IFS= read -r p; do
      { mount --bind "$p" "$p" && mount -o remount,bind,ro "$p"; } >> "$mnt/mount.log" 2>&1 || { echo "tdd-gate: the runner's installation could not be mounted read-only: $(head -c 300 "$mnt/mount.log")" >&2; exit 96; }
    done < "$mnt/ro"
  fi
  while IFS= read -r p; do
    if [ -w "$p" ]; then echo "tdd-gate: the runner's installation could not be mounted read-only ($p stays writable)" >&2; exit 96; fi
  done < "$mnt/ro"
fi
if [ -n "$listsum" ]; then
  got=$(sh "$mnt/list.sh" | LC_ALL=C sort -z | sha256sum)
  if [ "\${got%% *}" != "$listsum" ]; then
    echo "tdd-gate: the runner's installation as the run would see it is not the one checked against the freeze" >&2; exit 96
  fi
fi
mkdir "$mnt/f"
# -p: the frozen bytes keep the time of the freeze, so a build tool that goes by times (cargo)
# does not rebuild against them at every run; their bytes are checked by hash below.
# (the folder by the shell's own expansion, made only when missing: a program started per file
# costs milliseconds, and a project freezes tens of test files)
while IFS= read -r line; do
  rel=\${line#*  }
  case $rel in */*) dir=$mnt/f/\${rel%/*} ;; *) dir=$mnt/f ;; esac
  [ -d "$dir" ] || mkdir -p "$dir"
  cp -p "$root/.tdd/snapshots/frozen/$rel.copy" "$mnt/f/$rel"
done < "$mnt/manifest"
if [ -d "$root/.tdd/runs" ]; then
  mkdir "$mnt/runs"
  mount --bind "$root/.tdd/runs" "$mnt/runs"
fi
if [ -n "$cache" ] && [ -d "$cache" ]; then
  mkdir "$mnt/cache"
  mount --bind "$cache" "$mnt/cache"
fi
mount -o remount,bind,ro "$mnt"
if [ -s "$mnt/manifest" ] && ! (cd "$mnt/f" && sha256sum -c --quiet --strict "$mnt/manifest" >/dev/null 2>&1); then
  echo "tdd-gate: the frozen snapshot copies do not match the freeze" >&2; exit 97
fi
while IFS= read -r line; do
  rel=\${line#*  }
  mount --bind "$mnt/f/$rel" "$root/$rel"
  mount -o remount,bind,ro "$root/$rel"
done < "$mnt/manifest"
# The gate's own files, git's and Claude Code's settings are read-only to the tests too; only
# the run's report folder stays writable.
for d in .tdd .git .claude; do
  if [ -d "$root/$d" ] && [ ! -L "$root/$d" ]; then
    mount --bind "$root/$d" "$root/$d"
    mount -o remount,bind,ro "$root/$d"
  fi
done
if [ -d "$mnt/runs" ]; then
  mount --bind "$mnt/runs" "$root/.tdd/runs"
fi
# The run's bytecode folder (in the git directory's tdd-gate store) stays writable: what the run
# writes there is checked by digest and dropped before any later run reads it (pyCache.ts).
if [ -d "$mnt/cache" ]; then
  mount --bind "$mnt/cache" "$cache"
fi
cd "$root"
if unshare -U -m --map-user="$uid" --map-group="$gid" true 2>/dev/null; then
  exec unshare -U -m --map-user="$uid" --map-group="$gid" sh -c "$cmd" </dev/null 2>&1
fi
exec sh -c "$cmd" </dev/null 2>&1
`;

/** The exit code the script uses when the snapshot copies are not the frozen bytes. */
export const SNAPSHOT_MISMATCH_EXIT = 97;

/** The exit code the script uses when the installation could not be mounted, or is not what the scan hashed. */
export const INSTALLATION_MISMATCH_EXIT = 96;

/**
 * A private mount namespace (as root, or through a user namespace), and where the kernel allows
 * it a PID namespace too: when the test command ends, every process it left behind is killed
 * before the report is read, so nothing the tests started can rewrite the report afterwards.
 */
function unshareArgs(pid: boolean): string[] {
  const base = process.getuid?.() === 0 ? ['-m', '--propagation', 'private'] : ['-r', '-m', '--propagation', 'private'];
  return pid ? [...base, '-p', '--fork'] : base;
}

/** null: not probed yet; false: no namespace; else whether the PID namespace works as well. */
let probed: false | { pid: boolean } | null = null;

/** Does this kernel let us make a private mount namespace (as root, or through a user namespace)? */
export function namespaceWorks(): boolean {
  if (probed === null) probed = probeNamespace(true) ? { pid: true } : probeNamespace(false) ? { pid: false } : false;
  return probed !== false;
}

function pidNamespaceWorks(): boolean {
  return namespaceWorks() && probed !== null && probed !== false && probed.pid;
}

function probeNamespace(pid: boolean): boolean {
  if (process.platform !== 'linux') return false;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tdd-gate-probe-'));
  try {
    // The whole path once: a frozen file copied, checked, bind-mounted read-only, then a command
    // that must not be able to write it.
    const target = path.join(dir, 'target');
    mkdirSync(target);
    mkdirSync(path.join(dir, 'root', TDD_DIR, 'snapshots', 'frozen'), { recursive: true });
    writeFileSync(path.join(dir, 'root', 'probe.txt'), 'live\n');
    writeFileSync(path.join(dir, 'root', TDD_DIR, 'snapshots', 'frozen', 'probe.txt.copy'), 'frozen\n');
    const uid = String(process.getuid?.() ?? 0);
    const gid = String(process.getgid?.() ?? 0);
    const check = 'test "$(cat probe.txt)" = frozen && ! (echo x > probe.txt) 2>/dev/null';
    const r = spawnSync('unshare', [...unshareArgs(pid), 'sh', '-c', SCRIPT, 'tdd-gate-oracle', path.join(dir, 'root'), target, check, uid, gid], {
      input: `${sha256Hex('frozen\n')}  probe.txt\n`,
      stdio: ['pipe', 'ignore', 'ignore'],
      timeout: 10_000,
    });
    return r.status === 0;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface Prepared {
  isolation: Isolation;
  /** Where the command runs (the project itself, or the private copy). */
  cwd: string;
  wrap?: RunWrap;
  /** Extra environment for the run. */
  env: NodeJS.ProcessEnv;
  cleanup: () => void;
}

function manifestOf(frozen: Record<string, string>): string {
  return Object.entries(frozen)
    .map(([rel, h]) => `${h}  ${rel}\n`)
    .join('');
}

/** The script's stdin: the frozen manifest, then the installation's sections. */
function inputOf(frozen: Record<string, string>, installation: NamespacePlan | null): string {
  if (installation === null) return manifestOf(frozen);
  const lines = (ps: readonly string[]) => ps.map((p) => `${p}\n`).join('');
  return `${manifestOf(frozen)}#tdd-gate:fstab\n${installation.fstab}#tdd-gate:pins\n${lines(installation.pins)}#tdd-gate:ro\n${lines(installation.readOnly)}#tdd-gate:list.sh\n${installation.listScript}`;
}

/**
 * The namespace run: the project as it is, the frozen paths replaced by read-only frozen bytes,
 * and the runner's installation (when recorded) read-only and checked through its mounts.
 */
export function prepareNamespace(root: string, frozen: Record<string, string>, cache: string | null = null, installation: NamespacePlan | null = null): Prepared {
  const mnt = mkdtempSync(path.join(os.tmpdir(), 'tdd-gate-oracle-'));
  const uid = String(process.getuid?.() ?? 0);
  const gid = String(process.getgid?.() ?? 0);
  return {
    isolation: 'namespace',
    cwd: root,
    env: {},
    wrap: (command) => ({
      file: 'unshare',
      args: [...unshareArgs(pidNamespaceWorks()), 'sh', '-c', SCRIPT, 'tdd-gate-oracle', root, mnt, command, uid, gid, cache ?? '', installation?.listSha256 ?? ''],
      input: inputOf(frozen, installation),
    }),
    cleanup: () => rmSync(mnt, { recursive: true, force: true }),
  };
}

/** Top-level directories linked, not copied, into the private copy: dependencies and build caches. */
const LINKED = new Set(['node_modules', 'target', '.venv', 'venv']);

/**
 * The copy run: a private copy of the project's files, the frozen paths written from the
 * snapshot copies (already checked against the freeze by the caller).
 */
export function prepareCopy(root: string, files: readonly string[], frozen: Record<string, string>, placedLater: readonly string[] = []): Prepared {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tdd-gate-oracle-copy-'));
  const copy = path.join(dir, path.basename(root));
  mkdirSync(copy, { mode: 0o700 });
  for (const rel of files) {
    if (rel in frozen || rel.startsWith(`${TDD_DIR}/`)) continue;
    const top = rel.split('/')[0] ?? '';
    if (LINKED.has(top)) continue;
    const dest = path.join(copy, rel);
    try {
      mkdirSync(path.dirname(dest), { recursive: true });
      cpSync(path.join(root, rel), dest, { verbatimSymlinks: true });
    } catch {
      // a file that vanished meanwhile
    }
  }
  for (const top of LINKED) {
    try {
      if (lstatSync(path.join(root, top))) symlinkSync(path.join(root, top), path.join(copy, top));
    } catch {
      // not there
    }
  }
  // (`placedLater`: held-out tests, written from their store by the caller)
  for (const rel of Object.keys(frozen)) {
    if (placedLater.includes(rel)) continue;
    const dest = path.join(copy, rel);
    mkdirSync(path.dirname(dest), { recursive: true });
    copyFileSync(snapshotCopyPath(root, 'frozen', rel), dest);
  }
  return { isolation: 'copy', cwd: copy, env: { CARGO_TARGET_DIR: path.join(root, 'target') }, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
