/**
 * How the gate's own additions to a test run's environment (its pytest plugin's folder on
 * PYTHONPATH, its node:test reporter in NODE_OPTIONS) compose with the project's. The project
 * may set the same variable in the environment it runs the CLI with (when stack.json lets it
 * through) or in the test command itself: `PYTHONPATH=src python3 -m pytest`,
 * `NODE_OPTIONS=--no-warnings node --test`, `env PYTHONPATH=src pytest`, `export X=…; cmd`. Either
 * way both values reach the runner: the gate's is put before or after the project's, never
 * instead of it, and the project's never replaces the gate's. Pure.
 */

export interface EnvAddition {
  name: string;
  value: string;
  /** `front`: the gate's value first (a folder searched before the project's); `end`: after (options read last win). */
  at: 'front' | 'end';
  /** Between two values: the path delimiter for a search path, a space for options. */
  sep: string;
}

/** A value with the addition composed into it; `prev` undefined or empty: the addition alone. */
export function composeValue(prev: string | undefined, add: EnvAddition): string {
  if (prev === undefined || prev === '') return add.value;
  return add.at === 'front' ? `${add.value}${add.sep}${prev}` : `${prev}${add.sep}${add.value}`;
}

/** The environment with every addition composed into it. */
export function composeEnv(env: Readonly<Record<string, string | undefined>>, additions: readonly EnvAddition[]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = { ...env };
  for (const a of additions) out[a.name] = composeValue(out[a.name], a);
  return out;
}

function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function isNameChar(c: string, first: boolean): boolean {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c === '_' || (!first && c >= '0' && c <= '9');
}

/** The name of an assignment word (`NAME=…`), or null. */
function assignedName(word: string): string | null {
  const eq = word.indexOf('=');
  if (eq <= 0) return null;
  for (let i = 0; i < eq; i++) if (!isNameChar(word[i]!, i === 0)) return null;
  return word.slice(0, eq);
}

/** Does the value refer to the variable it sets (`PYTHONPATH=src:$PYTHONPATH`)? Then the environment's value, additions included, already reaches it. */
function refersTo(value: string, name: string): boolean {
  for (let i = value.indexOf('$'); i !== -1; i = value.indexOf('$', i + 1)) {
    const rest = value.slice(i + 1);
    if (rest.startsWith(`{${name}}`) || rest.startsWith(`{${name}:`) || rest.startsWith(`{${name}-`)) return true;
    if (rest.startsWith(name) && !isNameChar(rest[name.length] ?? ' ', false)) return true;
  }
  return false;
}

/** The assignment word with the addition composed into the value it sets, as shell text. */
function composeWord(word: string, add: EnvAddition): string {
  const eq = word.indexOf('=');
  const value = word.slice(eq + 1);
  if (refersTo(value, add.name)) return word;
  const head = word.slice(0, eq + 1);
  if (value === '' || value === "''" || value === '""') return head + shQuote(add.value);
  return add.at === 'front' ? head + shQuote(add.value + add.sep) + value : head + value + shQuote(add.sep + add.value);
}

/** Characters that end a simple command at the top level of a shell line. */
const SEPARATORS = ';&|\n(){}';

interface Word {
  start: number;
  end: number;
}

/** The end of the shell word at `i` (quotes, escapes and `$(…)` kept whole). */
function wordEnd(s: string, i: number): number {
  let depth = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === "'") {
      const close = s.indexOf("'", i + 1);
      i = close === -1 ? s.length : close + 1;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
      i = j + 1;
      continue;
    }
    if (c === '`') {
      const close = s.indexOf('`', i + 1);
      i = close === -1 ? s.length : close + 1;
      continue;
    }
    if (c === '$' && s[i + 1] === '{') {
      const close = s.indexOf('}', i + 2);
      i = close === -1 ? s.length : close + 1;
      continue;
    }
    if (c === '$' && s[i + 1] === '(') {
      depth++;
      i += 2;
      continue;
    }
    if (depth > 0) {
      if (c === ')') depth--;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || SEPARATORS.includes(c)) return i;
    i++;
  }
  return Math.min(i, s.length);
}

/** Every word of a shell line, with where each simple command begins (after `;`, `&&`, `|`, a newline, `(`). */
function words(s: string): { words: Word[]; starts: Set<number> } {
  const out: Word[] = [];
  const starts = new Set<number>();
  let atStart = true;
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (SEPARATORS.includes(c)) {
      atStart = true;
      i++;
      continue;
    }
    const end = wordEnd(s, i);
    if (atStart) starts.add(out.length);
    out.push({ start: i, end: Math.max(end, i + 1) });
    atStart = false;
    i = Math.max(end, i + 1);
  }
  return { words: out, starts };
}

/**
 * The command with the additions composed into every value it sets for the same names: the
 * assignments before a command's program (`NAME=v cmd`), after `env` and its options, and in
 * `export NAME=v`. Other text is left byte for byte.
 */
export function composeCommand(command: string, additions: readonly EnvAddition[]): string {
  if (additions.length === 0) return command;
  const byName = new Map(additions.map((a) => [a.name, a]));
  const { words: ws, starts } = words(command);
  const edits: { start: number; end: number; text: string }[] = [];
  const consider = (w: Word) => {
    const text = command.slice(w.start, w.end);
    const name = assignedName(text);
    const add = name === null ? undefined : byName.get(name);
    if (add !== undefined) edits.push({ start: w.start, end: w.end, text: composeWord(text, add) });
    return name !== null;
  };
  for (let k = 0; k < ws.length; k++) {
    if (!starts.has(k)) continue;
    let j = k;
    // NAME=v … before the program
    while (j < ws.length && (j === k || !starts.has(j)) && consider(ws[j]!)) j++;
    const program = j < ws.length && (j === k || !starts.has(j)) ? command.slice(ws[j]!.start, ws[j]!.end) : null;
    if (program === 'env' || program === 'export' || program === 'declare' || program === 'local' || program === 'readonly') {
      j++;
      while (j < ws.length && !starts.has(j)) {
        const text = command.slice(ws[j]!.start, ws[j]!.end);
        if (consider(ws[j]!)) {
          j++;
          continue;
        }
        if (!text.startsWith('-')) {
          // `export A B`: names without values; `env cmd`: the program
          if (program === 'env') break;
          j++;
          continue;
        }
        j += program === 'env' && (text === '-u' || text === '--unset' || text === '-C' || text === '--chdir') ? 2 : 1;
      }
    }
  }
  let out = command;
  for (const e of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

/** The command and the environment of a run, with the gate's additions composed into the project's (see above). */
export function composeRun(command: string, env: Readonly<Record<string, string | undefined>>, additions: readonly EnvAddition[]): { command: string; env: Record<string, string | undefined> } {
  return { command: composeCommand(command, additions), env: composeEnv(env, additions) };
}
