/**
 * go test: the gate's own test at the end of every test binary (docs/evidence.md, "go test").
 *
 * Up to Go 1.19, `go test -json` builds its events from the text the test binary prints, so a
 * source that prints `--- PASS: TestAdd` and exits, or that rewrites its own output, makes events
 * that say "passed". The gate therefore adds a test of its own to every package that has tests,
 * through `go test -overlay` (a file that exists only for the build, in a fresh read-only folder
 * outside the project): its name carries a fresh random nonce per run, so nothing can print its
 * result lines in advance; its file sorts after every test file of the package, and it is an
 * external test (`package <name>_test`), which go runs after the package's internal tests. When it
 * runs it checks that the process's output is still what go test reads (os.Stdout and os.Stderr are
 * file descriptors 1 and 2; on Linux, what they point at is held by the go command that started the
 * binary and by no other descriptor of the binary), and appends one line to a file of the run
 * outside the project. GREEN then needs, for every package that ran tests, the nonce test's pass
 * event and its line without a finding (goJson.ts).
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The gate's test's name: this prefix and the run's nonce. */
export const GO_CANARY_PREFIX = 'TestTddGateEnd';

/** What the run's report must show, handed from the plan to the judge (as JSON through the runner). */
export interface GoCanaryExpect {
  /** The gate's test's full name for this run. */
  test: string;
  nonce: string;
  /** The package directories the test was added to (relative to the run's folder), and their import paths when go.mod says. */
  packages: { dir: string; pkg: string | null }[];
  /** Why the gate's test could not be added (GREEN refuses with it). */
  problem?: string;
  /** The command runs as written, without -json (go test behind other shell syntax): read from its text. */
  unreached?: boolean;
}

export interface GoCanaryPlan {
  command: string;
  /** Files for a fresh read-only folder; `token` (in the command and in the files) becomes its path. */
  tempFiles?: { files: Record<string, string>; token: string };
  expect: GoCanaryExpect;
}

const SKIP_DIRS = new Set(['node_modules', 'vendor', 'testdata', 'target']);
const MAX_DIRS = 20_000;

/** Directories below `root` holding `_test.go` files, with the package name their first test file declares. */
export function goTestDirs(root: string): { dir: string; name: string; files: string[] }[] {
  const out: { dir: string; name: string; files: string[] }[] = [];
  const queue = [''];
  let seen = 0;
  while (queue.length > 0 && seen++ < MAX_DIRS) {
    const rel = queue.shift()!;
    let entries;
    try {
      entries = readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    const goFiles: string[] = [];
    let name: string | null = null;
    for (const e of entries) {
      if (e.name.startsWith('.') || e.name.startsWith('_')) continue;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) queue.push(rel === '' ? e.name : `${rel}/${e.name}`);
        continue;
      }
      if (!e.name.endsWith('.go')) continue;
      goFiles.push(e.name);
      if (name === null && e.name.endsWith('_test.go')) name = packageName(path.join(root, rel, e.name));
    }
    if (name !== null) out.push({ dir: rel === '' ? '.' : rel, name, files: goFiles.sort() });
  }
  return out;
}

/** The package clause of a Go file, without an external test's `_test` (null when none can be read). */
export function packageName(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').slice(0, 64 * 1024);
  } catch {
    return null;
  }
  return packageClause(text);
}

export function packageClause(text: string): string | null {
  // Comments (a licence header, build constraints) come before the clause.
  const bare = text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, '');
  const m = /^\s*package\s+([A-Za-z_][A-Za-z0-9_]*)/m.exec(bare);
  if (!m?.[1]) return null;
  return m[1].endsWith('_test') ? m[1].slice(0, -'_test'.length) : m[1];
}

/** The import path of the package in `dir`, from the nearest go.mod at or above it inside `root`. */
export function importPath(root: string, dir: string): string | null {
  const parts = dir === '.' ? [] : dir.split('/');
  for (let k = parts.length; k >= 0; k--) {
    let mod: string;
    try {
      mod = readFileSync(path.join(root, ...parts.slice(0, k), 'go.mod'), 'utf8');
    } catch {
      continue;
    }
    const m = /^\s*module\s+"?([^\s"]+)"?/m.exec(mod);
    if (!m?.[1]) return null;
    const below = parts.slice(k).join('/');
    return below === '' ? m[1] : `${m[1]}/${below}`;
  }
  return null;
}

/**
 * The file's name in its package: it must sort after every Go file there (test files run in the
 * order of their names). Go accepts a name that starts with a non-ASCII letter, and such a name
 * sorts after every ASCII one.
 */
export function canaryFileName(nonce: string, files: readonly string[]): string {
  let name = `\u{10FFFD}tddgate_${nonce}_test.go`;
  const cmp = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  while (files.some((f) => cmp(f, name) >= 0)) name = `\u{10FFFD}${name}`;
  return name;
}

