import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { applyInPlace, type InPlaceEdit } from '../../src/gate/rules/bash/inPlace.js';

/**
 * What `sed -i` and `perl -pi` leave in a file, computed the way the hook does (RED reads the
 * STUB:TDD marker from it, GREEN the runner settings in package.json). Every script the module
 * computes is checked against the real program on the same text; scripts it cannot be sure of
 * give null.
 */
const STUB = "// STUB:TDD\nexport function f(): never {\n  throw new Error('not implemented');\n}\n";
const PKG = '{\n  "name": "x",\n  "scripts": { "test": "vitest run" },\n  "dependencies": {}\n}\n';
const TEXTS = [STUB, PKG, 'a\nb\nc', 'one two one two\n', '', 'x\n\ny\n'];

function real(edit: InPlaceEdit, text: string): string {
  const args = edit.lang === 'sed' ? [...(edit.extended ? ['-E'] : []), ...edit.scripts.flatMap((s) => ['-e', s])] : ['-p', ...edit.scripts.flatMap((s) => ['-e', s])];
  return execFileSync(edit.lang, args, { input: text, encoding: 'utf8' });
}

const has = (program: string) => {
  try {
    execFileSync(program, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

const SED: InPlaceEdit[] = [
  { lang: 'sed', scripts: ['s/not implemented/todo/'] },
  { lang: 'sed', scripts: ['s/o/0/g'] },
  { lang: 'sed', scripts: ['s/o/0/2'] },
  { lang: 'sed', scripts: ['s/o/0/2g'] },
  { lang: 'sed', scripts: ['s/ONE/1/I'] },
  { lang: 'sed', scripts: ['s/\\(one\\) \\(two\\)/\\2 \\1/'] },
  { lang: 'sed', scripts: ['s/(one) (two)/\\2-\\1/g'], extended: true },
  { lang: 'sed', scripts: ['s/[[:alpha:]]*/<&>/'] },
  { lang: 'sed', scripts: ['s/^/\\/\\/ STUB:TDD\\n/'] },
  { lang: 'sed', scripts: ['1s/^/\\/\\/ STUB:TDD\\n/'] },
  { lang: 'sed', scripts: ['s|never|void|'] },
  { lang: 'sed', scripts: ['s#"dependencies": {}#"dependencies": { "lodash": "^4" }#'] },
  { lang: 'sed', scripts: ['1i // STUB:TDD'] },
  { lang: 'sed', scripts: ['$a // end'] },
  { lang: 'sed', scripts: ['/STUB:TDD/d'] },
  { lang: 'sed', scripts: ['2,3d'] },
  { lang: 'sed', scripts: ['/export/,/^}/s/^/  /'] },
  { lang: 'sed', scripts: ['2c replaced'] },
  { lang: 'sed', scripts: ['s/a*/-/g'] },
  { lang: 'sed', scripts: ['s/\\.\\*/x/; s/t\\{2\\}/T/'] },
  { lang: 'sed', scripts: ['s/x$/X/', 's/^y/Y/'] },
  { lang: 'sed', scripts: ['s/[]a]/!/g'] },
  { lang: 'sed', scripts: ['s/*/star/'] },
  { lang: 'sed', scripts: ['$d'] },
  { lang: 'sed', scripts: ['1,$s/x/y/'] },
  { lang: 'sed', scripts: ['/^$/d'] },
  { lang: 'sed', scripts: ['s/[^a-z]//g'] },
  { lang: 'sed', scripts: ['s/\\<one\\>/1/g'] },
  { lang: 'sed', scripts: ['s/ *$//'] },
  { lang: 'sed', scripts: ['s/a\\+/A/g; s/e\\?x/E/'] },
];

const PERL: InPlaceEdit[] = [
  { lang: 'perl', scripts: ['s/not implemented/todo/g'] },
  { lang: 'perl', scripts: ['s/(one) (two)/$2 $1/'] },
  { lang: 'perl', scripts: ['s/\\s+$//'] },
  { lang: 'perl', scripts: ['s/one|two/X/g'] },
  { lang: 'perl', scripts: ['s/o/0/gi; s/t/T/'] },
  { lang: 'perl', scripts: ['s/a*/-/g'] },
  { lang: 'perl', scripts: ['s#never#void#'] },
];

describe('in-place edits computed as the programs make them', () => {
  it.runIf(has('sed')).each(SED.map((e) => [e.scripts.join(' ; '), e] as const))('sed %s', (_l, edit) => {
    for (const text of TEXTS) expect(applyInPlace(edit, text), JSON.stringify(text)).toBe(real(edit, text));
  });

  it.runIf(has('perl')).each(PERL.map((e) => [e.scripts.join(' ; '), e] as const))('perl %s', (_l, edit) => {
    for (const text of TEXTS) expect(applyInPlace(edit, text), JSON.stringify(text)).toBe(real(edit, text));
  });
});

describe('scripts whose result is not certain are not computed', () => {
  it.each([
    ['alternation (POSIX takes the longest match, JavaScript the first)', { lang: 'sed', scripts: ['s/S\\|STUB:TDD/S/'] }],
    ['alternation in ERE', { lang: 'sed', scripts: ['s/S|STUB:TDD/S/'], extended: true }],
    ['a repeated group', { lang: 'sed', scripts: ['s/\\(ab\\)*//'] }],
    ['print flag (duplicates lines in place)', { lang: 'sed', scripts: ['s/a/b/p'] }],
    ['write flag', { lang: 'sed', scripts: ['s/a/b/w out'] }],
    ['execute flag', { lang: 'sed', scripts: ['s/a/b/e'] }],
    ['case conversion', { lang: 'sed', scripts: ['s/a/\\U&/'] }],
    ['an empty regex (the last one used)', { lang: 'sed', scripts: ['s//x/'] }],
    ['other commands', { lang: 'sed', scripts: ['y/abc/xyz/'] }],
    ['hold space', { lang: 'sed', scripts: ['1h;2G'] }],
    ['negated address', { lang: 'sed', scripts: ['1!d'] }],
    ['multi-line insert', { lang: 'sed', scripts: ['1i\\\n// STUB:TDD'] }],
    ['an unterminated substitution', { lang: 'sed', scripts: ['s/a/b'] }],
    ['a word delimiter', { lang: 'sed', scripts: ['sxaxbx'] }],
    ['perl code that is not a substitution', { lang: 'perl', scripts: ['$_ = "" if /STUB/'] }],
    ['perl interpolation', { lang: 'perl', scripts: ['s/a/$x/'] }],
    ['perl inline modifiers', { lang: 'perl', scripts: ['s/(?i)stub//'] }],
    ['perl POSIX classes', { lang: 'perl', scripts: ['s/[[:alpha:]]//'] }],
    ['perl case conversion', { lang: 'perl', scripts: ['s/a/\\U$&/'] }],
    ['perl braces', { lang: 'perl', scripts: ['s{never}{void}'] }],
  ] as const)('%s', (_what, edit) => {
    expect(applyInPlace(edit as InPlaceEdit, STUB)).toBeNull();
  });
});
