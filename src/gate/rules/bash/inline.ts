/**
 * Inline interpreter code (`node -e`, `python -c`, `ruby -e`, `perl -e`, `php -r`, awk programs).
 * No interpreter is parsed: the code is judged by the file-writing APIs it calls. When it calls
 * one, every string literal it holds is a possible target (reading a test is fine, writing one
 * is not); when it shells out, each literal is analysed as a shell command too.
 */

interface InlineFindings {
  /** The code calls a file-writing or shell-out API. */
  writes: boolean;
  /** String literals that may be write targets (path.join pieces also joined with `/`). */
  paths: string[];
  /** String literals passed to a shell-out API. */
  shellCommands: string[];
}

const WRITE_API: Record<string, RegExp> = {
  js: /\b(?:writeFile|writeFileSync|appendFile|appendFileSync|createWriteStream|rm|rmSync|rmdir|rmdirSync|unlink|unlinkSync|rename|renameSync|copyFile|copyFileSync|cp|cpSync|truncate|truncateSync|symlink|symlinkSync|link|linkSync|chmod|chmodSync|utimes|utimesSync|writeSync|outputFile|outputFileSync|writeJson|writeJsonSync|remove|removeSync|move|moveSync|Bun\.write|Deno\.writeTextFile|Deno\.writeFile|Deno\.remove)\s*\(|\bopen(?:Sync)?\s*\([^;\n]*?['"`](?:[wa]|r\+)[+sx]*['"`]/,
  python: /\bopen\s*\([^;\n]*?,\s*(?:mode\s*=\s*)?['"][rbt]*[wax+][rwaxbt+]*['"]|\bmode\s*=\s*['"][rbt]*[wax+]|\.(?:write_text|write_bytes|touch|unlink|rename|rmdir|symlink_to|hardlink_to|chmod)\s*\(|\bos\.(?:remove|unlink|rename|replace|rmdir|removedirs|truncate|symlink|link|chmod|makedirs|mkdir|open|write)\s*\(|\bshutil\.(?:copy|copy2|copyfile|copytree|move|rmtree|copymode)\s*\(|\bio\.open\s*\([^)]*['"][rbt]*[wax+]/,
  ruby: /\b(?:File|IO)\.(?:write|binwrite|delete|unlink|rename|symlink|link|truncate|chmod)\b|\b(?:File|IO)\.open\s*\(?[^;\n]*?['"][rb]*[wa+]|\bFileUtils\.\w+|\bPathname\b[^;]*\.(?:write|delete|unlink|rename)/,
  perl: /\bopen\s*\(?[^;]*['"]\s*(?:\+?[<>]|>>|\|)|\b(?:unlink|rename|truncate|chmod|symlink|link|rmdir)\b|\bFile::(?:Copy|Path)|\b(?:copy|move)\s*\(/,
  php: /\b(?:file_put_contents|fopen|unlink|rename|copy|touch|rmdir|fwrite|fputs|symlink|link|chmod|tempnam)\s*\(/,
  awk: /\bprintf?\b[^;{}]*>|\|\s*getline|\bsystem\s*\(|\bprintf?\b[^;{}]*\|/,
};

const SHELL_API: Record<string, RegExp> = {
  js: /\b(?:exec|execSync|execFile|execFileSync|spawn|spawnSync|\$)\s*[(`]|child_process|Bun\.spawn|Deno\.(?:run|Command)/,
  python: /\b(?:os\.system|os\.popen|subprocess\.\w+|os\.exec\w*|os\.spawn\w*|pty\.spawn)\s*\(/,
  ruby: /\b(?:system|exec|spawn|IO\.popen|Open3\.\w+)\s*[( '"]|`|%x/,
  perl: /\b(?:system|exec)\b|`|\bqx\b/,
  php: /\b(?:system|exec|shell_exec|passthru|proc_open|popen)\s*\(|`/,
  awk: /\bsystem\s*\(|\|\s*getline|\bprintf?\b[^;{}]*\|/,
};

const LANG_ALIASES: Record<string, string> = { node: 'js', deno: 'js', bun: 'js', tsx: 'js', 'ts-node': 'js' };

/** Flags and encodings, not paths: skipped as targets so their presence does not count as a path. */
const NOT_A_PATH = /^(?:[rwaxbt+]{1,3}|utf-?8|utf8|ascii|latin1|binary|base64|hex|\s*)$/i;

/** The code reaches the home directory (`os.homedir()`, `expanduser`, `$HOME`): literals may sit under it. */
const HOME_API = /\bhomedir\s*\(|expanduser|Path\.home\s*\(|\bENV\[['"]HOME['"]\]|environ(?:\.get\s*\(|\[)\s*['"]HOME['"]|process\.env\.HOME|\$HOME|getenv\s*\(\s*['"]HOME['"]/;

/**
 * A program file (`node build.js`, `python3 gen.py`) is judged line by line: only the literals on
 * lines that call a file-writing or shell-out API count, so a large file's other strings (test
 * names, fixtures it reads) do not.
 */
export function analyzeProgramFile(lang: string, code: string): InlineFindings {
  const key = LANG_ALIASES[lang] ?? lang;
  const writeApi = WRITE_API[key] ?? WRITE_API.js;
  const shellApi = SHELL_API[key] ?? SHELL_API.js;
  const out: InlineFindings = { writes: false, paths: [], shellCommands: [] };
  for (const line of code.split('\n')) {
    const shells = shellApi?.test(line) ?? false;
    if (!shells && !(writeApi?.test(line) ?? false)) continue;
    const found = analyzeInline(lang, line);
    out.writes ||= found.writes;
    out.paths.push(...found.paths);
    if (shells) out.shellCommands.push(...found.shellCommands);
  }
  out.paths = [...new Set(out.paths)];
  return out;
}

export function analyzeInline(lang: string, code: string): InlineFindings {
  const key = LANG_ALIASES[lang] ?? lang;
  const writeApi = WRITE_API[key] ?? WRITE_API.js;
  const shellApi = SHELL_API[key] ?? SHELL_API.js;
  const shells = shellApi?.test(code) ?? false;
  const writes = (writeApi?.test(code) ?? false) || shells;
  if (!writes) return { writes: false, paths: [], shellCommands: [] };
  // Module names are not paths: `require('fs')`, `import … from 'node:fs'`.
  const bare = code.replace(/\b(?:require|import)\s*\(\s*(['"`])[^'"`]*\1\s*\)|\bfrom\s+(['"])[^'"]*\2|\bimport\s+(['"])[^'"]*\3/g, (m) => ' '.repeat(m.length));
  const built = concatenations(bare);
  // A literal that only ever serves as a piece of a path built in full (`dir + '/out.txt'`) is not a target on its own.
  const literals = stringLiterals(bare, built.consumed);
  // perl/ruby open modes ride on the name: open(F, ">tests/a.ts"), open("| cmd").
  const paths = [...literals.map((l) => l.replace(/^\s*[+<>|]+\s*/, '')).filter((l) => !NOT_A_PATH.test(l)), ...joinedPieces(code), ...built.paths];
  const home = HOME_API.test(code) ? paths.filter((p) => !p.startsWith('/') && !p.startsWith('~')).map((p) => `~/${p}`) : [];
  return { writes, paths: [...new Set([...paths, ...home])], shellCommands: shells ? stringLiterals(bare) : [] };
}

const NAME = String.raw`[A-Za-z_$][\w$]*`;
const LITERAL = String.raw`'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"`;

type Piece = string | { name: string };

/**
 * Paths the code builds from strings held in names: `const dir = 'out'; dir + '/a.json'`,
 * `'out' + '/a.json'`, `` `${dir}/a.json` ``, `f"{dir}/a.json"`. Each known value of a name is
 * tried; an expression with a name that holds no literal is left out (its pieces still count on
 * their own). `consumed`: where the literals stand that serve only as such pieces.
 */
function concatenations(code: string): { paths: string[]; consumed: [number, number][] } {
  const values = new Map<string, string[]>();
  const assigned: { name: string; at: [number, number]; nameAt: number }[] = [];
  for (const m of code.matchAll(new RegExp(String.raw`(^|[^\w$.])(${NAME})\s*=\s*(${LITERAL})\s*(?=[;\n,)]|$)`, 'g'))) {
    const name = m[2] as string;
    const [lit] = stringLiterals(m[3] ?? '');
    if (lit === undefined) continue;
    values.set(name, [...(values.get(name) ?? []), lit]);
    const litAt = (m.index ?? 0) + m[0].length - (m[3] ?? '').length - (m[0].length - m[0].trimEnd().length);
    assigned.push({ name, at: [litAt, litAt + (m[3] ?? '').length], nameAt: (m.index ?? 0) + (m[1] ?? '').length });
  }
  const paths: string[] = [];
  const consumed: [number, number][] = [];
  /** Where each name is used inside an expression that was built in full. */
  const resolvedUses = new Set<number>();
  const expand = (parts: readonly Piece[]): boolean => {
    let acc = [''];
    for (const p of parts) {
      const options = typeof p === 'string' ? [p] : values.get(p.name);
      if (options === undefined) return false;
      acc = acc.flatMap((a) => options.map((o) => a + o)).slice(0, 16);
    }
    paths.push(...acc);
    return true;
  };
  // `a + '/x' + b`, `'out' + '/x'`
  const sum = new RegExp(String.raw`(?:${NAME}|${LITERAL})(?:\s*\+\s*(?:${NAME}|${LITERAL}))+`, 'g');
  for (const m of code.matchAll(sum)) {
    const start = m.index ?? 0;
    if (start > 0 && /[\w$.]/.test(code[start - 1] as string)) continue; // `obj.name + …`: a property, not a name
    const tokens = [...m[0].matchAll(new RegExp(String.raw`${NAME}|${LITERAL}`, 'g'))];
    const parts: Piece[] = tokens.map((t) => (t[0].startsWith("'") || t[0].startsWith('"') ? (stringLiterals(t[0])[0] ?? '') : { name: t[0] }));
    if (!expand(parts)) continue;
    for (const t of tokens) {
      const at = start + (t.index ?? 0);
      if (t[0].startsWith("'") || t[0].startsWith('"')) consumed.push([at, at + t[0].length]);
      else resolvedUses.add(at);
    }
  }
  // `${a}/x` and f"{a}/x"
  for (const m of code.matchAll(/`((?:[^`\\]|\\.)*)`|\bf(['"])((?:(?!\2)[^\\\n]|\\.)*)\2/g)) {
    const body = m[1] ?? m[3] ?? '';
    const re = m[1] !== undefined ? /\$\{\s*([A-Za-z_$][\w$]*)\s*\}/g : /\{\s*([A-Za-z_][\w]*)\s*\}/g;
    const uses = [...body.matchAll(re)];
    if (uses.length === 0) continue;
    const parts: Piece[] = [];
    let at = 0;
    for (const v of uses) {
      parts.push(body.slice(at, v.index), { name: v[1] as string });
      at = (v.index ?? 0) + v[0].length;
    }
    parts.push(body.slice(at));
    if (!expand(parts)) continue;
    const bodyAt = (m.index ?? 0) + (m[1] !== undefined ? 1 : 2);
    for (const v of uses) resolvedUses.add(bodyAt + (v.index ?? 0) + v[0].indexOf(v[1] as string));
  }
  // A name whose every use is inside a built path: its literal values are pieces, not targets.
  for (const name of values.keys()) {
    const uses = [...code.matchAll(new RegExp(String.raw`(?<![\w$.])${name.replace(/\$/g, '\\$')}(?![\w$])`, 'g'))].map((u) => u.index ?? 0);
    const defs = new Set(assigned.filter((a) => a.name === name).map((a) => a.nameAt));
    if (uses.every((u) => defs.has(u) || resolvedUses.has(u))) for (const a of assigned) if (a.name === name) consumed.push(a.at);
  }
  return { paths, consumed };
}

/** Quoted strings in the code: '…', "…", `…` (template literals without `${`); those starting in `skip` are left out. */
function stringLiterals(code: string, skip: readonly [number, number][] = []): string[] {
  const out: string[] = [];
  const re = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\$]|\\.)*)`/g;
  for (const m of code.matchAll(re)) {
    if (skip.some(([a, b]) => (m.index ?? 0) >= a && (m.index ?? 0) < b)) continue;
    const raw = m[1] ?? m[2] ?? m[3] ?? '';
    out.push(raw.replace(/\\(.)/g, '$1'));
  }
  return out;
}

/** `path.join('tests', 'a.test.ts')`, `os.path.join(…)`, `Path('tests') / 'a.test.ts'`: the joined path. */
function joinedPieces(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(/\b(?:join|resolve)\s*\(/g)) {
    const pieces = stringLiterals(balanced(code, (m.index ?? 0) + m[0].length));
    if (pieces.length > 1) out.push(pieces.join('/'));
  }
  for (const m of code.matchAll(/((?:['"][^'"]*['"]\s*\)?\s*\/\s*)+['"][^'"]*['"])/g)) {
    const pieces = stringLiterals(m[1] ?? '');
    if (pieces.length > 1) out.push(pieces.join('/'));
  }
  return out;
}

/** The text from `start` up to the parenthesis that closes the one just before it. */
function balanced(code: string, start: number): string {
  let depth = 1;
  for (let i = start; i < code.length && i < start + 2000; i++) {
    if (code[i] === '(') depth++;
    else if (code[i] === ')' && --depth === 0) return code.slice(start, i);
  }
  return code.slice(start, start + 2000);
}
