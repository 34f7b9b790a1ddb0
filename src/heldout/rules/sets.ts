/**
 * The two sets of a cycle (docs/heldout.md): what RED requires of the held-out set, and what a
 * refusal may say about a held-out test. Pure: no file system, no process.
 */

/** The file part of a test id (`<file or scope>::<name>`). */
function fileOfId(id: string): string {
  const at = id.indexOf('::');
  return at === -1 ? id : id.slice(0, at);
}

/** The name part of a test id: what a refusal may show of a held-out test. */
export function nameOfId(id: string): string {
  const at = id.indexOf('::');
  return at === -1 ? id : id.slice(at + 2);
}

/** `AC-1` in a test's id as a whole id (not the start of `AC-10`). */
function namesCriterion(text: string, id: string): boolean {
  let from = 0;
  for (;;) {
    const at = text.indexOf(id, from);
    if (at === -1) return false;
    const before = at === 0 ? '' : text[at - 1]!;
    const after = text[at + id.length] ?? '';
    if (!/[A-Za-z0-9]/.test(before) && !/[0-9]/.test(after)) return true;
    from = at + 1;
  }
}

interface RedSetsInput {
  /** The tests that made RED valid (new or changed this cycle, failing on an assertion). */
  redTests: readonly string[];
  /** Which of them are held out. */
  isHeldout: (id: string) => boolean;
  /** The SPEC's criterion ids (scenarios), in order; empty when the SPEC names none. */
  criteria: readonly string[];
  /** Held-out files in the tree, for the message when none of their tests counted. */
  heldoutFiles: readonly string[];
}

type RedSetsVerdict = { ok: true; rule: 'per-scenario' | 'overall' } | { ok: false; rule: 'per-scenario' | 'overall'; reason: string };

/**
 * RED with two sets: both the visible and the held-out set fail for the right reason. When the
 * tests name the SPEC's scenarios (`AC-1` in a test's name or file), each scenario a visible RED
 * test names needs a held-out RED test naming it too; otherwise the tests cannot be matched to
 * scenarios and one held-out RED test overall is the rule (the reason says which rule applied).
 */
export function judgeRedSets(i: RedSetsInput): RedSetsVerdict {
  const held = i.redTests.filter(i.isHeldout);
  const visible = i.redTests.filter((t) => !i.isHeldout(t));
  const named = i.criteria.filter((c) => visible.some((t) => namesCriterion(t, c)));
  const rule = named.length > 0 ? 'per-scenario' : 'overall';
  const files = i.heldoutFiles.length > 0 ? ` (held-out files: ${i.heldoutFiles.slice(0, 4).join(', ')}${i.heldoutFiles.length > 4 ? ' …' : ''})` : '';
  if (visible.length === 0) {
    return { ok: false, rule, reason: 'no visible test fails for this cycle: RED needs both sets, the visible tests and the held-out tests, failing on an assertion; write the visible tests and verify red again' };
  }
  if (rule === 'per-scenario') {
    const missing = named.filter((c) => !held.some((t) => namesCriterion(t, c)));
    if (missing.length > 0) {
      return {
        ok: false,
        rule,
        reason: `scenarios without a failing held-out test: ${missing.join(', ')} (the rule per scenario: the tests name the SPEC's criteria, so each scenario with a visible RED test needs a held-out one naming it too)${files}; write held-out tests of the same behaviour with other inputs and edge cases, failing on an assertion, and verify red again`,
      };
    }
    return { ok: true, rule };
  }
  if (held.length === 0) {
    return {
      ok: false,
      rule,
      reason: `no held-out test fails for this cycle (the rule overall: the tests do not name the SPEC's criteria, so at least one held-out test in all)${files}; write held-out tests of the same behaviour with other inputs and edge cases in files the stack's heldout_glob names, failing on an assertion, and verify red again`,
    };
  }
  return { ok: true, rule };
}

const ESC = String.fromCharCode(27);

/** Terminal colour codes out (`ESC[31m`). */
function stripAnsi(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (text[i] === ESC && text[i + 1] === '[') {
      let j = i + 2;
      while (j < text.length && /[0-9;]/.test(text[j]!)) j++;
      if (text[j] === 'm') {
        i = j + 1;
        continue;
      }
    }
    out += text[i];
    i++;
  }
  return out;
}

const MAX_LINES = 6;
const MAX_CHARS = 600;

