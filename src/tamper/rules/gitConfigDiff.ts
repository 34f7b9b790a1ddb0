/**
 * A repository's git configuration (`.git/config`, a worktree's `config.worktree`) changed during
 * a cycle: ordinary work, or a change of what git runs? Ordinary git work writes it (`git push -u`,
 * `git branch -u`, `git remote add`, `git config user.email`, `git submodule init`); an agent's
 * program can write `core.fsmonitor` into it. The text is parsed the way git parses it and the two
 * versions are compared key by key: the change is ordinary when every key added, changed or removed
 * is in a short list of keys that only name places, branches and people, with values that run
 * nothing. Anything else, and any text this parser does not read exactly as git would, is dangerous.
 * Pure: text in, verdict out.
 */

/** One `key = value` line: `section[.subsection].name`, section and name lower-cased as git does. */
export interface ConfigEntry {
  section: string;
  /** null when the header has none; kept as written for `[s "sub"]`, lower-cased for `[s.sub]` (git's legacy form). */
  subsection: string | null;
  name: string;
  /** null: a key with no `=` (a boolean true). */
  value: string | null;
}

export type ParsedConfig = { ok: true; entries: ConfigEntry[] } | { ok: false; error: string };

function isAlpha(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

function isKeyChar(c: string): boolean {
  return isAlpha(c) || (c >= '0' && c <= '9') || c === '-';
}

/** git's own isspace() (its sane_ctype): space, tab, newline, carriage return; not \v or \f. */
function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

/**
 * Parse git configuration text as git's config.c does: `[section]`, `[section "sub"]` (with `\"`
 * and `\\` escapes), `[section.sub]`, keys that may follow a header on the same line, values with
 * quotes, the escapes `\n \t \b \\ \"`, a backslash-newline continuation, `#` and `;` comments
 * outside quotes, CRLF line ends and a UTF-8 byte order mark. What git would reject is an error here.
 */
export function parseGitConfig(text: string): ParsedConfig {
  let i = text.startsWith('\uFEFF') ? 1 : 0;
  // git reads "\r\n" as "\n"; the end of the text as "\n".
  const next = (): string => {
    if (i >= text.length) {
      i++;
      return '\n';
    }
    const c = text[i++] as string;
    if (c === '\r' && text[i] === '\n') {
      i++;
      return '\n';
    }
    return c;
  };
  const eof = () => i > text.length;
  const entries: ConfigEntry[] = [];
  let section: string | null = null;
  let subsection: string | null = null;
  let comment = false;
  const fail = (error: string): ParsedConfig => ({ ok: false, error });
  for (;;) {
    if (i >= text.length) return { ok: true, entries };
    const c = next();
    if (c === '\n') {
      comment = false;
      continue;
    }
    if (comment || isSpace(c)) continue;
    if (c === '#' || c === ';') {
      comment = true;
      continue;
    }
    if (c === '[') {
      let name = '';
      let sub: string | null = null;
      for (;;) {
        if (eof()) return fail('a section header is not closed');
        const h = next();
        if (h === ']') break;
        if (isSpace(h)) {
          // [section "subsection"]
          let s = h;
          while (isSpace(s)) {
            if (s === '\n') return fail('a section header is not closed');
            s = next();
          }
          if (s !== '"') return fail('a subsection name is not quoted');
          sub = '';
          for (;;) {
            let q = next();
            if (q === '\n') return fail('a subsection name is not closed');
            if (q === '"') break;
            if (q === '\\') {
              q = next();
              if (q === '\n') return fail('a subsection name is not closed');
            }
            sub += q;
          }
          if (next() !== ']') return fail('a section header does not end after its subsection');
          break;
        }
        if (!isKeyChar(h) && h !== '.') return fail(`a section name holds "${h}"`);
        name += h.toLowerCase();
      }
      if (name === '') return fail('a section name is empty');
      if (sub === null && name.includes('.')) {
        // [section.sub]: git's legacy form, the whole name lower-cased.
        const dot = name.indexOf('.');
        section = name.slice(0, dot);
        subsection = name.slice(dot + 1);
        if (section === '' || subsection === '') return fail('a section name is malformed');
      } else {
        if (name.includes('.')) return fail('a section name with a dot has a subsection too');
        section = name;
        subsection = sub;
      }
      continue;
    }
    if (!isAlpha(c)) return fail(`a line starts with "${c}"`);
    if (section === null) return fail('a key comes before any section');
    let key = c.toLowerCase();
    let v = next();
    while (isKeyChar(v)) {
      key += v.toLowerCase();
      v = next();
    }
    while (v === ' ' || v === '\t') v = next();
    if (v === '\n') {
      // next() turned the line end (or the end of the text) into "\n": the line is over.
      entries.push({ section, subsection, name: key, value: null });
      continue;
    }
    if (v !== '=') return fail(`the key ${key} is followed by "${v}"`);
    const value = parseValue(next);
    if (value === null) return fail(`the value of ${section}.${key} is malformed`);
    entries.push({ section, subsection, name: key, value });
  }
}

function parseValue(next: () => string): string | null {
  let out = '';
  let quote = false;
  let inComment = false;
  let spaces = 0;
  for (;;) {
    let c = next();
    if (c === '\n') return quote ? null : out;
    if (inComment) continue;
    if (isSpace(c) && !quote) {
      if (out.length > 0) spaces++;
      continue;
    }
    if (!quote && (c === ';' || c === '#')) {
      inComment = true;
      continue;
    }
    if (spaces > 0) {
      out += ' '.repeat(spaces);
      spaces = 0;
    }
    if (c === '\\') {
      c = next();
      if (c === '\n') continue;
      if (c === 't') c = '\t';
      else if (c === 'b') c = '\b';
      else if (c === 'n') c = '\n';
      else if (c !== '\\' && c !== '"') return null;
      out += c;
      continue;
    }
    if (c === '"') {
      quote = !quote;
      continue;
    }
    out += c;
  }
}

/** The key as git names it: `section.subsection.name`. */
export function keyName(e: Pick<ConfigEntry, 'section' | 'subsection' | 'name'>): string {
  return e.subsection === null ? `${e.section}.${e.name}` : `${e.section}.${e.subsection}.${e.name}`;
}

/** A URL git would hand to a program (`ext::`) or could read as an option: never ordinary. */
function plainUrl(v: string | null): boolean {
  return v !== null && v !== '' && !v.startsWith('-') && !v.toLowerCase().startsWith('ext::');
}

const UPDATE_MODES = ['checkout', 'rebase', 'merge', 'none'];

/**
 * The keys ordinary git work writes into a repository's configuration and that change nothing git
 * runs: where remotes are and which refs they carry, which branch tracks which, who commits.
 * Keyed by section, then by name (lower-cased); a check of the value where the value could name a
 * program. Everything else is dangerous.
 */
const SAFE: Record<string, { sub: boolean; names: Record<string, (v: string | null) => boolean> }> = {
  remote: {
    sub: true,
    names: {
      url: plainUrl,
      pushurl: plainUrl,
      fetch: () => true,
      push: () => true,
      tagopt: () => true,
      mirror: () => true,
      prune: () => true,
      prunetags: () => true,
      skipdefaultupdate: () => true,
      skipfetchall: () => true,
    },
  },
  branch: { sub: true, names: { remote: () => true, merge: () => true, rebase: () => true, pushremote: () => true, description: () => true } },
  // `git submodule init` copies the URL and marks it active; an update mode of `!command` runs a program.
  submodule: { sub: true, names: { url: plainUrl, active: () => true, branch: () => true, update: (v) => v !== null && UPDATE_MODES.includes(v) } },
  user: { sub: false, names: { name: () => true, email: () => true, signingkey: () => true } },
  author: { sub: false, names: { name: () => true, email: () => true } },
  committer: { sub: false, names: { name: () => true, email: () => true } },
  init: { sub: false, names: { defaultbranch: () => true } },
  gc: { sub: false, names: { auto: () => true } },
  push: { sub: false, names: { default: () => true, autosetupremote: () => true } },
  pull: { sub: false, names: { rebase: () => true, ff: () => true } },
  fetch: { sub: false, names: { prune: () => true } },
};

/** Is this key (whatever its value) one ordinary git work removes? */
export function safeName(e: Pick<ConfigEntry, 'section' | 'subsection' | 'name'>): boolean {
  const s = Object.hasOwn(SAFE, e.section) ? SAFE[e.section] : undefined;
  return s !== undefined && s.sub === (e.subsection !== null) && Object.hasOwn(s.names, e.name);
}

/** Is this key, with this value, one ordinary git work writes and that runs nothing? */
export function safeKey(e: ConfigEntry): boolean {
  const s = Object.hasOwn(SAFE, e.section) ? SAFE[e.section] : undefined;
  if (s === undefined || s.sub !== (e.subsection !== null)) return false;
  if (!Object.hasOwn(s.names, e.name)) return false;
  return (s.names[e.name] as (v: string | null) => boolean)(e.value);
}

export interface KeyChange {
  key: string;
  change: 'added' | 'changed' | 'removed';
}

export type ConfigVerdict =
  /** Every changed key is ordinary (or nothing changed). */
  | { safe: true; changes: KeyChange[] }
  /** A key that changes what git runs was added, changed or removed; or the text is not git configuration. */
  | { safe: false; dangerous: KeyChange[]; reason: string };

function valuesByKey(entries: readonly ConfigEntry[]): Map<string, ConfigEntry[]> {
  const m = new Map<string, ConfigEntry[]>();
  for (const e of entries) {
    const k = keyName(e);
    const list = m.get(k);
    if (list === undefined) m.set(k, [e]);
    else list.push(e);
  }
  return m;
}

function sameValues(a: readonly ConfigEntry[], b: readonly ConfigEntry[]): boolean {
  return a.length === b.length && a.every((e, n) => e.value === b[n]?.value);
}

/**
 * Compare the accepted text of a git configuration with its text now. Safe when every key whose
 * values differ is ordinary in both versions (a removed key is judged by the values it had, an
 * added one by its new values). The current text must parse as git parses it.
 */
export function diffGitConfig(before: string, after: string): ConfigVerdict {
  const a = parseGitConfig(before);
  const b = parseGitConfig(after);
  if (!b.ok) return { safe: false, dangerous: [], reason: `it can no longer be read as git configuration (${b.error})` };
  if (!a.ok) return { safe: false, dangerous: [], reason: `its recorded text cannot be read as git configuration (${a.error})` };
  const was = valuesByKey(a.entries);
  const now = valuesByKey(b.entries);
  const changes: KeyChange[] = [];
  const dangerous: KeyChange[] = [];
  for (const key of new Set([...was.keys(), ...now.keys()])) {
    const old = was.get(key) ?? [];
    const cur = now.get(key) ?? [];
    if (sameValues(old, cur)) continue;
    const change: KeyChange = { key, change: old.length === 0 ? 'added' : cur.length === 0 ? 'removed' : 'changed' };
    changes.push(change);
    if (![...old, ...cur].every(safeKey)) dangerous.push(change);
  }
  if (dangerous.length === 0) return { safe: true, changes };
  return { safe: false, dangerous, reason: dangerous.map((d) => `${d.key} was ${d.change}`).join(', ') };
}