/**
 * A `-run` pattern that still selects the gate's test: go splits the pattern at each `/` outside
 * brackets and parentheses, one part per level of subtests; the gate's test has no subtests, so it
 * is added to the first part only.
 */
export function composeRun(pattern: string, test: string): string {
  let depth = 0;
  let cut = pattern.length;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[' || c === '(') depth++;
    else if ((c === ']' || c === ')') && depth > 0) depth--;
    else if (c === '/' && depth === 0) {
      cut = i;
      break;
    }
  }
  return `(?:${pattern.slice(0, cut)})|^${test}$${pattern.slice(cut)}`;
}

function quote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** A word of the command as the shell reads it: bare, or in single or double quotes (null: anything else). */
function unquote(word: string): string | null {
  if (/^'[^']*'$/.test(word)) return word.slice(1, -1);
  if (/^"[^"$`\\]*"$/.test(word)) return word.slice(1, -1);
  if (/^[^'"$`\\;&|<>(){}*?!\s]+$/.test(word)) return word;
  return null;
}

interface Flag {
  /** Where the flag starts and ends in the command (with its value). */
  start: number;
  end: number;
  value: string | null;
}

/** `-name=value`, `-name value` (and `--name`), in the part of the command after `go test` and before `-args`. */
function findFlags(rest: string, names: readonly string[]): Flag[] {
  const out: Flag[] = [];
  const stop = /(^|\s)--?args(\s|$)/.exec(rest);
  const limit = stop ? stop.index : rest.length;
  const alt = names.map((n) => n.replace(/\./g, '\\.')).join('|');
  const re = new RegExp(`(^|\\s)--?(?:${alt})(?:=('[^']*'|"[^"]*"|\\S*)|\\s+('[^']*'|"[^"]*"|\\S+))?(?=\\s|$)`, 'g');
  for (let m = re.exec(rest); m !== null && m.index < limit; m = re.exec(rest)) {
    const raw = m[2] ?? m[3];
    out.push({ start: m.index + (m[1]?.length ?? 0), end: m.index + m[0].length, value: raw === undefined ? null : unquote(raw) });
  }
  return out;
}

/** A boolean flag set on (`-shuffle=on`, `-shuffle=12345`), as opposed to absent or off. */
function isOn(flags: Flag[]): boolean {
  const last = flags[flags.length - 1];
  return last !== undefined && last.value !== 'off' && last.value !== null;
}

/**
 * The go command with the gate's test added: `-json` (unless written), `-vet=off` (go test's vet
 * reads a package's files from the disk in Go 1.19 and other releases, where the added file is not, and fails), the overlay,
 * and the `-run` pattern extended to select the gate's test. `head` is the command up to and
 * including `go test`, `rest` what follows. A command the gate's test cannot be added to runs as
 * written, with the reason GREEN will give.
 */