/** A line that shows code or where it is: a code frame, a source line, a stack frame, a file:line reference. */
function isCodeLine(line: string, hidden: readonly string[]): boolean {
  const t = line.trim();
  if (t === '') return false;
  if (hidden.some((h) => h !== '' && line.includes(h))) return true;
  // vitest/jest code frames (`> 12 |   expect(…)`, ` 13 |`, `    |    ^`), pytest source lines (`>       assert …`)
  if (/^>?\s*\d*\s*\|/.test(t) || t.startsWith('>')) return true;
  if (/^\^+$/.test(t)) return true;
  // stack frames (`at fn (file:1:2)`, vitest's `❯ file:1:2`), a file:line anywhere (`tests/x.py:12:`, `x_test.go:8:`)
  if (/^(at\s|❯|→)/.test(t)) return true;
  if (/[\w.-]+\.[A-Za-z]{1,5}:\d+/.test(t)) return true;
  // pytest's explanation of the compared values repeats the expression (`+  where 0 = add(-1, -2)`)
  if (/^\+\s+(where|and)\b/.test(t)) return true;
  // the source of the test (a def, a call with an assertion)
  if (/^(def |async def |func |fn |it\(|test\(|describe\(|assert\w*\(|expect\()/.test(t)) return true;
  return false;
}

/**
 * What a refusal may show of a held-out test's failure: its assertion message, with every code
 * frame, source line, stack frame and file reference taken out (`hidden`: paths and names that
 * must not appear). Lines of pytest's `E   ` prefix keep their text without it.
 */
export function assertionOnly(message: string, hidden: readonly string[] = []): string {
  const kept: string[] = [];
  let chars = 0;
  for (const raw of stripAnsi(message).split(/\r?\n/)) {
    // pytest's `E   ` prefix; go's `    add_test.go:8: ` before the message the test wrote
    const line = raw.replace(/^E\s+/, '').replace(/^\s*[\w.-]+\.[A-Za-z]{1,5}:\d+(:\d+)?: /, '').trimEnd();
    if (line.trim() === '' || isCodeLine(line, hidden)) continue;
    // a message that starts with where it failed (`add_heldout_test.go:8: Add(…) = 0, want -3`) keeps what follows
    kept.push(line.length > 200 ? `${line.slice(0, 200)}…` : line);
    chars += line.length;
    if (kept.length >= MAX_LINES || chars >= MAX_CHARS) break;
  }
  return kept.length > 0 ? kept.join(' / ') : '(the assertion printed no message that can be shown)';
}

interface HeldoutFailure {
  /** The test's name (no file). */
  name: string;
  /** Its assertion message, as assertionOnly leaves it. */
  message: string;
}

/**
 * A GREEN refusal with held-out tests out of sight: the judge's reason with every held-out test id
 * replaced by its name and every held-out file by "a held-out test file", then each failing
 * held-out test's name and assertion message.
 */
export function heldoutRefusal(reason: string, heldoutIds: readonly string[], heldoutFiles: readonly string[], failures: readonly HeldoutFailure[]): string {
  let text = reason;
  for (const id of [...heldoutIds].sort((a, b) => b.length - a.length)) text = text.split(id).join(`held-out test "${nameOfId(id)}"`);
  for (const f of [...heldoutFiles].sort((a, b) => b.length - a.length)) {
    text = text.split(f).join('a held-out test file');
    const base = f.slice(f.lastIndexOf('/') + 1);
    if (base.length > 3) text = text.split(base).join('a held-out test file');
  }
  if (failures.length === 0) return text;
  const shown = failures.slice(0, 5).map((f) => `held-out test "${f.name}": ${f.message}`);
  return `${text}. The held-out tests (unseen tests of the same behaviour) that fail: ${shown.join('; ')}${failures.length > 5 ? `; and ${failures.length - 5} more` : ''}. Implement the behaviour the SPEC describes for every input, not only the visible tests' examples`;
}

/** The test functions a Go test file declares (`func TestX(t *testing.T)`): go test names its tests by package, not by file. */
export function goTestNames(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^func\s+(Test\w*)\s*\(\s*\w+\s+\*testing\.T\s*\)/gm)) out.push(m[1]!);
  return out;
}

/**
 * Which test ids are held out: those of a held-out file (`<file>::<name>`), and for runners that
 * name a scope instead of a file (go test: `<package>::TestX/sub`), those whose top-level name a
 * held-out file declares (`declared`: file → names).
 */
export function heldoutIdMatcher(heldoutRels: readonly string[], declared: Record<string, readonly string[]>): (id: string) => boolean {
  const files = new Set(heldoutRels);
  const byDir = new Map<string, Set<string>>();
  for (const [rel, names] of Object.entries(declared)) {
    const dir = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
    const set = byDir.get(dir) ?? new Set<string>();
    for (const n of names) set.add(n);
    byDir.set(dir, set);
  }
  const allDeclared = new Set([...byDir.values()].flatMap((s) => [...s]));
  return (id) => {
    if (files.has(fileOfId(id))) return true;
    const name = nameOfId(id);
    const top = name.split('/')[0] ?? name;
    return allDeclared.has(top) && fileOfId(id) !== id;
  };
}
