import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HANDLED_NODE_TYPES, analyzeBash } from '../../src/gate/rules/bash/analyze.js';
import { parseShell } from '../../src/gate/rules/bash/parser.js';

/**
 * Parse or deny: every node kind the parser can produce is handled by the walker. The list of
 * kinds is read from the parser's own type declarations, so a parser upgrade that adds a kind
 * fails here until the walker handles it.
 */
const require = createRequire(import.meta.url);
const typesFile = path.join(path.dirname(require.resolve('unbash')), 'types.d.ts');
const declared = new Set([...readFileSync(typesFile, 'utf8').matchAll(/readonly type: "(\w+)"/g)].map((m) => m[1] as string));

/** One command per construct, each running `rm tests/a.test.ts` from inside that construct. */
const X = '$(rm tests/a.test.ts)';
const PLACES: [construct: string, command: string][] = [
  ['command argument', `echo ${X}`],
  ['double quotes', `echo "${X}"`],
  ['locale string', `echo $"${X}"`],
  ['backticks', 'echo `rm tests/a.test.ts`'],
  ['[[ ]] unary', `[[ -n ${X} ]]`],
  ['[[ ]] binary', `[[ a == ${X} ]]`],
  ['[[ ]] logical and not', `[[ ! -n a && ( -z ${X} ) ]]`],
  ['(( ))', `(( ${X} ))`],
  ['$(( ))', `echo $(( ${X} + 1 ))`],
  ['$(( )) ternary and unary', `echo $(( 1 ? -${X} : 2 ))`],
  ['$(( )) group', `echo $(( (${X}) ))`],
  ['for (( )) header', `for (( i=${X}; i<1; i++ )); do :; done`],
  ['for (( )) condition', `for (( i=0; i<${X}; i++ )); do :; done`],
  ['${x:-…}', `echo \${x:-${X}}`],
  ['${x#…}', `echo \${x#${X}}`],
  ['${x/…/…} pattern', `echo \${x/${X}/y}`],
  ['${x/…/…} replacement', `echo \${x/y/${X}}`],
  ['${x:…:…}', `echo \${x:${X}:1}`],
  ['${x^…}', `echo \${x^${X}}`],
  ['${a[…]}', `echo \${a[${X}]}`],
  ['case word', `case ${X} in *) ;; esac`],
  ['case pattern', `case x in ${X}) ;; esac`],
  ['case body', 'case x in *) rm tests/a.test.ts ;; esac'],
  ['array assignment', `a=( ${X} )`],
  ['array subscript assignment', `a[${X}]=1`],
  ['assignment prefix', `X=${X} true`],
  ['here-string', `cat <<< ${X}`],
  ['heredoc', `cat <<EOF\n${X}\nEOF`],
  ['redirect target', `echo > ${X}`],
  ['process substitution', 'cat <(rm tests/a.test.ts)'],
  ['brace expansion', `echo {a,${X}}`],
  ['bracket glob', `echo [${X}]`],
  ['extended glob', `echo @(${X})`],
  ['subshell', '(rm tests/a.test.ts)'],
  ['brace group', '{ rm tests/a.test.ts; }'],
  ['if / elif / else', 'if false; then :; elif false; then :; else rm tests/a.test.ts; fi'],
  ['for', 'for f in a; do rm tests/a.test.ts; done'],
  ['numbered redirect', 'echo x 2> tests/a.test.ts'],
  ['while', 'while false; do rm tests/a.test.ts; done'],
  ['until', 'until true; do rm tests/a.test.ts; done'],
  ['select', 'select x in a; do rm tests/a.test.ts; done'],
  ['function called', 'f() { rm tests/a.test.ts; }; f'],
  ['function never called', 'function f { rm tests/a.test.ts; }'],
  ['coproc', 'coproc rm tests/a.test.ts'],
  ['time and negation', 'time ! rm tests/a.test.ts'],
  ['pipeline', 'true | rm tests/a.test.ts'],
  ['and-or', 'false && rm tests/a.test.ts'],
  ['background', 'rm tests/a.test.ts &'],
  ['redirected compound', '{ :; } > tests/a.test.ts'],
  ['fd variable redirect', 'exec {fd}> tests/a.test.ts'],
  ['arithmetic on a value holding code', `x='a[${X}]'; echo $((x))`],
  ['indirect expansion of a subscript', `x='a[${X}]'; echo \${!x}`],
  ['prompt expansion', `x='${X}'; echo \${x@P}`],
  ['PS4 with set -x', `PS4='${X}'; set -x; ls`],
  ['let', `x='a[${X}]'; let x+1`],
  ['declare -i', `declare -i n='a[${X}]'`],
  ['[[ -eq ]] operand', `x='a[${X}]'; [[ $x -eq 1 ]]`],
];

function nodeTypes(value: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const v of value) nodeTypes(v, out);
  else if (value !== null && typeof value === 'object') {
    const t = (value as { type?: unknown }).type;
    if (typeof t === 'string') out.add(t);
    // Some children (word parts, substitution scripts) are lazy getters: read them by name too.
    const keys = new Set([...Object.keys(value), 'parts', 'script', 'expression', 'operation', 'index', 'body', 'prefixes', 'prefix', 'suffix', 'value', 'descriptor', 'redirects', 'delimiter', 'target']);
    for (const k of keys) if (k !== 'parent') nodeTypes((value as Record<string, unknown>)[k], out);
  }
  return out;
}

describe('every node kind of the parser is handled', () => {
  it('the parser declares the kinds the walker lists, and no others', () => {
    expect(declared.size).toBeGreaterThan(50);
    expect([...declared].filter((t) => !(HANDLED_NODE_TYPES as readonly string[]).includes(t))).toEqual([]);
    expect((HANDLED_NODE_TYPES as readonly string[]).filter((t) => !declared.has(t))).toEqual([]);
  });

  it('the sample commands produce every kind the parser declares (so the cases below cover them all)', () => {
    const seen = new Set<string>();
    for (const [, cmd] of PLACES) nodeTypes(parseShell(cmd), seen);
    // Kinds that only appear in other shapes: `${x@Q}`, `${!prefix*}`, an unknown operator.
    for (const extra of ['echo ${x@Q} ${!pre*} ${x~}', "echo $'a' 'b'"]) nodeTypes(parseShell(extra), seen);
    seen.add('Script');
    expect([...declared].filter((t) => !seen.has(t))).toEqual([]);
  });

  it.each(PLACES)('%s: the code inside is analysed (or the rest of the command is unknown)', (_construct, cmd) => {
    const a = analyzeBash(`${cmd}\necho done > tests/b.test.ts`, { cwd: '/r', home: '/h', root: '/r' });
    const found = a.writes.some((w) => w.path.endsWith('tests/a.test.ts')) || a.unknown.length > 0;
    expect(found, JSON.stringify(a)).toBe(true);
  });
});