export function goCanaryPlan(head: string, rest: string, root: string, out: string, nonce = randomBytes(8).toString('hex'), base = '.'): GoCanaryPlan {
  // `base`: the folder go runs in (`go -C <folder>`), relative to the project's root.
  const at = path.join(root, base);
  const json = /(^|\s)--?json(?:=true)?(\s|$)/.test(rest) ? '' : ' -json';
  const test = `${GO_CANARY_PREFIX}${nonce}`;
  const plain = (problem: string): GoCanaryPlan => ({ command: `${head}${json}${rest}`, expect: { test, nonce, packages: [], problem } });
  // -shuffle would run the gate's test among the package's own, not after them: the verify runs
  // them in their declared order (what passes shuffled passes in order).
  const shuffle = findFlags(rest, ['shuffle', 'test.shuffle']);
  if (isOn(shuffle)) for (const f of [...shuffle].reverse()) rest = `${rest.slice(0, f.start)}${rest.slice(f.end)}`;
  const vet = findFlags(rest, ['vet']);
  if (vet.length > 0 && vet[vet.length - 1]!.value !== 'off') {
    return plain('test_command sets -vet, and go test’s vet (Go 1.19 and other releases) cannot see the test the gate adds to every package; put `go vet ./...` in lint_command and remove -vet from test_command in .tdd/stack.json');
  }
  if (findFlags(rest, ['list', 'test.list', 'c', 'i']).length > 0) return plain('test_command lists or only builds the tests (-list, -c): it runs none');
  const dirs = goTestDirs(at);
  if (dirs.length === 0) return { command: `${head}${json}${rest}`, expect: { test, nonce, packages: [] } };
  const token = `@tdd-gate-go-${randomBytes(12).toString('hex')}@`;
  const files: Record<string, string> = {};
  const replace: Record<string, string> = {};
  const packages: GoCanaryExpect['packages'] = [];
  dirs.forEach((d, k) => {
    const name = canaryFileName(nonce, d.files);
    replace[d.dir === '.' ? name : `${d.dir}/${name}`] = `${token}/end${k}_test.go`;
    files[`end${k}_test.go`] = goCanarySource(d.name, test, out, d.dir);
    const rel = path.posix.join(base, d.dir);
    packages.push({ dir: d.dir, pkg: rel.startsWith('..') ? null : importPath(root, rel) });
  });
  let command = rest;
  // The project's own overlay: merged with the gate's, which takes its place on the command line.
  const own = findFlags(command, ['overlay']);
  if (own.length > 0) {
    const last = own[own.length - 1]!;
    const theirs = last.value === null ? null : readOverlay(path.resolve(at, last.value));
    if (theirs === null) {
      return plain('test_command passes an -overlay file the gate cannot read to add its test to it; write its path as a plain word relative to the project, or remove -overlay from test_command');
    }
    // A relative path in the project's overlay is relative to the folder go runs in, as is the gate's.
    Object.assign(replace, theirs, { ...replace });
    for (const f of [...own].reverse()) command = `${command.slice(0, f.start)}${command.slice(f.end)}`;
  }
  // -run selects tests by name: the gate's test is added to the pattern (the last -run wins).
  const runs = findFlags(command, ['run', 'test.run']);
  if (runs.length > 0) {
    const last = runs[runs.length - 1]!;
    if (last.value === null) return plain('test_command’s -run pattern is not a plain or quoted word the gate can add its test to; write it in single quotes in .tdd/stack.json');
    command = `${command.slice(0, last.start)}-run=${quote(composeRun(last.value, test))}${command.slice(last.end)}`;
  }
  files['overlay.json'] = JSON.stringify({ Replace: replace });
  const vetOff = vet.length > 0 ? '' : ' -vet=off';
  return { command: `${head}${json}${vetOff} -overlay=${token}/overlay.json${command}`, tempFiles: { files, token }, expect: { test, nonce, packages } };
}

/** What GREEN says of a test command that runs go test where the gate cannot add its test. */
export function goUnreached(): GoCanaryExpect {
  return {
    test: GO_CANARY_PREFIX,
    nonce: '',
    packages: [],
    unreached: true,
    problem: 'test_command runs go test behind other shell syntax (`&&`, `;`, a pipe or a redirection), where its results are only text; make test_command a plain `go test …` call in .tdd/stack.json (`go -C <folder> test ./...` runs it in another folder, a go.work at the root reaches nested modules)',
  };
}

/** The Replace map of a go overlay file (null: it cannot be read as one). */
function readOverlay(file: string): Record<string, string> | null {
  try {
    const j = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (typeof j !== 'object' || j === null) return null;
    const r = (j as { Replace?: unknown }).Replace;
    if (r === undefined) return {};
    if (typeof r !== 'object' || r === null || Object.values(r).some((v) => typeof v !== 'string')) return null;
    return r as Record<string, string>;
  } catch {
    return null;
  }
}

/** A Go interpreted string literal (JSON's escapes are Go's). */
function goString(s: string): string {
  return JSON.stringify(s).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/**
 * The gate's test for one package (package `<name>_test`). Every name it declares at package level
 * carries the nonce; imports are file-scoped, so they meet nothing of the project's.
 */
export function goCanarySource(name: string, test: string, out: string, dir: string): string {
  return `package ${name}_test

import (
	"os"
	"reflect"
	"strconv"
	"syscall"
	"testing"
	"unsafe"
)

type ${test}Marker struct{}

func ${test}(t *testing.T) {
	out := ${goString(out)}
	dir := ${goString(dir)}
	link := func(p string) string {
		b := make([]byte, 4096)
		n, err := syscall.Readlink(p, b)
		if err != nil || n <= 0 {
			return ""
		}
		return string(b[:n])
	}
	var failures []string
	fail := func(s string) { failures = append(failures, s) }
	same := func(f *os.File, fd int, name string) {
		if f == nil {
			fail("os." + name + " is nil")
			return
		}
		if int(f.Fd()) != fd {
			fail("os." + name + " is no longer file descriptor " + strconv.Itoa(fd))
		}
		var a, b syscall.Stat_t
		if err := syscall.Fstat(fd, &a); err != nil {
			fail("file descriptor " + strconv.Itoa(fd) + " is closed")
			return
		}
		if err := syscall.Fstat(int(f.Fd()), &b); err != nil || a.Dev != b.Dev || a.Ino != b.Ino {
			fail("os." + name + " is not what file descriptor " + strconv.Itoa(fd) + " is")
		}
	}
	// The parent of a process as its /proc/<pid>/stat says: "pid (comm) state ppid ...", comm may hold spaces and parentheses.
	parent := func(base string) int {
		st, err := os.ReadFile(base + "/stat")
		if err != nil {
			return -1
		}
		s := string(st)
		i := len(s) - 1
		for i >= 0 && s[i] != ')' {
			i--
		}
		if i < 0 || i+4 >= len(s) {
			return -1
		}
		k := i + 4
		for k < len(s) && s[k] != ' ' {
			k++
		}
		n, err := strconv.Atoi(s[i+4 : k])
		if err != nil {
			return -1
		}
		return n
	}
	checked := "descriptors"
	check := func() []string {
	failures = nil
	same(os.Stdout, 1, "Stdout")
	same(os.Stderr, 2, "Stderr")
	self := link("/proc/self/exe")
	if self != "" {
		checked = "ancestor"
		mine := map[int]string{1: link("/proc/self/fd/1"), 2: link("/proc/self/fd/2")}
		// No other descriptor of the binary may point where its output goes (a copy kept to write the real output through).
		if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
			for _, e := range ents {
				n, err := strconv.Atoi(e.Name())
				if err != nil || n <= 2 {
					continue
				}
				l := link("/proc/self/fd/" + e.Name())
				if l != "" && (l == mine[1] || l == mine[2]) {
					fail("file descriptor " + strconv.Itoa(n) + " points where the test output goes too (" + l + ")")
				}
			}
		}
		// What descriptors 1 and 2 point at must be held by the process that reads the output (go test, or a -exec program): an ancestor that is not this program.
		for fd := 1; fd <= 2; fd++ {
			want := mine[fd]
			if want == "" {
				fail("file descriptor " + strconv.Itoa(fd) + " cannot be read")
				continue
			}
			found := false
			// The parent as /proc numbers it (the run may be in a PID namespace of its own under the host's /proc).
			pid := parent("/proc/self")
			for depth := 0; depth < 4 && pid > 1 && !found; depth++ {
				base := "/proc/" + strconv.Itoa(pid)
				if link(base+"/exe") != self {
					if ents, err := os.ReadDir(base + "/fd"); err == nil {
						for _, e := range ents {
							if link(base+"/fd/"+e.Name()) == want {
								found = true
								break
							}
						}
					}
				}
				pid = parent(base)
			}
			if !found {
				fail("file descriptor " + strconv.Itoa(fd) + " (" + want + ") is not the output go test reads")
			}
		}
	}
	return failures
	}
	q := func(s string) string {
		r := []byte{'"'}
		for _, c := range []byte(s) {
			switch {
			case c == '"' || c == '\\\\':
				r = append(r, '\\\\', c)
			case c < 0x20 || c >= 0x7f:
				r = append(r, '\\\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			default:
				r = append(r, c)
			}
		}
		return string(append(r, '"'))
	}
	pkg := reflect.TypeOf(${test}Marker{}).PkgPath()
	write := func(at string, found []string, after bool) error {
		line := \`{"tddGateCanary":1,"go":1,"worker":true,"argv":[],"pid":\` + strconv.Itoa(os.Getpid()) + \`,"test":\` + q(${goString(test)}) + \`,"pkg":\` + q(pkg) + \`,"dir":\` + q(dir) + \`,"at":\` + q(at) + \`,"after":\` + strconv.FormatBool(after) + \`,"checked":\` + q(checked) + \`,"failures":[\`
		for i, f := range found {
			if i > 0 {
				line += ","
			}
			line += q(f)
		}
		line += "]}\\n"
		fd, err := syscall.Open(out, syscall.O_WRONLY|syscall.O_APPEND|syscall.O_CREAT|syscall.O_CLOEXEC, 0o600)
		if err != nil {
			return err
		}
		defer syscall.Close(fd)
		_, err = syscall.Write(fd, []byte(line))
		return err
	}
	// Tests that call t.Parallel run after every sequential test, this one too: the check runs again
	// when all of them are done, in a cleanup of the binary's root test (the parent of every
	// top-level test, a testing.T whose common part comes first; found through reflection, so a Go
	// that lays it out otherwise just goes without).
	after := false
	if f, ok := reflect.TypeOf(t).Elem().FieldByName("common"); ok && f.Offset == 0 && f.Index[0] == 0 {
		if p := reflect.ValueOf(t).Elem().FieldByName("parent"); p.IsValid() && p.Kind() == reflect.Ptr && !p.IsNil() && p.Type().Elem() == f.Type {
			root := (*testing.T)(unsafe.Pointer(p.Pointer()))
			root.Cleanup(func() { _ = write("after", check(), false) })
			after = true
		}
	}
	found := check()
	if err := write("end", found, after); err != nil {
		t.Fatal("tdd-gate: the end-of-binary line could not be written: " + err.Error())
	}
	if len(found) > 0 {
		t.Fatal("tdd-gate: " + found[0])
	}
}
`;
}
